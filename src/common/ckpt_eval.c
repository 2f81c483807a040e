#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ckpt_eval.h"
#include "filesave.h"
#include "parse.h"
#include "policy.h"

#define INDEX_NAME     "index"
#define INDEX_MAX_TEXT (CKPT_EVAL_INDEX_MAX * 40 + 4096)

int ckpt_eval_check_cmd(const char *cmd, elastic_error_t *err)
{
	if (!*cmd)
		return elastic_errorf(err, "--elastic-eval=: empty value "
					   "(allowed: a command line)");
	if (strlen(cmd) > CKPT_EVAL_CMD_MAX)
		return elastic_errorf(err,
				      "--elastic-eval: longer than %d "
				      "characters",
				      CKPT_EVAL_CMD_MAX);
	for (const char *c = cmd; *c; c++)
		if (iscntrl((unsigned char)*c))
			return elastic_errorf(err,
					      "--elastic-eval: %s in the "
					      "command (allowed: one line)",
					      *c == '\n' ? "newline"
							 : "control character");
	return 0;
}

bool ckpt_eval_env_drop(const char *v)
{
	static const char *const drop[] = {
		"_SLURM_SPANK_OPTION_elastic_",
		"SLURM_SPANK__SLURM_SPANK_OPTION_elastic_",
		"SLURM_SPANK_ELASTIC_",
		"SPANK_ELASTIC_",
		"ELASTIC_SIZE_CONFIG=",
	};

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		if (!strncmp(v, drop[i], strlen(drop[i])))
			return true;
	return false;
}

const char *ckpt_eval_partition(const struct elastic_policy *p)
{
	if (p->eval_partition[0])
		return p->eval_partition;
	if (p->preemptible_partitions.n)
		return p->preemptible_partitions.name[0];
	return "";
}

