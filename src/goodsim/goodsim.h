#ifndef GOODSIM_GOODSIM_H
#define GOODSIM_GOODSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/policy.h"
#include "common/trace.h"

/*
 * src/goodsim: the simulators of slurm-elastic, a room of their own beside
 * the daemon they simulate.  libgoodsim (this header: one training's
 * goodput on a spot trace; cluster.h: a whole cluster's workload, with
 * workload.h and cluster_report.h) runs elasticd's own decisions, linked from
 * ../elasticd/libelasticd (the snapshot model and the reconcile pass, which are
 * pure), against a model of Slurm.  It may not touch the rest of the daemon: no
 * slurmio (Slurm's I/O), no API, no daemon loop; and the models do no I/O at
 * all (no file, no clock, no log: the same inputs give the same figures).  The
 * programs (bench_goodput, bench_cluster) read options and files and print.
 *
 * The goodput simulator: what a training job gets out of capacity that
 * comes and goes, for clusters one machine cannot hold.  A spot trace
 * (trace.h, mapped onto the cluster's spot nodes) drives a model of
 * Slurm (nodes, partitions, a queue, preemption with grace, node
 * failures); the jobs of G identical groups train on it under a policy:
 *
 * - GOODSIM_ELASTIC: slurm-elastic's restart path.  Each group is a base
 *   of --elastic-min nodes on on-demand nodes plus units on spot nodes,
 *   and elasticd's own decisions (reconcile_pass(), linked, one instance
 *   per group) say which units to submit or cancel and when the world
 *   changes; every change costs the ranks a checkpoint and a relaunch.
 * - GOODSIM_INPLACE: the same groups and decisions, with in-place
 *   resizes (elastic-run --in-place, slurm_elastic.torch.InPlace): a
 *   shrink costs the survivors inplace_s, no checkpoint and no relaunch;
 *   at a grow the world trains on while the joiners start (join_s), then
 *   re-forms (inplace_s); a crash stops the survivors at once (their
 *   collective fails) but loses nothing (each has the last completed
 *   step); once the launcher knows (lost_s) they go on without a crashed
 *   unit (its own world, when min or more are left), else in the next
 *   world elasticd forms.  A world's first launch is a relaunch, as on
 *   the restart path.
 * - GOODSIM_NATIVE: Slurm alone, `sbatch --requeue -N<max>`: the job
 *   runs only with all its nodes; a reclaimed node preempts it (its ranks
 *   checkpoint in the grace), it is requeued and waits for max nodes.
 * - GOODSIM_RESTART: restart the whole job at the new size on every
 *   change of the nodes it could hold (plain torchrun, managed jobs):
 *   the old job, told to end, holds its nodes stop_s; the new one's
 *   ranks are up restart_s - stop_s after it starts.
 * - GOODSIM_ORACLE: the upper bound: every available node trains,
 *   transitions are free, nothing is lost: the integral over time of the
 *   rate of A(t) nodes (spot and on-demand, up to the groups' max, spread
 *   evenly over the groups), whatever the groups' sizes (a world of any
 *   size) and with no spares held.
 *
 * Spares (--elastic-spares, slurm-elastic's two policies only): elasticd
 * keeps units beside the world once the world's own run; a member lost (a
 * crash its launcher finds, a preemption) has a running spare of as many
 * nodes take its place at once, at the same size, without the fault
 * timeout.  Their nodes are held and paid for, and do not train.  On the
 * restart path a swap is a relaunch at the same size; in place, hot spares
 * (their ranks started ahead: warm start_s + join_s after their unit
 * starts) cost the survivors inplace_s, cold ones (the node held, the
 * ranks not started) join_s + inplace_s.  On a shared cluster this is what
 * spares are for: a replacement unit waits in the queue
 * (unit_queue_wait_s) while the world runs short, a spare is running.
 *
 * A trace `remove` is, per reclaim_ratio, a reclaim (a higher-priority
 * job takes the node: its job is preempted with the grace, the node
 * leaves once the job let it go) or a crash (the node and its ranks die
 * at once; Slurm sees it detect_s later (slurm-elastic's launchers,
 * whose heartbeats find it, lost_s later); the work since the group's last
 * checkpoint is lost and done again).  An `add` gives the node back.
 *
 * Time runs in ticks of tick_ms (elasticd's poll, Slurm's scheduler);
 * training is accounted at the exact moments things happen.  Costs per
 * action are parameters, taken from what `make bench-resize` measured.
 * Pure: no I/O, no clock; the same inputs give the same figures.
 */

