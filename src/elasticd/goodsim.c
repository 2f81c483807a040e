/*
 * The goodput simulator (goodsim.h): a model of Slurm driven by a spot
 * trace, the groups' training, and the policies.  elasticd's decisions
 * are its own code: one reconcile instance per group (a pass treats
 * groups one by one, so a group's decisions depend on its jobs alone),
 * each passed when something of its group moved, when its timers can
 * run out (wake()), and every IDLE_PASS_MS besides.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goodsim.h"
#include "reconcile.h"

#define T0_MS	     1700000000000LL /* reconcile's clock is the epoch's */
#define IDLE_PASS_MS 300000
#define GONE_KEEP_MS 300000 /* Slurm's MinJobAge */
#define NOBODY	     (-1)
#define WAKE_MAX     8

enum pool { POOL_SPOT, POOL_ONDEMAND, POOL_ANY };

struct gnode {
	int32_t job; /* holder, or NOBODY */
	bool present;
	bool ondemand;
	uint32_t slot; /* in its pool's free list, while free */
};

struct gjob {
	uint32_t id;
	uint32_t group;
	enum job_role role;
	enum pool pool;
	enum job_phase phase;
	enum job_end end;
	bool preempted, steps_gone, in_world, crashed;
	bool launched; /* NATIVE, RESTART: its ranks' start accounted */
	bool timed;    /* in sim.timed */
	unsigned kind; /* a unit's */
	uint32_t nnodes;
	uint32_t *nodes; /* while running */
	int64_t submit_ms, start_ms, gone_ms;
	int64_t eligible_ms; /* pending: not before */
	int64_t fail_ms;     /* crashed: Slurm knows then */
	int64_t grace_ms;    /* preempted: Slurm ends it then */
	int64_t term_ms;     /* told to end (TERM): ends then; 0: not */
};

enum tstate { T_IDLE, T_WAIT, T_TRAIN };

/* A group's training: the position in samples, and the last checkpoint. */
struct gtrain {
	enum tstate state;
	unsigned world;
	int64_t seg_ms;	 /* T_TRAIN: training since (after a pause) */
	int64_t ckpt_ms; /* T_TRAIN: the next periodic checkpoint */
	int64_t wait_ms; /* T_WAIT: training at world from then */
	/* In place, T_TRAIN: the world becomes next at switch_ms (the
	 * joiners ready), after a pause of inplace_s; 0: no grow pending. */
	unsigned next;
	int64_t switch_ms;
	double done, ckpt;
};

struct ggroup {
	uint32_t id; /* the base's job id (ELASTIC), else the job's */
	int32_t job; /* NATIVE, RESTART: its current job */
	int32_t old; /* RESTART: the job before it, maybe ending */
	struct reconcile *r;
	uint64_t generation;
	/* Passes due: at once after something moved, then when its
	 * timers can run out (or at every tick for a while, exact_passes) */
	int64_t due[WAKE_MAX];
	unsigned ndue;
	int64_t awake_ms; /* exact_passes: every tick until then */
	int64_t pick_ms;  /* ELASTIC: a relaunch's world is picked then */
	int64_t next_pass_ms;
	int32_t *jobs; /* ELASTIC: indices of its jobs */
	size_t njobs, cap;
	struct gtrain tr;
};

struct freelist {
	uint32_t *v;
	size_t n;
};

struct sim {
	const struct goodsim_params *p;
	enum goodsim_policy policy;
	struct trace *trace; /* mapped */
	size_t next_ev;
	uint32_t nnodes;
	struct gnode *node;
	struct freelist free[2];
	struct gjob *job;
	size_t njob, capjob;
	int32_t *queue; /* pending jobs, in submission order */
	size_t nqueue, capqueue;
	bool sched_dirty;
	int32_t *timed; /* jobs crashed or preempted, not yet ended */
	size_t ntimed;
	size_t held[2]; /* nodes held by jobs: spot, on-demand */
	struct ggroup *group;
	struct elastic_opts opts;
	struct elastic_policy pol;
	struct action_list actions;
	int64_t now;
	int64_t end; /* the trace's last event: nothing happens after it */
	uint64_t rng;
	struct goodsim_result res;
	elastic_error_t *err;
};

const char *goodsim_policy_name(enum goodsim_policy p)
{
	static const char *const name[] = { "slurm-elastic", "in-place",
					    "native-requeue", "restart-at-size",
					    "oracle" };

	return p < GOODSIM_NPOLICIES ? name[p] : "?";
}

void goodsim_defaults(struct goodsim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->spot_nodes = 16;
	p->groups = 1;
	p->min = 2;
	p->max = 18;
	p->step = 1;
	p->ondemand_nodes = p->groups * p->min;
	p->grace_s = 30;
	p->scale_delay_s = 10;
	p->fault_timeout_s = 20;
	p->ondemand = ELASTIC_ONDEMAND_NEVER;
	p->speed = 1;
	p->reclaim_ratio = 1;
	p->seed = 1;
	p->tick_ms = 1000;
	p->rate = 100;
	p->ckpt_s = 2;
	p->ckpt_every_s = 600;
	p->restart_s = 8;
	p->resize_s = 1.5;
	p->inplace_s = 0.4;
	p->join_s = 1.5;
	p->start_s = 1;
	p->detect_s = 10;
	/* Heartbeats at the default 5 s timeout: named lost 6 to 7 s after
	 * the crash (3.6 to 4 s at a 3 s timeout, t0122). */
	p->lost_s = 6.5;
	p->requeue_s = 120;
	/* AWS p3.2xlarge, us-east-1: on-demand $3.06/h, spot about $0.92/h */
	p->spot_price = 0.92;
	p->ondemand_price = 3.06;
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return elastic_errorf(err, __VA_ARGS__);               \
	} while (0)

static bool finite_nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

