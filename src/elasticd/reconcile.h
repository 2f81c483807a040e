#ifndef ELASTICD_RECONCILE_H
#define ELASTICD_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/policy.h"
#include "groupinfo.h"
#include "model.h"

/*
 * The reconcile pass: elasticd's decisions, pure.  It reads a snapshot of
 * Slurm's jobs, the site's policy and the time, keeps one group per
 * elastic base job, and says what to do: submit a unit, cancel a job,
 * raise the elastic event in a group's old world.  It never calls Slurm
 * and never logs; the daemon performs the actions, logs their text and
 * reports each submission's job id back.
 *
 * A pass is idempotent: run twice on the same snapshot and time, the
 * second yields no action (submissions are remembered until their job
 * shows up, cancellations until their job is gone, both with a timeout).
 *
 * Rules (elasticd(8) tells them to users):
 * - A group's world is its base plus running, non-preempted units; its
 *   size is always an allowed size (min..max on the step or the list) and
 *   never above the site's cap for the owner.
 * - Units are the increments to the target: step nodes each with
 *   --elastic-step (all requested at once), the differences between
 *   consecutive sizes with --elastic-sizes (one at a time), plus a unit
 *   that refills a base which lost nodes.  A unit that fits no increment
 *   is released.
 * - Units that start are taken in after --elastic-scale-delay (batching
 *   further starts); a preempted unit leaves at once; a failed one is
 *   waited for (--elastic-fault-timeout) while its replacement is
 *   requested, then the world goes on at the largest allowed size left.
 * - On-demand units are requested when the preemptible ones have not
 *   brought the group to min (below-min) or to its target (always) within
 *   the scale delay; a preemptible unit that starts later replaces its
 *   on-demand unit (make-before-break), which is released after the
 *   grace.
 * - When the base ends every unit is cancelled; a unit without a live
 *   base (an orphan) is cancelled.
 * - A requeued base that Slurm held because its launch failed is
 *   released, a bounded number of times per group.
 */

#define GROUP_MAX_SLOTS	 1024 /* units a group may hold or ask for */
#define GROUP_MAX_EVENTS 32   /* timeline kept per group */
#define ACTION_TEXT_MAX	 256

enum action_type {
	ACTION_SUBMIT,	/* submit a unit; report with reconcile_submitted() */
	ACTION_CANCEL,	/* cancel job (SIGKILL) */
	ACTION_RAISE,	/* raise signal in jobs[] (the old world, or its
			 * base alone when the launcher relays) */
	ACTION_NOTE,	/* nothing to do: a decision worth a log line */
	ACTION_RELEASE, /* release job, held by Slurm (scontrol release) */
};

/* What a unit job is to be.  Strings point into the snapshot the pass
 * read, or into the action itself: valid while both live. */
struct unit_request {
	struct unit_tag tag; /* group, kind, nodes */
	char partition[POLICY_NAME_MAX + 1];
	char qos[POLICY_NAME_MAX + 1]; /* "" = none */
	uint32_t time_limit;	       /* minutes; 0 = the partition's */
	uid_t uid;		       /* the base's owner */
	gid_t gid;
	/* The base's elastic signal and grace: Slurm sends it to the
	 * unit's ranks when it preempts the unit (instead of SIGTERM,
	 * with preempt_send_user_signal) and before its time limit. */
	int signal;
	unsigned grace;
	const char *account;	   /* may be NULL */
	const char *tres_per_node; /* may be NULL */
	const char *features;	   /* may be NULL */
	/* Slurm's nice value (UnitNice): behind other users' queued jobs */
	unsigned nice;
};

struct action {
	enum action_type type;
	uint32_t group;		  /* base job id; 0: an orphan unit's cancel */
	uint32_t job;		  /* ACTION_CANCEL, ACTION_RELEASE */
	uint32_t token;		  /* ACTION_SUBMIT: for reconcile_submitted() */
	struct unit_request unit; /* ACTION_SUBMIT */
	int signal;		  /* ACTION_RAISE */
	size_t njobs;		  /* ACTION_RAISE */
	uint32_t *jobs;		  /* ACTION_RAISE; owned by the list */
	/* ACTION_RAISE: running jobs of the old world left out of jobs[],
	 * whose ranks the group's launcher tells without slurmctld */
	size_t relayed;
	char text[ACTION_TEXT_MAX]; /* one log line, without prefix */
};

/* A growing array of actions; zero-initialize it. */
struct action_list {
	size_t n, cap;
	struct action *a;
};
void action_list_clear(struct action_list *l); /* empty, keep memory */
void action_list_free(struct action_list *l);

