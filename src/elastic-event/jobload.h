#ifndef ELASTIC_EVENT_JOBLOAD_H
#define ELASTIC_EVENT_JOBLOAD_H

#include <stdint.h>

#include <slurm/slurm.h>

#include "common/error.h"

/*
 * One job's record from slurmctld (one RPC; the caller has called
 * slurm_init()).  0 with *msg set, its one record msg->job_array[0]; the
 * caller frees it with slurm_free_job_info_msg().  -1 with *msg NULL, err
 * set ("job 12: Invalid job id specified", "job 12: not found") and errno
 * kept: Slurm's error, or ENOENT when slurmctld answered without the job.
 */
int job_load(uint32_t job_id, job_info_msg_t **msg, elastic_error_t *err);

#endif
