/*
 * Evaluation jobs on disk and in Slurm (ckpt_eval.h): the index file, an
 * eval's result, the sbatch of an eval job and the launcher's pass.  In
 * libcommonio: it reads and writes files and runs sbatch; the argv, the
 * index text and the choices stay pure in ckpt_eval.c.
 */
#include "config.h"

#include <ctype.h>
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

#define INDEX_NAME     "index"
#define INDEX_MAX_TEXT (CKPT_EVAL_INDEX_MAX * 40 + 4096)

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

/* In the child: stdin from /dev/null, stdout and stderr to the pipes,
 * the filtered environment, then sbatch. */
static void eval_exec_child(const struct ckpt_eval_argv *a, int out_fd,
			    int err_fd, char **env)
{
	int in = open("/dev/null", O_RDONLY);

	if (in < 0 || dup2(in, 0) < 0 || dup2(out_fd, 1) < 0 ||
	    dup2(err_fd, 2) < 0)
		_exit(127);
	environ = env;
	execvp(a->argv[0], a->argv);
	dprintf(2, "cannot run %s: %s\n", a->argv[0], strerror(errno));
	_exit(127);
}

/* Read sbatch's stdout and stderr until both close or the timeout (then
 * it is killed), and reap it.  Returns whether it timed out. */
static bool eval_read_answers(pid_t pid, int out_fd, int err_fd,
			      unsigned timeout_s, char *out, size_t out_cap,
			      char *errtext, size_t err_cap, int *status)
{
	bool o_open = true, e_open = true, timed_out = false;
	size_t olen = 0, elen = 0;
	time_t deadline;

	deadline = time(NULL) + (time_t)timeout_s;
	while (o_open || e_open) {
		struct pollfd fds[2] = { { out_fd, POLLIN, 0 },
					 { err_fd, POLLIN, 0 } };
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
		    drain(out_fd, out, out_cap, &olen) < 0)
			o_open = false;
		if (e_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    drain(err_fd, errtext, err_cap, &elen) < 0)
			e_open = false;
	}
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return timed_out;
}

/* What sbatch's run says: the job id it printed, or 0 with err. */
static uint32_t eval_job_verdict(const struct ckpt_eval_argv *a, bool timed_out,
				 int status, const char *out,
				 const char *errtext, unsigned timeout_s,
				 elastic_error_t *err)
{
	uint32_t job = 0;
	char line[256];

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
	return job;
}

uint32_t ckpt_eval_submit(const struct ckpt_eval_req *r, unsigned timeout_s,
			  elastic_error_t *err)
{
	struct ckpt_eval_argv *a = malloc(sizeof(*a));
	char out[256] = "", errtext[512] = "";
	size_t nenv = 0;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, status = 0;
	bool timed_out;
	char **env = NULL;
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
	if (pid == 0)
		eval_exec_child(a, po[1], pe[1], env);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	timed_out =
	    eval_read_answers(pid, po[0], pe[0], timeout_s, out, sizeof(out),
			      errtext, sizeof(errtext), &status);
	job = eval_job_verdict(a, timed_out, status, out, errtext, timeout_s,
			       err);
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

/*
 * Submit an eval job for each of the ntodo checkpoints todo names and
 * record each (0 if it failed) in ix; fresh[i] gets the step of each
 * submitted.  0, or -1 with err for the first that failed.
 */
static int tick_submit_evals(const struct ckpt_tick *t,
			     const struct ckpt_list *l,
			     struct ckpt_eval_index *ix, const size_t *todo,
			     size_t ntodo, uint64_t *fresh,
			     struct ckpt_tick_result *res, elastic_error_t *err)
{
	elastic_error_t e2;
	int rc = 0;

	for (size_t i = 0; i < ntodo; i++) {
		const struct ckpt_entry *e = &l->e[todo[i]];
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

		if (ckpt_entry_path(l, e, path, sizeof(path)) < 0 ||
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
	return rc;
}

/*
 * Into use: the checkpoints in use, what the ranks resumed from and what
 * eval jobs read (just submitted, or still active).  Returns how many.
 */
static size_t tick_in_use(const struct ckpt_tick *t, const struct ckpt_list *l,
			  const struct ckpt_eval_index *ix,
			  const uint64_t *fresh, size_t ntodo, const char **use)
{
	size_t nuse = 0;

	if (t->prev && *t->prev)
		use[nuse++] = t->prev;
	for (size_t i = 0; i < l->n; i++) {
		const struct ckpt_eval_rec *r;
		bool busy = false;

		if (i && l->e[i].step == l->e[i - 1].step)
			continue;
		r = ckpt_eval_index_find(ix, l->e[i].step);
		if (!r || !r->job_id)
			continue;
		for (size_t k = 0; k < ntodo; k++)
			busy |= fresh[k] == l->e[i].step;
		if (!busy && t->active)
			busy = t->active(r->job_id, t->arg);
		/* Every entry of that step. */
		for (size_t k = i;
		     busy && k < l->n && l->e[k].step == l->e[i].step; k++)
			use[nuse++] = l->e[k].name;
	}
	return nuse;
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
	rc = tick_submit_evals(t, &l, ix, todo, ntodo, fresh, res, err);
	if (ntodo && ckpt_eval_index_save(t->ckpt_dir, ix, &e2) < 0) {
		/* Unrecorded eval jobs: keep everything this time. */
		if (rc == 0 && err)
			*err = e2;
		rc = -1;
		ix_ok = false;
	}

	nuse = tick_in_use(t, &l, ix, fresh, ntodo, use);
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
