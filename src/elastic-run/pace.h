#ifndef ELASTIC_RUN_PACE_H
#define ELASTIC_RUN_PACE_H

/*
 * The ranks' pace: what their progress reports (common/progress_rec.h,
 * passed on by the nodes' heartbeats as "r<RANK>=<STEP>/<AGE_MS>/<STATE>"
 * words, then "/<RUN_MS>/<WAIT_MS>/<PSTATE>" where known) say of a rank that
 * stopped making progress.  Pure: fed the words and the time, so that every
 * rule is a unit test.
 *
 * A rank's last checkpoint save ("s<RANK>=<SAVE_MS>" words, where it
 * reported one) makes the world's longest save, weighed against the
 * grace before an event needs it.
 *
 * A rank is watched once it reported a step written after the table
 * started (a launch, or an in-place resize: a world paused by a resize
 * is not a hang) or its step moved since: so never during its first
 * step.  While any rank says it is saving a checkpoint, none is hung
 * (the others wait for it in a collective), and once it is done every
 * rank's silence counts from the end of the save.  A rank's number that
 * two nodes report is the newer record's (a node may keep one of an
 * earlier world).  The timeout is the job's --elastic-hang-timeout, or
 * else the larger of PACE_MIN_TIMEOUT_S and PACE_STEPS_TIMEOUT median
 * steps.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PACE_MIN_TIMEOUT_S 60.0
#define PACE_STEPS_TIMEOUT 10
/* Step times kept for the median: the world's latest. */
#define PACE_RING 64

struct pace_rank {
	unsigned rank;
	size_t node; /* the reporting node's index (detect.h) */
	uint64_t step;
	double changed; /* when it reported its step (launcher's clock) */
	bool saving;
	bool watched;
	bool frozen;  /* its process stopped (T) or in D at its last report */
	bool stopped; /* stopped (T, t) at its last report */
};

struct pace {
	size_t n, cap;
	struct pace_rank *r;
	double started;
	/* When the last announced save ended: the ranks that waited for it
	 * made no progress meanwhile, and are silent only since. */
	double save_end;
	unsigned timeout_s; /* the job's, 0: derived */
	/* The longest save a rank reported, and the rank. */
	uint64_t save_ms;
	unsigned save_rank;
	double ring[PACE_RING];
	size_t ring_n, ring_i;
};

void pace_init(struct pace *p, double now, unsigned timeout_s);
void pace_free(struct pace *p);

/* The progress words of a heartbeat line from node (its index), heard at
 * now: 0, or -1 when memory is short (words of another shape are
 * skipped). */
int pace_heard(struct pace *p, size_t node, const char *line, double now);

/* Seconds without progress that make a rank hung, now. */
double pace_timeout(const struct pace *p);

/* The median of the step times seen, 0 before any. */
double pace_median_step(const struct pace *p);

/*
 * The rank that fell behind, if the world hangs at now (a watched rank
 * silent past the timeout): a rank whose process is stopped, whatever
 * its own record (it may have reported after its peers last did, or be
 * a joiner first heard after the world's start); else among the watched
 * ranks silent past the timeout, one whose process is frozen (stopped,
 * or in an uninterruptible wait) if any, else the one with the lowest
 * step (the others wait for it in the next collective), the longest
 * silent of those.  Its index, with *stalled_s, or -1.
 */
int pace_hung(const struct pace *p, double now, double *stalled_s);

#endif
