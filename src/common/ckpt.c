#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt.h"
#include "options.h"
#include "parse.h"
#include "safeopen.h"

#define OPT "--elastic-resume-from"

int ckpt_parse_name(const char *name, uint64_t *step)
{
	const char *p = name;
	uint64_t v = 0;
	size_t nd = 0;

	if (strncmp(p, CKPT_PREFIX, strlen(CKPT_PREFIX)))
		return -1;
	if (strlen(name) > CKPT_NAME_MAX)
		return -1;
	p += strlen(CKPT_PREFIX);
	for (; *p >= '0' && *p <= '9'; p++, nd++) {
		if (nd == CKPT_STEP_DIGITS)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (nd == 0)
		return -1;
	if (*p) {
		if (*p != '.' || !p[1])
			return -1;
		for (p++; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
				return -1;
	}
	*step = v;
	return 0;
}

/* Bytes of the regular files under the directory fd (closed here). */
static uint64_t dir_size(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	uint64_t total = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(st.st_mode)) {
			total += (uint64_t)st.st_size;
		} else if (S_ISDIR(st.st_mode) && depth < CKPT_DIR_DEPTH) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					     O_CLOEXEC);

			if (sub >= 0)
				total += dir_size(sub, depth + 1);
		}
	}
	closedir(d);
	return total;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct ckpt_entry *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return strcmp(x->name, y->name);
}

void ckpt_list_free(struct ckpt_list *l)
{
	free(l->e);
	l->e = NULL;
	l->n = 0;
}

/*
 * The checkpoint dir, open.  A launcher runs as the job's user, who must
 * own it (and it must be writable by no one else), reached through no
 * link another user made.  Root (elasticctl for an admin) lists what
 * users own: through no link a user made, and never blocked by a FIFO.
 */
static int open_dir(const char *dir, elastic_error_t *err)
{
	if (geteuid() == 0)
		return safeopen_dir(dir, true, err);
	return safeopen_dir_owned(dir, geteuid(), getegid(), err);
}

static int list(const char *dir, struct ckpt_list *l, bool sizes,
		elastic_error_t *err)
{
	struct dirent *de;
	size_t cap = 0, seen = 0;
	DIR *d;
	int fd;

	memset(l, 0, sizeof(*l));
	if (strlen(dir) >= sizeof(l->dir))
		return elastic_errorf(err, "%.64s...: path too long", dir);
	strcpy(l->dir, dir);
	fd = open_dir(dir, err);
	if (fd < 0) {
		if (errno == ENOENT) {
			l->missing = true;
			return 0;
		}
		return -1;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return elastic_errorf(err, "%s: %s", dir, strerror(errno));
	}
	while ((errno = 0, de = readdir(d))) {
		struct ckpt_entry *e;
		struct stat st;
		uint64_t step;

		if (++seen > CKPT_LIST_MAX) {
			closedir(d);
			return elastic_errorf(err, "%s: more than %d entries",
					      dir, CKPT_LIST_MAX);
		}
		if (ckpt_parse_name(de->d_name, &step) < 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone meanwhile */
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			continue;
		if (geteuid() != 0 &&
		    !safeopen_owned(&st, geteuid(), getegid())) {
			/* Not the job's own: another user's file is never a
			 * checkpoint to resume from. */
			if (!l->foreign++)
				strcpy(l->foreign_name, de->d_name);
			continue;
		}
		if (l->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct ckpt_entry *ne =
			    realloc(l->e, ncap * sizeof(*ne));

			if (!ne) {
				closedir(d);
				return elastic_errorf(err, "out of memory");
			}
			l->e = ne;
			cap = ncap;
		}
		e = &l->e[l->n++];
		memset(e, 0, sizeof(*e));
		e->step = step;
		strcpy(e->name, de->d_name);
		e->is_dir = S_ISDIR(st.st_mode);
		e->mtime = st.st_mtime;
		if (e->is_dir && sizes) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					     O_CLOEXEC);

			e->size = sub >= 0 ? dir_size(sub, 1) : 0;
		} else if (!e->is_dir) {
			e->size = (uint64_t)st.st_size;
		}
	}
	if (errno) {
		int e = errno;

		closedir(d);
		return elastic_errorf(err, "%s: %s", dir, strerror(e));
	}
	closedir(d);
	if (l->n)
		qsort(l->e, l->n, sizeof(*l->e), entry_cmp);
	return 0;
}