int goodsim_check(const struct goodsim_params *p, elastic_error_t *err)
{
	CHECK(p->spot_nodes >= 1 && p->spot_nodes <= TRACE_NODES_MAX,
	      "spot nodes: %u: not 1..%u", p->spot_nodes, TRACE_NODES_MAX);
	CHECK((uint64_t)p->spot_nodes + p->ondemand_nodes <= GOODSIM_NODES_MAX,
	      "nodes: %u spot and %u on-demand: more than %u", p->spot_nodes,
	      p->ondemand_nodes, GOODSIM_NODES_MAX);
	CHECK(p->groups >= 1 && p->groups <= GOODSIM_GROUPS_MAX,
	      "groups: %u: not 1..%u", p->groups, GOODSIM_GROUPS_MAX);
	CHECK(p->min >= 1 && p->min <= p->max && p->max <= GROUP_MAX_SLOTS &&
		  p->step >= 1 && p->step <= p->max,
	      "min/max/step: %u/%u/%u: need 1 <= min <= max <= %u, 1 <= step "
	      "<= max",
	      p->min, p->max, p->step, GROUP_MAX_SLOTS);
	CHECK(p->grace_s <= 86400 && p->scale_delay_s <= 86400 &&
		  p->fault_timeout_s <= 86400,
	      "grace, scale delay, fault timeout: at most 86400 s");
	CHECK(p->speed >= TRACE_SPEED_MIN && p->speed <= TRACE_SPEED_MAX,
	      "speed: %g: not %g..%g", p->speed, TRACE_SPEED_MIN,
	      TRACE_SPEED_MAX);
	CHECK(p->reclaim_ratio >= 0 && p->reclaim_ratio <= 1,
	      "reclaim ratio: %g: not 0..1", p->reclaim_ratio);
	CHECK(p->tick_ms >= 10 && p->tick_ms <= 60000,
	      "tick: %u ms: not 10..60000", p->tick_ms);
	CHECK(isfinite(p->rate) && p->rate > 0, "rate: %g: not > 0", p->rate);
	CHECK(p->ncurve <= GOODSIM_CURVE_MAX,
	      "rate-curve: %u points: more than %u", p->ncurve,
	      GOODSIM_CURVE_MAX);
	for (unsigned w = 1; w <= p->ncurve; w++)
		CHECK(isfinite(p->curve[w]) && p->curve[w] > 0,
		      "rate-curve: at %u nodes: %g: not > 0", w, p->curve[w]);
	CHECK(finite_nonneg(p->stop_s) && p->stop_s <= p->restart_s,
	      "stop: %g s: not 0..restart (%g s)", p->stop_s, p->restart_s);
	CHECK(finite_nonneg(p->ckpt_s) && finite_nonneg(p->restart_s) &&
		  finite_nonneg(p->resize_s) && finite_nonneg(p->start_s) &&
		  finite_nonneg(p->inplace_s) && finite_nonneg(p->join_s) &&
		  p->inplace_s <= 86400 && p->join_s <= 86400 &&
		  finite_nonneg(p->detect_s) && finite_nonneg(p->requeue_s) &&
		  p->ckpt_s <= 86400 && p->restart_s <= 86400 &&
		  p->resize_s <= 86400 && p->start_s <= 86400 &&
		  p->detect_s <= 86400 && p->requeue_s <= 86400 &&
		  finite_nonneg(p->lost_s) && p->lost_s <= 86400 &&
		  finite_nonneg(p->queue_wait_s) && p->queue_wait_s <= 86400,
	      "costs: each 0..86400 s");
	CHECK(isfinite(p->ckpt_every_s) && p->ckpt_every_s >= 1 &&
		  p->ckpt_every_s <= 86400 * 7,
	      "checkpoint period: %g s: not 1..604800", p->ckpt_every_s);
	CHECK(finite_nonneg(p->target_samples), "target samples: not >= 0");
	CHECK(finite_nonneg(p->spot_price) && finite_nonneg(p->ondemand_price),
	      "prices: not >= 0");
	return 0;
}

static int64_t ms_of(double s)
{
	return (int64_t)llround(s * 1000);
}

/* splitmix64: the crash or reclaim of each remove, from the seed. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform(uint64_t *s)
{
	return (double)(next_rand(s) >> 11) / 9007199254740992.0;
}

/* slurm-elastic's groups: a base and units, elasticd's decisions. */
static bool elastic(const struct sim *s)
{
	return s->policy == GOODSIM_ELASTIC || s->policy == GOODSIM_INPLACE;
}

/* ---------------------------------------------------------- training */

double goodsim_world_rate(const struct goodsim_params *p, unsigned w)
{
	if (!p->ncurve)
		return p->rate * w;
	if (w <= p->ncurve)
		return p->curve[w];
	return p->curve[p->ncurve] / p->ncurve * w;
}

int goodsim_set_curve(struct goodsim_params *p, const char *spec,
		      elastic_error_t *err)
{
	unsigned last = 0;
	const char *c = spec;

	p->ncurve = 0;
	p->curve[0] = 0;
	while (*c) {
		char *end;
		unsigned long w;
		double r;

		errno = 0;
		w = strtoul(c, &end, 10);
		if (errno || end == c || *end != ':' || w <= last ||
		    w > GOODSIM_CURVE_MAX || !isdigit((unsigned char)*c))
			return elastic_errorf(
			    err,
			    "rate-curve: '%.32s': not W:R with W %u..%u, "
			    "increasing",
			    c, last + 1, GOODSIM_CURVE_MAX);
		c = end + 1;
		r = strtod(c, &end);
		if (errno || end == c || !isfinite(r) || r <= 0 || r > 1e12 ||
		    (*end && *end != ','))
			return elastic_errorf(err,
					      "rate-curve: '%.32s': the rate "
					      "at %lu nodes: not a number > 0",
					      c, w);
		/* the points between: a straight line from the last */
		for (unsigned k = last + 1; k <= w; k++)
			p->curve[k] =
			    last ? p->curve[last] + (r - p->curve[last]) *
							(k - last) / (w - last)
				 : r * k / w;
		last = (unsigned)w;
		c = *end ? end + 1 : end;
		if (*end && !*c)
			return elastic_errorf(err, "rate-curve: a ',' at the "
						   "end");
	}
	if (!last)
		return elastic_errorf(err, "rate-curve: empty");
	p->ncurve = last;
	return 0;
}