int ckpt_eval_dir(const char *ckpt_dir, char *buf, size_t len)
{
	size_t dl = strlen(ckpt_dir);
	int n = snprintf(buf, len, "%s%s" CKPT_EVAL_SUBDIR, ckpt_dir,
			 (dl && ckpt_dir[dl - 1] == '/') ? "" : "/");

	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

int ckpt_eval_output(const char *ckpt_dir, uint64_t step, char *buf, size_t len)
{
	char d[CKPT_PATH_MAX];
	int n;

	if (ckpt_eval_dir(ckpt_dir, d, sizeof(d)) < 0)
		return -1;
	n = snprintf(buf, len, "%s/" CKPT_PREFIX "%" PRIu64 ".out", d, step);
	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

/* Append one argument to out (strings into out->buf). */
struct builder {
	struct ckpt_eval_argv *out;
	size_t argc, used;
	bool overflow;
};

static char *arg_start(struct builder *b)
{
	if (b->argc >= CKPT_EVAL_ARGC_MAX || b->used >= sizeof(b->out->buf)) {
		b->overflow = true;
		return NULL;
	}
	return b->out->buf + b->used;
}

static void arg_add(struct builder *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void arg_add(struct builder *b, const char *fmt, ...)
{
	char *s = arg_start(b);
	size_t room = sizeof(b->out->buf) - b->used;
	va_list ap;
	int n;

	if (!s)
		return;
	va_start(ap, fmt);
	n = vsnprintf(s, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		b->overflow = true;
		return;
	}
	b->out->argv[b->argc++] = s;
	b->used += (size_t)n + 1;
}

int ckpt_eval_argv(const struct ckpt_eval_req *r, struct ckpt_eval_argv *out,
		   elastic_error_t *err)
{
	struct builder b = { .out = out };
	char output[CKPT_PATH_MAX], escaped[2 * CKPT_PATH_MAX];
	size_t j = 0;

	memset(out->argv, 0, sizeof(out->argv));
	if (!r->cmd || ckpt_eval_check_cmd(r->cmd, err) < 0)
		return r->cmd ? -1
			      : elastic_errorf(err, "--elastic-eval: not set");
	if (!r->ckpt_path || !*r->ckpt_path || strchr(r->ckpt_path, ',') ||
	    strchr(r->ckpt_path, '\n'))
		return elastic_errorf(err,
				      "checkpoint %s: no eval job for a path "
				      "with ',' or a newline (sbatch "
				      "--export cannot carry it)",
				      r->ckpt_path ? r->ckpt_path : "?");
	if (ckpt_eval_output(r->ckpt_dir, r->step, output, sizeof(output)) < 0)
		return elastic_errorf(err, "%s: path too long", r->ckpt_dir);
	/* sbatch expands %j and the like in --output: "%%" is a '%'. */
	for (const char *c = output; *c && j + 2 < sizeof(escaped); c++) {
		if (*c == '%')
			escaped[j++] = '%';
		escaped[j++] = *c;
	}
	escaped[j] = '\0';

	arg_add(&b, "%s", r->sbatch ? r->sbatch : "sbatch");
	arg_add(&b, "--parsable");
	arg_add(&b, "--job-name=" CKPT_EVAL_JOB_NAME);
	arg_add(&b, "--nodes=1");
	arg_add(&b, "--nice=%d", CKPT_EVAL_NICE);
	if (r->partition && *r->partition)
		arg_add(&b, "--partition=%s", r->partition);
	if (r->account && *r->account)
		arg_add(&b, "--account=%s", r->account);
	arg_add(&b, "--output=%s", escaped);
	arg_add(
	    &b,
	    "--export=ALL,ELASTIC_EVAL_CHECKPOINT=%s,ELASTIC_EVAL_STEP=%" PRIu64
	    ",ELASTIC_EVAL_JOB=%u",
	    r->ckpt_path, r->step, r->job_id);
	arg_add(&b, "--wrap=%s", r->cmd);
	if (b.overflow) {
		memset(out->argv, 0, sizeof(out->argv));
		return elastic_errorf(err, "eval job: command line too long");
	}
	out->argv[b.argc] = NULL;
	return 0;
}

static int rec_cmp(const void *a, const void *b)
{
	const struct ckpt_eval_rec *x = a, *y = b;

	return x->step < y->step ? -1 : x->step > y->step;
}

int ckpt_eval_index_parse(const char *text, struct ckpt_eval_index *ix,
			  elastic_error_t *err)
{
	struct ckpt_eval_index *t = malloc(sizeof(*t));
	const char *s = text;
	int lineno = 0;

	if (!t)
		return elastic_errorf(err, "out of memory");
	t->n = 0;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char line[128], *p, *q;
		unsigned long long step;
		unsigned long job;

		lineno++;
		if (len >= sizeof(line)) {
			free(t);
			return elastic_errorf(err, "eval index:%d: too long",
					      lineno);
		}
		memcpy(line, s, len);
		line[len] = '\0';
		s += len + (nl ? 1 : 0);
		p = parse_trim(line);
		if (!*p || *p == '#')
			continue;
		q = p + strcspn(p, " \t");
		if (*q)
			*q++ = '\0';
		q = parse_trim(q);
		if (strspn(p, "0123456789") != strlen(p) ||
		    strlen(p) > CKPT_STEP_DIGITS ||
		    parse_uint(q, 0, UINT32_MAX - 1, &job) != PARSE_OK) {
			free(t);
			return elastic_errorf(err,
					      "eval index:%d: expected 'STEP "
					      "JOBID'",
					      lineno);
		}
		step = strtoull(p, NULL, 10);
		ckpt_eval_index_add(t, step, (uint32_t)job);
	}
	memcpy(ix, t, sizeof(*t));
	free(t);
	return 0;
}

int ckpt_eval_index_format(const struct ckpt_eval_index *ix, char *buf,
			   size_t len)
{
	size_t j = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < ix->n; i++) {
		int n = snprintf(j < len ? buf + j : NULL,
				 j < len ? len - j : 0, "%" PRIu64 " %u\n",
				 ix->r[i].step, ix->r[i].job_id);

		if (n < 0)
			return -1;
		j += (size_t)n;
	}
	return (int)j;
}

void ckpt_eval_index_add(struct ckpt_eval_index *ix, uint64_t step,
			 uint32_t job_id)
{
	for (size_t i = 0; i < ix->n; i++) {
		if (ix->r[i].step == step) {
			ix->r[i].job_id = job_id;
			return;
		}
	}
	if (ix->n == CKPT_EVAL_INDEX_MAX) {
		if (step < ix->r[0].step)
			return; /* older than all we keep */
		memmove(&ix->r[0], &ix->r[1], (ix->n - 1) * sizeof(ix->r[0]));
		ix->n--;
	}
	ix->r[ix->n].step = step;
	ix->r[ix->n].job_id = job_id;
	ix->n++;
	qsort(ix->r, ix->n, sizeof(ix->r[0]), rec_cmp);
}

const struct ckpt_eval_rec *
ckpt_eval_index_find(const struct ckpt_eval_index *ix, uint64_t step)
{
	for (size_t i = 0; i < ix->n; i++)
		if (ix->r[i].step == step)
			return &ix->r[i];
	return NULL;
}

int ckpt_eval_index_load(const char *ckpt_dir, struct ckpt_eval_index *ix,
			 elastic_error_t *err)
{
	char d[CKPT_PATH_MAX], path[CKPT_PATH_MAX + 16];
	char *text = NULL;
	int rc;

	ix->n = 0;
	if (ckpt_eval_dir(ckpt_dir, d, sizeof(d)) < 0)
		return elastic_errorf(err, "%s: path too long", ckpt_dir);
	snprintf(path, sizeof(path), "%s/" INDEX_NAME, d);
	if (parse_read_file(path, INDEX_MAX_TEXT, true, &text, err) < 0)
		return -1;
	if (!text)
		return 0;
	rc = ckpt_eval_index_parse(text, ix, err);
	free(text);
	return rc;
}

int ckpt_eval_index_save(const char *ckpt_dir, const struct ckpt_eval_index *ix,
			 elastic_error_t *err)
{
	char d[CKPT_PATH_MAX], path[CKPT_PATH_MAX + 16];
	char tmp[CKPT_PATH_MAX + 48];
	char *text;
	int n, rc;

	if (ckpt_eval_dir(ckpt_dir, d, sizeof(d)) < 0)
		return elastic_errorf(err, "%s: path too long", ckpt_dir);
	if (mkdir(ckpt_dir, 0777) && errno != EEXIST)
		return elastic_errorf(err, "%s: %s", ckpt_dir, strerror(errno));
	if (mkdir(d, 0777) && errno != EEXIST)
		return elastic_errorf(err, "%s: %s", d, strerror(errno));
	snprintf(path, sizeof(path), "%s/" INDEX_NAME, d);
	snprintf(tmp, sizeof(tmp), "%s/." INDEX_NAME ".tmp.%ld", d,
		 (long)getpid());
	n = ckpt_eval_index_format(ix, NULL, 0);
	text = malloc((size_t)n + 1);
	if (!text)
		return elastic_errorf(err, "out of memory");
	ckpt_eval_index_format(ix, text, (size_t)n + 1);
	rc = file_save_atomic(path, tmp, 0666, text, (size_t)n, err);
	free(text);
	return rc;
}

size_t ckpt_eval_todo(const struct ckpt_list *l,
		      const struct ckpt_eval_index *ix, size_t *out)
{
	uint64_t after = 0;
	bool any = ix->n > 0;
	size_t n = 0;

	if (any)
		after = ix->r[ix->n - 1].step;
	for (size_t i = 0; i < l->n; i++) {
		if (i && l->e[i].step == l->e[i - 1].step)
			continue;
		if (any && l->e[i].step <= after)
			continue;
		out[n++] = i;
	}
	return n;
}

size_t ckpt_eval_active(const struct ckpt_eval_index *ix,
			bool (*active)(uint32_t job_id, void *arg), void *arg,
			uint64_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < ix->n && n < max; i++)
		if (ix->r[i].job_id && active(ix->r[i].job_id, arg))
			out[n++] = ix->r[i].step;
	return n;
}

