#ifndef ELASTIC_COMMON_POLICY_H
#define ELASTIC_COMMON_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

/* Hard bound on any node count we accept, whatever the site allows. */
#define ELASTIC_NODES_LIMIT 65535
#define POLICY_LIST_MAX	    32 /* entries in one list key */
#define POLICY_NAME_MAX	    64 /* a user, account, partition or QOS name */
#define POLICY_PATH_MAX	    1024
#define POLICY_LISTEN_MAX   263 /* "[IPv6 or host name]:65535" */

/* MaxNodes without elastic.conf: a site raises it deliberately. */
#define POLICY_DEFAULT_MAX_NODES 64
/* MaxSpares and DefaultSpares: 0 to POLICY_SPARES_MAX units. */
#define POLICY_SPARES_MAX		   64
#define POLICY_DEFAULT_MAX_SPARES	   2
#define POLICY_SPARE_CHECK_TIMEOUT_DEFAULT 60
/* A node's silence the launcher allows (--elastic-heartbeat-timeout,
 * DefaultHeartbeatTimeout): 0 (no heartbeats), or MIN to MAX seconds. */
#define POLICY_DEFAULT_HEARTBEAT_TIMEOUT 5
#define POLICY_HEARTBEAT_MIN		 2
#define POLICY_HEARTBEAT_MAX		 3600

enum elastic_ondemand {
	ELASTIC_ONDEMAND_NEVER,
	ELASTIC_ONDEMAND_BELOW_MIN,
	ELASTIC_ONDEMAND_ALWAYS,
};
#define ELASTIC_ONDEMAND_WORDS "never, below-min, always"
const char *policy_ondemand_name(enum elastic_ondemand m);
int policy_parse_ondemand(const char *s, enum elastic_ondemand *ret);

/* A list of names, e.g. partitions or users. */
struct policy_list {
	unsigned n;
	char name[POLICY_LIST_MAX][POLICY_NAME_MAX + 1];
};
bool policy_list_has(const struct policy_list *l, const char *name);
/*
 * Whether bases get --requeue=expedite: ExpeditedRequeue=yes (want), a
 * Slurm with the flag (has), and slurmctld's SlurmctldParameters (params,
 * may be NULL) enabling it, without which slurmctld refuses the job.
 * When wanted but not given, *why says what is missing.
 */
bool policy_expedite(bool want, bool has, const char *params, const char **why);
/* The names joined by ", " into out (len bytes, always terminated); a list
 * that does not fit ends with "...".  Returns the length written. */
size_t policy_list_join(const struct policy_list *l, char *out, size_t len);

/* name:N pairs, e.g. UserMaxNodes=alice:16,bob:4 */
struct policy_caps {
	unsigned n;
	struct {
		char name[POLICY_NAME_MAX + 1];
		unsigned nodes;
	} cap[POLICY_LIST_MAX];
};
/* The bound on a weight (AccountShareWeights, QOSShareWeights), and the
 * defaults of ShareNiceStep and RebalanceInterval. */
#define POLICY_WEIGHT_MAX		  1000
#define POLICY_SHARE_NICE_STEP_DEFAULT	  100
#define POLICY_REBALANCE_INTERVAL_DEFAULT 300
#define POLICY_REBALANCE_INTERVAL_MIN	  10
/* The cap (or weight) for name, or 0 if it has none. */
unsigned policy_caps_get(const struct policy_caps *c, const char *name);

/*
 * The site's policy, from elastic.conf (slurm.conf-style Key=Value lines).
 * A plain value type (a few KiB): copy it freely, nothing to free.
 */
/* ElasticdNotify's values. */
enum policy_notify {
	POLICY_NOTIFY_YES,  /* units notify, elasticd wakes at once */
	POLICY_NOTIFY_NO,   /* units only hold nodes; elasticd polls */
	POLICY_NOTIFY_DROP, /* units notify, elasticd drops it (to test that
			     * the poll alone keeps every group right) */
};
const char *policy_notify_name(enum policy_notify n);
int policy_parse_notify(const char *s, enum policy_notify *ret);

/* SuspectNodes's values: what elasticd does with a node a launcher found
 * lost, hung or straggling. */