static double group_rate(const struct sim *s, const struct gtrain *t)
{
	return goodsim_world_rate(s->p, t->world) / 1000.0; /* a ms */
}

/* Bring the position to time t: periodic checkpoints on the way. */
static void train_to(struct sim *s, struct gtrain *tr, int64_t t)
{
	int64_t every = ms_of(s->p->ckpt_every_s), pause = ms_of(s->p->ckpt_s);

	if (tr->state == T_WAIT && tr->wait_ms <= t) {
		tr->state = T_TRAIN;
		tr->seg_ms = tr->wait_ms;
		tr->ckpt_ms = tr->wait_ms + every;
	}
	if (tr->state != T_TRAIN)
		return;
	if (tr->next && tr->switch_ms <= t) {
		/* In place: the old world trained up to the switch. */
		int64_t at = tr->switch_ms, back = at + ms_of(s->p->inplace_s);
		unsigned next = tr->next;

		tr->next = 0;
		train_to(s, tr, at);
		tr->world = next;
		if (tr->seg_ms < back)
			tr->seg_ms = back;
		if (tr->ckpt_ms < tr->seg_ms)
			tr->ckpt_ms = tr->seg_ms; /* due in the pause: after */
	}
	while (tr->ckpt_ms <= t) {
		if (tr->ckpt_ms > tr->seg_ms)
			tr->done += group_rate(s, tr) *
				    (double)(tr->ckpt_ms - tr->seg_ms);
		tr->ckpt = tr->done;
		tr->seg_ms = tr->ckpt_ms + pause;
		tr->ckpt_ms = tr->seg_ms + every;
	}
	if (t > tr->seg_ms) {
		tr->done += group_rate(s, tr) * (double)(t - tr->seg_ms);
		tr->seg_ms = t;
	}
}

/* The ranks are told to stop: they checkpoint (nothing lost); a grow
 * in place that was pending is off. */
static void train_stop(struct sim *s, struct gtrain *tr, int64_t t)
{
	train_to(s, tr, t);
	if (tr->state == T_TRAIN)
		tr->ckpt = tr->done;
	tr->state = T_IDLE;
	tr->next = 0;
}

/* A rank died: the work since the last checkpoint is done again. */
static void train_crash(struct sim *s, struct gtrain *tr, int64_t t)
{
	train_to(s, tr, t);
	if (tr->state == T_IDLE)
		return;
	s->res.repeated += tr->done - tr->ckpt;
	tr->done = tr->ckpt;
	tr->state = T_IDLE;
}

/* Training again at world nodes from time t. */
static void train_resume(struct gtrain *tr, unsigned world, int64_t t)
{
	tr->state = world ? T_WAIT : T_IDLE;
	tr->world = world;
	tr->wait_ms = t;
}

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
static int push_index(int32_t **v, size_t *n, size_t *cap, int32_t x)
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

static int32_t job_new(struct sim *s, uint32_t group, enum job_role role,
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
	if (push_index(&s->queue, &s->nqueue, &s->capqueue, (int32_t)s->njob) <
	    0)
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
	j->eligible_ms = s->now;
	s->sched_dirty = true;
	return (int32_t)s->njob++;
}

/* The job lets its nodes go: the free ones back to the pool, those taken
 * back (reclaimed, crashed) gone with it. */
