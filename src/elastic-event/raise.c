#include "config.h"

#include <errno.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/options.h"
#include "common/slurm_compat.h"
#include "common/parse.h"
#include "jobload.h"
#include "raise.h"

int raise_job(uint32_t job_id, int sig, elastic_error_t *err)
{
	if (job_id == 0)
		return elastic_errorf(err, "job 0: not a job id");
	if (!parse_signal_name(sig))
		return elastic_errorf(err,
				      "job %u: signal %d is not an elastic "
				      "event signal (allowed: %s)",
				      job_id, sig, PARSE_SIGNALS);
	/* KILL_STEPS_ONLY: without it slurmctld picks the steps too, but
	 * say so rather than rely on the default of a flags value of 0. */
	if (compat_kill_job(job_id, (uint16_t)sig, KILL_STEPS_ONLY) !=
	    SLURM_SUCCESS) {
		int e = errno;

		/* Slurm's words for a pending or suspended job do not say
		 * so. */
		return elastic_errorf(err, "job %u: %s%s", job_id,
				      slurm_strerror(e),
				      e == ESLURM_TRANSITION_STATE_NO_UPDATE
					  ? " (it is not running)"
					  : "");
	}
	return 0;
}

int raise_job_signal(uint32_t job_id, int *sig, elastic_error_t *err)
{
	job_info_msg_t *msg = NULL;
	struct elastic_opts o;
	int rc;

	if (job_load(job_id, &msg, err) < 0)
		return -1;
	rc = options_parse_tag(msg->job_array[0].admin_comment, &o, NULL);
	slurm_free_job_info_msg(msg);
	if (rc < 0)
		return elastic_errorf(err,
				      "job %u: not an elastic job (no elastic "
				      "tag in its AdminComment)",
				      job_id);
	*sig = o.signal;
	return 0;
}