enum policy_suspect {
	POLICY_SUSPECT_DRAIN,  /* drain it in Slurm, within the hourly cap */
	POLICY_SUSPECT_REPORT, /* log and count it only */
};
int policy_parse_suspect(const char *s, enum policy_suspect *ret);
/* SuspectDrainsPerHour's default. */
#define POLICY_SUSPECT_DRAINS_DEFAULT 4

/* --elastic-stragglers and DefaultStragglers: what a job's launcher does
 * with a node consistently slower than the rest. */
enum policy_stragglers {
	POLICY_STRAGGLERS_REPORT, /* timeline, elasticd; the world keeps it */
	POLICY_STRAGGLERS_EVICT,  /* and the world goes on without it */
	POLICY_STRAGGLERS_OFF,	  /* not watched */
};
const char *policy_stragglers_name(enum policy_stragglers s);
int policy_parse_stragglers(const char *s, enum policy_stragglers *ret);
/* StragglerSteps (steps of a window) and StragglerFactor (in hundredths:
 * 200 is twice the others' median), their defaults and bounds. */
#define POLICY_STRAGGLER_STEPS_DEFAULT	20
#define POLICY_STRAGGLER_STEPS_MIN	2
#define POLICY_STRAGGLER_STEPS_MAX	100000
#define POLICY_STRAGGLER_FACTOR_DEFAULT 200
#define POLICY_STRAGGLER_FACTOR_MIN	120
#define POLICY_STRAGGLER_FACTOR_MAX	10000

struct elastic_policy {
	/* Caps on a job's --elastic-max: the most specific applies. */
	unsigned max_nodes;		 /* MaxNodes */
	struct policy_caps user_caps;	 /* UserMaxNodes */
	struct policy_caps account_caps; /* AccountMaxNodes */

	/* Where the group's jobs run. */
	struct policy_list base_partitions;	   /* BasePartitions */
	struct policy_list preemptible_partitions; /* PreemptiblePartitions */
	struct policy_list ondemand_partitions;	   /* OnDemandPartitions */
	char base_qos[POLICY_NAME_MAX + 1];	   /* BaseQOS */
	char preemptible_qos[POLICY_NAME_MAX + 1]; /* PreemptibleQOS */
	char ondemand_qos[POLICY_NAME_MAX + 1];	   /* OnDemandQOS */
	/* Where spares run, for Slurm to preempt them first (a partition of
	 * a lower PriorityTier, a QOS of lower preemption order); empty:
	 * PreemptiblePartitions, PreemptibleQOS. */
	struct policy_list spare_partitions; /* SparePartitions */
	char spare_qos[POLICY_NAME_MAX + 1]; /* SpareQOS */
	/* EvalPartition: where --elastic-eval jobs run; "" = the first of
	 * PreemptiblePartitions, else Slurm's default. */
	char eval_partition[POLICY_NAME_MAX + 1];

	/* On-demand fallback: who may use it. */
	bool ondemand_allowed;		      /* OnDemand */
	struct policy_list ondemand_users;    /* OnDemandUsers (empty: all) */
	struct policy_list ondemand_accounts; /* OnDemandAccounts */

	unsigned max_grace;  /* MaxGrace */
	unsigned max_keep;   /* MaxKeep */
	unsigned max_spares; /* MaxSpares */
	unsigned unit_nice;  /* UnitNice */

	/* Sharing idle nodes between groups (elasticd(8), Sharing): a
	 * group's weight is its account's times its QOS's (1 when not
	 * named); a unit's nice is UnitNice plus ShareNiceStep per node of
	 * the weighted size the unit brings its group to (0: UnitNice
	 * alone, Slurm's order).  Rebalance: one unit at a time moves from
	 * the group furthest above its share to one that waited a whole
	 * RebalanceInterval (seconds) below it. */
	struct policy_caps account_weights; /* AccountShareWeights */
	struct policy_caps qos_weights;	    /* QOSShareWeights */
	unsigned share_nice_step;	    /* ShareNiceStep */
	bool rebalance;			    /* Rebalance */
	unsigned rebalance_interval;	    /* RebalanceInterval */

