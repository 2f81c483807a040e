#ifndef ELASTIC_SLURM_COMPAT_H
#define ELASTIC_SLURM_COMPAT_H

/*
 * What differs between the Slurm releases we build against, 22.05 to
 * 26.05, in one place: the code that calls Slurm uses these names and
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

/*
 * 25.11 and 26.05 name a job or a step by slurm_step_id_t where earlier
 * releases took job and step numbers.  NO_VAL is "any", as before.
 */
#if COMPAT_SLURM_AT_LEAST(25, 11)
static inline slurm_step_id_t compat_step_id(uint32_t job_id, uint32_t step_id)
{
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job_id;
	id.step_id = step_id;
	return id;
}
#endif

/* 23.11: slurm_kill_job_step() takes flags; we need none.  25.11: a step id. */
static inline int compat_kill_job_step(uint32_t job_id, uint32_t step_id,
				       uint16_t sig)
{
#if COMPAT_SLURM_AT_LEAST(25, 11)
	slurm_step_id_t id = compat_step_id(job_id, step_id);

	return slurm_kill_job_step(&id, sig, 0);
#elif COMPAT_SLURM_AT_LEAST(23, 11)
	return slurm_kill_job_step(job_id, step_id, sig, 0);
#else
	return slurm_kill_job_step(job_id, step_id, sig);
#endif
}

/* 25.11: the steps of one job (NO_VAL: of all), without an update time. */
static inline int compat_get_job_steps(uint32_t job_id,
				       job_step_info_response_msg_t **resp,
				       uint16_t show_flags)
{
#if COMPAT_SLURM_AT_LEAST(25, 11)
	slurm_step_id_t id = compat_step_id(job_id, NO_VAL);

	return slurm_get_job_steps(&id, resp, show_flags);
#else
	return slurm_get_job_steps(0, job_id, NO_VAL, resp, show_flags);
#endif
}

/* 25.11: a submission's answer and a job's description carry a step id. */
#if COMPAT_SLURM_AT_LEAST(25, 11)
#define COMPAT_SUBMIT_JOB_ID(resp)   ((resp)->step_id.job_id)
#define COMPAT_JOB_DESC_JOB_ID(desc) ((desc)->step_id.job_id)
#else
#define COMPAT_SUBMIT_JOB_ID(resp)   ((resp)->job_id)
#define COMPAT_JOB_DESC_JOB_ID(desc) ((desc)->job_id)
#endif

/* 26.05: slurm_kill_job, slurm_load_job and slurm_requeue take a step id. */
/* The argument that names a job to those calls (the unit tests' stand-ins
 * of them take it so); COMPAT_JOB_OF gives its number. */
#if COMPAT_SLURM_AT_LEAST(26, 5)
typedef slurm_step_id_t compat_job_arg_t;
#define COMPAT_JOB_OF(arg) ((arg).job_id)
#else
typedef uint32_t compat_job_arg_t;
#define COMPAT_JOB_OF(arg) (arg)
#endif

static inline int compat_kill_job(uint32_t job_id, uint16_t sig, uint16_t flags)
{
#if COMPAT_SLURM_AT_LEAST(26, 5)
	return slurm_kill_job(compat_step_id(job_id, NO_VAL), sig, flags);
#else
	return slurm_kill_job(job_id, sig, flags);
#endif
}

static inline int compat_load_job(job_info_msg_t **resp, uint32_t job_id,
				  uint16_t show_flags)
{
#if COMPAT_SLURM_AT_LEAST(26, 5)
	return slurm_load_job(resp, compat_step_id(job_id, NO_VAL), show_flags);
#else
	return slurm_load_job(resp, job_id, show_flags);
#endif
}

static inline int compat_requeue(uint32_t job_id, uint32_t flags)
{
#if COMPAT_SLURM_AT_LEAST(26, 5)
	return slurm_requeue(compat_step_id(job_id, NO_VAL), flags);
#else
	return slurm_requeue(job_id, flags);
#endif
}

/* 26.05: slurm_free_ctl_conf() is slurm_free_conf(). */
static inline void compat_free_conf(slurm_conf_t *conf)
{
#if COMPAT_SLURM_AT_LEAST(26, 5)
	slurm_free_conf(conf);
#else
	slurm_free_ctl_conf(conf);
#endif
}

/*
 * 23.02: PreemptParameters, where send_user_signal is documented (22.05
 * knows only SlurmctldParameters=preempt_send_user_signal, which later
 * releases still honour).
 */
#define COMPAT_HAS_PREEMPT_PARAMS COMPAT_SLURM_AT_LEAST(23, 2)
#if COMPAT_HAS_PREEMPT_PARAMS
#define COMPAT_CONF_PREEMPT_PARAMS(conf) ((conf)->preempt_params)
#else
#define COMPAT_CONF_PREEMPT_PARAMS(conf) ((const char *)NULL)
#endif

/*
 * Every release: libslurm exports its bitmap functions, but no public
 * header declares them; a QOS's Preempt comes as one
 * (slurmdb_qos_rec_t.preempt_bitstr, indexed by QOS id).
 */
int slurm_bit_test(bitstr_t *b, bitstr_t bit);
bitstr_t slurm_bit_size(bitstr_t *b);

/*
 * 26.05: a node's reason no longer names who set it in the request;
 * slurmctld takes the caller's authenticated uid.
 */
static inline void compat_node_reason_uid(update_node_msg_t *m, uint32_t uid)
{
#if COMPAT_SLURM_AT_LEAST(26, 5)
	(void)m;
	(void)uid;
#else
	m->reason_uid = uid;
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

/*
 * 25.11: --requeue=expedite, a job flag slurmctld takes only with
 * SlurmctldParameters=enable_expedited_requeue (0: no such flag).
 */
#if COMPAT_SLURM_AT_LEAST(25, 11)
#define COMPAT_EXPEDITED_REQUEUE EXPEDITED_REQUEUE
#else
#define COMPAT_EXPEDITED_REQUEUE 0
#endif

#endif