int ckpt_eval_result(const char *ckpt_dir, uint64_t step, char *buf, size_t len)
{
	char path[CKPT_PATH_MAX], tail[4097];
	struct stat st;
	ssize_t got;
	off_t off;
	char *end, *start;
	size_t j = 0;
	int fd;

	if (len)
		buf[0] = '\0';
	if (ckpt_eval_output(ckpt_dir, step, path, sizeof(path)) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	off = st.st_size > 4096 ? st.st_size - 4096 : 0;
	got = pread(fd, tail, sizeof(tail) - 1, off);
	close(fd);
	if (got < 0)
		return -1;
	tail[got] = '\0';
	/* The last line with something other than blanks. */
	end = tail + strlen(tail);
	for (;;) {
		while (end > tail && isspace((unsigned char)end[-1]))
			end--;
		*end = '\0';
		start = strrchr(tail, '\n');
		start = start ? start + 1 : tail;
		if (*start || start == tail)
			break;
		end = start;
	}
	while (*start && isspace((unsigned char)*start))
		start++;
	for (; *start && j + 1 < len; start++)
		if (!iscntrl((unsigned char)*start))
			buf[j++] = *start;
	if (len)
		buf[j] = '\0';
	return 0;
}

/* Eval submission and the launcher's periodic pass */

extern char **environ;

/* Read what fd has into buf (bounded; the rest is drained); -1 at EOF. */
static int drain(int fd, char *buf, size_t cap, size_t *len)
{
	char tmp[512];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0)
		return -1;
	for (ssize_t i = 0; i < n && *len + 1 < cap; i++)
		buf[(*len)++] = tmp[i];
	buf[*len] = '\0';
	return 0;
}