static void job_release(struct sim *s, struct gjob *j)
{
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

static void job_end(struct sim *s, struct gjob *j, enum job_end end)
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
static void job_term(struct sim *s, int32_t ji, int64_t delay_ms)
{
	struct gjob *j = &s->job[ji];

	if (delay_ms <= 0) {
		job_end(s, j, j->preempted ? END_PREEMPTED : END_CANCELLED);
		return;
	}
	timed_add(s, ji);
	if (!j->term_ms || j->term_ms > s->now + delay_ms)
		j->term_ms = s->now + delay_ms;
}

/* Back in the queue (Slurm's requeue), eligible after requeue_s. */
static int job_requeue(struct sim *s, struct gjob *j)
{
	if (push_index(&s->queue, &s->nqueue, &s->capqueue,
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

static size_t pool_free(const struct sim *s, enum pool p)
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

static void due_at(struct ggroup *g, int64_t t)
{
	unsigned i, last = 0;

	for (i = 0; i < g->ndue; i++) {
		if (g->due[i] == t)
			return;
		if (g->due[i] > g->due[last])
			last = i;
	}
	if (g->ndue < WAKE_MAX)
		g->due[g->ndue++] = t;
	else if (t < g->due[last])
		g->due[last] = t; /* the latest is left to the idle pass */
}

/*
 * Something of g moved: pass it at the next tick, and again when the
 * timers the pass keeps can run out (a scale delay, a fault timeout, a
 * grace, a crash seen by Slurm), a tick after each.  With exact_passes,
 * at every tick for as long as the longest of them (elasticd's own
 * rhythm; the figures of both are compared by the tests).
 */
/* A crash to its being known: by slurm-elastic's launchers, or Slurm. */
static int64_t seen_ms(const struct sim *s)
{
	return ms_of(s->policy == GOODSIM_ELASTIC ||
			     s->policy == GOODSIM_INPLACE
			 ? s->p->lost_s
			 : s->p->detect_s);
}

static void wake(struct sim *s, struct ggroup *g)
{
	const struct goodsim_params *p = s->p;
	int64_t tick = p->tick_ms, t[5] = { 0, p->scale_delay_s * 1000LL,
					    p->fault_timeout_s * 1000LL,
					    p->grace_s * 1000LL, seen_ms(s) };

	if (p->exact_passes) {
		int64_t w = 0;

		for (int i = 0; i < 5; i++)
			w = t[i] > w ? t[i] : w;
		w += s->now + 3 * tick + seen_ms(s);
		if (g->awake_ms < w)
			g->awake_ms = w;
		return;
	}
	for (int i = 0; i < 5; i++)
		due_at(g, (s->now + t[i]) / tick * tick + tick);
}

/* Is a pass of g due now?  The dues it meets are spent. */
static bool pass_due(struct sim *s, struct ggroup *g)
{
	bool due = s->now <= g->awake_ms || s->now >= g->next_pass_ms;
	unsigned k = 0;

	for (unsigned i = 0; i < g->ndue; i++)
		if (g->due[i] <= s->now)
			due = true;
		else
			g->due[k++] = g->due[i];
	g->ndue = k;
	return due;
}

/* Slurm's scheduler: pending jobs in submission order, each started when
 * its nodes are free (later ones may pass one that does not fit). */
static void schedule(struct sim *s)
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
		    pool_free(s, j->pool) >= j->nnodes) {
			job_start(s, j);
			wake(s, &s->group[j->group]);
			continue;
		}
		if (j->eligible_ms > s->now)
			s->sched_dirty = true; /* look again later */
		s->queue[k++] = s->queue[i];
	}
	s->nqueue = k;
}

/* ----------------------------------------------------------- elastic */

static int group_add_job(struct ggroup *g, int32_t j)
{
	return push_index(&g->jobs, &g->njobs, &g->cap, j);
}

static struct snapshot *group_snapshot(struct sim *s, struct ggroup *g)
{
	struct snapshot *snap =
	    snapshot_create((time_t)((T0_MS + s->now) / 1000));
	size_t k = 0;

	if (!snap)
		return NULL;
	for (size_t i = 0; i < g->njobs; i++) {
		struct gjob *t = &s->job[g->jobs[i]];
		struct job_view v = { 0 };

		if (t->phase == PHASE_GONE &&
		    s->now - t->gone_ms > GONE_KEEP_MS)
			continue; /* slurmctld forgot it */
		g->jobs[k++] = g->jobs[i];
		v.id = t->id;
		v.role = t->role;
		v.phase = t->phase;
		v.end = t->end;
		v.preempted = t->preempted;
		v.steps_gone = t->steps_gone;
		v.nnodes = t->nnodes;
		v.nodes = t->phase == PHASE_RUNNING ? "n1" : "";
		v.uid = 1000 + g->id % 1000;
		v.gid = 1000;
		v.user = "user";
		v.account = "acct";
		v.partition = t->role == ROLE_BASE	 ? "base"
			      : t->kind == UNIT_ONDEMAND ? "ondemand"
							 : "spot";
		v.submit_time = (time_t)((T0_MS + t->submit_ms) / 1000);
		if (t->phase != PHASE_PENDING)
			v.start_time = (time_t)((T0_MS + t->start_ms) / 1000);
		if (t->role == ROLE_BASE)
			v.opts = &s->opts;
		else {
			v.unit.group = g->id;
			v.unit.kind = t->kind;
			v.unit.nodes = t->nnodes;
		}
		if (snapshot_add(snap, &v, s->err) < 0) {
			snapshot_destroy(snap);
			return NULL;
		}
	}
	g->njobs = k;
	snapshot_finish(snap);
	return snap;
}

static struct gjob *group_job(struct sim *s, struct ggroup *g, uint32_t id)
{
	for (size_t i = 0; i < g->njobs; i++)
		if (s->job[g->jobs[i]].id == id)
			return &s->job[g->jobs[i]];
	return NULL;
}

static int apply(struct sim *s, struct ggroup *g, const struct action *a)
{
	struct gjob *j;
	int32_t k;

	switch (a->type) {
	case ACTION_SUBMIT:
		k = job_new(s, (uint32_t)(g - s->group), ROLE_UNIT,
			    a->unit.tag.kind == UNIT_ONDEMAND ? POOL_ONDEMAND
							      : POOL_SPOT,
			    a->unit.tag.nodes);
		if (k < 0 || group_add_job(g, k) < 0)
			return elastic_errorf(s->err, "out of memory");
		s->job[k].kind = a->unit.tag.kind;
		reconcile_submitted(g->r, a->group, a->token, s->job[k].id,
				    T0_MS + s->now);
		break;
	case ACTION_CANCEL:
		j = group_job(s, g, a->job);
		if (j && j->phase != PHASE_GONE)
			job_end(s, j, END_CANCELLED);
		break;
	default: /* raises: the world's change, below; notes */
		break;
	}
	return 0;
}

/*
 * In place, a world after the first: a grow keeps the world training
 * until the joiners are ready; a shrink, or a world after a crash,
 * re-forms at once.  World 0: the ranks stop.
 */
static void inplace_world(struct sim *s, struct gtrain *tr, unsigned w)
{
	int64_t pause = ms_of(s->p->inplace_s), join = ms_of(s->p->join_s);
	int64_t at;

	/* elasticd's world after the launcher's own of that size. */
	if (w && w == tr->world && tr->state != T_IDLE && !tr->next)
		return;
	s->res.resizes++;
	train_to(s, tr, s->now);
	if (!w) {
		train_stop(s, tr, s->now);
		tr->world = 0;
		return;
	}
	if (tr->state == T_TRAIN && w > tr->world) {
		if (w > tr->next) /* new joiners: ready join_s from now */
			tr->switch_ms = s->now + join;
		tr->next = w;
		return;
	}
	/* A shrink, or no training to keep (a crash, a pause): joiners,
	 * if any, start now too. */
	at = s->now + pause + (w > tr->world ? join : 0);
	if (tr->state == T_WAIT && tr->wait_ms > at)
		at = tr->wait_ms;
	tr->next = 0;
	tr->state = T_WAIT;
	tr->world = w;
	tr->wait_ms = at;
}

/* After a pass: a new generation is a new world for the ranks. */
static int follow_world(struct sim *s, struct ggroup *g)
{
	struct reconcile_group_status st;
	uint32_t world[GROUP_MAX_SLOTS + 1];
	bool training;

	if (reconcile_group_status(g->r, g->id, &st, world,
				   GROUP_MAX_SLOTS + 1) < 0 ||
	    st.generation == g->generation)
		return 0;
	g->generation = st.generation;
	if (getenv("GOODSIM_DEBUG"))
		fprintf(stderr,
			"goodsim: %.3f s: group %u: generation %" PRIu64
			": %u nodes\n",
			(double)s->now / 1000, g->id, st.generation,
			st.world_nodes);
	for (size_t i = 0; i < g->njobs; i++)
		s->job[g->jobs[i]].in_world = false;
	for (size_t i = 0; i < st.nworld && i <= GROUP_MAX_SLOTS; i++) {
		struct gjob *j = group_job(s, g, world[i]);

		if (j)
			j->in_world = true;
	}
	if (s->policy == GOODSIM_INPLACE && g->tr.world) {
		inplace_world(s, &g->tr, st.world_nodes);
		return 0;
	}
	/* Before the old ranks are down the relaunch has not picked its
	 * world yet: it starts the newest, at no more cost. */
	if (g->tr.state == T_WAIT && s->now < g->pick_ms && st.world_nodes) {
		g->tr.world = st.world_nodes;
		return 0;
	}
	s->res.resizes += g->tr.state != T_IDLE || g->tr.world;
	/* Only ranks that train have a checkpoint to write. */
	train_to(s, &g->tr, s->now);
	training = g->tr.state == T_TRAIN;
	train_stop(s, &g->tr, s->now);
	g->pick_ms =
	    s->now + ms_of((training ? s->p->ckpt_s : 0) + s->p->stop_s);
	train_resume(&g->tr, st.world_nodes,
		     s->now + ms_of((training ? s->p->ckpt_s : 0) +
				    s->p->restart_s + s->p->resize_s));
	return 0;
}

static int elastic_pass(struct sim *s, struct ggroup *g)
{
	struct snapshot *snap;
	int rc = 0;

	/* A preempted unit out of the world: its ranks left once the
	 * others checkpointed (elastic-run's steps end). */
	for (size_t i = 0; i < g->njobs; i++) {
		struct gjob *j = &s->job[g->jobs[i]];

		j->steps_gone = j->phase == PHASE_RUNNING && j->preempted &&
				!j->in_world &&
				(g->tr.state != T_IDLE || !g->tr.world);
	}
	snap = group_snapshot(s, g);
	if (!snap)
		return -1;
	s->res.passes++;
	if (reconcile_pass(g->r, snap, &s->pol, T0_MS + s->now, &s->actions,
			   s->err) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < s->actions.n; i++)
		rc = apply(s, g, &s->actions.a[i]);
	snapshot_destroy(snap);
	if (rc == 0)
		rc = follow_world(s, g);
	g->next_pass_ms = s->now + IDLE_PASS_MS;
	return rc;
}

/* ----------------------------------------------- native and restart */

/* Restart-at-size: how long the old job takes to end once told (its
 * ranks' checkpoint and end, stop_s; ranks still starting have nothing
 * to write: at once). */
static int64_t restart_end(struct sim *s, struct gtrain *tr)
{
	train_to(s, tr, s->now);
	return tr->state == T_TRAIN ? ms_of(s->p->ckpt_s + s->p->stop_s) : 0;
}

/* Nodes of j that are there, while it runs. */
static size_t job_present(const struct sim *s, int32_t ji)
{
	const struct gjob *j = ji >= 0 ? &s->job[ji] : NULL;
	size_t n = 0;

	if (j && j->phase == PHASE_RUNNING && j->nodes)
		for (uint32_t i = 0; i < j->nnodes; i++)
			n += s->node[j->nodes[i]].present;
	return n;
}

/* What a restart-at-size job would ask for now: the nodes there are (the
 * free ones, its own and its ending predecessor's), up to max; 0 below
 * min. */
static unsigned restart_size(const struct sim *s, const struct ggroup *g)
{
	size_t n = pool_free(s, POOL_ANY) + job_present(s, g->job) +
		   job_present(s, g->old);

	if (n > s->p->max)
		n = s->p->max;
	return n >= s->p->min ? (unsigned)n : 0;
}

/* A new job for the group, eligible after delay_ms (its ranks'
 * checkpoint) and the queue's wait. */
static int group_submit_job(struct sim *s, struct ggroup *g, uint32_t n,
			    int64_t delay_ms)
{
	int32_t k =
	    job_new(s, (uint32_t)(g - s->group), ROLE_OTHER, POOL_ANY, n);

	if (k < 0)
		return elastic_errorf(s->err, "out of memory");
	s->job[k].eligible_ms = s->now + delay_ms + ms_of(s->p->queue_wait_s);
	g->job = k;
	return 0;
}

static int plain_step(struct sim *s, struct ggroup *g)
{
	struct gjob *j = g->job >= 0 ? &s->job[g->job] : NULL;
	unsigned want;
	int64_t end;

	if (j && j->phase == PHASE_RUNNING && !j->launched) {
		/* started: ranks up after the launch (restart-at-size: the
		 * old job's end, stop_s, came before the start) */
		j->launched = true;
		train_resume(
		    &g->tr, j->nnodes,
		    j->start_ms +
			ms_of(
			    s->p->start_s + s->p->restart_s -
			    (s->policy == GOODSIM_RESTART ? s->p->stop_s : 0)));
		s->res.resizes++;
		return 0;
	}
	if (s->policy != GOODSIM_RESTART ||
	    (j && j->phase == PHASE_RUNNING && (j->preempted || j->crashed)))
		return 0;
	want = restart_size(s, g);
	if (!j || j->phase == PHASE_GONE)
		return want ? group_submit_job(s, g, want, 0) : 0;
	if (j->phase == PHASE_PENDING) {
		if (want && want != j->nnodes)
			j->nnodes = want; /* asks for what there is */
		return 0;
	}
	if (want == j->nnodes || !want)
		return 0;
	/* a change: stop, and start again at the new size once the old
	 * job is gone */
	end = restart_end(s, &g->tr);
	train_stop(s, &g->tr, s->now);
	g->tr.world = 0;
	job_term(s, g->job, end);
	g->old = g->job;
	return group_submit_job(s, g, want, end);
}

/* -------------------------------------------------------------- faults */

/* Node n leaves: reclaimed (its job preempted) or crashed. */
static void node_remove(struct sim *s, uint32_t n, bool crash)
{
	struct gnode *nd = &s->node[n];
	struct gjob *j;
	struct ggroup *g;
	int64_t end;

	if (nd->job == NOBODY) {
		if (nd->present)
			free_drop(s, n);
		nd->present = false;
		return;
	}
	nd->present = false;
	j = &s->job[nd->job];
	g = &s->group[j->group];
	wake(s, g);
	if (crash) {
		s->res.crashes++;
		if (!j->crashed) {
			j->crashed = true;
			j->fail_ms = s->now + seen_ms(s);
			timed_add(s, nd->job);
		}
		/* its ranks die; the others fail in the next collective: in
		 * place they stop there, each with the last completed step */
		if (s->policy == GOODSIM_INPLACE) {
			if (j->in_world)
				train_stop(s, &g->tr, s->now);
		} else if (!elastic(s) || j->in_world)
			train_crash(s, &g->tr, s->now);
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
	/* Slurm's signal: the ranks checkpoint and leave */
	end = restart_end(s, &g->tr);
	train_stop(s, &g->tr, s->now);
	g->tr.world = 0;
	if (s->policy == GOODSIM_RESTART) /* and it starts again */
		job_term(s, nd->job, end);
}

static void node_add(struct sim *s, uint32_t n)
{
	struct gnode *nd = &s->node[n];

	if (nd->present)
		return;
	nd->present = true;
	if (nd->job == NOBODY)
		free_push(s, n);
}

/* In place, a unit's crash found by the launcher: the survivors re-form
 * at once without it, when min or more are left (elastic-run's world of
 * its own); elasticd's next world follows. */
static void own_world(struct sim *s, struct gjob *j)
{
	struct gtrain *tr = &s->group[j->group].tr;

	if (s->policy != GOODSIM_INPLACE || j->role == ROLE_BASE ||
	    !j->in_world || tr->world <= j->nnodes ||
	    !options_size_allowed(&s->opts, tr->world - j->nnodes))
		return;
	j->in_world = false;
	inplace_world(s, tr, tr->world - j->nnodes);
}

/* Slurm's timers: a crash found (the job fails: elasticd's unit ends,
 * Slurm requeues a native job), a grace run out (the job is ended, or
 * requeued). */
static int job_timers(struct sim *s)
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
		wake(s, &s->group[j->group]);
		if (fail)
			own_world(s, j);
		if (s->policy == GOODSIM_NATIVE) {
			if (job_requeue(s, j) < 0)
				return elastic_errorf(s->err, "out of memory");
		} else
			job_end(s, j,
				fail	       ? END_FAILED
				: j->preempted ? END_PREEMPTED
					       : END_CANCELLED);
	}
	s->ntimed = k;
	return 0;
}