	/* Defaults for every option. */
	unsigned default_min_nodes;	/* DefaultMinNodes */
	unsigned default_max_nodes;	/* DefaultMaxNodes; 0 = the cap */
	unsigned default_step;		/* DefaultStep */
	unsigned default_grace;		/* DefaultGrace */
	unsigned default_scale_delay;	/* DefaultScaleDelay */
	unsigned default_fault_timeout; /* DefaultFaultTimeout */
	/* DefaultHeartbeatTimeout (0: none) and MinHeartbeatTimeout, the
	 * shortest a job may ask for (0: no floor). */
	unsigned default_heartbeat_timeout;
	unsigned min_heartbeat_timeout;
	enum elastic_ondemand default_ondemand; /* DefaultOnDemand */
	int default_signal;			/* DefaultSignal */
	unsigned default_keep;			/* DefaultKeep */
	unsigned default_spares;		/* DefaultSpares */
	char default_checkpoint_dir[POLICY_PATH_MAX +
				    1]; /* DefaultCheckpointDir */
	/* SharedCheckpointDirs: checkpoint dir patterns without a per-user
	 * part (%u, %h) are allowed (the site vouches for the directory) */
	bool shared_checkpoint_dirs;
	/* ExpeditedRequeue: bases get Slurm's --requeue=expedite (25.11 and
	 * later, where slurmctld enables it) */
	bool expedited_requeue;

	/* ElasticdServer: where clients reach elasticd, a HOST:PORT every
	 * node resolves (never a wildcard); "" = unset.  server.h picks a
	 * client's address from it and ElasticdListen. */
	char elasticd_server[POLICY_LISTEN_MAX + 1];
	/* ElasticdUser: the user elasticd runs as, whose munge credential
	 * on an answer proves it is elasticd's; "" = root. */
	char elasticd_user[POLICY_NAME_MAX + 1];

	/* elasticd's own settings (elasticd(8)); other readers ignore them. */
	char elasticd_listen[POLICY_LISTEN_MAX + 1]; /* ElasticdListen */
	bool elasticd_listen_set; /* ElasticdListen is in the file */
	/* ElasticdPollInterval; 0 = not set: policy_poll_ms() */
	unsigned elasticd_poll_ms;
	struct policy_list elasticd_admins; /* ElasticdAdmins */
	/* ElasticdMungeSocket; "" = libmunge's default */
	char elasticd_munge_socket[POLICY_PATH_MAX + 1];
	/* ElasticdStateDir; "" = none */
	char elasticd_state_dir[POLICY_PATH_MAX + 1];
	/* ElasticdReleaseLaunchHolds: times per group elasticd releases a
	 * base that Slurm held after a failed launch */
	unsigned elasticd_release_holds;
	/* ElasticdResyncInterval: seconds between reads of the groups'
	 * owners' jobs (the groups' jobs by id between); 0 = the whole queue
	 * every poll */
	unsigned elasticd_resync_s;
	/* ElasticdQueueInterval: with ElasticdResyncInterval, seconds between
	 * reads of the whole queue; 0 = only at the start */
	unsigned elasticd_queue_s;
	/* ElasticdNotify: whether units tell elasticd when they start and
	 * when Slurm signals them, and whether elasticd listens */
	enum policy_notify elasticd_notify;
	/* ElasticdUnitProgram: what a unit runs to do so; "" = elastic-run
	 * where it was installed */
	char elasticd_unit_program[POLICY_PATH_MAX + 1];
	/* SuspectNodes, and SuspectDrainsPerHour: the most nodes drained in
	 * any hour, so that a bug or a network blip cannot drain the
	 * cluster (beyond it, suspects are reported only). */
	enum policy_suspect suspect_nodes;
	unsigned suspect_drains_per_hour;
	/* DefaultStragglers, StragglerSteps, StragglerFactor (hundredths):
	 * the launchers' straggler rule */
	enum policy_stragglers default_stragglers;
	unsigned straggler_steps;
	unsigned straggler_factor;
	/* SpareCheck, SpareCheckTimeout: what the launchers run on a spare's
	 * nodes (as the job's owner) before it may join a world, "" = none,
	 * and for how long at most */
	char spare_check[POLICY_PATH_MAX + 1];
	unsigned spare_check_timeout;
	/* AccountRetention (days; 0 = forever) and AccountMaxJobs: how long
	 * and how many of the groups' accounts elasticd keeps on disk
	 * (ElasticdStateDir/accounts) */
	unsigned account_retention_days;
	unsigned account_max_jobs;
};