int ckpt_list(const char *dir, struct ckpt_list *l, elastic_error_t *err)
{
	return list(dir, l, true, err);
}

int ckpt_list_fast(const char *dir, struct ckpt_list *l, elastic_error_t *err)
{
	return list(dir, l, false, err);
}

const struct ckpt_entry *ckpt_newest(const struct ckpt_list *l)
{
	size_t i;

	if (!l->n)
		return NULL;
	/* The first by name of the highest step, as ckpt_find gives. */
	for (i = l->n - 1; i > 0 && l->e[i - 1].step == l->e[i].step; i--)
		;
	return &l->e[i];
}

const struct ckpt_entry *ckpt_find(const struct ckpt_list *l, uint64_t step)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].step == step)
			return &l->e[i];
	return NULL;
}

int ckpt_entry_path(const struct ckpt_list *l, const struct ckpt_entry *e,
		    char *buf, size_t len)
{
	size_t dl = strlen(l->dir);
	bool slash = dl && l->dir[dl - 1] == '/';
	int n = snprintf(buf, len, "%s%s%s", l->dir, slash ? "" : "/", e->name);

	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

void ckpt_steps_text(const struct ckpt_list *l, char *buf, size_t len)
{
	uint64_t steps[16];
	size_t ns = 0, j = 0;
	size_t distinct = 0;

	/* Distinct steps: first 3 and last 6 when there are more than 10. */
	for (size_t i = 0; i < l->n; i++)
		if (!i || l->e[i].step != l->e[i - 1].step)
			distinct++;
	buf[0] = '\0';
	for (size_t i = 0, k = 0; i < l->n; i++) {
		if (i && l->e[i].step == l->e[i - 1].step)
			continue;
		if (distinct <= 10 || k < 3 || k >= distinct - 6)
			steps[ns++] = l->e[i].step;
		else if (k == 3)
			steps[ns++] = UINT64_MAX; /* "..." */
		k++;
	}
	for (size_t i = 0; i < ns && j < len; i++) {
		int n;

		if (steps[i] == UINT64_MAX)
			n = snprintf(buf + j, len - j, "%s...", i ? ", " : "");
		else
			n = snprintf(buf + j, len - j, "%s%" PRIu64,
				     i ? ", " : "", steps[i]);
		if (n < 0)
			break;
		j += (size_t)n;
	}
}

/* Path without repeated, trailing or "./" slashes, into out. */
static void normalize(const char *in, char *out, size_t len)
{
	size_t j = 0;

	for (const char *p = in; *p && j + 1 < len; p++) {
		if (*p == '/' && (p[1] == '/' || (j && out[j - 1] == '/')))
			continue;
		if (*p == '/' && p[1] == '.' && (p[2] == '/' || !p[2])) {
			p++;
			continue;
		}
		out[j++] = *p;
	}
	while (j > 1 && out[j - 1] == '/')
		j--;
	out[j] = '\0';
}

static bool in_use(const struct ckpt_list *l, const struct ckpt_entry *e,
		   const char *const *use, size_t n)
{
	char want[CKPT_PATH_MAX], have[CKPT_PATH_MAX], tmp[CKPT_PATH_MAX];
	size_t wl;

	if (ckpt_entry_path(l, e, tmp, sizeof(tmp)) < 0)
		return true; /* cannot tell: keep it */
	normalize(tmp, want, sizeof(want));
	wl = strlen(want);
	for (size_t i = 0; i < n; i++) {
		if (!use[i] || !*use[i])
			continue;
		if (!strcmp(use[i], e->name))
			return true;
		normalize(use[i], have, sizeof(have));
		if (!strncmp(have, want, wl) &&
		    (have[wl] == '\0' || have[wl] == '/'))
			return true;
	}
	return false;
}

size_t ckpt_retention(const struct ckpt_list *l, unsigned keep,
		      const char *const *use, size_t n_use, size_t *out)
{
	size_t n = 0, kept = 0;
	uint64_t newest;
	size_t first = 0; /* index of the oldest entry kept by count */

	if (!l->n)
		return 0;
	if (keep == 0)
		keep = 1;
	newest = l->e[l->n - 1].step;
	/* The newest keep distinct steps, counted from the end. */
	for (size_t i = l->n; i-- > 0;) {
		if (i + 1 == l->n || l->e[i].step != l->e[i + 1].step)
			kept++;
		if (kept > keep)
			break;
		first = i;
	}
	for (size_t i = 0; i < first; i++) {
		if (l->e[i].step == newest)
			continue;
		if (in_use(l, &l->e[i], use, n_use))
			continue;
		out[n++] = i;
	}
	return n;
}

/* Remove everything in the directory fd (closed here), not following
 * links. */
static int empty_dir(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(fd);
		return -1;
	}
	while ((errno = 0, de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT)
				rc = -1;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub;

			if (depth >= CKPT_DIR_DEPTH) {
				errno = ELOOP;
				rc = -1;
				continue;
			}
			sub = openat(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
			if (sub < 0 || empty_dir(sub, depth + 1) < 0 ||
			    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR))
				rc = -1;
		} else if (unlinkat(dirfd(d), de->d_name, 0) &&
			   errno != ENOENT) {
			rc = -1;
		}
	}
	if (errno)
		rc = -1;
	closedir(d);
	return rc;
}

