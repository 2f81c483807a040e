#ifndef ELASTICD_DRAIN_H
#define ELASTICD_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

/* scontrol update NodeName=node State=DRAIN Reason=reason: 0, or -1 with
 * err set. */
int drain_node(const char *node, const char *reason, elastic_error_t *err);
/* Node is drained (or draining), by elasticd or another (an admin, the
 * site's HealthCheckProgram); false when Slurm cannot say. */
bool node_drained(const char *node);

/* scontrol update NodeName=node State=DOWN Reason=reason: Slurm ends or
 * requeues its jobs at once, as at SlurmdTimeout.  0, or -1 with err. */
int down_node(const char *node, const char *reason, elastic_error_t *err);

/* scontrol requeue job: 0, or -1 with err. */
int requeue_job(uint32_t job, elastic_error_t *err);

/* scontrol update JobId=job StartTime=now: a requeued job held by the
 * requeue delay starts as soon as it can.  0; 1 while Slurm is still
 * requeuing it (try again); -1 with err. */
int begin_now(uint32_t job, elastic_error_t *err);

#endif
