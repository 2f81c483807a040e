#ifndef ELASTIC_RUN_STRAGGLE_H
#define ELASTIC_RUN_STRAGGLE_H

/*
 * Slow nodes: which rank holds the world back.  In a synchronous world
 * every rank steps at the pace of the slowest, so step counts say
 * nothing; what differs is how long each rank wanted a CPU for its step.
 * A node's heartbeat task adds to each rank's progress word the time its
 * threads ran and the time they waited, ready, for a CPU
 * (/proc/PID/task/TID/schedstat: run time, run-queue delay;
 * "r<RANK>=<STEP>/<AGE>/<STATE>/<RUN_MS>/<WAIT_MS>").  A rank that waits
 * in a collective is asleep and adds nothing; a rank on a throttled or
 * oversubscribed CPU adds its whole step, most of it waiting.
 *
 * Per rank, over windows of `steps` steps: its time per step (run and
 * wait).  A window that held a save the rank announced is dropped.  A
 * rank is slow in a window when its time per step is `factor` times the
 * median of the latest windows of the ranks on other nodes (and
 * STRAGGLE_FLOOR_MS more), and at least half of the difference is
 * waiting for a CPU beyond what its run time would have waited at the
 * others' share (their median of wait over run).  A rank with more work
 * of its own (rank 0's logging, a save it did not announce: its run per
 * step above the others' by more than half of factor - 1) holds the
 * world back too, but its node is not at fault; on a loaded machine its
 * long bursts wait more than the others' short ones, so its waits are
 * not judged, and its node's other ranks are.  Slow in STRAGGLE_WINDOWS windows
 * in a row, it straggles.  Pure: fed the words and nothing else, so that every
 * rule is a unit test.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STRAGGLE_WINDOWS  3
#define STRAGGLE_FLOOR_MS 5.0
/* The site's bounds (StragglerSteps, StragglerFactor in elastic.conf). */
#define STRAGGLE_STEPS_DEFAULT	20
#define STRAGGLE_FACTOR_DEFAULT 2.0

struct straggle_rank {
	unsigned rank;
	size_t node;	      /* the reporting node's index (detect.h) */
	uint64_t ref_step;    /* the window's start */
	uint64_t ref_run;     /* ms */
	uint64_t ref_wait;    /* ms */
	bool ref;	      /* a window is open */
	double per_step;      /* ms run and waited per step, last window */
	double wait_per_step; /* of which waited for a CPU */
	double run_per_step;  /* of which ran */
	double wait_share;    /* waited per ms run, last window */
	bool measured;	      /* per_step holds a window */
	unsigned slow_runs;   /* windows in a row above the rule */
	bool named;	      /* returned by straggle_find already */
};

struct straggle {
	size_t n, cap;
	struct straggle_rank *r;
	unsigned steps;
	double factor;
};

/* An empty table: windows of steps steps (>= 2), a straggler at factor
 * (> 1) times the others' median. */
void straggle_init(struct straggle *s, unsigned steps, double factor);
void straggle_free(struct straggle *s);

/* The progress words of a heartbeat line from node (its index): 0, or -1
 * when memory is short (words without a want are skipped). */
int straggle_heard(struct straggle *s, size_t node, const char *line);

/*
 * A rank that straggles and was not named yet: its index (named from
 * now on), with *ratio its want per step over the others' median, or -1.
 */
int straggle_find(struct straggle *s, double *ratio);

/* The median of the latest windows of the ranks on nodes other than
 * node (all nodes for (size_t)-1): ms per step, 0 when none. */
double straggle_median(const struct straggle *s, size_t node);

#endif