enum goodsim_policy {
	GOODSIM_ELASTIC,
	GOODSIM_INPLACE,
	GOODSIM_NATIVE,
	GOODSIM_RESTART,
	GOODSIM_ORACLE,
	GOODSIM_NPOLICIES
};
const char *goodsim_policy_name(enum goodsim_policy p);

#define GOODSIM_NODES_MAX  100000 /* spot plus on-demand */
#define GOODSIM_GROUPS_MAX 10000
#define GOODSIM_CURVE_MAX  1024 /* worlds a measured curve may name */
#define GOODSIM_SIZES_MAX  64	/* --elastic-sizes' entries */
#define GOODSIM_SPARES_MAX POLICY_SPARES_MAX /* a group's spares */

struct goodsim_params {
	unsigned spot_nodes;	 /* the trace is mapped onto these */
	unsigned ondemand_nodes; /* always there: bases, fallback */
	unsigned groups;
	/* Each group's options: a step group; or with nsizes a sizes group
	 * (--elastic-sizes: its worlds only those, increasing, min the first
	 * and max the last; goodsim_set_sizes() fills them). */
	unsigned min, max, step;
	unsigned nsizes;
	unsigned sizes[GOODSIM_SIZES_MAX];
	/* --elastic-spares of each group (0: none); cold: their ranks not
	 * started ahead (slurm-elastic's policies; the others hold none). */
	unsigned spares;
	bool spares_cold;
	unsigned grace_s, scale_delay_s, fault_timeout_s;
	enum elastic_ondemand ondemand;
	double speed;	      /* trace time / simulated time */
	double reclaim_ratio; /* share of removes that are reclaims */
	uint64_t seed;	      /* which removes are crashes */
	unsigned tick_ms;     /* 1000 */
	/* Pass each group at every tick while its timers run (as elasticd
	 * does), not only when they can run out: slower, the same figures. */
	bool exact_passes;
	/* The training client. */
	double rate; /* samples a second per node (linear) */
	/* Or as measured: curve[w], the samples a second of a world of w
	 * nodes, for w 1..ncurve (0: rate * w); past ncurve, the last
	 * point's per node.  goodsim_set_curve() fills it. */
	unsigned ncurve;
	double curve[GOODSIM_CURVE_MAX + 1];
	double ckpt_s;	     /* a checkpoint's write */
	double ckpt_every_s; /* periodic checkpoints, of wall time */
	/* Async periodic saves (a sharded Checkpointer's): the step loop
	 * stalls ckpt_stall_s per save, the write (ckpt_s) goes on beside
	 * training and counts once done (a crash before loses back to the
	 * save before; the next save waits for it).  < 0: synchronous, the
	 * stall is the write.  A save at an event is synchronous. */
	double ckpt_stall_s;
	double restart_s; /* ranks up again: start, rendezvous, load */
	/* Of restart_s, the part before the old ranks are down: for
	 * slurm-elastic, before the launcher picks the new world (world
	 * changes in it are taken by the same relaunch, as elastic-run
	 * does; 0: none is); for restart-at-size, the old job's end. */
	double stop_s;
	double resize_s;  /* our own overhead per world change */
	double inplace_s; /* in place: the survivors re-form the world */
	double join_s;	  /* in place: joiners started to ready */
	double start_s;	  /* a job allocated to its batch running */
	double detect_s;  /* a crash to Slurm knowing (SlurmdTimeout) */
	/* A crash to slurm-elastic's launcher knowing (its heartbeats; the
	 * elastic and in-place policies): what `make bench-faults`
	 * measures. */
	double lost_s;
	double requeue_s; /* native: requeued job eligible again */
	/* A job submitted again (restart-at-size, a requeue) waits this in
	 * the queue before it may start: 0 on a cluster of its own. */
	double queue_wait_s;
	/* A unit elasticd submits (a world's, a replacement, a spare, the
	 * next spare after a swap) waits this behind the cluster's other
	 * work before it may start; 0 on a cluster of its own.  Apart from
	 * queue_wait_s: a unit is a few nodes, which backfill can start in
	 * a gap, where a whole job needs all its nodes free at once, so on
	 * a busy cluster the two waits differ (give both for the same
	 * queue).  The base, submitted with the job, does not wait. */
	double unit_queue_wait_s;
	double target_samples; /* time-to figure; 0: half the oracle's */
	/* Prices, per node-hour. */
	double spot_price, ondemand_price;
};
void goodsim_defaults(struct goodsim_params *p);
/*
 * The client's curve from "W:R,W:R,...": R samples a second at W nodes,
 * W increasing, 1..GOODSIM_CURVE_MAX; between two points, a straight
 * line; below the first, the first's per node (linear to 0).  0, or -1
 * with err naming the first bad point.
 */
