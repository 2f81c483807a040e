/* The checkpoint library's questions to Slurm (ckpt_slurm.h). */
#include "config.h"

#include <slurm/slurm.h>

#include "ckpt_slurm.h"
#include "common/slurm_compat.h"
#include "common/ckpt.h"
#include "elastic-event/jobload.h"

int ckpt_slurm_job_dir(uint32_t job_id, void *arg, char *dir, size_t len,
		       elastic_error_t *err)
{
	const struct ckpt_slurm *c = arg;
	job_info_msg_t *msg = NULL;
	const char *tag = NULL;
	int rc;

	/* Its own tag while slurmctld knows the job, else our pattern. */
	if (job_load(job_id, &msg, NULL) == 0)
		tag = msg->job_array[0].admin_comment;
	rc = ckpt_job_dir(job_id, tag, c->pattern, c->user, c->home, dir, len,
			  err);
	if (msg)
		compat_free_job_info_msg(msg);
	return rc;
}

bool ckpt_slurm_active(uint32_t job_id, void *arg)
{
	job_info_msg_t *msg = NULL;
	bool busy = false;

	(void)arg;
	if (job_load(job_id, &msg, NULL) == 0) {
		unsigned s = msg->job_array[0].job_state & JOB_STATE_BASE;

		busy =
		    s == JOB_PENDING || s == JOB_RUNNING || s == JOB_SUSPENDED;
	}
	if (msg)
		compat_free_job_info_msg(msg);
	return busy;
}