/* ElasticdPollInterval's defaults: the poll is the safety net under
 * notifications (NOTIFIED), the only source of news without them. */
#define POLICY_DEFAULT_LISTEN	"127.0.0.1:6830"
#define POLICY_POLL_MS_MIN	100
#define POLICY_POLL_MS_MAX	60000
#define POLICY_POLL_MS_NOTIFIED 60000
#define POLICY_POLL_MS_DEFAULT	1000
#define POLICY_RESYNC_S_DEFAULT 60
#define POLICY_QUEUE_S_DEFAULT	3600
/* AccountRetention (days) and AccountMaxJobs. */
#define POLICY_ACCOUNT_RETENTION_DEFAULT 30
#define POLICY_ACCOUNT_RETENTION_MAX	 36500
#define POLICY_ACCOUNT_MAX_JOBS_DEFAULT	 10000
#define POLICY_ACCOUNT_MAX_JOBS_MAX	 1000000
#define POLICY_RELEASE_HOLDS_MAX	 10
#define POLICY_RELEASE_HOLDS_DEFAULT	 2
/* ElasticdListen and ElasticdServer are checked with hostport_parse()
 * (hostport.h). */

/* ElasticdPollInterval, or its default for whether units notify
 * elasticd (ElasticdNotify=yes, and their program is there). */
unsigned policy_poll_ms(const struct elastic_policy *p, bool notified);

/* The built-in policy, used when elastic.conf does not exist. */
void policy_defaults(struct elastic_policy *p);

/*
 * Parse a whole elastic.conf held in memory; name is used in messages
 * ("elastic.conf:3: ...").  On failure *p is left untouched and err says
 * file:line, the key and what is allowed.
 */
int policy_parse(struct elastic_policy *p, const char *text, const char *name,
		 elastic_error_t *err);

/*
 * As policy_parse, but on past an invalid line, so that a check lists
 * every fault at once (elasticd --check-config): each error's text, the
 * same as policy_parse's, is handed to each(arg, text) in the order of the
 * file.  The relations between keys are checked only when every line is
 * valid.  Returns the number of errors; *p is set, to what policy_parse
 * gives, only when there are none.
 */
typedef void (*policy_error_fn)(void *arg, const char *text);
unsigned policy_parse_all(struct elastic_policy *p, const char *text,
			  const char *name, policy_error_fn each, void *arg);

/*
 * Read and parse the file at path.  A missing file yields the defaults
 * and returns 0 (*found = false if found is not NULL); an unreadable or
 * invalid one fails.
 */
int policy_load(struct elastic_policy *p, const char *path, bool *found,
		elastic_error_t *err);

/* policy_load with policy_parse_all: a file that cannot be read is one
 * error. */
unsigned policy_load_all(struct elastic_policy *p, const char *path,
			 bool *found, policy_error_fn each, void *arg);

/*
 * Where elastic.conf is: beside slurm.conf (the path the caller knows it
 * by, may be NULL), else in Slurm's configuration directory.
 */
void policy_conf_path(const char *slurm_conf, char *buf, size_t len);

/*
 * spank_elastic.so's arguments in plugstack.conf: elastic_conf=PATH, the
 * elastic.conf slurmstepd reads (an absolute path; since Slurm 23.02
 * slurmstepd has no slurm.conf path to find it beside), and
 * on_error=fail-job|drain, what an error of the plugin in slurmstepd does
 * (*drain, if drain is not NULL: false unless "drain").  conf (len bytes)
 * is "" when not given.  0, or -1 with err naming the argument and what
 * is allowed.
 */
int policy_plugstack_args(int ac, char *const *av, char *conf, size_t len,
			  bool *drain, elastic_error_t *err);

/*
 * Does a checkpoint dir pattern name a place of the user's own: %u or %h
 * in it, or a component that is user (may be NULL) literally?  Without
 * one, another user could make a job's directory before the job does.
 */
bool policy_path_per_user(const char *path, const char *user);

/* Checks a checkpoint dir pattern: absolute or under %h, known escapes. */
int policy_check_path(const char *path, const char *what, elastic_error_t *err);

#endif