/* ------------------------------------------------------------- oracle */

/* Nodes the oracle trains on with a spot nodes present: spot first, then
 * on-demand, up to the groups' max. */
static void oracle_use(const struct goodsim_params *p, unsigned a, double *spot,
		       double *od)
{
	double cap = (double)p->groups * p->max;

	*spot = a < cap ? a : cap;
	*od = p->ondemand_nodes < cap - *spot ? p->ondemand_nodes : cap - *spot;
}

/* n nodes spread evenly over the groups (the most a concave curve
 * gives), each group's world at the client's rate. */
static double oracle_rate(const struct goodsim_params *p, double n)
{
	unsigned each = (unsigned)(n / p->groups),
		 more = (unsigned)n - each * p->groups;

	return more * goodsim_world_rate(p, each + 1) +
	       (p->groups - more) * goodsim_world_rate(p, each);
}

static void oracle_run(const struct goodsim_params *p, const struct trace *t,
		       double target, goodsim_sample_fn sample, void *arg,
		       uint64_t period, struct goodsim_result *r)
{
	uint64_t end = trace_at_speed_ms(trace_duration_ms(t), p->speed);
	uint64_t from = 0, next = 0;
	unsigned a = 0;
	size_t n = trace_event_count(t);

	r->seconds = (double)end / 1000;
	r->time_to_target_s = target <= 0 ? 0 : -1;
	for (size_t i = 0; i <= n; i++) {
		uint64_t to =
		    i < n ? trace_at_speed_ms(trace_event(t, i)->ms, p->speed)
			  : end;
		double spot, od, dt = (double)(to - from) / 1000, rate;

		oracle_use(p, a, &spot, &od);
		rate = oracle_rate(p, spot + od);
		for (; sample && (next < to || (i == n && next <= end));
		     next += period)
			sample(arg,
			       &(struct goodsim_point){
				   (double)next / 1000, a + p->ondemand_nodes,
				   spot + od,
				   r->samples +
				       rate * (double)(next - from) / 1000 });
		if (r->time_to_target_s < 0 && rate > 0 &&
		    r->samples + rate * dt >= target)
			r->time_to_target_s =
			    (double)from / 1000 + (target - r->samples) / rate;
		r->samples += rate * dt;
		r->spot_node_s += spot * dt;
		r->ondemand_node_s += od * dt;
		if (i < n)
			a = trace_event(t, i)->available;
		from = to;
	}
}

