#ifndef ELASTICD_SUBMITQ_H
#define ELASTICD_SUBMITQ_H

/*
 * Unit submissions beside the reconcile loop.  slurmctld may take seconds
 * to answer one submission (a site's job_submit plugin, a busy
 * controller); the loop never waits for it, so preemptions and failures of
 * every group are still seen and told at once.  A few worker threads
 * submit; a group's submissions go one at a time and in order, so one
 * group whose submissions are slow holds one worker, never the others'
 * submissions.  Answers are taken by the loop (submitq_take), which alone
 * touches the reconcile state.
 */
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "reconcile.h"

#define SUBMITQ_WORKERS 4
#define SUBMITQ_MAX	1024 /* waiting or running at once */

/* A submission's copy of what it needs (an action's strings point into
 * the snapshot of one pass). */
struct submitq_item {
	uint32_t group, token;
	struct unit_request unit;
	char account[128], tres_per_node[256], features[256];
	char text[160];
	/* the answer */
	uint32_t job; /* 0: refused */
	char err[256];
};

/* Submit u; 0 and *job on success, -1 and err. */
typedef int (*submitq_fn)(void *arg, const struct unit_request *u,
			  uint32_t *job, elastic_error_t *err);

struct submitq;

/* NULL if out of memory or no thread could start. */
struct submitq *submitq_create(unsigned workers, submitq_fn fn, void *arg);
/* cb is called, from a worker thread, after each answer can be taken:
 * the loop takes it now instead of at its next tick.  Call before the
 * first push. */
void submitq_on_answer(struct submitq *q, void (*cb)(void));
/* Queue an action's submission; -1 when full (SUBMITQ_MAX) or out of
 * memory, or when a string does not fit its copy. */
int submitq_push(struct submitq *q, uint32_t group, uint32_t token,
		 const struct unit_request *u, const char *text);
/* Up to max answers, oldest first; how many. */
size_t submitq_take(struct submitq *q, struct submitq_item *out, size_t max);
/* Submissions waiting or running. */
size_t submitq_busy(struct submitq *q);
/* Waits for the submissions running now, whose answers can still be
 * taken; the waiting ones are dropped (the loop asks again after a
 * restart).  Nothing can be pushed after. */
void submitq_stop(struct submitq *q);
/* Stops it if need be, and frees it with the answers not taken. */
void submitq_destroy(struct submitq *q);

#endif
