#ifndef GOODSIM_GOODSIM_IMPL_H
#define GOODSIM_GOODSIM_IMPL_H

/*
 * What goodsim.c (the parameters, a run's loop, the oracle, the fault
 * schedule, synthetic traces), goodsim_slurm.c (the model of Slurm: nodes,
 * jobs, the queue, faults and Slurm's timers), goodsim_policy.c (the
 * groups' training and the policies that drive it) and goodsim_spares.c
 * (the spares elasticd keeps) share: the simulated cluster's records and
 * the calls from one part to another.  Private to libgoodsim.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "goodsim.h"
#include "elasticd/reconcile.h"

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
	bool spare;    /* a unit elasticd keeps as a spare, running */
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
	/* An async save under way: its position, durable at pend_ms (0:
	 * none). */
	double pend;
	int64_t pend_ms;
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
	size_t held[2];	   /* nodes held by jobs: spot, on-demand */
	size_t spare_held; /* of those, by the spares */
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

static inline int64_t ms_of(double s)
{
	return (int64_t)llround(s * 1000);
}

/* slurm-elastic's groups: a base and units, elasticd's decisions. */
static inline bool elastic(const struct sim *s)
{
	return s->policy == GOODSIM_ELASTIC || s->policy == GOODSIM_INPLACE;
}

/* A crash to its being known: by slurm-elastic's launchers, or Slurm. */
static inline int64_t seen_ms(const struct sim *s)
{
	return ms_of(s->policy == GOODSIM_ELASTIC ||
			     s->policy == GOODSIM_INPLACE
			 ? s->p->lost_s
			 : s->p->detect_s);
}

/* goodsim_slurm.c.  The nodes, the on-demand ones free and the spot ones
 * absent until the trace adds them: 0, or -1 with s->err set; and all the
 * nodes and jobs let go. */
int gs_cluster_init(struct sim *s);
void gs_cluster_free(struct sim *s);
/* Append x to the growing array *v of *n (room for *cap): 0 or -1. */
int gs_push_index(int32_t **v, size_t *n, size_t *cap, int32_t x);
/* A job submitted now, pending (a unit: eligible unit_queue_wait_s
 * later); its index, or -1 when out of memory. */
int32_t gs_job_new(struct sim *s, uint32_t group, enum job_role role,
		   enum pool pool, uint32_t nnodes);
void gs_job_end(struct sim *s, struct gjob *j, enum job_end end);
void gs_job_term(struct sim *s, int32_t ji, int64_t delay_ms);
size_t gs_pool_free(const struct sim *s, enum pool p);
void gs_schedule(struct sim *s);
void gs_node_add(struct sim *s, uint32_t n);
void gs_node_remove(struct sim *s, uint32_t n, bool crash);
int gs_job_timers(struct sim *s);

/* goodsim_policy.c.  elasticd's configuration and the groups with their
 * first jobs: 0, or -1 with s->err set; and the groups let go. */
int gs_groups_init(struct sim *s);
void gs_groups_free(struct sim *s);
/* Bring the position to time t: periodic checkpoints on the way. */
void gs_train_to(struct sim *s, struct gtrain *tr, int64_t t);
/* A crash took a node of j: what its group's ranks lose. */
void gs_ranks_crash(struct sim *s, const struct gjob *j);
/* The ranks of g's job ji are told to stop: they checkpoint and leave
 * (restart-at-size: the job ends then); how long that takes. */
int64_t gs_ranks_leave(struct sim *s, struct ggroup *g, int32_t ji);
/* Something of g moved: passes due. */
void gs_wake(struct sim *s, struct ggroup *g);
void gs_own_world(struct sim *s, struct gjob *j);
/* Each group's policy at this tick: 0, or -1 with s->err set. */
int gs_policy_step(struct sim *s);

/* goodsim_spares.c.  The spares elasticd keeps (--elastic-spares): after
 * a pass of g (snap its snapshot), which of its units they are, read from
 * elasticd's view as the launcher reads them: 0, or -1 with s->err set. */
int gs_spares_note(struct sim *s, struct ggroup *g,
		   const struct snapshot *snap);
/* j a spare or not, its nodes counted as the spares' or not. */
void gs_spare_set(struct sim *s, struct gjob *j, bool spare);
/* A running spare of g of as many nodes as lost, to take its place; NULL
 * when there is none. */
struct gjob *gs_spare_for(struct sim *s, struct ggroup *g,
			  const struct gjob *lost);
/* When the ranks of spare j can be in a world: hot, once started ahead
 * (start_s + join_s after its unit started); cold, join_s from now. */
int64_t gs_spare_ready_ms(const struct sim *s, const struct gjob *j);

#endif