int ckpt_delete(const char *dir, const char *name, elastic_error_t *err)
{
	char hidden[CKPT_NAME_MAX + 16];
	struct stat st;
	uint64_t step;
	int dfd, sub, rc = 0;

	if (ckpt_parse_name(name, &step) < 0)
		return elastic_errorf(err, "%s: not a checkpoint name", name);
	dfd = open_dir(dir, err);
	if (dfd < 0)
		return -1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		rc = errno == ENOENT ? 0
				     : elastic_errorf(err, "%s/%s: %s", dir,
						      name, strerror(errno));
		close(dfd);
		return rc;
	}
	if (S_ISREG(st.st_mode)) {
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			rc = elastic_errorf(err, "cannot delete %s/%s: %s", dir,
					    name, strerror(errno));
		close(dfd);
		return rc;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(dfd);
		return elastic_errorf(err,
				      "%s/%s: not a file or directory, "
				      "left alone",
				      dir, name);
	}
	/* Hidden first, so no reader takes a half-deleted checkpoint. */
	snprintf(hidden, sizeof(hidden), ".deleting-%s", name);
	if (renameat(dfd, name, dfd, hidden)) {
		int e = errno;

		close(dfd);
		return e == ENOENT
			   ? 0
			   : elastic_errorf(err, "cannot delete %s/%s: %s", dir,
					    name, strerror(e));
	}
	sub = openat(dfd, hidden,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 || empty_dir(sub, 1) < 0 ||
	    unlinkat(dfd, hidden, AT_REMOVEDIR))
		rc = elastic_errorf(err, "cannot delete %s/%s (now %s): %s",
				    dir, name, hidden, strerror(errno));
	close(dfd);
	return rc;
}

int ckpt_retain(const struct ckpt_list *l, unsigned keep,
		const char *const *use, size_t n_use, unsigned *deleted,
		elastic_error_t *err)
{
	size_t *idx, n;
	unsigned done = 0;
	int rc = 0;

	if (deleted)
		*deleted = 0;
	if (!l->n)
		return 0;
	idx = malloc(l->n * sizeof(*idx));
	if (!idx)
		return elastic_errorf(err, "out of memory");
	n = ckpt_retention(l, keep, use, n_use, idx);
	for (size_t i = 0; i < n; i++) {
		elastic_error_t e;

		if (ckpt_delete(l->dir, l->e[idx[i]].name, &e) < 0) {
			if (rc == 0 && err)
				*err = e;
			rc = -1;
		} else {
			done++;
		}
	}
	free(idx);
	if (deleted)
		*deleted = done;
	return rc;
}

