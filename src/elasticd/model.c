#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h> /* job states: constants only */

#include "common/parse.h"
#include "model.h"

struct snapshot {
	time_t now;
	size_t n, cap;
	struct job_view *jobs;
	bool sorted;
};

const char *model_phase_name(enum job_phase p)
{
	static const char *const names[] = { "pending", "running", "ending",
					     "gone" };

	return (unsigned)p <= PHASE_GONE ? names[p] : "?";
}

void model_job_state(uint32_t job_state, time_t preempt_time,
		     enum job_phase *phase, enum job_end *end, bool *preempted)
{
	uint32_t base = job_state & JOB_STATE_BASE;

	*end = END_NONE;
	*preempted = false;
	switch (base) {
	case JOB_PENDING:
		/* Also a job being requeued (PENDING|COMPLETING). */
		*phase = PHASE_PENDING;
		return;
	case JOB_RUNNING:
		*phase = PHASE_RUNNING;
		/* GraceTime has begun: Slurm is taking it back. */
		*preempted = preempt_time != 0;
		return;
	case JOB_SUSPENDED:
		/* PreemptMode=SUSPEND: it holds nodes but runs nothing. */
		*phase = PHASE_RUNNING;
		*preempted = true;
		return;
	case JOB_COMPLETE:
		*end = END_COMPLETE;
		break;
	case JOB_CANCELLED:
		*end = END_CANCELLED;
		break;
	case JOB_PREEMPTED:
		*end = END_PREEMPTED;
		*preempted = true;
		break;
	default: /* FAILED, TIMEOUT, NODE_FAIL, BOOT_FAIL, DEADLINE, OOM */
		*end = END_FAILED;
		break;
	}
	*phase = (job_state & JOB_COMPLETING) ? PHASE_ENDING : PHASE_GONE;
}

struct snapshot *snapshot_create(time_t now)
{
	struct snapshot *s = calloc(1, sizeof(*s));

	if (s)
		s->now = now;
	return s;
}

static void free_job(struct job_view *j)
{
	free((char *)j->nodes);
	free((char *)j->user);
	free((char *)j->account);
	free((char *)j->qos);
	free((char *)j->partition);
	free((char *)j->tres_per_node);
	free((char *)j->features);
	free((char *)j->tag);
	free((struct elastic_opts *)j->opts);
}

void snapshot_destroy(struct snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free_job(&s->jobs[i]);
	free(s->jobs);
	free(s);
}

/* Copy a string field: NULL stays NULL; nodes is never NULL. */
static int dup_str(const char **field, bool never_null, bool *oom,
		   bool *toolong)
{
	const char *v = *field;

	*field = NULL;
	if (!v && !never_null)
		return 0;
	if (!v)
		v = "";
	if (strnlen(v, MODEL_MAX_STRING + 1) > MODEL_MAX_STRING) {
		*toolong = true;
		return -1;
	}
	*field = strdup(v);
	if (!*field) {
		*oom = true;
		return -1;
	}
	return 0;
}

int snapshot_add(struct snapshot *s, const struct job_view *j,
		 elastic_error_t *err)
{
	struct job_view c = *j;
	bool oom = false, toolong = false;

	if (s->n >= MODEL_MAX_JOBS)
		return elastic_errorf(err, "more than %d elastic jobs",
				      MODEL_MAX_JOBS);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct job_view *jobs = realloc(s->jobs, cap * sizeof(*jobs));

		if (!jobs)
			return elastic_errorf(err, "out of memory");
		s->jobs = jobs;
		s->cap = cap;
	}
	c.opts = NULL;
	/* Every field copied (or NULL) even after a failure: free_job()
	 * must not free the caller's strings. */
	if (dup_str(&c.nodes, true, &oom, &toolong) |
	    dup_str(&c.user, false, &oom, &toolong) |
	    dup_str(&c.account, false, &oom, &toolong) |
	    dup_str(&c.qos, false, &oom, &toolong) |
	    dup_str(&c.partition, false, &oom, &toolong) |
	    dup_str(&c.tres_per_node, false, &oom, &toolong) |
	    dup_str(&c.features, false, &oom, &toolong) |
	    dup_str(&c.tag, false, &oom, &toolong))
		goto fail;
	if (j->opts) {
		struct elastic_opts *o = malloc(sizeof(*o));

		if (!o) {
			oom = true;
			goto fail;
		}
		*o = *j->opts;
		c.opts = o;
	}
	s->jobs[s->n++] = c;
	s->sorted = false;
	return 0;
fail:
	free_job(&c);
	if (toolong)
		return elastic_errorf(err, "job %u: a field longer than %d",
				      j->id, MODEL_MAX_STRING);
	return elastic_errorf(err, "out of memory");
}

static int by_id(const void *a, const void *b)
{
	const struct job_view *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

void snapshot_finish(struct snapshot *s)
{
	size_t w = 0;

	if (s->n > 1)
		qsort(s->jobs, s->n, sizeof(*s->jobs), by_id);
	for (size_t i = 0; i < s->n; i++) {
		if (w && s->jobs[w - 1].id == s->jobs[i].id) {
			free_job(&s->jobs[i]);
			continue;
		}
		s->jobs[w++] = s->jobs[i];
	}
	s->n = w;
	s->sorted = true;
}

time_t snapshot_time(const struct snapshot *s)
{
	return s->now;
}

size_t snapshot_count(const struct snapshot *s)
{
	return s->n;
}

const struct job_view *snapshot_job(const struct snapshot *s, size_t i)
{
	return i < s->n ? &s->jobs[i] : NULL;
}

const struct job_view *snapshot_find(const struct snapshot *s, uint32_t id)
{
	size_t lo = 0, hi = s->n;

	if (!s->sorted)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->jobs[mid].id == id)
			return &s->jobs[mid];
		if (s->jobs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int snapshot_set_steps_gone(struct snapshot *s, uint32_t id, bool gone)
{
	struct job_view *j = (struct job_view *)snapshot_find(s, id);

	if (!j)
		return -1;
	j->steps_gone = gone;
	return 0;
}
