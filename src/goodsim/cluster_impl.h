#ifndef GOODSIM_CLUSTER_IMPL_H
#define GOODSIM_CLUSTER_IMPL_H

/*
 * What the cluster simulator's parts share (cluster.h): cluster.c (a
 * run: the workload's arrivals, the events in time order, the figures),
 * cluster_slurm.c (the model of Slurm: it alone writes struct cslurm and
 * the jobs), cluster_elastic.c (elasticd and the groups: it alone
 * writes struct celastic and the groups) and cluster_timeline.c (the
 * run's timeline, struct ctimeline).  Private to libgoodsim.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "elasticd/reconcile.h"

#define CL_T0_MS      1700000000000LL /* reconcile's clock is the epoch's */
#define CL_FOREVER    INT64_MAX
#define CL_MAXTIME_MS (7LL * 86400 * 1000) /* the partitions' MaxTime */
#define CL_FIRST_ID   1000

enum cl_role { CL_RIGID, CL_PREEMPTOR, CL_BASE, CL_UNIT };
enum cl_tier { CL_TIER_HIGH, CL_TIER_BASE, CL_TIER_UNIT, CL_NTIERS };

struct cl_job {
	uint32_t id; /* CL_FIRST_ID + its index */
	enum cl_role role;
	int32_t group; /* CL_BASE, CL_UNIT: the group's index; else -1 */
	int32_t wl;    /* its workload line; units -1 */
	uint32_t nnodes;
	enum job_phase phase;
	enum job_end end;
	bool preempted, steps_gone;
	unsigned nice;
	struct unit_tag tag; /* units */
	int64_t submit_ms, start_ms, end_ms;
	int64_t run_ms;	  /* how long it runs once started */
	int64_t limit_ms; /* its time limit */
	int64_t ends_at;  /* running: its end event's time */
};

struct cl_vec {
	int32_t *v;
	size_t n, cap;
};

enum cl_event {
	CL_EV_END,
	CL_EV_STEPS_GONE,
	CL_EV_GRACE,
	CL_EV_PASS,
	CL_EV_BACKFILL
};
struct cl_ev {
	int64_t t;
	uint64_t seq;
	enum cl_event type;
	int32_t job; /* its job; CL_EV_PASS: 0 asked for, 1 idle */
};

/* The model of Slurm (cluster_slurm.c). */
struct cslurm {
	uint32_t nodes, free;
	uint32_t leaving; /* nodes of preempted units still held */
	uint32_t units;	  /* nodes of running units not preempted */
	struct cl_job *job;
	size_t njob, capjob;
	struct cl_vec pend[CL_NTIERS];
	bool units_sorted;
	int64_t sorted_ms;
	struct cl_vec run_units; /* running, not preempted */
	struct cl_vec run_prot;	 /* running protected jobs, by limit's end */
	struct cl_ev *heap;
	size_t nheap, capheap;
	uint64_t seq;
	bool dirty;
	bool oom; /* a list or the events could not grow: the run fails */
	uint64_t passes, backfills, unit_starts, unit_preemptions;
	size_t wl_done; /* workload jobs ended */
};

/* A group: an elastic line of the workload (cluster_elastic.c). */
struct cl_group {
	int32_t base; /* its base job (without slurm-elastic: its job) */
	int32_t wl;
	unsigned min, max;
	uid_t uid;
	char user[WORKLOAD_USER_MAX + 1];
	struct elastic_opts opts; /* as slurmio parses the base's tag */
	char tag[1024];
	struct cl_vec jobs; /* its base and units, those gone kept a while */
	uint32_t held, unit_held, world;
	bool below;
	int64_t held_since; /* node-seconds accounted to then */
	double unit_node_ms, world_node_ms;
	uint64_t unit_starts, unit_preemptions;
};

/* elasticd and the groups (cluster_elastic.c). */
struct celastic {
	struct reconcile *r;
	struct elastic_policy pol;
	struct action_list actions;
	struct cl_group *group;
	size_t ngroup;
	unsigned nbelow; /* groups below their max */
	int64_t last_pass_ms;
	int64_t next_pass_ms, last_push_ms; /* passes asked for */
	uint64_t passes;
};

/* The run's timeline, when asked for (cluster_timeline.c). */
struct ctimeline {
	struct cluster_tl_event *v;
	size_t n, cap;
	bool oom; /* it could not grow: the run fails */
};

struct csim {
	const struct cluster_params *p;
	const struct workload *w;
	int64_t now;
	struct cslurm sl;
	struct celastic el;
	struct ctimeline tl;
	elastic_error_t *err;
};

/* cluster_slurm.c.  The nodes free and no job: 0, or -1 with s->err set;
 * and all of it let go. */
int cs_init(struct csim *s);
void cs_free(struct csim *s);
/* Append x to v: 0, or -1 when out of memory. */
int cs_vec_push(struct cl_vec *v, int32_t x);
/* A job submitted now, pending in its tier's queue: its index, or -1
 * with s->err set.  Units: limit_ms 0 is the partitions' MaxTime. */
int32_t cs_submit(struct csim *s, enum cl_role role, int32_t group, int32_t wl,
		  uint32_t nnodes, int64_t run_ms, int64_t limit_ms,
		  unsigned nice);
/* Job ji ends now (pending or running) as end. */
void cs_end(struct csim *s, int32_t ji, enum job_end end);
/* By id; NULL when there is no such job. */
struct cl_job *cs_find(struct csim *s, uint32_t id);
/* An event at t for job ji (-1: none). 0, or -1 with s->err set. */
int cs_event(struct csim *s, int64_t t, enum cl_event type, int32_t ji);
/* The next event's time (CL_FOREVER: none). */
int64_t cs_next_time(const struct csim *s);
/* Pop the next event into *ev: false when none. */
bool cs_pop(struct csim *s, struct cl_ev *ev);
/* A Slurm event (end, steps gone, grace, backfill) at its time. */
int cs_handle(struct csim *s, const struct cl_ev *ev);
/* The main scheduler, when something moved since it last ran. */
void cs_schedule_if_dirty(struct csim *s);

/* cluster_elastic.c.  The groups from the workload's elastic lines, and
 * with slurm-elastic elasticd's reconcile and policy: 0, or -1 with
 * s->err set; and all of it let go. */
int ce_init(struct csim *s);
void ce_free(struct csim *s);
/* An elastic line's base submitted now (group gi). 0, or -1. */
int ce_submit_base(struct csim *s, size_t gi);
/* A job of a group started, ended, was preempted or its ranks left. */
void ce_job_moved(struct csim *s, struct cl_job *j, bool started, bool ended);
/* An elasticd pass at the event's time: 0, or -1 with s->err set. */
int ce_pass(struct csim *s, const struct cl_ev *ev);
/* The groups' figures into r, accounted to now. */
void ce_figures(struct csim *s, struct cluster_result *r);

/* cluster_timeline.c (with params.timeline; nothing otherwise).  Job j
 * submitted, started, preempted (for job by) or ended now. */
void ct_job(struct csim *s, const struct cl_job *j, enum cluster_tl_what what,
	    uint32_t by);
/* Group gi's world is now world nodes. */
void ct_world(struct csim *s, size_t gi, uint32_t world);
/* The timeline moved into r (in time order already). */
void ct_take(struct csim *s, struct cluster_result *r);
void ct_free(struct csim *s);

#endif
