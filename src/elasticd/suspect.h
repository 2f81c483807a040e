#ifndef ELASTICD_SUSPECT_H
#define ELASTICD_SUSPECT_H

/*
 * What to do with a node a launcher found lost, hung or straggling: drain
 * it in Slurm (SuspectNodes=drain) while fewer than SuspectDrainsPerHour
 * were drained in the last hour, else report it only.  Pure: the window
 * of the drains and the time come in, so that the cap is a unit test.
 * The window belongs to its caller (elasticd.c), zeroed at the start.
 */

#include <stddef.h>
#include <stdint.h>

#include "common/policy.h"

/* Drains remembered: a cap above it is this. */
#define SUSPECT_WINDOW_MAX 256
#define SUSPECT_WINDOW_MS  (3600 * 1000)

struct suspect_window {
	int64_t at[SUSPECT_WINDOW_MAX]; /* drains, oldest first, ms */
	size_t n;
};

enum suspect_action {
	SUSPECT_DRAIN,	 /* drain it (counted in the window) */
	SUSPECT_REPORT,	 /* SuspectNodes=report */
	SUSPECT_CAPPED,	 /* the hour's drains are used up: report only */
	SUSPECT_ALREADY, /* drained already, by elasticd (a report again at
			  * each relaunch) or another: not counted again */
};

enum suspect_action suspect_decide(struct suspect_window *w,
				   enum policy_suspect mode, unsigned per_hour,
				   int64_t now_ms);

/* Drains in the last hour at now_ms (after suspect_decide's pruning). */
size_t suspect_drains(const struct suspect_window *w);

const char *suspect_action_name(enum suspect_action a); /* "drained" */

#endif