/* Resume specs */

static int bad_spec(elastic_error_t *err, const char *text, const char *why)
{
	return elastic_errorf(err, OPT "=%s: %s (allowed: " CKPT_SPEC_WORDS ")",
			      text, why);
}

int ckpt_spec_parse(const char *text, struct ckpt_spec *s, elastic_error_t *err)
{
	struct ckpt_spec r = { 0 };
	const char *at = strrchr(text, '@');
	size_t blen = strlen(text);
	unsigned long v;

	if (!*text)
		return bad_spec(err, text, "empty value");
	if (blen > CKPT_SPEC_MAX)
		return elastic_errorf(err, OPT ": longer than %d characters",
				      CKPT_SPEC_MAX);
	for (const char *c = text; *c; c++)
		if (iscntrl((unsigned char)*c))
			return elastic_errorf(err, OPT ": control character in "
						       "value");
	if (at) {
		const char *d = at + 1;
		uint64_t step = 0;
		size_t nd = 0;

		for (; *d >= '0' && *d <= '9'; d++, nd++) {
			if (nd == CKPT_STEP_DIGITS)
				return bad_spec(err, text, "step out of range");
			step = step * 10 + (uint64_t)(*d - '0');
		}
		if (!nd || *d)
			return bad_spec(err, text,
					"a step after '@' is a whole number");
		r.has_step = true;
		r.step = step;
		blen = (size_t)(at - text);
		if (!blen)
			return bad_spec(err, text, "nothing before '@'");
	}
	if (text[0] == '/') {
		if (blen >= sizeof(r.path))
			return bad_spec(err, text, "path too long");
		r.kind = CKPT_SPEC_PATH;
		memcpy(r.path, text, blen);
		r.path[blen] = '\0';
	} else {
		char id[16];

		if (blen >= sizeof(id) ||
		    (memcpy(id, text, blen), id[blen] = '\0',
		     parse_uint(id, 1, UINT32_MAX - 1, &v) != PARSE_OK))
			return bad_spec(err, text,
					"not a job id nor an absolute path");
		r.kind = CKPT_SPEC_JOB;
		r.job_id = (uint32_t)v;
	}
	*s = r;
	return 0;
}

int ckpt_job_dir(uint32_t job_id, const char *tag, const char *fallback,
		 const char *user, const char *home, char *dir, size_t len,
		 elastic_error_t *err)
{
	struct elastic_opts o;
	const char *pattern = fallback;
	char id[16];

	if (tag && options_parse_tag(tag, &o, NULL) == 0)
		pattern = o.checkpoint_dir;
	if (!pattern || !*pattern)
		return elastic_errorf(err, "job %u: no checkpoint dir known",
				      job_id);
	snprintf(id, sizeof(id), "%u", job_id);
	if (options_expand_path(pattern, id, user ? user : "", home ? home : "",
				dir, len) < 0)
		return elastic_errorf(err,
				      "job %u: checkpoint dir %s does not "
				      "expand",
				      job_id, pattern);
	return 0;
}

/* Pick the newest or s->step from dir; what names the source. */
static int pick(const char *text, const struct ckpt_spec *s, const char *dir,
		const char *what, char *path, size_t len, uint64_t *step,
		elastic_error_t *err)
{
	struct ckpt_list l;
	const struct ckpt_entry *e;
	elastic_error_t e2;
	char steps[160];
	int rc = 0;

	if (ckpt_list_fast(dir, &l, &e2) < 0) {
		ckpt_list_free(&l);
		return elastic_errorf(err, OPT "=%s: %s", text, e2.text);
	}
	if (l.missing) {
		rc = elastic_errorf(err,
				    OPT "=%s: %s has no checkpoint (%s does "
					"not exist)",
				    text, what, dir);
	} else if (!l.n) {
		rc = elastic_errorf(err, OPT "=%s: %s has no checkpoint in %s",
				    text, what, dir);
	} else {
		e = s->has_step ? ckpt_find(&l, s->step) : ckpt_newest(&l);
		if (!e) {
			ckpt_steps_text(&l, steps, sizeof(steps));
			rc = elastic_errorf(err,
					    OPT "=%s: %s has no checkpoint at "
						"step %" PRIu64 " (has %s)",
					    text, what, s->step, steps);
		} else if (ckpt_entry_path(&l, e, path, len) < 0) {
			rc =
			    elastic_errorf(err, OPT "=%s: path too long", text);
		} else if (step) {
			*step = e->step;
		}
	}
	ckpt_list_free(&l);
	return rc;
}