/* -------------------------------------------------------------- a run */

static int sim_init(struct sim *s, const struct goodsim_params *p,
		    const struct trace *t)
{
	uint32_t spot = p->spot_nodes;

	s->trace = trace_map(t, spot, s->err);
	if (!s->trace)
		return -1;
	s->nnodes = spot + p->ondemand_nodes;
	s->node = calloc(s->nnodes, sizeof(*s->node));
	s->free[0].v = calloc(spot, sizeof(uint32_t));
	s->free[1].v = calloc(p->ondemand_nodes + 1, sizeof(uint32_t));
	s->group = calloc(p->groups, sizeof(*s->group));
	if (!s->node || !s->free[0].v || !s->free[1].v || !s->group)
		return elastic_errorf(s->err, "out of memory");
	s->rng = p->seed;
	for (uint32_t n = 0; n < s->nnodes; n++) {
		s->node[n].job = NOBODY;
		s->node[n].ondemand = n >= spot;
		if (n >= spot) {
			s->node[n].present = true;
			free_push(s, n);
		}
	}
	policy_defaults(&s->pol);
	if (s->pol.max_nodes < p->max)
		s->pol.max_nodes = p->max;
	s->pol.preemptible_partitions.n = 1;
	strcpy(s->pol.preemptible_partitions.name[0], "spot");
	s->pol.ondemand_partitions.n = 1;
	strcpy(s->pol.ondemand_partitions.name[0], "ondemand");
	s->pol.ondemand_allowed = p->ondemand != ELASTIC_ONDEMAND_NEVER;
	s->opts.min = p->min;
	s->opts.max = p->max;
	s->opts.step = p->step;
	s->opts.grace = p->grace_s;
	s->opts.scale_delay = p->scale_delay_s;
	s->opts.fault_timeout = p->fault_timeout_s;
	s->opts.ondemand = p->ondemand;
	s->opts.signal = SIGURG;
	s->opts.keep = 3;
	s->opts.given = (1u << ELASTIC_OPT_MIN) | (1u << ELASTIC_OPT_MAX) |
			(1u << ELASTIC_OPT_STEP);
	for (uint32_t i = 0; i < p->groups; i++) {
		struct ggroup *g = &s->group[i];
		int32_t k;

		g->job = g->old = NOBODY;
		if (s->policy == GOODSIM_RESTART)
			continue; /* submitted when it can start */
		k = job_new(s, i, elastic(s) ? ROLE_BASE : ROLE_OTHER,
			    elastic(s) ? POOL_ONDEMAND : POOL_ANY,
			    elastic(s) ? p->min : p->max);
		if (k < 0)
			return elastic_errorf(s->err, "out of memory");
		g->job = k;
		g->id = s->job[k].id;
		if (!elastic(s))
			continue;
		g->r = reconcile_create(NULL);
		if (!g->r || group_add_job(g, k) < 0)
			return elastic_errorf(s->err, "out of memory");
	}
	return 0;
}

