#ifndef ELASTICD_RECONCILE_IMPL_H
#define ELASTICD_RECONCILE_IMPL_H

/*
 * What reconcile.c (groups, worlds, the pass), reconcile_view.c (the
 * published view) and reconcile_state.c (the state file) share: the
 * groups' records and a few helpers.  Private to libelasticd.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/nodelist.h"
#include "common/options.h"
#include "common/parse.h"
#include "reconcile.h"
#include "share.h"

/* A pass changes a group's world at most once, and the daemon runs
 * passes at least POLICY_POLL_MS_MIN apart: generations cannot run ahead
 * of the clock by more than one per 100 ms (see adopt_generation()). */
#define ADOPT_MS_PER_GEN   50
#define DP_BUDGET_BYTES	   (8u << 20)
#define SUBMIT_BACKOFF_MS  5000
#define SUBMIT_BACKOFF_MAX 300000
#define STATE_MAX_LINE	   (GROUP_MAX_SLOTS * 24 + 128)
#define DETAIL_MAX	   120
#define NAME_MAX_VIEW	   64

/* A job of the world: the base (job == group id) or a unit. */
struct world_member {
	uint32_t job;
	uint32_t nnodes;
	enum member_kind kind;
};

/* A submission not seen in a snapshot yet. */
struct expect {
	uint32_t token;
	uint32_t job; /* 0 until reconcile_submitted() */
	enum unit_kind kind;
	uint32_t nnodes;
	int64_t at;
};

/* A job to cancel at `at`; `sent` once the cancel went out. */
struct release {
	uint32_t job;
	int64_t at, sent;
};

struct event {
	int64_t at;
	enum event_cause cause;
	uint64_t generation;
	uint32_t nodes;
	char detail[DETAIL_MAX];
};

/* Notes given once per condition (bits of group.noted). */
enum note_bit {
	NOTE_NO_PARTITION = 1,
	NOTE_BELOW_MIN = 2,
	NOTE_NO_TIME = 4,
	NOTE_WAIT_FAULT = 8,
	NOTE_SUBMIT_CAP = 16,
	NOTE_BASE_PARTITION = 32,
	NOTE_LAUNCH_HOLD = 64,
};

struct group {
	uint32_t id;
	struct group *next; /* hash chain */

	/* from the base, for the view */
	uid_t uid;
	char user[NAME_MAX_VIEW + 1];
	char account[NAME_MAX_VIEW + 1];
	unsigned min, max;

	enum group_state state;
	uint64_t generation;
	bool formed;   /* a world exists (ranks may run in it) */
	bool restored; /* world from saved state */
	struct world_member *world;
	size_t nworld;
	uint32_t world_nodes;

	int64_t change_since;	 /* a larger/better world is possible */
	int64_t loss_since;	 /* a failed member awaits its replacement */
	int64_t shortfall_since; /* below the on-demand threshold */
	int64_t resizing_until;	 /* ranks checkpoint until then */
	int64_t last_change;	 /* the world's last change */
	int64_t submit_after;	 /* back off after refused submissions */
	unsigned submit_failures;
	unsigned noted;
	bool end_noted;
	/* launch holds released (release_launch_holds), the base's requeue
	 * count at the last, and when it was sent */
	unsigned holds_released;
	uint32_t hold_restarts;
	int64_t hold_sent;
	int64_t ended_at; /* base and units all gone (GROUP_ENDED); 0 if not */

	struct expect *expect;
	size_t nexpect, capexpect;
	uint32_t next_token;
	struct release *rel;
	size_t nrel, caprel;

	struct event events[GROUP_MAX_EVENTS];
	size_t nevents, event_head; /* ring */

	/* the units the last pass kept as spares (--elastic-spares) */
	uint32_t spare[ELASTIC_MAX_SPARES];
	size_t nspare;
	/* the spares its launcher checked (reconcile_spares_checked): once
	 * it said which, no other spare joins a world */
	uint32_t checked[ELASTIC_MAX_SPARES];
	size_t nchecked;
	bool checks;

	/* sharing (share.h): the base's weight, and since when the group
	 * waits below its target with a preemptible unit pending (0: it
	 * does not) */
	unsigned weight;
	int64_t grow_since;
	enum growth_held held;

	/* the launcher's last report (reconcile_report) */
	int64_t last_exit_ms; /* -1: none */
	bool grace_warning;
	/* it said it relays events (elastic-run): an event raised in the
	 * base reaches every member's ranks through it, so elasticd
	 * signals the base alone (rec_raise_world) */
	bool relays;

	/* this pass */
	uint64_t pass;
	unsigned submitted; /* units submitted */
	const struct job_view *base;
	const struct job_view **units;
	size_t nunits, capunits;
};

/* A unit (or a submission not seen yet) the pass can use. */
struct cand {
	uint32_t job; /* 0: a submission not seen yet */
	uint32_t nnodes;
	enum unit_kind kind;
	bool running; /* else pending */
	bool in_world;
	bool used;
	const struct job_view *j; /* NULL for a submission */
	bool unchecked;		  /* a spare its launcher has not checked */
};

/* One increment of the ladder from the base to the target. */
struct slot {
	uint32_t size;
	int p_run, p_pend, od_run, od_pend; /* index into cands, or -1 */
};

struct reconcile {
	struct reconcile_config cfg;
	struct group **buckets;
	size_t nbuckets, ngroups;
	uint64_t pass;
	bool dirty;
	const struct snapshot *snap; /* of the pass running or last run */
	struct release *orphans;
	size_t norphans, caporphans;

	/* scratch, reused by every group */
	struct cand *cands;
	size_t capcands, ncands; /* of the group being stepped */
	struct slot *slots;
	int *items;
	bool *chosen;
	uint64_t *bits;
	size_t capbits;
	struct world_member *nworld;

