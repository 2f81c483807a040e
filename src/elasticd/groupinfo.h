#ifndef ELASTICD_GROUPINFO_H
#define ELASTICD_GROUPINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/policy.h"

/*
 * What elasticd tells about its groups and itself: plain copies, made by
 * the reconcile loop after each cycle and handed to the API, which
 * renders them (JSON, Prometheus text) without touching the loop's state.
 * Who owns what: a published struct elasticd_view and everything it points
 * to is allocated by view_* in view.c and freed only by view_free().
 */

/* A group's state in words (elasticctl status). */
enum group_state {
	GROUP_PENDING,	  /* base job not running yet */
	GROUP_STARTING,	  /* base running, first world not formed yet */
	GROUP_RUNNING,	  /* world formed, nothing changing */
	GROUP_RESIZING,	  /* a new world is being formed (event raised) */
	GROUP_DEGRADED,	  /* lost members, waiting for replacements */
	GROUP_COMPLETING, /* base ended; units being released */
	/* Base and units gone: kept a while (RECONCILE_ENDED_KEEP_S) so that
	 * its status and events can still be read; not in the list. */
	GROUP_ENDED,
};
const char *group_state_name(enum group_state s); /* "RUNNING" */

enum member_kind {
	MEMBER_BASE,
	MEMBER_PREEMPTIBLE, /* unit in a preemptible partition */
	MEMBER_ONDEMAND,    /* unit in an on-demand partition */
};
const char *member_kind_name(enum member_kind k); /* "preemptible" */

enum member_state {
	MEMBER_PENDING,	  /* waiting for nodes */
	MEMBER_RUNNING,	  /* holds its nodes */
	MEMBER_PREEMPTED, /* Slurm began preempting it (grace time) */
	MEMBER_RELEASING, /* elasticd is cancelling it */
};
const char *member_state_name(enum member_state s); /* "running" */

/* One Slurm job of the group: the base or a unit. */
struct member_info {
	uint32_t job_id;
	enum member_kind kind;
	enum member_state state;
	uint32_t nnodes; /* held (running) or asked for (pending) */
	char *nodes;	 /* Slurm node list ("n[1-2]"); NULL unless running */
	bool in_world;	 /* part of the current world (generation) */
	bool spare;	 /* running beside the world, to replace a member */
};

/* Why a group changed. */
enum event_cause {
	CAUSE_START,	/* the first world formed */
	CAUSE_GROW,	/* units started: a larger world */
	CAUSE_PREEMPT,	/* Slurm preempted a unit */
	CAUSE_FAIL,	/* a node or unit failed */
	CAUSE_ONDEMAND, /* fell back to on-demand units */
	CAUSE_RETURN,	/* back from on-demand to preemptible units */
	/* a unit left for a group below its share (Rebalance=yes) */
	CAUSE_REBALANCE,
	CAUSE_END, /* the base job ended */
	/* Not a resize: the launcher reported ranks that took half the
	 * grace or more to checkpoint and exit. */
	CAUSE_GRACE_WARNING,
	/* Not a resize: the launcher named a node lost, hung or slow. */
	CAUSE_SUSPECT,
};
const char *event_cause_name(enum event_cause c); /* "preempt" */

/* What holds a running group below its --elastic-max. */
enum growth_held {
	HELD_NONE,	/* nothing (at its max, or growing) */
	HELD_NODES,	/* its units pend: no idle node for them yet */
	HELD_CAP,	/* the site's cap on its owner (UserMaxNodes...) */
	HELD_TIME,	/* its base has too little time left for a unit */
	HELD_BACKOFF,	/* Slurm refused its units: it waits to ask again */
	HELD_PARTITION, /* no PreemptiblePartitions, or a base outside
			 * BasePartitions */
};
const char *growth_held_name(enum growth_held h); /* "nodes" */

/* One line of a group's timeline. */
struct event_info {
	struct timespec time; /* CLOCK_REALTIME */
	enum event_cause cause;
	uint64_t generation;  /* the world this event led to */
	uint32_t world_nodes; /* its size in nodes */
	char *detail;	      /* e.g. "unit 42 preempted (n3)"; may be NULL */
};