static void first_line(const char *s, char *out, size_t len)
{
	size_t n = strcspn(s, "\n");

	snprintf(out, len, "%.*s", (int)n, s);
}

uint32_t ckpt_eval_submit(const struct ckpt_eval_req *r, unsigned timeout_s,
			  elastic_error_t *err)
{
	struct ckpt_eval_argv *a = malloc(sizeof(*a));
	char out[256] = "", errtext[512] = "", line[256];
	size_t nenv = 0, olen = 0, elen = 0;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, status = 0;
	bool o_open = true, e_open = true, timed_out = false;
	char **env = NULL;
	time_t deadline;
	uint32_t job = 0;
	pid_t pid;

	if (!a)
		return elastic_errorf(err, "out of memory"), 0;
	if (ckpt_eval_argv(r, a, err) < 0) {
		free(a);
		return 0;
	}
	for (char **e = environ; e && *e; e++)
		nenv++;
	env = calloc(nenv + 1, sizeof(*env));
	if (!env || pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC)) {
		elastic_errorf(err, "eval job: %s", strerror(errno));
		goto out;
	}
	nenv = 0;
	for (char **e = environ; e && *e; e++)
		if (!ckpt_eval_env_drop(*e))
			env[nenv++] = *e;
	pid = fork();
	if (pid < 0) {
		elastic_errorf(err, "eval job: fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);

		if (in < 0 || dup2(in, 0) < 0 || dup2(po[1], 1) < 0 ||
		    dup2(pe[1], 2) < 0)
			_exit(127);
		environ = env;
		execvp(a->argv[0], a->argv);
		dprintf(2, "cannot run %s: %s\n", a->argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	deadline = time(NULL) + (time_t)timeout_s;
	while (o_open || e_open) {
		struct pollfd fds[2] = { { po[0], POLLIN, 0 },
					 { pe[0], POLLIN, 0 } };
		time_t now = time(NULL);
		int n;

		if (!o_open)
			fds[0].fd = -1;
		if (!e_open)
			fds[1].fd = -1;
		if (now >= deadline) {
			timed_out = true;
			kill(pid, SIGKILL);
			break;
		}
		n = poll(fds, 2, (int)(deadline - now) * 1000);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		if (o_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    drain(po[0], out, sizeof(out), &olen) < 0)
			o_open = false;
		if (e_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    drain(pe[0], errtext, sizeof(errtext), &elen) < 0)
			e_open = false;
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	first_line(errtext, line, sizeof(line));
	if (timed_out) {
		elastic_errorf(err, "eval job: %s did not answer within %u s",
			       a->argv[0], timeout_s);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		elastic_errorf(err, "eval job: %s failed%s%s", a->argv[0],
			       *line ? ": " : "", line);
	} else {
		unsigned long v;
		char id[16];
		size_t n = strspn(out, "0123456789");

		if (n && n < sizeof(id) &&
		    (out[n] == ';' || out[n] == '\n' || !out[n])) {
			memcpy(id, out, n);
			id[n] = '\0';
			if (parse_uint(id, 1, UINT32_MAX - 1, &v) == PARSE_OK)
				job = (uint32_t)v;
		}
		if (!job) {
			first_line(out, line, sizeof(line));
			elastic_errorf(err,
				       "eval job: %s printed '%s', not a "
				       "job id",
				       a->argv[0], line);
		}
	}
out:
	for (int i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	free(env);
	free(a);
	return job;
}

static uint32_t default_submit(const struct ckpt_eval_req *r, void *arg,
			       elastic_error_t *err)
{
	(void)arg;
	return ckpt_eval_submit(r, 60, err);
}

int ckpt_tick(const struct ckpt_tick *t, struct ckpt_tick_result *res,
	      elastic_error_t *err)
{
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));
	bool eval = t->eval_cmd && *t->eval_cmd, ix_ok = true;
	size_t *todo = NULL, ntodo = 0, nuse = 0;
	const char **use = NULL;
	uint64_t *fresh = NULL;
	elastic_error_t e2;
	struct ckpt_list l;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (!ix)
		return elastic_errorf(err, "out of memory");
	if (ckpt_list_fast(t->ckpt_dir, &l, err) < 0) {
		ckpt_list_free(&l);
		free(ix);
		return -1;
	}
	res->checkpoints = l.n;
	if (!l.n)
		goto out;
	res->newest_step = ckpt_newest(&l)->step;
	todo = calloc(l.n, sizeof(*todo));
	fresh = calloc(l.n, sizeof(*fresh));
	use = calloc(l.n + 1, sizeof(*use));
	if (!todo || !fresh || !use) {
		rc = elastic_errorf(err, "out of memory");
		goto out;
	}
	/* The index says which checkpoints eval jobs read: without it,
	 * nothing is submitted nor deleted. */
	if (ckpt_eval_index_load(t->ckpt_dir, ix, err) < 0) {
		ix_ok = false;
		rc = -1;
		goto out;
	}
	if (eval)
		ntodo = ckpt_eval_todo(&l, ix, todo);
	for (size_t i = 0; i < ntodo; i++) {
		const struct ckpt_entry *e = &l.e[todo[i]];
		char path[CKPT_PATH_MAX];
		struct ckpt_eval_req r = {
			.sbatch = t->sbatch,
			.cmd = t->eval_cmd,
			.ckpt_dir = t->ckpt_dir,
			.ckpt_path = path,
			.step = e->step,
			.job_id = t->job_id,
			.partition = t->partition,
			.account = t->account,
		};
		char d[CKPT_PATH_MAX];
		uint32_t job = 0;

		if (ckpt_entry_path(&l, e, path, sizeof(path)) < 0 ||
		    ckpt_eval_dir(t->ckpt_dir, d, sizeof(d)) < 0) {
			elastic_errorf(&e2, "%s: path too long", t->ckpt_dir);
		} else if (mkdir(d, 0777) && errno != EEXIST) {
			elastic_errorf(&e2, "%s: %s", d, strerror(errno));
		} else {
			job = (t->submit ? t->submit
					 : default_submit)(&r, t->arg, &e2);
		}
		if (job) {
			res->submitted++;
			fresh[i] = e->step;
		} else {
			res->failed++;
			if (rc == 0 && err)
				*err = e2;
			rc = -1;
		}
		ckpt_eval_index_add(ix, e->step, job);
	}
	if (ntodo && ckpt_eval_index_save(t->ckpt_dir, ix, &e2) < 0) {
		/* Unrecorded eval jobs: keep everything this time. */
		if (rc == 0 && err)
			*err = e2;
		rc = -1;
		ix_ok = false;
	}

	/* In use: what the ranks resumed from, what eval jobs read. */
	if (t->prev && *t->prev)
		use[nuse++] = t->prev;
	for (size_t i = 0; i < l.n; i++) {
		const struct ckpt_eval_rec *r;
		bool busy = false;

		if (i && l.e[i].step == l.e[i - 1].step)
			continue;
		r = ckpt_eval_index_find(ix, l.e[i].step);
		if (!r || !r->job_id)
			continue;
		for (size_t k = 0; k < ntodo; k++)
			busy |= fresh[k] == l.e[i].step;
		if (!busy && t->active)
			busy = t->active(r->job_id, t->arg);
		/* Every entry of that step. */
		for (size_t k = i;
		     busy && k < l.n && l.e[k].step == l.e[i].step; k++)
			use[nuse++] = l.e[k].name;
	}
	if (ix_ok &&
	    ckpt_retain(&l, t->keep, use, nuse, &res->deleted, &e2) < 0) {
		if (rc == 0 && err)
			*err = e2;
		rc = -1;
	}
out:
	free(use);
	free(fresh);
	free(todo);
	ckpt_list_free(&l);
	free(ix);
	return rc;
}
