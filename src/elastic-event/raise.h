#ifndef ELASTIC_EVENT_RAISE_H
#define ELASTIC_EVENT_RAISE_H

#include <stdint.h>

#include "common/error.h"

/*
 * Raise the elastic event in one job: send sig to every step of job_id on
 * all its nodes (each task and, through the proctrack plugin, the
 * processes it started), never to the batch shell, which is the launcher.
 * sig must be an elastic event signal (see parse_signal()).
 *
 * The caller has called slurm_init() and links -lslurm.  One RPC to
 * slurmctld, which fans the signal out to the nodes asynchronously: a
 * success means slurmctld accepted it, not that every rank has it.
 * Returns 0, or -1 with err set ("job 12: Invalid job id specified").
 */
int raise_job(uint32_t job_id, int sig, elastic_error_t *err);

/*
 * The job's own elastic signal (--elastic-signal, from its tag).  One RPC.
 * Returns 0, or -1 with err set (also for a job that is not elastic).
 */
int raise_job_signal(uint32_t job_id, int *sig, elastic_error_t *err);

#endif
