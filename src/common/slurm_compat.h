#ifndef ELASTIC_SLURM_COMPAT_H
#define ELASTIC_SLURM_COMPAT_H

/*
 * What differs between the Slurm releases we build against, 22.05 to
 * 24.11, in one place: the code that calls Slurm uses these names and
 * tests no version itself.  Header only, for the code that links
 * libslurm (libcommon itself never calls Slurm).
 */
#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>

#define COMPAT_SLURM_AT_LEAST(major, minor)                                    \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(major, minor, 0))

/* 23.11: hostlist_t names the struct and handles are pointers to it. */
#if COMPAT_SLURM_AT_LEAST(23, 11)
typedef hostlist_t *compat_hostlist_t;
#else
typedef hostlist_t compat_hostlist_t;
#endif

/* 23.11: slurm_kill_job_step() takes flags; we need none. */
static inline int compat_kill_job_step(uint32_t job_id, uint32_t step_id,
				       uint16_t sig)
{
#if COMPAT_SLURM_AT_LEAST(23, 11)
	return slurm_kill_job_step(job_id, step_id, sig, 0);
#else
	return slurm_kill_job_step(job_id, step_id, sig);
#endif
}

/*
 * 22.05's slurm_free_job_info_msg() does not free the jobs' admin_comment
 * (measured with valgrind on 22.05.8: every load leaked each tagged job's
 * tag, megabytes a day at elasticd's poll rate); later releases do.
 * compat_free_job_info_msg() frees it there with libslurm's xfree
 * (exported, not declared) and clears the pointer, so nothing is freed
 * twice.
 */
#if !COMPAT_SLURM_AT_LEAST(22, 6)
void slurm_xfree(void **p);
#endif
static inline void compat_free_job_info_msg(job_info_msg_t *msg)
{
#if !COMPAT_SLURM_AT_LEAST(22, 6)
	for (uint32_t i = 0; msg && i < msg->record_count; i++)
		slurm_xfree((void **)&msg->job_array[i].admin_comment);
#endif
	slurm_free_job_info_msg(msg);
}

/*
 * 24.05: a batch job whose script exits during a preemption's grace time
 * ends PREEMPTED and, with PreemptMode=REQUEUE, is requeued.  Before, it
 * ended COMPLETED (or FAILED) and was never requeued: only Slurm's kill at
 * the grace's end requeued it.
 */
#define COMPAT_GRACE_EXIT_REQUEUES COMPAT_SLURM_AT_LEAST(24, 5)

/*
 * 23.02: job_submit's job_modify() gets err_msg, as job_submit() has.
 * The plugin defines job_modify(COMPAT_JOB_MODIFY_PARAMS) and passes
 * COMPAT_JOB_MODIFY_ERR_MSG on (NULL before 23.02).
 */
#if COMPAT_SLURM_AT_LEAST(23, 2)
#define COMPAT_JOB_MODIFY_PARAMS                                               \
	job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,          \
	    char **err_msg
#define COMPAT_JOB_MODIFY_ERR_MSG err_msg
#else
#define COMPAT_JOB_MODIFY_PARAMS                                               \
	job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid
#define COMPAT_JOB_MODIFY_ERR_MSG NULL
#endif

#endif
