/*
 * elasticctl check (check_io.h): what this host finds about itself: its
 * plugstack.conf as SPANK reads it (includes followed, the plugin looked
 * up in PluginDir, the release it was built for read), a request to elasticd
 * as its clients make one, and munge.  Nothing is decided here.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <munge.h>

#include "apiclient/apiclient.h"
#include "apiclient/apicred.h"
#include "common/server.h"
#include "check_io.h"
#include "elasticctl.h"

/* Includes within includes: Slurm sets no bound, a loop would not end. */
#define STACK_DEPTH_MAX 16
#define ED_TIMEOUT_MS	10000L
#define ED_BODY_MAX	(64UL << 20)

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Where Slurm finds the plugin: the path if absolute, else the first
 * directory of PluginDir (a colon list) that has it. */
static void stack_find(const char *path, const char *plugindir, char *found,
		       size_t len)
{
	char dirs[POLICY_PATH_MAX * 4], *save = NULL, *d;

	found[0] = '\0';
	if (path[0] == '/') {
		if (is_file(path))
			check_copy(found, len, path);
		return;
	}
	check_copy(dirs, sizeof(dirs), plugindir);
	for (d = strtok_r(dirs, ":", &save); d;
	     d = strtok_r(NULL, ":", &save)) {
		char p[POLICY_PATH_MAX * 2];

		snprintf(p, sizeof(p), "%s%s%s", d,
			 d[strlen(d) - 1] == '/' ? "" : "/", path);
		if (is_file(p)) {
			check_copy(found, len, p);
			return;
		}
	}
}

/* Is section sh (of a mapped file of size bytes) inside the file? */
static bool elf_inside(const Elf64_Shdr *sh, size_t size)
{
	return sh->sh_offset <= size && sh->sh_size <= size - sh->sh_offset;
}

/* plugin_version in dynamic symbol table t of a mapped 64-bit ELF
 * object: 0, or -1 if it is not there. */
static int elf_find(const unsigned char *map, size_t size, const Elf64_Ehdr *eh,
		    const Elf64_Shdr *sh, const Elf64_Shdr *t,
		    uint32_t *version)
{
	const Elf64_Shdr *strs = &sh[t->sh_link];
	const Elf64_Sym *sym = (const void *)(map + t->sh_offset);
	const char *str = (const char *)map + strs->sh_offset;

	if (t->sh_link >= eh->e_shnum || !elf_inside(strs, size) ||
	    !strs->sh_size || str[strs->sh_size - 1])
		return -1;
	for (size_t j = 0; j < t->sh_size / sizeof(*sym); j++) {
		const Elf64_Shdr *in = &sh[sym[j].st_shndx];
		uint64_t off;

		if (sym[j].st_name >= strs->sh_size ||
		    strcmp(str + sym[j].st_name, "plugin_version") ||
		    sym[j].st_shndx >= eh->e_shnum ||
		    in->sh_type != SHT_PROGBITS ||
		    sym[j].st_value < in->sh_addr)
			continue;
		off = in->sh_offset + (sym[j].st_value - in->sh_addr);
		if (off > size || size - off < sizeof(*version))
			continue;
		memcpy(version, map + off, sizeof(*version));
		return 0;
	}
	return -1;
}

/* plugin_version in a mapped 64-bit ELF object: NULL, or why not. */
static const char *elf_version(const unsigned char *map, size_t size,
			       uint32_t *version)
{
	const Elf64_Ehdr *eh = (const void *)map;
	const Elf64_Shdr *sh;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_type != ET_DYN ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(*sh) < eh->e_shnum)
		return "not a shared object";
	sh = (const void *)(map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM && elf_inside(&sh[i], size) &&
		    elf_find(map, size, eh, sh, &sh[i], version) == 0)
			return NULL;
	return "no plugin_version: not a Slurm plugin";
}

/* The Slurm release the plugin was built for, read from its file, not
 * loaded: its code never runs here, nor need its symbols resolve in this
 * program.  A 32-bit object is not read (its version stays unknown). */
static void stack_version(struct check_spank_line *l)
{
	int fd = open(l->found, O_RDONLY | O_CLOEXEC), e;
	const unsigned char *map = MAP_FAILED;
	const char *why = NULL;
	struct stat st;
	size_t size = 0;

	if (fd >= 0 && fstat(fd, &st) == 0 && (size = (size_t)st.st_size))
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	e = errno;
	if (fd >= 0)
		close(fd);
	if (map == MAP_FAILED) {
		why = size ? strerror(e) : "an empty file";
	} else {
		if (size <= EI_CLASS || map[EI_CLASS] != ELFCLASS32)
			why = elf_version(map, size, &l->version);
		munmap((void *)map, size);
	}
	if (why)
		check_copy(l->load_error, sizeof(l->load_error), why);
}