	/* this pass: units submitted; groups whose submissions waited
	 * for the pass's bound (they go first next pass) */
	unsigned submitted;
	size_t start_bucket, next_start;
	bool capped;
	/* pending units of the users this pass submitted for (counted
	 * once per pass, then kept up to date) */
	struct {
		uid_t uid;
		unsigned n;
	} pending[16];
	size_t npending;

	/* Rebalance=yes: when a unit last moved, and the unit this pass
	 * moves (its group's step takes it out of the world; 0: none) */
	int64_t last_rebalance;
	uint32_t shed_group, shed_job, shed_taker;
	struct share_group *shares;
	uint32_t *shed_jobs;
	size_t capshares;

	/* counters for the view */
	uint64_t resizes[CAUSE_END + 1];
	double resize_seconds_sum;
	uint64_t units_submitted, units_cancelled;
	uint64_t swaps; /* losses a spare answered at once */
};

/* A job that has not ended. */
bool rec_live(const struct job_view *j);
/* The group of base job id, NULL if none. */
struct group *rec_find(const struct reconcile *r, uint32_t id);
/* A new group for base job id; NULL when out of memory. */
struct group *rec_add_group(struct reconcile *r, uint32_t id);
/* The group's pending release of job, NULL if none. */
const struct release *rec_released(const struct group *g, uint32_t job);
/* Is job a member of the group's world? */
bool rec_in_world(const struct group *g, uint32_t job);

/* Shared by the reconcile files (reconcile.c, reconcile_group.c,
 * reconcile_world.c, reconcile_run.c). */
struct action *rec_push(struct action_list *l, enum action_type type,
			uint32_t group, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void *rec_grow(void *p, size_t *cap, size_t need, size_t size);
int rec_note_once(struct group *g, enum note_bit bit, struct action_list *out,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rec_add_event(struct group *g, int64_t now, enum event_cause cause,
		   const char *detail);
int rec_apply_world(struct reconcile *r, struct group *g, int64_t now,
		    const struct world_member *nw, size_t nn, unsigned nodes,
		    enum event_cause cause, const char *why, bool raise,
		    struct action_list *out);
unsigned rec_choose_world(struct reconcile *r, const struct elastic_opts *o,
			  unsigned b, unsigned limit, size_t n);
void rec_drop_group(struct reconcile *r, struct group *g);
const char *rec_end_words(const struct job_view *j);
size_t rec_hash(uint32_t id, size_t n);
size_t rec_ladder(const struct elastic_opts *o, unsigned cap, unsigned b,
		  struct slot *slots, unsigned *target);
size_t rec_spare_slots(const struct elastic_opts *o, unsigned cap,
		       unsigned target, struct slot *slots, size_t n);
int rec_lose_world(struct reconcile *r, struct group *g, int64_t now,
		   enum event_cause cause, const char *why,
		   struct action_list *out);
int rec_raise_world(struct reconcile *r, const struct group *g, const char *why,
		    struct action_list *out);
/* A unit of g preempted and still running: Slurm has freed, or is
 * freeing, nodes for a preemptor that may need more of them than one
 * unit held. */
bool rec_group_in_grace(const struct group *g);
/* Job is a spare of g's last pass that its launcher, which checks its
 * spares, has not said healthy: it joins no world yet. */
bool rec_unchecked(const struct group *g, uint32_t job);
int rec_release_at(struct group *g, uint32_t job, int64_t at);
int rec_send_releases(struct reconcile *r, struct group *g, int64_t now,
		      struct action_list *out);
/* reconcile_submit.c: ask for a unit of size nodes of kind (a spare's:
 * to SparePartitions, SpareQOS when set), an ACTION_SUBMIT in out within
 * the bounds per user, group and pass, its nice the share of the group's
 * size after it (share.h) (0; 1 when a bound makes it wait;
 * -1 out of memory), and the unit a submission made, seen before its
 * answer (0 if none). */
int rec_submit_unit(struct reconcile *r, struct group *g,
		    const struct elastic_policy *p, int64_t now,
		    enum unit_kind kind, unsigned size, unsigned after,
		    uint32_t limit, bool spare, struct action_list *out);
uint32_t rec_submitted_unit(const struct group *g, const struct expect *e);
/* The user's pending units all used: this group's beyond its part
 * (the bound per user shared by the user's running groups) released,
 * the youngest first, so that the user's other groups may ask too.
 * 0, or -1 out of memory. */
int rec_trim_pending(struct reconcile *r, struct group *g, int64_t now);

/* reconcile_share.c: Rebalance=yes: the unit this pass moves, if any
 * (r->shed_group, shed_job, shed_taker).  0, or -1 out of memory. */
int rec_plan_rebalance(struct reconcile *r, const struct elastic_policy *p,
		       int64_t now);
/* A pending unit matched to a slot below the one it was asked for (the
 * group lost members since) waits behind the other groups' units with
 * the nice of a larger size: it is let go, and the slot asked for again
 * at its rank (the r->slots of the pass, from a base of b nodes, their
 * p_pend cleared).  0, or -1 out of memory. */
int rec_rerank_pending(struct reconcile *r, struct group *g,
		       const struct elastic_policy *p, unsigned b,
		       size_t nslots, int64_t now);

int rec_step_running(struct reconcile *r, struct group *g,
		     const struct elastic_policy *p, int64_t now, bool adopt,
		     struct action_list *out);
int rec_step_stopped(struct reconcile *r, struct group *g, int64_t now,
		     struct action_list *out);
bool rec_usable(const struct job_view *j);
/* Preempted and still running: in its preemption's grace. */
bool rec_in_grace(const struct job_view *j);

#endif
