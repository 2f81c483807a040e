#ifndef ELASTICD_BATCHHOST_H
#define ELASTICD_BATCHHOST_H

/*
 * A group's batch host lost: its launcher (elastic-run, on the base's
 * first node) asks elasticd for the group every second while it runs
 * ("GET /v1/groups/ID?launcher=1").  When it has been silent for longer
 * than the job's silence allowance while Slurm still runs the base,
 * elasticd probes the batch host's slurmd; one that does not answer, while
 * another node of the group does (it is not elasticd that is cut off),
 * is set DOWN (SuspectNodes=drain, within SuspectDrainsPerHour) and the
 * base requeued: at once, not at SlurmdTimeout (when Slurm, the base
 * being --no-kill, would only take the node out of it, its batch script
 * dead).  Once requeued, elasticd lets it start at once (StartTime=now)
 * instead of after the requeue delay (cred_expire, 120 s).  This table and its
 * decisions are pure; elasticd.c does the I/O (drain.c).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define BH_MAX 1024 /* groups followed at most */
/* The launcher's silence allowed: twice the job's heartbeat timeout, at
 * least this (a launcher busy in a long step start, a grace). */
#define BH_MIN_SILENCE_MS 10000

struct bh_entry {
	uint32_t group;
	int64_t seen;	   /* its launcher last asked, ms; 0 never */
	bool downed;	   /* its batch host was set DOWN */
	uint32_t restarts; /* Slurm's requeue count when it was */
};

struct bh_table {
	struct bh_entry e[BH_MAX];
	size_t n;
};

enum bh_action {
	BH_NONE,
	BH_PROBE, /* probe its batch host; bh_answered() or bh_downed() */
	BH_BEGIN, /* requeued after a down: let it start now, once Slurm
		   * is done requeuing it; then bh_begun() */
};

/* Group's launcher asked at now. */
void bh_seen(struct bh_table *t, uint32_t group, int64_t now);

/* What to do for base j at now. */
enum bh_action bh_decide(struct bh_table *t, const struct job_view *j,
			 int64_t now);

/* The probe found the batch host up (count the silence from now), or it
 * was set DOWN. */
void bh_answered(struct bh_table *t, uint32_t group, int64_t now);
void bh_downed(struct bh_table *t, uint32_t group, uint32_t restarts);

/* Its requeued base was let start (its new launcher's silence counts
 * from now). */
void bh_begun(struct bh_table *t, uint32_t group, int64_t now);

/* A base gone from Slurm: forgotten. */
void bh_forget(struct bh_table *t, uint32_t group);

#endif
