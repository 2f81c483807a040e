#ifndef GOODSIM_CLUSTER_H
#define GOODSIM_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "workload.h"

/*
 * The cluster simulator (bench_cluster(1)): a whole cluster's workload
 * (workload.h) on a model of Slurm, with or without slurm-elastic.
 * Pure: no I/O, no clock; the same workload and parameters give the same
 * figures.
 *
 * The model of Slurm, as etc/slurm.conf.example sets it up, on one pool
 * of nodes all in service:
 * - Partitions: high (preemptors, PriorityTier 100), base (rigid jobs and
 *   the groups' bases, 10, never preempted) and preempt (units, 1,
 *   PreemptMode=REQUEUE, GraceTime=grace_s).  The queue is in Slurm's
 *   order: the partition's tier, then the job's priority, which is
 *   priority/multifactor's as the embedded cluster sets it from 23.11
 *   (one partition factor for all, PriorityWeightAge=1000 over
 *   PriorityMaxAge=1 day) less the job's nice: a rigid job's 0, a unit's
 *   its unit_request.nice; among equal priorities the older job first.
 *   (On 22.05 the embedded cluster keeps priority/basic: each job one
 *   below the one submitted before it, less its nice; the same order as
 *   long as fewer than a nice step's worth of jobs, 100, separate two
 *   pending units' submits.)
 * - The main scheduler runs at each event: the jobs in order, each
 *   started when its nodes are free; a protected job (high or base) that
 *   could start but for units preempts the units it needs (the fewest
 *   nodes first, then the oldest job: preempt/partition_prio ranks the
 *   candidates by tier and node count, ties in the controller's job list,
 *   the order of their ids; a unit's nice plays no part) and takes their
 *   nodes when they leave:
 *   at once when the unit ends (elasticd cancels it once its ranks left,
 *   leave_s after the preemption) or at the grace's end.  It stops at the
 *   first job that cannot start even so.
 * - The backfill scheduler (every bf_interval_s) goes on past that job:
 *   EASY backfill, the first such job's reservation at the time the
 *   running protected jobs' time limits free its nodes (units counted as
 *   free, being preemptible), and a later job started early only if it
 *   ends by its time limit before the reservation or fits in the nodes
 *   the reservation leaves; a unit's limit is its unit_request.time_limit
 *   (0: the partitions' MaxTime, 7 days).
 * - A preempted unit ends (is not requeued) at the grace's end if nothing
 *   ended it before.
 * - Every job starts at the instant it can, and the scheduler runs once
 *   all of an instant is done: an arrival due the same second as another
 *   job's end sees that job's nodes free.  Slurm starts a job at its next
 *   scheduling pass (the backfill's every bf_interval, the main
 *   scheduler's), a fraction of a second later, so that on a real
 *   cluster its end comes that much after the second its runtime gives,
 *   and such a tie goes by the phases of the passes.  With
 *   start_jitter_ms each workload job (rigid, preemptor, base) ends that
 *   much later at most, drawn for each job from seed (uniform); the mean
 *   of runs over several seeds is the figures' expectation over those
 *   phases (bench_cluster(1) --repeat).  0: none, every tie as above.
 *
 * With slurm-elastic, elasticd's own decisions: one reconcile instance
 * for all the groups, as the daemon runs it, passed over a snapshot of
 * all the groups' jobs (bases, units, those ended in the last 5 minutes)
 * at most every pass_ms while the groups' jobs move (and scale_delay
 * after a unit starts), every idle_pass_ms otherwise; its actions are
 * performed at once (a unit submitted, a job cancelled).  Without it, each
 * elastic line of the workload is a rigid job of its min nodes (the
 * user's natural choice when nothing grows the job) in base.
 */