static void sim_free(struct sim *s)
{
	for (size_t i = 0; i < s->njob; i++)
		free(s->job[i].nodes);
	for (uint32_t i = 0; s->group && i < s->p->groups; i++) {
		reconcile_destroy(s->group[i].r);
		free(s->group[i].jobs);
	}
	trace_destroy(s->trace);
	free(s->node);
	free(s->free[0].v);
	free(s->free[1].v);
	free(s->job);
	free(s->timed);
	free(s->queue);
	free(s->group);
	action_list_free(&s->actions);
}

/* The trace's events up to now, each at its own time. */
static void trace_step(struct sim *s, int64_t now)
{
	size_t n = trace_event_count(s->trace);

	for (; s->next_ev < n; s->next_ev++) {
		const struct trace_event *e = trace_event(s->trace, s->next_ev);
		int64_t at = (int64_t)trace_at_speed_ms(e->ms, s->p->speed);

		if (at > now || at >= s->end)
			break;
		s->now = at;
		if (e->add)
			node_add(s, e->node);
		else
			node_remove(s, e->node,
				    uniform(&s->rng) >= s->p->reclaim_ratio);
	}
	s->now = now;
}

static int policy_step(struct sim *s)
{
	for (uint32_t i = 0; i < s->p->groups; i++) {
		struct ggroup *g = &s->group[i];
		int rc;

		if (!elastic(s))
			rc = plain_step(s, g);
		else if (pass_due(s, g))
			rc = elastic_pass(s, g);
		else
			continue;
		if (rc < 0)
			return -1;
	}
	return 0;
}

struct progress {
	double samples, training;
};

static struct progress progress_at(struct sim *s, int64_t t)
{
	struct progress pr = { 0, 0 };

	for (uint32_t i = 0; i < s->p->groups; i++) {
		struct gtrain *tr = &s->group[i].tr;

		train_to(s, tr, t);
		pr.samples += tr->done;
		if (tr->state == T_TRAIN && tr->seg_ms <= t)
			pr.training += tr->world;
	}
	return pr;
}

int goodsim_run(const struct goodsim_params *p, const struct trace *t,
		enum goodsim_policy policy, goodsim_sample_fn sample, void *arg,
		double period_s, struct goodsim_result *ret,
		elastic_error_t *err)
{
	struct sim s = { .p = p, .policy = policy, .err = err };
	struct goodsim_result oracle = { 0 };
	int64_t end, tick = p->tick_ms, period, next_sample = 0;
	double target, last_samples = 0;
	int rc = -1;

	if (goodsim_check(p, err) < 0)
		return -1;
	if (policy >= GOODSIM_NPOLICIES)
		return elastic_errorf(err, "policy %d: unknown", (int)policy);
	if (sample && !(isfinite(period_s) && period_s >= 0.001))
		return elastic_errorf(err, "sample period: %g s: not >= 0.001",
				      period_s);
	if (sim_init(&s, p, t) < 0)
		goto out;
	period = sample ? ms_of(period_s) : 0;
	oracle_run(p, s.trace, 0, NULL, NULL, 0, &oracle);
	target = p->target_samples ? p->target_samples : oracle.samples / 2;
	s.res.policy = policy;
	if (policy == GOODSIM_ORACLE) {
		oracle_run(p, s.trace, target, sample, arg, (uint64_t)period,
			   &s.res);
		rc = 0;
		goto out;
	}
	s.res.time_to_target_s = -1;
	end = (int64_t)trace_at_speed_ms(trace_duration_ms(s.trace), p->speed);
	s.end = end;
	for (int64_t now = 0; now <= end; now += tick) {
		trace_step(&s, now);
		if (job_timers(&s) < 0)
			goto out;
		schedule(&s);
		if (policy_step(&s) < 0)
			goto out;
		schedule(&s); /* what the pass submitted, at once */
		s.res.spot_node_s += (double)s.held[0] * (double)tick / 1000;
		s.res.ondemand_node_s +=
		    (double)s.held[1] * (double)tick / 1000;
		if (s.res.time_to_target_s < 0 ||
		    (period && now >= next_sample)) {
			struct progress pr = progress_at(&s, now);

			if (s.res.time_to_target_s < 0 &&
			    pr.samples >= target) {
				double rate =
				    (pr.samples - last_samples) / (double)tick;

				s.res.time_to_target_s =
				    (double)now / 1000 -
				    (rate > 0
					 ? (pr.samples - target) / rate / 1000
					 : 0);
			}
			last_samples = pr.samples;
			if (period && now >= next_sample) {
				sample(arg,
				       &(struct goodsim_point){
					   (double)now / 1000,
					   trace_available_at(
					       s.trace, (uint64_t)((double)now *
								   p->speed)) +
					       p->ondemand_nodes,
					   pr.training, pr.samples });
				next_sample += period;
			}
		}
	}
	s.res.seconds = (double)end / 1000;
	s.res.samples = progress_at(&s, end).samples;
	rc = 0;
out:
	if (rc == 0) {
		s.res.goodput =
		    s.res.seconds > 0 ? s.res.samples / s.res.seconds : 0;
		s.res.cost = s.res.spot_node_s / 3600 * p->spot_price +
			     s.res.ondemand_node_s / 3600 * p->ondemand_price;
		*ret = s.res;
	}
	sim_free(&s);
	return rc;
}