struct group_info {
	uint32_t base_job_id; /* the group's id */
	uint32_t user_id;     /* owner: the API shows a group to its owner */
	char *user;	      /* may be NULL if unknown */
	char *account;	      /* may be NULL */
	char *partition;      /* the base's; may be NULL */
	enum group_state state;
	uint32_t min, max;    /* from the job's options */
	uint64_t generation;  /* current world; 0 before the first */
	uint32_t world_nodes; /* nodes in the current world */
	uint32_t spares;      /* spare units running (--elastic-spares) */
	char *master_addr;    /* rendezvous host (first node of the base) */
	size_t nmembers;
	struct member_info *members;
	size_t nevents; /* the most recent events, oldest first */
	struct event_info *events;
	/* The launcher's last report: how long its ranks took from being
	 * told to exiting (-1: none), against the job's grace (seconds). */
	int64_t last_exit_ms;
	uint32_t grace;
	bool grace_warning; /* last_exit_ms is half the grace or more */
	/* Sharing (elasticd(8), Sharing): the group's weight, its part of
	 * the nodes in all groups' worlds (0..1), and how long it has waited
	 * below its target with a unit pending (-1: it does not wait). */
	uint32_t weight;
	double share;
	int64_t growth_wait_ms;
	enum growth_held held; /* what holds it below its max */
	/* Its launcher relays events: elasticd signals the base alone. */
	bool relay;
};

/* A launcher's report (POST /v1/groups/ID/report): its ranks run in
 * world generation, and took exit_ms (-1: not measured) from being told
 * of the last event to exiting. */
struct launch_report {
	uint32_t group;
	uint64_t generation;
	int64_t exit_ms;
	/* The launcher passes an event raised in the base on to every
	 * member's ranks itself (relay=1): elasticd signals the base alone. */
	bool relay;
};

/* A node a group's launcher found lost, hung or straggling
 * (POST /v1/groups/ID/suspect). */
#define SUSPECT_NODE_MAX 64
/* What a launcher found a node to do, in the order of the metrics. */
#define SUSPECT_FAULTS 4
/* spare-check: a spare's node failed its health check (elastic-run's
 * SpareCheck, or drained in Slurm by HealthCheckProgram) */
#define SUSPECT_FAULT_NAMES                                                    \
	{                                                                      \
		"lost", "hang", "straggler", "spare-check"                     \
	}

struct suspect_report {
	uint32_t group;
	char node[SUSPECT_NODE_MAX + 1];
	char why[16];	/* one of SUSPECT_FAULT_NAMES */
	unsigned fault; /* its index there */
};

/* The spares a group's launcher checked, as it said last (GET
 * /v1/groups/ID?launcher=1&spares_checked=JOB,...). */
#define SPARE_NOTE_MAX POLICY_SPARES_MAX /* --elastic-spares */
struct spare_note {
	uint32_t group;
	uint32_t jobs[SPARE_NOTE_MAX];
	size_t n;
};

/* Counters for /metrics, cumulative since elasticd started. */
struct elasticd_metrics {
	uint64_t cycles;		/* reconcile cycles */
	uint64_t slurm_rpcs;		/* RPCs to slurmctld, all kinds */
	uint64_t slurm_rpcs_last_cycle; /* in the last cycle */
	double reconcile_seconds_last;	/* duration of the last decision pass */
	double reconcile_seconds_sum;
	uint64_t resizes[CAUSE_END + 1]; /* events by cause */
	double resize_seconds_sum; /* event raised to new world published */
	uint64_t units_submitted, units_cancelled;
	uint64_t swaps; /* losses a spare answered at once, at the same size */
	time_t started;
	/* Notifications taken (each a lookup and a wake-up) and dropped
	 * (ElasticdNotify=drop); cycles that read only the jobs notified. */
	uint64_t notified, notify_dropped, light_cycles;
	/* units taken as started on slurmstepd's word, without a read */
	uint64_t starts_told;
	/* suspect nodes by fault (SUSPECT_FAULT_NAMES): drained in Slurm
	 * [0], and reported only [1] */
	uint64_t suspects[SUSPECT_FAULTS][2];
};

/* Everything the API serves, as of the end of one cycle. */
struct elasticd_view {
	struct timespec published;
	size_t ngroups;
	struct group_info *groups;
	struct elasticd_metrics metrics;
	/* nodes by kind over all groups, for /metrics */
	uint64_t nodes_base, nodes_preemptible, nodes_ondemand;
	uint64_t nodes_spare; /* of the preemptible: the spares' */
};

/* Free a view and everything it owns; NULL is fine. */
void view_free(struct elasticd_view *v);

#endif