static void stack_keep(struct check_stack *st, const char *file,
		       unsigned lineno, bool required, const char *path,
		       const char *args, const char *plugindir)
{
	struct check_spank_line *l;
	char conf[POLICY_PATH_MAX + 1];
	elastic_error_t err;

	if (st->nlines == CHECK_STACK_LINES)
		return;
	l = &st->line[st->nlines++];
	memset(l, 0, sizeof(*l));
	check_copy(l->file, sizeof(l->file), file);
	l->line = lineno;
	l->required = required;
	check_copy(l->path, sizeof(l->path), path);
	check_copy(l->args, sizeof(l->args), args);
	stack_find(path, plugindir, l->found, sizeof(l->found));
	if (l->found[0])
		stack_version(l);
	if (!check_stack_args(args, conf, sizeof(conf), &err) && conf[0])
		l->conf_missing = !is_file(conf);
}

static void stack_file(struct check_stack *st, const char *path,
		       const char *plugindir, unsigned depth);

/* include GLOB: relative to the including file's directory. */
static void stack_include(struct check_stack *st, const char *file,
			  const char *pattern, const char *plugindir,
			  unsigned depth)
{
	char full[POLICY_PATH_MAX * 2];
	const char *slash = strrchr(file, '/');
	glob_t gl;

	if (pattern[0] == '/' || !slash)
		check_copy(full, sizeof(full), pattern);
	else
		snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - file),
			 file, pattern);
	if (glob(full, 0, NULL, &gl) != 0)
		return;
	for (size_t i = 0; i < gl.gl_pathc; i++)
		stack_file(st, gl.gl_pathv[i], plugindir, depth + 1);
	globfree(&gl);
}

static void stack_file(struct check_stack *st, const char *path,
		       const char *plugindir, unsigned depth)
{
	char buf[4096], p[POLICY_PATH_MAX + 1], args[CHECK_ARGS_MAX];
	unsigned lineno = 0;
	FILE *f;

	if (depth > STACK_DEPTH_MAX)
		return;
	if (!(f = fopen(path, "re"))) {
		if (!depth)
			st->error = errno;
		return;
	}
	/* Lines as Slurm reads them: 4095 bytes at the most. */
	while (fgets(buf, sizeof(buf), f)) {
		enum check_stack_kind k =
		    check_stack_line(buf, p, sizeof(p), args, sizeof(args));

		lineno++;
		if (k == CHECK_STACK_INCLUDE)
			stack_include(st, path, p, plugindir, depth);
		else if ((k == CHECK_STACK_REQUIRED ||
			  k == CHECK_STACK_OPTIONAL) &&
			 check_stack_is_ours(p))
			stack_keep(st, path, lineno, k == CHECK_STACK_REQUIRED,
				   p, args, plugindir);
	}
	fclose(f);
}

void check_probe_stack(struct check_site *s)
{
	struct check_stack *st = &s->host.stack;
	const char *conf = getenv("SLURM_CONF");
	const char *slash = conf ? strrchr(conf, '/') : NULL;

	memset(st, 0, sizeof(*st));
	/* Unset in slurm.conf: plugstack.conf beside it. */
	if (s->slurm.plugstack && s->slurm.plugstack[0])
		check_copy(st->path, sizeof(st->path), s->slurm.plugstack);
	else if (slash)
		snprintf(st->path, sizeof(st->path), "%.*s/plugstack.conf",
			 (int)(slash - conf), conf);
	else
		snprintf(st->path, sizeof(st->path), "%s/plugstack.conf",
			 SLURM_SYSCONFDIR);
	stack_file(st, st->path, s->slurm.plugindir ? s->slurm.plugindir : "",
		   0);
	s->host.stack_read = true;
}

static double wall_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* What elasticd's status says. */
static enum check_elasticd status_of(long status)
{
	if (status >= 200 && status < 300)
		return CHECK_ED_OK;
	if (status == 401 || status == 403)
		return CHECK_ED_REFUSED;
	return status == 503 ? CHECK_ED_NOT_READY : CHECK_ED_OTHER;
}

static void ed_request(struct check_host *h, const struct apiclient *api)
{
	struct apiclient_body b = { .max = ED_BODY_MAX };
	elastic_error_t err;
	double t0 = wall_now(), t1;

	switch (apiclient_request(api, "GET", "/v1/groups", ED_TIMEOUT_MS,
				  &h->ed_status, &b, &err)) {
	case APICLIENT_ANSWER:
		t1 = wall_now();
		h->ed = status_of(h->ed_status);
		ctl_answer_error(&b, h->ed_why, sizeof(h->ed_why));
		if (b.signed_at) {
			h->ed_clock = true;
			h->ed_skew = (double)b.signed_at + 0.5 - (t0 + t1) / 2;
		}
		break;
	case APICLIENT_NO_ANSWER:
		h->ed = CHECK_ED_NO_ANSWER;
		check_copy(h->ed_why, sizeof(h->ed_why), err.text);
		break;
	case APICLIENT_UNVERIFIED:
		h->ed = CHECK_ED_UNVERIFIED;
		check_copy(h->ed_why, sizeof(h->ed_why), err.text);
		break;
	default:
		h->ed = CHECK_ED_MUNGE;
		check_copy(h->ed_why, sizeof(h->ed_why), err.text);
		break;
	}
	free(b.data);
}

