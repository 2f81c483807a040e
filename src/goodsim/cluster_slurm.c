/*
 * The cluster simulator's model of Slurm (cluster_impl.h, cluster.h tells
 * its rules): the nodes (counted: one pool, all alike), the jobs, the
 * queue per partition tier, the main and the backfill scheduler,
 * preemption with grace, and the events in time order (a binary heap).
 * It alone writes struct cslurm and the jobs; what a job of a group does
 * is told to cluster_elastic.c (ce_job_moved()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cluster_impl.h"
#include "simrand.h"

#define PART_WEIGHT  100000.0	/* PriorityWeightPartition, one factor */
#define AGE_WEIGHT   1000.0	/* PriorityWeightAge */
#define MAX_AGE_MS   86400000.0 /* PriorityMaxAge=1-0 */
#define RESORT_MS    3600000	/* ages move: the units' order again */
#define NO_GRACE_END (-1)

int cs_vec_push(struct cl_vec *v, int32_t x)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 256;
		int32_t *p = realloc(v->v, cap * sizeof(*p));

		if (!p)
			return -1;
		v->v = p;
		v->cap = cap;
	}
	v->v[v->n++] = x;
	return 0;
}

int cs_init(struct csim *s)
{
	memset(&s->sl, 0, sizeof(s->sl));
	s->sl.nodes = s->sl.free = s->p->nodes;
	return 0;
}

void cs_free(struct csim *s)
{
	struct cslurm *sl = &s->sl;

	free(sl->job);
	for (int t = 0; t < CL_NTIERS; t++)
		free(sl->pend[t].v);
	free(sl->run_units.v);
	free(sl->run_prot.v);
	free(sl->heap);
	memset(sl, 0, sizeof(*sl));
}

struct cl_job *cs_find(struct csim *s, uint32_t id)
{
	if (id < CL_FIRST_ID || id - CL_FIRST_ID >= s->sl.njob)
		return NULL;
	return &s->sl.job[id - CL_FIRST_ID];
}