int ckpt_resolve(const char *text, ckpt_job_dir_fn job_dir, void *arg,
		 char *path, size_t len, uint64_t *step, elastic_error_t *err)
{
	struct ckpt_spec s;
	char dir[CKPT_PATH_MAX], what[64];
	const char *base;
	struct stat st;
	uint64_t named;

	if (ckpt_spec_parse(text, &s, err) < 0)
		return -1;
	if (s.kind == CKPT_SPEC_JOB) {
		elastic_error_t e2;

		if (!job_dir || job_dir(s.job_id, arg, dir, sizeof(dir), &e2))
			return elastic_errorf(err, OPT "=%s: %s", text,
					      job_dir ? e2.text
						      : "no job lookup");
		snprintf(what, sizeof(what), "job %u", s.job_id);
		return pick(text, &s, dir, what, path, len, step, err);
	}
	if (stat(s.path, &st))
		return elastic_errorf(err, OPT "=%s: %s: %s", text, s.path,
				      strerror(errno));
	/* A checkpoint itself (a file, or a directory named like one). */
	base = strrchr(s.path, '/');
	while (base && base > s.path && !base[1]) { /* trailing '/' */
		*(char *)base = '\0';
		base = strrchr(s.path, '/');
	}
	base = base ? base + 1 : s.path;
	if (ckpt_parse_name(base, &named) == 0 || !S_ISDIR(st.st_mode)) {
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			return elastic_errorf(err,
					      OPT "=%s: %s is not a file nor "
						  "a directory",
					      text, s.path);
		if (ckpt_parse_name(base, &named) < 0)
			return elastic_errorf(err,
					      OPT
					      "=%s: %s is not named like a "
					      "checkpoint (ckpt-STEP[.ext])",
					      text, s.path);
		if (s.has_step && named != s.step)
			return elastic_errorf(err,
					      OPT "=%s: %s is the checkpoint "
						  "of step %" PRIu64
						  ", not %" PRIu64,
					      text, s.path, named, s.step);
		if (snprintf(path, len, "%s", s.path) >= (int)len)
			return elastic_errorf(err, OPT "=%s: path too long",
					      text);
		if (step)
			*step = named;
		return 0;
	}
	return pick(text, &s, s.path, s.path, path, len, step, err);
}

int ckpt_prev_checkpoint(const char *ckpt_dir, const char *resume_from,
			 ckpt_job_dir_fn job_dir, void *arg, char *path,
			 size_t len, uint64_t *step, elastic_error_t *err)
{
	struct ckpt_list l;
	const struct ckpt_entry *e;
	int rc = 0;

	if (len)
		path[0] = '\0';
	if (step)
		*step = 0;
	if (ckpt_dir && *ckpt_dir) {
		if (ckpt_list_fast(ckpt_dir, &l, err) < 0) {
			ckpt_list_free(&l);
			return -1;
		}
		e = ckpt_newest(&l);
		if (e) {
			if (ckpt_entry_path(&l, e, path, len) < 0)
				rc = elastic_errorf(err, "%s: path too long",
						    ckpt_dir);
			else if (step)
				*step = e->step;
		}
		ckpt_list_free(&l);
		if (e || rc)
			return rc;
	}
	if (!resume_from || !*resume_from)
		return 0;
	return ckpt_resolve(resume_from, job_dir, arg, path, len, step, err);
}
