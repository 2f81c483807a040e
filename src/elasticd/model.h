#ifndef ELASTICD_MODEL_H
#define ELASTICD_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/error.h"
#include "common/options.h"
#include "common/unittag.h"

/*
 * What elasticd knows of Slurm's jobs at one moment: plain data, built by
 * slurmio.c from slurm_load_jobs() (or by a test or the benchmark by hand)
 * and read by the reconcile pass.  Only the jobs of elastic groups are
 * kept: bases (AdminComment "elastic:v1 ...") and units ("elastic-unit:v1
 * ..."); every other job is none of elasticd's business.
 */

enum job_phase {
	PHASE_PENDING, /* waiting for nodes (also: requeued, held) */
	PHASE_RUNNING, /* holds its nodes (also: suspended) */
	PHASE_ENDING,  /* ended, its nodes being released (COMPLETING) */
	PHASE_GONE,    /* ended and released */
};
const char *model_phase_name(enum job_phase p);

enum job_role {
	ROLE_OTHER,
	ROLE_BASE, /* an elastic group's base job */
	ROLE_UNIT, /* a unit elasticd submitted for a group */
};

/* How a job that is no longer running ended, as far as we care. */
enum job_end {
	END_NONE,      /* still pending or running */
	END_COMPLETE,  /* exited (for a unit: someone ended its script) */
	END_CANCELLED, /* scancel, by its owner, an admin or elasticd */
	END_PREEMPTED, /* Slurm preempted it */
	END_FAILED,    /* node failure, launch or boot failure, time out... */
};

/*
 * A job's phase, end and preempted flag from Slurm's state word
 * (job_info_t.job_state) and preempt_time: preempted while it runs in
 * GraceTime (or is suspended by preemption), or when it ended by it.
 */
void model_job_state(uint32_t job_state, time_t preempt_time,
		     enum job_phase *phase, enum job_end *end, bool *preempted);

/* One job.  Strings belong to the snapshot that holds the job. */
struct job_view {
	uint32_t id;
	enum job_phase phase;
	enum job_end end;
	/* Running, and Slurm began preempting it (GraceTime runs), or it
	 * ended by preemption. */
	bool preempted;
	/* Preempted and running, and no step of its own runs any more: the
	 * ranks it held have left, nothing needs the rest of the grace.
	 * Set by slurmio (one RPC for all steps, only while a unit is in a
	 * preemption's grace). */
	bool steps_gone;
	/* Pending, held by Slurm after its batch launch failed ("launch
	 * failed requeued held": a prolog failed, or a requeue raced the
	 * node's return and met the old job there). */
	bool launch_held;
	uint32_t restarts; /* Slurm's requeue count */
	/* Slurm's nice value (0 when none or below 0): a pending unit's
	 * tells the group's rank it was asked for at (share.h). */
	uint32_t nice;
	uint32_t nnodes;   /* held (running) or asked for (pending) */
	const char *nodes; /* Slurm node list; "" unless running */
	uid_t uid;
	gid_t gid;
	const char *user;      /* may be NULL */
	const char *account;   /* may be NULL: the user's default */
	const char *qos;       /* may be NULL */
	const char *partition; /* may be NULL */
	time_t submit_time, start_time, end_time; /* 0 if unknown */
	uint32_t time_limit; /* minutes; 0 = none (INFINITE) */
	enum job_role role;
	/* ROLE_BASE: the parsed tag (finalized options), and the tag as
	 * Slurm has it (so that an unchanged tag is not parsed again) */
	const struct elastic_opts *opts;
	const char *tag; /* may be NULL */
	/* ROLE_UNIT: the parsed tag */
	struct unit_tag unit;
	/* Carried to the units a base's group gets: same resources per
	 * node.  May be NULL. */
	const char *tres_per_node;
	const char *features;
};

/* Bounds: a snapshot refuses more jobs than this (a bug or an attack
 * could not make elasticd use unbounded memory). */
#define MODEL_MAX_JOBS	 1000000
#define MODEL_MAX_STRING 65536 /* a node list, features */

struct snapshot;

/* An empty snapshot taken at time now.  NULL when out of memory. */
struct snapshot *snapshot_create(time_t now);
void snapshot_destroy(struct snapshot *s); /* NULL is fine */

/*
 * Add a copy of j (strings and options copied).  Jobs may come in any
 * order; of an id added twice, one is kept.  Returns 0,
 * or -1 with err set (out of memory, too many jobs, string too long).
 */
int snapshot_add(struct snapshot *s, const struct job_view *j,
		 elastic_error_t *err);

/* Sort for lookups; call once after the last add. */
void snapshot_finish(struct snapshot *s);

time_t snapshot_time(const struct snapshot *s);
size_t snapshot_count(const struct snapshot *s);
const struct job_view *snapshot_job(const struct snapshot *s, size_t i);
/* By id after snapshot_finish(); NULL if absent. */
const struct job_view *snapshot_find(const struct snapshot *s, uint32_t id);
/* Set job id's steps_gone; 0, or -1 when the snapshot has no such job. */
int snapshot_set_steps_gone(struct snapshot *s, uint32_t id, bool gone);

#endif
