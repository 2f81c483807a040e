/* A suspect node drained or set down in Slurm, a requeued base let
 * start (drain.h): elasticd as root or SlurmUser, the only one that may. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/slurm_compat.h"
#include "drain.h"

static int set_node_state(const char *node, uint32_t state, const char *reason,
			  elastic_error_t *err)
{
	update_node_msg_t m;

	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	m.node_state = state;
	m.reason = (char *)reason;
	compat_node_reason_uid(&m, getuid());
	if (slurm_update_node(&m) != SLURM_SUCCESS)
		return elastic_errorf(err, "%s %s: %s",
				      state == NODE_STATE_DOWN ? "down"
							       : "drain",
				      node, slurm_strerror(errno));
	return 0;
}

int drain_node(const char *node, const char *reason, elastic_error_t *err)
{
	return set_node_state(node, NODE_STATE_DRAIN, reason, err);
}

bool node_drained(const char *node)
{
	node_info_msg_t *msg = NULL;
	bool drained;

	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
		SLURM_SUCCESS ||
	    !msg)
		return false;
	drained = msg->record_count == 1 &&
		  (msg->node_array[0].node_state & NODE_STATE_DRAIN);
	slurm_free_node_info_msg(msg);
	return drained;
}

int down_node(const char *node, const char *reason, elastic_error_t *err)
{
	return set_node_state(node, NODE_STATE_DOWN, reason, err);
}

int requeue_job(uint32_t job, elastic_error_t *err)
{
	if (compat_requeue(job, 0) != SLURM_SUCCESS)
		return elastic_errorf(err, "requeue job %u: %s", job,
				      slurm_strerror(errno));
	return 0;
}

int begin_now(uint32_t job, elastic_error_t *err)
{
	job_info_msg_t *msg = NULL;
	job_desc_msg_t d;
	bool busy;

	/* Still being requeued (its steps ending): Slurm sets the requeue
	 * delay when it is done, over any start time given before. */
	if (compat_load_job(&msg, job, SHOW_ALL) != SLURM_SUCCESS)
		return elastic_errorf(err, "job %u: %s", job,
				      slurm_strerror(errno));
	busy = msg->record_count < 1 ||
	       (msg->job_array[0].job_state & JOB_COMPLETING);
	slurm_free_job_info_msg(msg);
	if (busy)
		return 1;

	slurm_init_job_desc_msg(&d);
	COMPAT_JOB_DESC_JOB_ID(&d) = job;
	d.begin_time = time(NULL);
	if (slurm_update_job(&d) != SLURM_SUCCESS)
		return elastic_errorf(err, "job %u StartTime=now: %s", job,
				      slurm_strerror(errno));
	return 0;
}
