#ifndef ELASTIC_RUN_CKPT_SLURM_H
#define ELASTIC_RUN_CKPT_SLURM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * What the checkpoint library (common/ckpt.h) asks of Slurm, answered
 * with libslurm as the job's user: another job's checkpoint dir, and
 * whether an eval job still runs.  The caller has called slurm_init().
 */
struct ckpt_slurm {
	const char *pattern; /* this job's --elastic-checkpoint-dir */
	const char *user, *home;
};

/* A ckpt_job_dir_fn: arg is a struct ckpt_slurm. */
int ckpt_slurm_job_dir(uint32_t job_id, void *arg, char *dir, size_t len,
		       elastic_error_t *err);

/* Is the job pending, running or suspended?  (struct ckpt_tick.active) */
bool ckpt_slurm_active(uint32_t job_id, void *arg);

#endif
