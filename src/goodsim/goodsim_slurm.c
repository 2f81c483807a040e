/*
 * The goodput simulator's model of Slurm (goodsim_impl.h): the nodes and
 * their free lists per pool, the jobs, the queue (a unit eligible
 * unit_queue_wait_s after its submission) and its scheduler, the
 * trace's faults on the nodes (a reclaim preempts the holder with the
 * grace, a crash fails it once seen), and Slurm's timers that end or
 * requeue a job.  The nodes are written here only, and the jobs but for
 * the policies' notes on them; what the ranks do about a fault is
 * goodsim_policy.c's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "goodsim_impl.h"

/* ------------------------------------------------------ nodes and jobs */

static void free_push(struct sim *s, uint32_t n)
{
	struct freelist *f = &s->free[s->node[n].ondemand];

	s->node[n].slot = (uint32_t)f->n;
	f->v[f->n++] = n;
	s->sched_dirty = true;
}

static void free_drop(struct sim *s, uint32_t n)
{
	struct freelist *f = &s->free[s->node[n].ondemand];
	uint32_t i = s->node[n].slot, last = f->v[--f->n];

	f->v[i] = last;
	s->node[last].slot = i;
}

/* Append x to the growing array *v of *n (room for *cap): 0 or -1. */
int gs_push_index(int32_t **v, size_t *n, size_t *cap, int32_t x)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		int32_t *w = realloc(*v, c * sizeof(*w));

		if (!w)
			return -1;
		*v = w;
		*cap = c;
	}
	(*v)[(*n)++] = x;
	return 0;
}

int32_t gs_job_new(struct sim *s, uint32_t group, enum job_role role,
		   enum pool pool, uint32_t nnodes)
{
	struct gjob *j;

	if (s->njob == s->capjob) {
		size_t cap = s->capjob ? s->capjob * 2 : 1024;
		struct gjob *v = realloc(s->job, cap * sizeof(*v));
		int32_t *tv;

		if (!v)
			return -1;
		s->job = v;
		tv = realloc(s->timed, cap * sizeof(*tv));
		if (!tv)
			return -1;
		s->timed = tv;
		s->capjob = cap;
	}
	if (gs_push_index(&s->queue, &s->nqueue, &s->capqueue,
			  (int32_t)s->njob) < 0)
		return -1;
	j = &s->job[s->njob];
	memset(j, 0, sizeof(*j));
	j->id = 1000 + (uint32_t)s->njob;
	j->group = group;
	j->role = role;
	j->pool = pool;
	j->phase = PHASE_PENDING;
	j->nnodes = nnodes;
	j->submit_ms = s->now;
	/* elasticd's units wait behind the cluster's other work */
	j->eligible_ms =
	    s->now + (role == ROLE_UNIT ? ms_of(s->p->unit_queue_wait_s) : 0);
	s->sched_dirty = true;
	return (int32_t)s->njob++;
}

/* The job lets its nodes go: the free ones back to the pool, those taken
 * back (reclaimed, crashed) gone with it. */
static void job_release(struct sim *s, struct gjob *j)
{
	if (j->spare)
		gs_spare_set(s, j, false);
	for (uint32_t i = 0; i < j->nnodes && j->nodes; i++) {
		uint32_t n = j->nodes[i];

		s->node[n].job = NOBODY;
		s->held[s->node[n].ondemand]--;
		if (s->node[n].present)
			free_push(s, n);
	}
	free(j->nodes);
	j->nodes = NULL;
}

void gs_job_end(struct sim *s, struct gjob *j, enum job_end end)
{
	if (j->phase == PHASE_RUNNING)
		job_release(s, j);
	j->phase = PHASE_GONE;
	j->end = end;
	j->gone_ms = s->now;
}

/* Slurm's timers are to look at the job (timed: once). */
static void timed_add(struct sim *s, int32_t ji)
{
	if (!s->job[ji].timed) {
		s->job[ji].timed = true;
		s->timed[s->ntimed++] = ji;
	}
}

/* The job is told to end: its ranks checkpoint and leave, and it ends
 * after delay_ms, holding its nodes until then. */
void gs_job_term(struct sim *s, int32_t ji, int64_t delay_ms)
{
	struct gjob *j = &s->job[ji];

	if (delay_ms <= 0) {
		gs_job_end(s, j, j->preempted ? END_PREEMPTED : END_CANCELLED);
		return;
	}
	timed_add(s, ji);
	if (!j->term_ms || j->term_ms > s->now + delay_ms)
		j->term_ms = s->now + delay_ms;
}

/* Back in the queue (Slurm's requeue), eligible after requeue_s. */
static int job_requeue(struct sim *s, struct gjob *j)
{
	if (gs_push_index(&s->queue, &s->nqueue, &s->capqueue,
			  (int32_t)(j - s->job)) < 0)
		return -1;
	job_release(s, j);
	j->phase = PHASE_PENDING;
	j->preempted = j->crashed = j->launched = false;
	j->eligible_ms =
	    s->now + ms_of(s->p->requeue_s) + ms_of(s->p->queue_wait_s);
	s->sched_dirty = true;
	return 0;
}

size_t gs_pool_free(const struct sim *s, enum pool p)
{
	return p == POOL_ANY ? s->free[0].n + s->free[1].n : s->free[p].n;
}