struct reconcile_config {
	/* A submission not seen in a snapshot after this is forgotten
	 * (and may be made again). */
	unsigned expect_timeout_ms;
	/* A cancel is sent again if its job still lives after this. */
	unsigned cancel_retry_ms;
	/* No new unit is asked for a base with less time left. */
	unsigned min_unit_seconds;
	/* Bounds on submissions, so that no group (nor user) makes a pass
	 * long for the others: units submitted per group and in all per
	 * pass, and units of one user pending at once. */
	unsigned max_submit_group;
	unsigned max_submit_pass;
	unsigned max_pending_user;
	/* A base Slurm held after a failed launch is released so many
	 * times per group (ElasticdReleaseLaunchHolds), then left to an
	 * admin. */
	unsigned release_launch_holds;
};
void reconcile_config_defaults(struct reconcile_config *c);

struct reconcile;

/* NULL when out of memory.  cfg NULL: the defaults. */
struct reconcile *reconcile_create(const struct reconcile_config *cfg);
void reconcile_destroy(struct reconcile *r); /* NULL is fine */

/*
 * One pass at time now_ms (CLOCK_REALTIME, milliseconds).  Appends the
 * actions to out (cleared first).  The first pass adopts the groups it
 * finds running without saved state: their world is what runs now, with
 * no event raised and a generation above any an earlier elasticd gave.
 * Returns 0, or -1 with err set when out of memory (then out holds what
 * was decided before; the next pass starts over).
 */
int reconcile_pass(struct reconcile *r, const struct snapshot *s,
		   const struct elastic_policy *p, int64_t now_ms,
		   struct action_list *out, elastic_error_t *err);

/* The outcome of an ACTION_SUBMIT: its job id, or 0 when Slurm refused
 * it (then the group waits before asking again, longer each time). */
void reconcile_submitted(struct reconcile *r, uint32_t group, uint32_t token,
			 uint32_t job_id, int64_t now_ms);

/*
 * A launcher's report (POST /v1/groups/ID/report): its ranks run in
 * rep->generation (the current one ends the group's RESIZING at once),
 * and took rep->exit_ms to leave at the last event (a grace-warning event
 * when that is half the job's grace or more).  0, or -1 when the group
 * has no world.
 */
int reconcile_report(struct reconcile *r, const struct launch_report *rep,
		     int64_t now);

/* How long a group whose base and units are all gone stays readable
 * (GROUP_ENDED: its status and events), seconds. */
#define RECONCILE_ENDED_KEEP_S 3600
#define RECONCILE_ENDED_MAX    1024 /* and at most so many */

/*
 * A raise asked for through the API: appends an ACTION_RAISE of the
 * group's world to out (not cleared) if it has one.  Returns 0, or -1
 * if the group has no world (not running, or not formed yet).
 */
int reconcile_raise_request(struct reconcile *r, uint32_t group,
			    struct action_list *out);

/* A line of the group's timeline that changes nothing (a suspect node
 * its launcher named): 0, or -1 when there is no such group. */
int reconcile_note(struct reconcile *r, uint32_t group, enum event_cause cause,
		   const char *detail, int64_t now);

/*
 * The spares that group's launcher checked (their nodes healthy in Slurm,
 * the site's SpareCheck passed on them), all of them each time: from the
 * first such word on, a spare joins the group's world only once checked,
 * and waits as a unit on its way until then.  0, or -1 when there is no
 * such group or more than ELASTIC_MAX_SPARES jobs.
 */
int reconcile_spares_checked(struct reconcile *r, uint32_t group,
			     const uint32_t *jobs, size_t n);

/* Groups known, for tests and the benchmark. */
size_t reconcile_ngroups(const struct reconcile *r);

/*
 * What a group looks like now (a test's view), or -1 if no such group.
 * world receives up to max member job ids (the base first).
 */
struct reconcile_group_status {
	enum group_state state;
	uint64_t generation;
	uint32_t world_nodes;
	size_t nworld;
};
int reconcile_group_status(const struct reconcile *r, uint32_t group,
			   struct reconcile_group_status *ret, uint32_t *world,
			   size_t max);

/*
 * The published view (groupinfo.h) of every group, with the counters the
 * pass keeps (resizes by cause, resize time, units submitted and
 * cancelled); the caller fills the rest of the metrics.  s is the
 * snapshot of the last pass.  NULL when out of memory; free with
 * view_free().
 */
struct elasticd_view *reconcile_view(const struct reconcile *r,
				     const struct snapshot *s, int64_t now_ms);

/*
 * Saved state (ElasticdStateDir): each formed group's generation and
 * world, so that a restarted elasticd neither raises a needless event nor
 * reuses a generation.  reconcile_dirty() says whether it changed since
 * the last reconcile_state_format().  The text is malloc'd (*ret).
 */
bool reconcile_dirty(const struct reconcile *r);
int reconcile_state_format(struct reconcile *r, char **ret,
			   elastic_error_t *err);
/* Before the first pass only.  Fails on any malformed line. */
int reconcile_state_load(struct reconcile *r, const char *text,
			 elastic_error_t *err);

#endif
