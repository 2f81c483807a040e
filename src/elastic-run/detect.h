#ifndef ELASTIC_RUN_DETECT_H
#define ELASTIC_RUN_DETECT_H

/*
 * Which node of a launch fell silent: a pure table of the nodes'
 * heartbeats, fed the lines the heartbeat steps print and the time, so
 * that every rule (a node never heard, one Slurm is ending, a late one
 * that still answers) is a unit test.  No I/O, no clock of its own.
 *
 * A heartbeat step runs one task per node of a member job; each prints
 * its node's name every detect_interval_ms(), and "NAME TERM" once Slurm
 * signals it to end (preemption, cancel, time limit): such a node is
 * leaving, never lost.  The caller owns the table (detect_init, then
 * detect_free).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A node's name as the heartbeat prints it (SLURMD_NODENAME). */
#define DETECT_NAME_MAX 64
/* How long a node may take to say its first word: a step's start on a
 * loaded machine, a launch RPC that waits out MessageTimeout. */
#define DETECT_START_S 30.0

struct detect_node {
	char name[DETECT_NAME_MAX];
	uint32_t job;  /* the member job it belongs to */
	double last;   /* when last heard (or deferred), s */
	bool heard;    /* said a word at all */
	bool leaving;  /* Slurm is ending its step: not a fault */
	double probed; /* never heard: when its host was last asked, s */
	unsigned port; /* its task's probe port (split.h), 0 before known */
};

struct detect {
	size_t n, cap;
	struct detect_node *node;
	double started; /* when the heartbeat steps were started, s */
	double timeout; /* silence that makes a heard node lost, s */
};

/* An empty table for heartbeats started at `now` with a timeout of
 * timeout_s seconds (> 0). */
void detect_init(struct detect *d, double now, unsigned timeout_s);
void detect_free(struct detect *d);

/* Expect node (of member job): 0, or -1 when the name is too long or
 * memory is short.  A node added twice is kept once. */
int detect_add(struct detect *d, const char *node, uint32_t job);

/* How often a heartbeat task speaks for a timeout of timeout_s: five
 * times per timeout, at most every 200 ms, at least every 10 s. */
unsigned detect_interval_ms(unsigned timeout_s);

/*
 * One line of a heartbeat step, without its newline: "NAME", then words:
 * "TERM" (Slurm is ending the step), "p=<PORT>" (where its task answers
 * probes), "r<RANK>=..." (a rank's progress, for pace.h and straggle.h),
 * "X=..." (a probe's answer, for split.h).  Returns the node's index, or -1 for
 * a node not expected or a line of another shape (ignored: a task's stray
 * output).
 */
int detect_heard(struct detect *d, const char *line, double now);

/*
 * The first node silent past its allowance at `now`: a node heard, for
 * longer than the timeout; a node never heard, for DETECT_START_S (or
 * the timeout if longer) since the start.  A leaving node never is.
 * Returns its index, with *silent_s how long it has been silent, or -1.
 */
int detect_silent(const struct detect *d, double now, double *silent_s);

/*
 * A node never heard, silent past the timeout but still within its start
 * allowance, whose host was not asked for a timeout: its index, or -1.
 * The caller asks the host (a crash just after a launch or an in-place
 * resize is then found at the timeout, not at DETECT_START_S), and says
 * so with detect_probed(): a host that answers is only slow to start.
 */
int detect_unheard(const struct detect *d, double now);
void detect_probed(struct detect *d, size_t i, double now);

/* A silent node that still answers (its host is up, its heartbeat is
 * only late): count it as heard at `now`, so that it is asked about
 * again one whole timeout later, not at every poll. */
void detect_defer(struct detect *d, size_t i, double now);

#endif