int goodsim_set_curve(struct goodsim_params *p, const char *spec,
		      elastic_error_t *err);
/*
 * The groups' sizes from "S,S,...": increasing, 1..GROUP_MAX_SLOTS, at
 * most GOODSIM_SIZES_MAX; min and max set to the first and the last.  0,
 * or -1 with err naming the first bad entry (p's sizes untouched).
 */
int goodsim_set_sizes(struct goodsim_params *p, const char *spec,
		      elastic_error_t *err);
/* Samples a second of a world of w nodes: the curve, or rate * w. */
double goodsim_world_rate(const struct goodsim_params *p, unsigned w);
/* 0, or -1 with err naming the first parameter out of range. */
int goodsim_check(const struct goodsim_params *p, elastic_error_t *err);

struct goodsim_result {
	enum goodsim_policy policy;
	double seconds;			     /* the run: the trace at speed */
	double samples;			     /* useful: kept at the end */
	double repeated;		     /* done again after a crash */
	double goodput;			     /* samples / seconds */
	double time_to_target_s;	     /* < 0: never */
	double spot_node_s, ondemand_node_s; /* held by the jobs */
	double cost;			     /* node-seconds at the prices */
	unsigned resizes;		     /* world changes, all groups */
	unsigned preemptions, crashes;	     /* that hit the jobs */
	uint64_t passes;		     /* reconcile passes made */
	/* The spares' node-seconds (of spot_node_s: held, not training),
	 * and the members lost that a spare replaced. */
	double spare_node_s;
	unsigned swaps;
};

/* Samples of the run every period (for the plot): time, available
 * nodes, nodes training in all groups, cumulative useful samples. */
struct goodsim_point {
	double t, available, training, samples;
};
typedef void (*goodsim_sample_fn)(void *arg, const struct goodsim_point *pt);

/*
 * Run policy on trace t (not yet mapped: the simulator maps it onto
 * spot_nodes).  sample (may be NULL) is called every period_s of
 * simulated time.  Returns 0 and fills *ret, or -1 with err set (bad
 * parameters, out of memory, reconcile failing).
 */
int goodsim_run(const struct goodsim_params *p, const struct trace *t,
		enum goodsim_policy policy, goodsim_sample_fn sample, void *arg,
		double period_s, struct goodsim_result *ret,
		elastic_error_t *err);

/*
 * The faults a run applies, for a replay of the same run on a cluster:
 * each event of t mapped onto spot_nodes (node 0..spot_nodes-1), at its
 * time at speed, a remove drawn a reclaim or a crash as goodsim_run()
 * draws it (the same seed, the same draws).  Events at the trace's end
 * are left out, as the run leaves them.  0, or -1 with err set.
 */
enum goodsim_fault { GOODSIM_ADD, GOODSIM_RECLAIM, GOODSIM_CRASH };
typedef void (*goodsim_fault_fn)(void *arg, uint64_t ms, unsigned node,
				 enum goodsim_fault what);
int goodsim_schedule(const struct goodsim_params *p, const struct trace *t,
		     goodsim_fault_fn fn, void *arg, elastic_error_t *err);

/*
 * A synthetic trace as text in trace.h's format: nodes nodes, up at 0,
 * each failing after exponential times of mean mtbf_s and back after
 * exponential times of mean mttr_s, over hours; and bursts: every
 * burst_every_s on average (0: none), burst_size random present nodes
 * removed at once, back after mttr_s.  malloc'd; NULL when out of memory.
 */
char *goodsim_synthetic(unsigned nodes, double hours, double mtbf_s,
			double mttr_s, double burst_every_s,
			unsigned burst_size, uint64_t seed);

#endif