/* The events: a binary heap by time, then by the order they were made. */
static bool ev_before(const struct cl_ev *a, const struct cl_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

int cs_event(struct csim *s, int64_t t, enum cl_event type, int32_t ji)
{
	struct cslurm *sl = &s->sl;
	size_t i;

	if (sl->nheap == sl->capheap) {
		size_t cap = sl->capheap ? sl->capheap * 2 : 1024;
		struct cl_ev *h = realloc(sl->heap, cap * sizeof(*h));

		if (!h) {
			sl->oom = true;
			return elastic_errorf(s->err, "events: out of memory");
		}
		sl->heap = h;
		sl->capheap = cap;
	}
	i = sl->nheap++;
	sl->heap[i] = (struct cl_ev){ t, sl->seq++, type, ji };
	while (i && ev_before(&sl->heap[i], &sl->heap[(i - 1) / 2])) {
		struct cl_ev x = sl->heap[i];

		sl->heap[i] = sl->heap[(i - 1) / 2];
		sl->heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
	return 0;
}

int64_t cs_next_time(const struct csim *s)
{
	return s->sl.nheap ? s->sl.heap[0].t : CL_FOREVER;
}

bool cs_pop(struct csim *s, struct cl_ev *ev)
{
	struct cslurm *sl = &s->sl;
	size_t i = 0;

	if (!sl->nheap)
		return false;
	*ev = sl->heap[0];
	sl->heap[0] = sl->heap[--sl->nheap];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cl_ev x;

		if (l < sl->nheap && ev_before(&sl->heap[l], &sl->heap[m]))
			m = l;
		if (l + 1 < sl->nheap &&
		    ev_before(&sl->heap[l + 1], &sl->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		x = sl->heap[i];
		sl->heap[i] = sl->heap[m];
		sl->heap[m] = x;
		i = m;
	}
	return true;
}

static enum cl_tier cs_tier(enum cl_role role)
{
	return role == CL_PREEMPTOR ? CL_TIER_HIGH
	       : role == CL_UNIT    ? CL_TIER_UNIT
				    : CL_TIER_BASE;
}

int32_t cs_submit(struct csim *s, enum cl_role role, int32_t group, int32_t wl,
		  uint32_t nnodes, int64_t run_ms, int64_t limit_ms,
		  unsigned nice)
{
	struct cslurm *sl = &s->sl;
	struct cl_job *j;
	int32_t ji;

	if (nnodes > sl->nodes || !nnodes) {
		elastic_errorf(s->err, "a job of %u nodes on a cluster of %u",
			       nnodes, sl->nodes);
		return -1;
	}
	if (sl->njob == sl->capjob) {
		size_t cap = sl->capjob ? sl->capjob * 2 : 4096;
		struct cl_job *v = realloc(sl->job, cap * sizeof(*v));

		if (!v)
			goto oom;
		sl->job = v;
		sl->capjob = cap;
	}
	ji = (int32_t)sl->njob;
	j = &sl->job[sl->njob++];
	memset(j, 0, sizeof(*j));
	j->id = CL_FIRST_ID + (uint32_t)ji;
	j->role = role;
	j->group = group;
	j->wl = wl;
	j->nnodes = nnodes;
	j->phase = PHASE_PENDING;
	j->nice = nice;
	j->submit_ms = s->now;
	j->start_ms = j->end_ms = -1;
	j->limit_ms = limit_ms ? limit_ms : CL_MAXTIME_MS;
	j->run_ms = run_ms;
	if (cs_vec_push(&sl->pend[cs_tier(role)], ji) < 0)
		goto oom;
	sl->units_sorted &= role != CL_UNIT;
	sl->dirty = true;
	ct_job(s, j, CLUSTER_TL_SUBMIT, 0);
	return ji;
oom:
	elastic_errorf(s->err, "jobs: out of memory (%zu)", sl->njob);
	return -1;
}

/* Remove x from v (order kept): v's running lists are short enough. */
static void vec_remove(struct cl_vec *v, int32_t x)
{
	for (size_t i = v->n; i-- > 0;)
		if (v->v[i] == x) {
			memmove(&v->v[i], &v->v[i + 1],
				(v->n - i - 1) * sizeof(v->v[0]));
			v->n--;
			return;
		}
}

/* The running protected jobs by the end of their time limit: where ji
 * goes (binary search). */
static size_t prot_slot(const struct cslurm *sl, int64_t key)
{
	size_t lo = 0, hi = sl->run_prot.n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct cl_job *m = &sl->job[sl->run_prot.v[mid]];

		if (m->start_ms + m->limit_ms <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* How much later than its runtime job j ends (start_jitter_ms): a draw
 * of its own, from the seed and its id whatever else the run did, for a
 * workload job; 0 for a unit (elasticd or a preemption ends it). */
static int64_t cs_jitter(const struct csim *s, const struct cl_job *j)
{
	uint64_t st = s->p->seed ^ ((uint64_t)j->id * 0xd1b54a32d192ed03ULL);

	if (!s->p->start_jitter_ms || j->role == CL_UNIT)
		return 0;
	return (int64_t)(simrand_uniform(&st) * s->p->start_jitter_ms);
}

static void cs_start(struct csim *s, int32_t ji)
{
	struct cslurm *sl = &s->sl;
	struct cl_job *j = &sl->job[ji];
	int64_t run = j->run_ms < j->limit_ms ? j->run_ms : j->limit_ms;

	j->phase = PHASE_RUNNING;
	j->start_ms = s->now;
	j->ends_at =
	    run == CL_FOREVER ? CL_FOREVER : s->now + run + cs_jitter(s, j);
	sl->free -= j->nnodes;
	if (j->role == CL_UNIT) {
		sl->units += j->nnodes;
		sl->unit_starts++;
		if (cs_vec_push(&sl->run_units, ji) < 0)
			sl->oom = true;
	} else {
		struct cl_vec *v = &sl->run_prot;
		size_t at = prot_slot(sl, s->now + j->limit_ms);

		if (cs_vec_push(v, ji) == 0) {
			memmove(&v->v[at + 1], &v->v[at],
				(v->n - 1 - at) * sizeof(v->v[0]));
			v->v[at] = ji;
		} else
			sl->oom = true;
	}
	if (j->ends_at != CL_FOREVER)
		cs_event(s, j->ends_at, CL_EV_END, ji);
	ct_job(s, j, CLUSTER_TL_START, 0);
	if (j->group >= 0)
		ce_job_moved(s, j, true, false);
}

void cs_end(struct csim *s, int32_t ji, enum job_end end)
{
	struct cslurm *sl = &s->sl;
	struct cl_job *j = &sl->job[ji];

	if (j->phase == PHASE_GONE)
		return;
	if (j->phase == PHASE_RUNNING) {
		sl->free += j->nnodes;
		if (j->preempted)
			sl->leaving -= j->nnodes;
		else if (j->role == CL_UNIT) {
			sl->units -= j->nnodes;
			vec_remove(&sl->run_units, ji);
		}
		if (j->role != CL_UNIT)
			vec_remove(&sl->run_prot, ji);
	}
	/* A pending job leaves its queue at the next pass (not pending). */
	j->phase = PHASE_GONE;
	j->end = end;
	j->end_ms = s->now;
	sl->dirty = true;
	sl->wl_done += j->wl >= 0;
	ct_job(s, j, CLUSTER_TL_END, 0);
	if (j->group >= 0)
		ce_job_moved(s, j, false, true);
}

/* Slurm preempts unit ji for job by: its ranks leave after leave_s,
 * Slurm ends it at the grace's end. */
static void cs_preempt(struct csim *s, int32_t ji, uint32_t by)
{
	struct cslurm *sl = &s->sl;
	struct cl_job *j = &sl->job[ji];
	int64_t grace = (int64_t)s->p->grace_s * 1000;
	int64_t leave = (int64_t)(s->p->leave_s * 1000);

	j->preempted = true;
	sl->units -= j->nnodes;
	sl->leaving += j->nnodes;
	sl->unit_preemptions++;
	vec_remove(&sl->run_units, ji);
	if (leave < grace)
		cs_event(s, s->now + leave, CL_EV_STEPS_GONE, ji);
	cs_event(s, s->now + grace, CL_EV_GRACE, ji);
	ct_job(s, j, CLUSTER_TL_PREEMPT, by);
	ce_job_moved(s, j, false, false);
}

/* Preempt units for n nodes (for job by) in the order Slurm's partition_prio
 * takes them within a tier, as the real cluster shows (t0196): the fewest nodes
 * first, then the oldest job; a unit's nice plays no part. */
static void cs_preempt_for(struct csim *s, uint32_t n, uint32_t by)
{
	struct cslurm *sl = &s->sl;

	while (n > 0 && sl->run_units.n) {
		size_t best = 0;
		int32_t ji;

		for (size_t i = 1; i < sl->run_units.n; i++) {
			const struct cl_job *a = &sl->job[sl->run_units.v[i]];
			const struct cl_job *b =
			    &sl->job[sl->run_units.v[best]];

			if (a->nnodes < b->nnodes ||
			    (a->nnodes == b->nnodes && a->id < b->id))
				best = i;
		}
		ji = sl->run_units.v[best];
		n = sl->job[ji].nnodes >= n ? 0 : n - sl->job[ji].nnodes;
		cs_preempt(s, ji, by);
	}
}

/* One scheduling pass's view: nodes free, leaving (preempted units'),
 * and held by units that may be preempted, less what earlier jobs of the
 * pass took; and the reservation of the first job that cannot start. */
struct cs_pass {
	uint32_t f, l, u;
	bool shadow, stop, full;
	int64_t t;	/* the reservation's start */
	uint32_t extra; /* nodes it leaves */
};

/* The reservation of a job of n nodes: when the protected jobs' time
 * limits free enough nodes, with every unit's counted free. */
static void cs_reserve(struct csim *s, struct cs_pass *ps, uint32_t n)
{
	const struct cslurm *sl = &s->sl;
	uint64_t avail = (uint64_t)ps->f + ps->l + ps->u;

	ps->shadow = true;
	ps->t = CL_FOREVER;
	ps->extra = 0;
	for (size_t i = 0; i < sl->run_prot.n; i++) {
		const struct cl_job *j = &sl->job[sl->run_prot.v[i]];

		avail += j->nnodes;
		if (avail >= n) {
			ps->t = j->start_ms + j->limit_ms;
			ps->extra = (uint32_t)(avail - n);
			return;
		}
	}
}

/* Would job j, started now, delay the reservation? */
static bool cs_blocks(const struct csim *s, const struct cs_pass *ps,
		      const struct cl_job *j)
{
	return ps->shadow && s->now + j->limit_ms > ps->t &&
	       j->nnodes > ps->extra;
}

/* Account for j's nodes against the reservation. */
static void cs_take(const struct csim *s, struct cs_pass *ps,
		    const struct cl_job *j)
{
	if (ps->shadow && s->now + j->limit_ms > ps->t)
		ps->extra -= j->nnodes;
}

/* A protected job in the pass: started (true), or waiting for units it
 * preempted, or blocked (the reservation set, the main pass stopped). */
static bool cs_try_protected(struct csim *s, struct cs_pass *ps, int32_t ji)
{
	struct cl_job *j = &s->sl.job[ji];
	uint32_t n = j->nnodes;

	if (cs_blocks(s, ps, j))
		return false;
	if (n <= ps->f) {
		cs_take(s, ps, j);
		ps->f -= n;
		cs_start(s, ji);
		return true;
	}
	if ((uint64_t)n <= (uint64_t)ps->f + ps->l + ps->u) {
		uint32_t rest = n - ps->f;
		uint32_t from_l = rest < ps->l ? rest : ps->l;

		cs_take(s, ps, j);
		ps->f = 0;
		ps->l -= from_l;
		rest -= from_l;
		if (rest) {
			uint32_t before = s->sl.units;

			cs_preempt_for(s, rest, j->id);
			ps->u -= before - s->sl.units < ps->u
				     ? before - s->sl.units
				     : ps->u;
			/* a preempted unit larger than needed: the rest of
			 * its nodes free for the others when it leaves */
		}
		return false;
	}
	if (!ps->shadow)
		cs_reserve(s, ps, n);
	if (!ps->full)
		ps->stop = true;
	return false;
}

/* A unit's priority now: the partition's factor and its age, less its
 * nice; Slurm keeps a priority at 1 at least. */
static double cs_unit_prio(const struct csim *s, const struct cl_job *j)
{
	double age = (double)(s->now - j->submit_ms), prio;

	if (age > MAX_AGE_MS)
		age = MAX_AGE_MS;
	prio = PART_WEIGHT + AGE_WEIGHT * age / MAX_AGE_MS - (double)j->nice;
	return prio < 1 ? 1 : prio;
}

static const struct csim *sort_sim; /* qsort's context, for one sort */

static int cs_cmp_units(const void *a, const void *b)
{
	const struct cl_job *x = &sort_sim->sl.job[*(const int32_t *)a];
	const struct cl_job *y = &sort_sim->sl.job[*(const int32_t *)b];
	double px = cs_unit_prio(sort_sim, x), py = cs_unit_prio(sort_sim, y);

	if (px != py)
		return px > py ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* The pending units in Slurm's order (again when their set changed, or
 * when their ages moved an hour). */
static void cs_sort_units(struct csim *s)
{
	struct cslurm *sl = &s->sl;

	struct cl_vec *q = &sl->pend[CL_TIER_UNIT];
	size_t k = 0;

	if (sl->units_sorted && s->now - sl->sorted_ms < RESORT_MS)
		return;
	/* those cancelled while pending leave first */
	for (size_t i = 0; i < q->n; i++)
		if (sl->job[q->v[i]].phase == PHASE_PENDING)
			q->v[k++] = q->v[i];
	q->n = k;
	sort_sim = s;
	qsort(q->v, q->n, sizeof(int32_t), cs_cmp_units);
	sort_sim = NULL;
	sl->units_sorted = true;
	sl->sorted_ms = s->now;
}

/* The jobs of one tier in order; those no longer pending leave it. */
static void cs_pass_tier(struct csim *s, struct cs_pass *ps, enum cl_tier t)
{
	struct cl_vec *q = &s->sl.pend[t];
	size_t k = 0, i;

	for (i = 0; i < q->n && !ps->stop; i++) {
		int32_t ji = q->v[i];
		struct cl_job *j = &s->sl.job[ji];

		if (j->phase != PHASE_PENDING)
			continue;
		if (t != CL_TIER_UNIT) {
			if (cs_try_protected(s, ps, ji))
				continue;
		} else if (j->nnodes <= ps->f && !cs_blocks(s, ps, j)) {
			cs_take(s, ps, j);
			ps->f -= j->nnodes;
			cs_start(s, ji);
			continue;
		} else if (!ps->f)
			ps->stop = true;
		q->v[k++] = ji;
	}
	/* the rest as it is (those gone leave when a pass reaches them) */
	if (k != i)
		memmove(&q->v[k], &q->v[i], (q->n - i) * sizeof(q->v[0]));
	q->n = k + (q->n - i);
}

/* One pass of the scheduler: the main one (stops at the first job that
 * cannot start even by preemption) or the backfill (goes on). */
static void cs_schedule(struct csim *s, bool full)
{
	struct cslurm *sl = &s->sl;
	struct cs_pass ps = {
		.f = sl->free, .l = sl->leaving, .u = sl->units, .full = full
	};

	sl->dirty = false;
	if (full)
		sl->backfills++;
	else
		sl->passes++;
	cs_pass_tier(s, &ps, CL_TIER_HIGH);
	cs_pass_tier(s, &ps, CL_TIER_BASE);
	if (ps.stop || !sl->pend[CL_TIER_UNIT].n)
		return;
	cs_sort_units(s);
	cs_pass_tier(s, &ps, CL_TIER_UNIT);
}

void cs_schedule_if_dirty(struct csim *s)
{
	if (s->sl.dirty)
		cs_schedule(s, false);
}

int cs_handle(struct csim *s, const struct cl_ev *ev)
{
	struct cl_job *j = ev->job >= 0 ? &s->sl.job[ev->job] : NULL;

	switch (ev->type) {
	case CL_EV_END:
		if (j->phase == PHASE_RUNNING && j->ends_at == ev->t)
			cs_end(s, ev->job,
			       j->run_ms <= j->limit_ms ? END_COMPLETE
							: END_FAILED);
		break;
	case CL_EV_STEPS_GONE:
		if (j->phase == PHASE_RUNNING && j->preempted) {
			j->steps_gone = true;
			ce_job_moved(s, j, false, false);
		}
		break;
	case CL_EV_GRACE:
		if (j->phase == PHASE_RUNNING && j->preempted)
			cs_end(s, ev->job, END_PREEMPTED);
		break;
	case CL_EV_BACKFILL:
		cs_schedule(s, true);
		return cs_event(s, s->now + (int64_t)s->p->bf_interval_s * 1000,
				CL_EV_BACKFILL, -1);
	case CL_EV_PASS:
		break;
	}
	return 0;
}