/* The munge socket this host's clients use: option, environment,
 * ElasticdMungeSocket, else munge's own ("", who NULL). */
static const char *client_munge(const struct check_site *s,
				const struct check_client *c, const char **who)
{
	if (c->munge) {
		*who = c->munge_from;
		return c->munge;
	}
	*who = "ElasticdMungeSocket";
	if (s->policy && s->policy->elasticd_munge_socket[0])
		return s->policy->elasticd_munge_socket;
	*who = NULL;
	return "";
}

void check_probe_elasticd(struct check_site *s, const struct check_client *c)
{
	struct check_host *h = &s->host;
	struct server_addr addr;
	struct apiclient api;
	elastic_error_t err;
	const char *who;
	int rc;

	rc = server_choose(c->server, c->server_from, s->policy, s->policy_path,
			   &addr, &err);
	if (rc == SERVER_NONE) {
		h->ed = CHECK_ED_NONE;
		return;
	}
	if (rc < 0 ||
	    apiclient_init(&api, &addr, client_munge(s, c, &who),
			   s->policy ? s->policy->elasticd_user : NULL,
			   "elasticctl", &err) < 0) {
		h->ed = CHECK_ED_BAD_CONF;
		check_copy(h->ed_why, sizeof(h->ed_why), err.text);
		return;
	}
	check_copy(h->ed_server, sizeof(h->ed_server), addr.addr);
	h->ed_from = addr.from;
	ed_request(h, &api);
}

/* One credential made and decoded on socket ("": munge's default). */
static void munge_round_trip(struct check_munge *m)
{
	elastic_error_t err;
	char *cred = NULL;
	munge_ctx_t ctx;
	munge_err_t e;
	uid_t uid;
	gid_t gid;

	if (!(ctx = apicred_ctx(m->socket, &err))) {
		check_copy(m->error, sizeof(m->error), err.text);
		return;
	}
	e = munge_encode(&cred, ctx, NULL, 0);
	if (e == EMUNGE_SUCCESS)
		e = munge_decode(cred, ctx, NULL, NULL, &uid, &gid);
	if (e != EMUNGE_SUCCESS)
		check_copy(m->error, sizeof(m->error),
			   munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx)
						   : munge_strerror(e));
	else if (uid != getuid())
		snprintf(m->error, sizeof(m->error),
			 "the credential came back for uid %u, not %u",
			 (unsigned)uid, (unsigned)getuid());
	free(cred);
	munge_ctx_destroy(ctx);
}

/* Slurm's munge socket: AuthInfo's socket=, else munge's default. */
static void slurm_munge_socket(const char *authinfo, char *buf, size_t len)
{
	const char *p = authinfo ? strstr(authinfo, "socket=") : NULL;

	buf[0] = '\0';
	if (p && (p == authinfo || p[-1] == ','))
		snprintf(buf, len, "%.*s", (int)strcspn(p + 7, ","), p + 7);
}

void check_probe_munge(struct check_site *s, const struct check_client *c)
{
	struct check_host *h = &s->host;
	const char *who, *sock = client_munge(s, c, &who);
	struct check_munge *m = &h->munge[0];

	memset(h->munge, 0, sizeof(h->munge));
	slurm_munge_socket(s->slurm.authinfo, m->socket, sizeof(m->socket));
	m->who = "Slurm's AuthInfo";
	munge_round_trip(m);
	h->nmunge = 1;
	/* Without a valid elastic.conf the clients' socket is not known. */
	if (!strcmp(sock, m->socket) || (!s->policy && !c->munge))
		return;
	m = &h->munge[h->nmunge++];
	check_copy(m->socket, sizeof(m->socket), sock);
	m->who = who ? who : "elasticctl and the launchers";
	munge_round_trip(m);
}

void check_probe_spare_check(struct check_site *s)
{
	struct check_program *p = &s->host.spare_check;
	char dir[POLICY_PATH_MAX + 1], *slash;
	struct stat st;

	if (!s->policy || !s->policy->spare_check[0])
		return;
	p->probed = true;
	if (stat(s->policy->spare_check, &st) != 0) {
		p->err = errno;
		return;
	}
	p->regular = S_ISREG(st.st_mode);
	p->mode = st.st_mode & 07777;
	p->uid = st.st_uid;
	snprintf(dir, sizeof(dir), "%s", s->policy->spare_check);
	/* Its directory: "/" for a program at the root. */
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	if (stat(dir, &st) == 0) {
		p->dir_mode = st.st_mode & 07777;
		p->dir_uid = st.st_uid;
	}
}