static void job_start(struct sim *s, struct gjob *j)
{
	j->nodes = malloc(j->nnodes * sizeof(*j->nodes));
	for (uint32_t i = 0; i < j->nnodes; i++) {
		/* spot first: it is the cheaper */
		struct freelist *f = j->pool == POOL_ONDEMAND ? &s->free[1]
				     : j->pool == POOL_SPOT || s->free[0].n
					 ? &s->free[0]
					 : &s->free[1];
		uint32_t n = f->v[f->n - 1];

		free_drop(s, n);
		s->node[n].job = (int32_t)(j - s->job);
		s->held[s->node[n].ondemand]++;
		if (j->nodes)
			j->nodes[i] = n;
	}
	j->phase = PHASE_RUNNING;
	j->start_ms = s->now;
}

/* Slurm's scheduler: pending jobs in submission order, each started when
 * its nodes are free (later ones may pass one that does not fit). */
void gs_schedule(struct sim *s)
{
	size_t k = 0;

	if (!s->sched_dirty)
		return;
	s->sched_dirty = false;
	for (size_t i = 0; i < s->nqueue; i++) {
		struct gjob *j = &s->job[s->queue[i]];

		if (j->phase != PHASE_PENDING)
			continue; /* cancelled */
		if (j->eligible_ms <= s->now &&
		    gs_pool_free(s, j->pool) >= j->nnodes) {
			job_start(s, j);
			gs_wake(s, &s->group[j->group]);
			continue;
		}
		if (j->eligible_ms > s->now)
			s->sched_dirty = true; /* look again later */
		s->queue[k++] = s->queue[i];
	}
	s->nqueue = k;
}

/* -------------------------------------------------------------- faults */

/* Node n leaves: reclaimed (its job preempted) or crashed. */
void gs_node_remove(struct sim *s, uint32_t n, bool crash)
{
	struct gnode *nd = &s->node[n];
	struct gjob *j;
	struct ggroup *g;

	if (nd->job == NOBODY) {
		if (nd->present)
			free_drop(s, n);
		nd->present = false;
		return;
	}
	nd->present = false;
	j = &s->job[nd->job];
	g = &s->group[j->group];
	gs_wake(s, g);
	if (crash) {
		s->res.crashes++;
		if (!j->crashed) {
			j->crashed = true;
			j->fail_ms = s->now + seen_ms(s);
			timed_add(s, nd->job);
		}
		gs_ranks_crash(s, j);
		return;
	}
	s->res.preemptions++;
	if (j->preempted || j->crashed)
		return;
	j->preempted = true;
	j->grace_ms = s->now + (int64_t)s->p->grace_s * 1000;
	timed_add(s, nd->job);
	if (elastic(s))
		return; /* the unit tells elasticd; it raises at its pass */
	/* Slurm's signal: the ranks checkpoint and leave (restart-at-size:
	 * and the job ends, to start again) */
	gs_ranks_leave(s, g, nd->job);
}

void gs_node_add(struct sim *s, uint32_t n)
{
	struct gnode *nd = &s->node[n];

	if (nd->present)
		return;
	nd->present = true;
	if (nd->job == NOBODY)
		free_push(s, n);
}

/* Slurm's timers: a crash found (the job fails: elasticd's unit ends,
 * Slurm requeues a native job), a grace run out (the job is ended, or
 * requeued). */
int gs_job_timers(struct sim *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->ntimed; i++) {
		int32_t ji = s->timed[i];
		struct gjob *j = &s->job[ji];
		bool fail = j->crashed && j->fail_ms <= s->now;
		bool out = (j->preempted && j->grace_ms <= s->now) ||
			   (j->term_ms && j->term_ms <= s->now);

		if (j->phase == PHASE_RUNNING && !fail && !out) {
			s->timed[k++] = ji;
			continue;
		}
		j->timed = false;
		if (j->phase != PHASE_RUNNING)
			continue;
		gs_wake(s, &s->group[j->group]);
		if (fail)
			gs_own_world(s, j);
		if (s->policy == GOODSIM_NATIVE) {
			if (job_requeue(s, j) < 0)
				return elastic_errorf(s->err, "out of memory");
		} else
			gs_job_end(s, j,
				   fail		  ? END_FAILED
				   : j->preempted ? END_PREEMPTED
						  : END_CANCELLED);
	}
	s->ntimed = k;
	return 0;
}

/* ------------------------------------------------------------ a cluster */

int gs_cluster_init(struct sim *s)
{
	const struct goodsim_params *p = s->p;
	uint32_t spot = p->spot_nodes;

	s->nnodes = spot + p->ondemand_nodes;
	s->node = calloc(s->nnodes, sizeof(*s->node));
	s->free[0].v = calloc(spot, sizeof(uint32_t));
	s->free[1].v = calloc(p->ondemand_nodes + 1, sizeof(uint32_t));
	if (!s->node || !s->free[0].v || !s->free[1].v)
		return elastic_errorf(s->err, "out of memory");
	for (uint32_t n = 0; n < s->nnodes; n++) {
		s->node[n].job = NOBODY;
		s->node[n].ondemand = n >= spot;
		if (n >= spot) {
			s->node[n].present = true;
			free_push(s, n);
		}
	}
	return 0;
}

void gs_cluster_free(struct sim *s)
{
	for (size_t i = 0; i < s->njob; i++)
		free(s->job[i].nodes);
	free(s->node);
	free(s->free[0].v);
	free(s->free[1].v);
	free(s->job);
	free(s->timed);
	free(s->queue);
}
