/* One job's record from slurmctld (jobload.h). */
#include "config.h"

#include <errno.h>

#include <slurm/slurm_errno.h>

#include "common/slurm_compat.h"

#include "jobload.h"

int job_load(uint32_t job_id, job_info_msg_t **msg, elastic_error_t *err)
{
	*msg = NULL;
	if (compat_load_job(msg, job_id, SHOW_ALL | SHOW_LOCAL) !=
	    SLURM_SUCCESS) {
		int e = errno;

		*msg = NULL;
		elastic_errorf(err, "job %u: %s", job_id, slurm_strerror(e));
		errno = e;
		return -1;
	}
	if ((*msg)->record_count < 1) {
		slurm_free_job_info_msg(*msg);
		*msg = NULL;
		elastic_errorf(err, "job %u: not found", job_id);
		errno = ENOENT;
		return -1;
	}
	return 0;
}