int goodsim_schedule(const struct goodsim_params *p, const struct trace *t,
		     goodsim_fault_fn fn, void *arg, elastic_error_t *err)
{
	struct trace *m;
	uint64_t rng = p->seed, end;

	if (goodsim_check(p, err) < 0)
		return -1;
	m = trace_map(t, p->spot_nodes, err);
	if (!m)
		return -1;
	end = trace_at_speed_ms(trace_duration_ms(m), p->speed);
	for (size_t i = 0; i < trace_event_count(m); i++) {
		const struct trace_event *e = trace_event(m, i);
		uint64_t at = trace_at_speed_ms(e->ms, p->speed);

		if (at >= end)
			break;
		fn(arg, at, e->node,
		   e->add			       ? GOODSIM_ADD
		   : uniform(&rng) >= p->reclaim_ratio ? GOODSIM_CRASH
						       : GOODSIM_RECLAIM);
	}
	trace_destroy(m);
	return 0;
}

/* ---------------------------------------------------------- synthetic */

struct down {
	uint32_t node;
	uint64_t from, to; /* ms */
};

static int down_cmp(const void *a, const void *b)
{
	const struct down *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

struct sev {
	uint64_t ms;
	uint32_t node;
	bool add;
};

static int sev_cmp(const void *a, const void *b)
{
	const struct sev *x = a, *y = b;

	if (x->ms != y->ms)
		return x->ms < y->ms ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

static uint64_t expo_ms(uint64_t *rng, double mean_s)
{
	double v = -mean_s * log(1 - uniform(rng)) * 1000;

	return v < 1 ? 1 : v > 1e12 ? (uint64_t)1e12 : (uint64_t)v;
}

static int downs_add(struct down **v, size_t *n, size_t *cap, uint32_t node,
		     uint64_t from, uint64_t to)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		struct down *w = realloc(*v, c * sizeof(*w));

		if (!w)
			return -1;
		*v = w;
		*cap = c;
	}
	(*v)[(*n)++] = (struct down){ node, from, to };
	return 0;
}

char *goodsim_synthetic(unsigned nodes, double hours, double mtbf_s,
			double mttr_s, double burst_every_s,
			unsigned burst_size, uint64_t seed)
{
	uint64_t horizon = (uint64_t)(hours * 3.6e6), rng = seed;
	struct down *d = NULL;
	struct sev *ev = NULL;
	size_t nd = 0, capd = 0, nev = 0, len = 0;
	char *text = NULL;
	uint32_t last = 0; /* a node, and whether it is down at the end */
	bool last_down = false;

	if (!nodes || nodes > TRACE_NODES_MAX || !(hours > 0) ||
	    !(mtbf_s > 0) || !(mttr_s > 0))
		return NULL;
	for (uint32_t n = 0; n < nodes; n++)
		for (uint64_t t = expo_ms(&rng, mtbf_s); t < horizon;) {
			uint64_t back = t + expo_ms(&rng, mttr_s);

			if (downs_add(&d, &nd, &capd, n, t, back) < 0)
				goto fail;
			t = back + expo_ms(&rng, mtbf_s);
		}
	if (burst_every_s > 0 && burst_size)
		for (uint64_t t = expo_ms(&rng, burst_every_s); t < horizon;
		     t += expo_ms(&rng, burst_every_s)) {
			uint64_t back = t + expo_ms(&rng, mttr_s);

			for (unsigned k = 0; k < burst_size; k++)
				if (downs_add(
					&d, &nd, &capd,
					(uint32_t)(next_rand(&rng) % nodes), t,
					back) < 0)
					goto fail;
		}
	qsort(d, nd, sizeof(*d), down_cmp);
	ev = malloc((nodes + 2 * nd) * sizeof(*ev));
	if (!ev)
		goto fail;
	for (uint32_t n = 0; n < nodes; n++)
		ev[nev++] = (struct sev){ 0, n, true };
	for (size_t i = 0; i < nd;) {
		/* one node's intervals, overlapping ones merged */
		uint32_t node = d[i].node;
		uint64_t from = d[i].from, to = d[i].to;

		for (i++; i < nd && d[i].node == node && d[i].from <= to; i++)
			if (d[i].to > to)
				to = d[i].to;
		ev[nev++] = (struct sev){ from, node, false };
		if (to < horizon)
			ev[nev++] = (struct sev){ to, node, true };
		last = node;
		last_down = to >= horizon;
	}
	qsort(ev, nev, sizeof(*ev), sev_cmp);
	text = malloc((nev + 2) * 40 + 1);
	if (!text)
		goto fail;
	for (size_t i = 0; i < nev; i++)
		len += (size_t)sprintf(text + len, "%" PRIu64 ",%s,n%u\n",
				       ev[i].ms, ev[i].add ? "add" : "remove",
				       ev[i].node);
	/* The trace lasts to the horizon: a node goes and comes back (or
	 * comes and goes) at its very end. */
	if (ev[nev - 1].ms < horizon - 1)
		sprintf(text + len, "%" PRIu64 ",%s,n%u\n%" PRIu64 ",%s,n%u\n",
			horizon - 1, last_down ? "add" : "remove", last,
			horizon, last_down ? "remove" : "add", last);
	free(d);
	free(ev);
	return text;
fail:
	free(d);
	free(ev);
	free(text);
	return NULL;
}
