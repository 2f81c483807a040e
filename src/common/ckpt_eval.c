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
