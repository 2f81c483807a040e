#ifndef ELASTICCTL_CHECK_H
#define ELASTICCTL_CHECK_H

/*
 * elasticctl check: is this cluster ready for elastic jobs?  The
 * decisions are pure functions of a site, what Slurm, elastic.conf and
 * this host said (struct check_site, plain data), and give findings, each
 * one line with its fix.  check_read.c (Slurm) and check_probe.c (this
 * host) fill the site; check_cmd.c runs the command and prints.
 *
 * check.c: the findings, slurmctld, elastic.conf's names, job_submit,
 * the preemption signal; check_preempt.c: whether Slurm preempts the
 * units and gives them their grace; check_host.c: this host's
 * plugstack.conf, elasticd, clocks and munge.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/policy.h"

#define CHECK_SUBJECT_MAX 192
#define CHECK_TEXT_MAX	  512
#define CHECK_WHY_MAX	  320
/* A clock further than this from slurmctld's or elasticd's is a finding:
 * both are read in whole seconds. */
#define CHECK_CLOCK_MAX_SKEW 5
/* The plugin's lines kept from a plugstack.conf and its includes. */
#define CHECK_STACK_LINES 8
#define CHECK_ARGS_MAX	  1024
/* munge sockets tried: Slurm's and elasticd's clients'. */
#define CHECK_MUNGE_MAX 2
/* The plugin as plugstack.conf names it. */
#define CHECK_SPANK_SO "spank_elastic.so"

/* What each check looks at; a finding names its check. */
enum check_area {
	CHECK_SLURMCTLD,
	CHECK_ELASTIC_CONF,
	CHECK_PARTITIONS,
	CHECK_PREEMPTION,
	CHECK_GRACE,
	CHECK_SIGNAL,
	CHECK_JOB_SUBMIT,
	CHECK_PLUGSTACK,
	CHECK_ELASTICD,
	CHECK_CLOCK,
	CHECK_MUNGE,
	CHECK_NODE, /* the checks on a compute node (--node) */
	CHECK_NAREAS,
};
/* "partitions", "preemption", ...: for the output and back. */
const char *check_area_name(enum check_area a);
int check_area_parse(const char *name, enum check_area *ret);

/* One finding, printed "SUBJECT: PROBLEM; FIX". */
struct check_finding {
	enum check_area area;
	char node[POLICY_NAME_MAX + 1];	 /* "" here, else the compute node */
	char subject[CHECK_SUBJECT_MAX]; /* "PreemptiblePartitions=spot" */
	char problem[CHECK_TEXT_MAX];	 /* what is wrong, and what it does */
	char fix[CHECK_TEXT_MAX];	 /* what to change */
};

struct check_findings {
	struct check_finding *f; /* malloc'd: check_findings_free() */
	size_t n, cap;
	bool oom; /* findings were lost for memory: say so */
	/* The areas looked at (bit per enum check_area), and why the others
	 * were not ("" if all were). */
	unsigned ran;
	char skipped[CHECK_WHY_MAX];
};

void check_findings_free(struct check_findings *out);
/*
 * A new finding in area about the subject (printf format); NULL when out
 * of memory (out->oom set).  Its problem and fix are the caller's to
 * write (check_say()).
 */