struct cluster_params {
	unsigned nodes;
	bool elastic; /* slurm-elastic on */
	unsigned grace_s;
	double leave_s; /* a preempted unit's ranks checkpoint and leave */
	unsigned pass_ms, idle_pass_ms;
	unsigned bf_interval_s;
	unsigned scale_delay_s, fault_timeout_s;
	unsigned unit_nice;	  /* elastic.conf's UnitNice */
	bool timeline;		  /* keep the run's timeline (cluster_result) */
	unsigned start_jitter_ms; /* 0: none */
	uint64_t seed;		  /* the start jitter's draws */
};
/* The defaults: no start jitter (seed 1); grace 120 s (the example's
 * GraceTime), ranks leave in
 * 10 s, elasticd's passes every 60 s at most while its groups' jobs move
 * (ElasticdPollInterval's default with notifications; the daemon decides
 * every second, the model only on this grid, for its speed: a week of
 * 10,000 nodes in under a minute), 120 s idle, backfill every 30 s
 * (Slurm's bf_interval), scale delay 10 s, UnitNice as elastic.conf's
 * default. */
void cluster_params_defaults(struct cluster_params *p, unsigned nodes);
/* 0, or -1 with err naming the first parameter out of range. */
int cluster_params_check(const struct cluster_params *p, elastic_error_t *err);

/* A workload job's times (ms from the simulation's start; -1: never). */
struct cluster_times {
	int64_t submit_ms, start_ms, end_ms;
};

/* An elastic line's figures: node-seconds in its world (with
 * slurm-elastic, elasticd's world; without, its rigid job's nodes), held
 * by its units, and its units' starts and preemptions. */
struct cluster_group {
	double world_node_s, unit_node_s;
	uint64_t unit_starts, unit_preemptions;
};

/* The run's timeline (cluster_params.timeline): each job's submit, start,
 * preemption and end, and each group's world as elasticd changes it
 * (without slurm-elastic: the nodes its job holds), in time order. */
enum cluster_tl_what {
	CLUSTER_TL_SUBMIT,
	CLUSTER_TL_START,
	CLUSTER_TL_PREEMPT,
	CLUSTER_TL_END,
	CLUSTER_TL_WORLD
};
enum cluster_tl_role {
	CLUSTER_TL_RIGID,
	CLUSTER_TL_PREEMPTOR,
	CLUSTER_TL_BASE,
	CLUSTER_TL_UNIT
};
struct cluster_tl_event {
	int64_t t_ms;
	enum cluster_tl_what what;
	enum cluster_tl_role role; /* WORLD: the group's base */
	uint32_t job;		   /* its id (WORLD: the group's base) */
	int32_t group;		   /* the group's index, or -1 */
	int32_t wl;		   /* its workload line, or -1 (a unit) */
	uint32_t nodes;		   /* the job's (WORLD: the world's) */
	unsigned nice;
	uint32_t by;	 /* PREEMPT: the job it was preempted for */
	const char *why; /* END: completed, time limit, cancelled,
			  * cancelled after preemption, grace over */
};

struct cluster_result {
	size_t njobs;
	struct cluster_times *job; /* the workload's order */
	size_t ngroups;
	struct cluster_group *group; /* the elastic lines, in order */
	int64_t first_ms, last_ms;   /* first submit, last end */
	double held_node_s;	     /* by any job over [first, last] */
	/* While a group runs below its max (its base running, fewer nodes
	 * held than its max): seconds, and node-seconds held by any job. */
	double below_s, below_held_node_s;
	uint64_t unit_starts, unit_preemptions;
	uint64_t passes, sched_passes, backfill_passes;
	struct cluster_tl_event *timeline; /* with params.timeline */
	size_t ntimeline;
};
void cluster_result_free(struct cluster_result *r);

/* Run w on the cluster p: 0 and *ret filled, or -1 with err set (out of
 * memory, a job larger than the cluster, reconcile failing). */
int cluster_run(const struct cluster_params *p, const struct workload *w,
		struct cluster_result *ret, elastic_error_t *err);

#endif