struct check_finding *check_add(struct check_findings *out,
				enum check_area area, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A finding's problem and fix as they are (static texts). */
void check_text(struct check_finding *f, const char *problem, const char *fix);
/* src (NULL: "") into dst, cut to len bytes with the NUL. */
void check_copy(char *dst, size_t len, const char *src);
/* printf into buf (len bytes) as one line: control characters escaped. */
void check_say(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Slurm's preemption modes, as far as the decisions need them. */
enum check_mode {
	CHECK_MODE_INHERIT, /* none of its own: the cluster's PreemptMode */
	CHECK_MODE_OFF,
	CHECK_MODE_SUSPEND,
	CHECK_MODE_REQUEUE,
	CHECK_MODE_CANCEL,
};
const char *check_mode_name(enum check_mode m);

/* A partition, as slurm_load_partitions() gives it. */
struct check_partition {
	const char *name;
	enum check_mode mode; /* PreemptMode; INHERIT when not set */
	unsigned tier;	      /* PriorityTier */
	unsigned grace;	      /* GraceTime, seconds */
	/* Its nodes: pairs of first and last index into Slurm's node table,
	 * ended by -1 (partition_info_t.node_inx); NULL: none. */
	const int32_t *node_inx;
};

/* A QOS, as Slurm's database gives it. */
struct check_qos {
	const char *name;
	enum check_mode mode; /* PreemptMode; INHERIT when not set */
	unsigned grace;	      /* GraceTime, seconds */
	/* The QOS it may preempt (its Preempt), NULL-ended; NULL: none. */
	const char *const *preempts;
};

/*
 * slurm.conf as slurmctld runs it.  Strings and arrays belong to whoever
 * filled the struct (check_read.c: Slurm's answers, kept until freed).
 */
struct check_slurm {
	const char *error; /* slurmctld not asked: why; the rest is unset */
	const char *preempt_type;	/* PreemptType; NULL or "": none */
	enum check_mode mode;		/* PreemptMode, the cluster's */
	const char *slurmctld_params;	/* SlurmctldParameters; may be NULL */
	const char *preempt_params;	/* PreemptParameters; may be NULL */
	bool has_preempt_params;	/* this Slurm has it (23.02 on) */
	const char *job_submit_plugins; /* may be NULL */
	/* For this host's checks (check_probe.c): PlugStackConfig,
	 * PluginDir and AuthInfo; may be NULL. */
	const char *plugstack, *plugindir, *authinfo;
	const struct check_partition *parts;
	size_t nparts;
	/* Slurm's QOS, when they were read (qos_read); else qos_error says
	 * why (NULL: not needed, so not asked). */
	bool qos_read;
	const char *qos_error;
	const struct check_qos *qos;
	size_t nqos;
};

/* A line of plugstack.conf (or a file it includes) naming the plugin. */
struct check_spank_line {
	char file[POLICY_PATH_MAX + 1];
	unsigned line;
	bool required;			 /* else optional */
	char path[POLICY_PATH_MAX + 1];	 /* as written */
	char args[CHECK_ARGS_MAX];	 /* its arguments, as written */
	char found[POLICY_PATH_MAX + 1]; /* the file Slurm loads; "": none */
	/* Why the found file does not load ("" if it does), and the Slurm
	 * release it was built for (plugin_version; 0 unknown). */
	char load_error[CHECK_WHY_MAX];
	uint32_t version;
	bool conf_missing; /* its elastic_conf= names no file */
};

/* plugstack.conf as SPANK reads it here, includes followed. */
struct check_stack {
	char path[POLICY_PATH_MAX + 1]; /* PlugStackConfig */
	int error;			/* errno reading it; 0 read */
	struct check_spank_line line[CHECK_STACK_LINES];
	unsigned nlines;
};

/* What this host's request to elasticd came to. */
enum check_elasticd {
	CHECK_ED_OK,	     /* elasticd answered, proven elasticd's */
	CHECK_ED_NONE,	     /* no address configured */
	CHECK_ED_BAD_CONF,   /* the configured address is unusable: why */
	CHECK_ED_NO_ANSWER,  /* nothing answered: why */
	CHECK_ED_UNVERIFIED, /* something answered, not as elasticd */
	CHECK_ED_REFUSED,    /* elasticd refused the credential (401, 403) */
	CHECK_ED_NOT_READY,  /* 503 */
	CHECK_ED_MUNGE,	     /* no credential made: why */
	CHECK_ED_OTHER,	     /* another status */
};

/* A munge credential made and decoded on one socket. */
struct check_munge {
	char socket[POLICY_PATH_MAX + 1]; /* "": libmunge's default */
	const char *who;		  /* "Slurm", "ElasticdMungeSocket" */
	char error[CHECK_WHY_MAX];	  /* "" if the round trip worked */
};

/* SpareCheck's program on this host, and its directory. */
struct check_program {
	bool probed; /* SpareCheck set, looked at */
	int err;     /* stat's errno, 0 if found */
	bool regular;
	unsigned mode, dir_mode;
	uint32_t uid, dir_uid;
};

/* What this host found about itself. */
struct check_host {
	struct check_stack stack; /* read only when stack_read */
	bool stack_read;
	enum check_elasticd ed;
	long ed_status;
	char ed_server[POLICY_LISTEN_MAX + 1]; /* HOST:PORT */
	const char *ed_from;		       /* "ElasticdServer", ... */
	char ed_why[CHECK_WHY_MAX];
	/* Seconds the other host's clock is ahead of this one's (behind if
	 * negative), when measured. */
	bool ctld_clock, ed_clock;
	double ctld_skew, ed_skew;
	struct check_munge munge[CHECK_MUNGE_MAX];
	unsigned nmunge;
	struct check_program spare_check;
};

/* Everything the checks look at. */
struct check_site {
	bool local; /* this host's checks only (plugstack, elasticd, ...) */
	struct check_slurm slurm;
	/* elastic.conf as elasticd and the plugins read it: its path, and
	 * the policy or (NULL) why it is not valid. */
	const char *policy_path;
	const struct elastic_policy *policy;
	const char *policy_error;
	/* The Slurm release these tools run with (SLURM_VERSION_NUMBER),
	 * whether its slurmstepd knows slurm.conf's path (before 23.02),
	 * and the directory Slurm reads without one. */
	uint32_t slurm_version;
	bool stepd_knows_conf;
	const char *sysconfdir;
	struct check_host host;
};

/*
 * For the checks: true (and the area marked as looked at) when the
 * site has what area a needs, slurm.conf (check_need_slurm) and
 * elastic.conf too (check_need_policy); else false and out->skipped
 * says why, once.
 */
bool check_need_slurm(const struct check_site *s, struct check_findings *out,
		      enum check_area a);
bool check_need_policy(const struct check_site *s, struct check_findings *out,
		       enum check_area a);

/* Every check of the site (only this host's when local), into out. */
void check_site(const struct check_site *s, struct check_findings *out);

/* check.c: slurmctld, elastic.conf and its names, job_submit, signal. */
void check_slurmctld(const struct check_site *s, struct check_findings *out);
void check_policy(const struct check_site *s, struct check_findings *out);
void check_names(const struct check_site *s, struct check_findings *out);
void check_job_submit(const struct check_site *s, struct check_findings *out);
void check_signal(const struct check_site *s, struct check_findings *out);
/* The partition or QOS called name, or NULL. */
const struct check_partition *check_find_partition(const struct check_slurm *s,
						   const char *name);
const struct check_qos *check_find_qos(const struct check_slurm *s,
				       const char *name);

/* check_preempt.c */
void check_preemption(const struct check_site *s, struct check_findings *out);
void check_grace(const struct check_site *s, struct check_findings *out);

/* check_host.c */
void check_plugstack(const struct check_site *s, struct check_findings *out);
void check_elasticd(const struct check_site *s, struct check_findings *out);
void check_clock(const struct check_site *s, struct check_findings *out);
void check_munge(const struct check_site *s, struct check_findings *out);
void check_spare_check(const struct check_site *s, struct check_findings *out);

/*
 * One line of plugstack.conf as Slurm's SPANK reads it: '#' starts a
 * comment, then words split on blanks: "required" or "optional", a
 * plugin's path and its arguments, or "include" and a glob.
 */
enum check_stack_kind {
	CHECK_STACK_BLANK,
	CHECK_STACK_REQUIRED,
	CHECK_STACK_OPTIONAL,
	CHECK_STACK_INCLUDE,
	CHECK_STACK_INVALID, /* Slurm ignores the line, saying so */
};
/* path: the plugin or glob (len bytes); args: the rest, single-spaced
 * (args_len bytes); either is cut short at its size. */
enum check_stack_kind check_stack_line(const char *text, char *path, size_t len,
				       char *args, size_t args_len);
/* Does path name the plugin (its last component is CHECK_SPANK_SO)? */
bool check_stack_is_ours(const char *path);
/* The plugin's arguments (as check_stack_line() gives them), as it takes
 * them: its elastic_conf= in conf (len bytes; "" if none), or -1 with err
 * naming the argument. */
int check_stack_args(const char *args, char *conf, size_t len,
		     elastic_error_t *err);

#endif
