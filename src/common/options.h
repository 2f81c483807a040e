#ifndef ELASTIC_COMMON_OPTIONS_H
#define ELASTIC_COMMON_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "policy.h"
#include "sizeconf.h"

#define ELASTIC_MAX_SIZES   64	  /* entries of --elastic-sizes */
#define ELASTIC_MAX_SECONDS 86400 /* grace, scale delay, fault timeout */
#define ELASTIC_MAX_KEEP    1000
#define ELASTIC_MAX_SPARES  POLICY_SPARES_MAX /* --elastic-spares */
#define ELASTIC_PATH_MAX    1024
#define ELASTIC_RESUME_MAX  1024 /* --elastic-resume-from (ckpt.h) */
#define ELASTIC_EVAL_MAX    1024 /* --elastic-eval (ckpt_eval.h) */
/* The longest tag options_format_tag writes: 64 sizes, and three
 * %-encoded values (checkpoint dir, resume spec, eval command). */
#define ELASTIC_TAG_MAX 12288

enum elastic_opt_id {
	ELASTIC_OPT_MIN,
	ELASTIC_OPT_MAX,
	ELASTIC_OPT_STEP,
	ELASTIC_OPT_SIZES,
	ELASTIC_OPT_GRACE,
	ELASTIC_OPT_SCALE_DELAY,
	ELASTIC_OPT_FAULT_TIMEOUT,
	ELASTIC_OPT_ONDEMAND,
	ELASTIC_OPT_SIGNAL,
	ELASTIC_OPT_CHECKPOINT_DIR,
	ELASTIC_OPT_KEEP,
	ELASTIC_OPT_SIZE_CONFIG,
	ELASTIC_OPT_RESUME_FROM,
	ELASTIC_OPT_EVAL,
	ELASTIC_OPT_HEARTBEAT_TIMEOUT,
	ELASTIC_OPT_HANG_TIMEOUT,
	ELASTIC_OPT_STRAGGLERS,
	ELASTIC_OPT_SPARES,
	ELASTIC_OPT_COUNT,
};

/*
 * A job's elastic options: as the user gave them (bit (1 << id) set in
 * `given`), and after options_finalize() complete, with the policy's
 * defaults in what was omitted.  A plain value type: copy it freely.
 */
struct elastic_opts {
	unsigned given; /* bitmask of enum elastic_opt_id */
	unsigned min, max, step;
	unsigned nsizes;
	unsigned sizes[ELASTIC_MAX_SIZES];
	unsigned grace, scale_delay, fault_timeout;
	/* Seconds of silence from a node before the launcher takes it as
	 * lost; 0: no heartbeats. */
	unsigned heartbeat_timeout;
	/* Seconds without a rank's progress that are a hang; 0: derived
	 * from the step times. */
	unsigned hang_timeout;
	/* A node slower than the rest: reported, evicted, not watched. */
	enum policy_stragglers stragglers;
	enum elastic_ondemand ondemand;
	int signal;
	unsigned keep;
	/* Units the group keeps beyond its world, each of
	 * options_spare_nodes() nodes, to replace a member it loses. */
	unsigned spares;
	char checkpoint_dir[ELASTIC_PATH_MAX + 1];
	/* The file named by --elastic-size-config is read by the client;
	 * what travels is its canonical text (see sizeconf.h). */
	char size_config_path[ELASTIC_PATH_MAX + 1];
	/* --elastic-resume-from, syntax checked (ckpt_spec_parse); ""
	 * if not given.  Resolved at run time, as the user. */
	char resume_from[ELASTIC_RESUME_MAX + 1];
	/* --elastic-eval: a command line; "" if not given. */
	char eval_cmd[ELASTIC_EVAL_MAX + 1];
};

/* Option name without dashes, e.g. "elastic-min"; NULL if id is invalid. */
const char *options_name(enum elastic_opt_id id);

/* One line of what an option accepts, for --help and messages. */
const char *options_allowed(enum elastic_opt_id id);

/* Look an option up by name, with '-' or '_' ("elastic_min"); -1 if none. */
int options_lookup(const char *name);

/*
 * Parse one option's value strictly and mark it given.  On failure *o is
 * untouched and err names the option and what it accepts.
 */
int options_set(struct elastic_opts *o, enum elastic_opt_id id,
		const char *value, elastic_error_t *err);

static inline bool options_given(const struct elastic_opts *o,
				 enum elastic_opt_id id)
{
	return o->given & (1u << id);
}

/* True if any elastic option was given: the job is elastic. */
bool options_any(const struct elastic_opts *o);

/*
 * Relations between the options the user gave, with no site policy (what
 * a client can check before contacting slurmctld).  sc may be NULL.
 */
int options_check(const struct elastic_opts *o, const struct size_config *sc,
		  elastic_error_t *err);

/* Who submits: the policy can differ per user and account. */
struct elastic_submitter {
	const char *user;    /* may be NULL if unknown */
	const char *account; /* may be NULL: the user's default account */
};

/*
 * Fill omitted options from the policy's defaults, then check relations,
 * the site's caps and permissions.  On failure *o is untouched.  sc (may
 * be NULL) is the job's size config, whose sizes must be allowed sizes.
 */
int options_finalize(struct elastic_opts *o, const struct elastic_policy *p,
		     const struct elastic_submitter *who,
		     const struct size_config *sc, elastic_error_t *err);

/*
 * Only fill omitted options from the policy's defaults, checking nothing:
 * for places that must agree with slurmctld's result but do not judge it.
 */
void options_apply_defaults(struct elastic_opts *o,
			    const struct elastic_policy *p,
			    const struct elastic_submitter *who);

/* The node cap that applies to this submitter (user > account > site). */
unsigned options_node_cap(const struct elastic_policy *p,
			  const struct elastic_submitter *who,
			  const char **source);

/* May this submitter use on-demand capacity by OnDemandUsers and
 * OnDemandAccounts (both empty: anyone)? */
bool options_ondemand_listed(const struct elastic_policy *p,
			     const struct elastic_submitter *who);

/* Is n a size the job's world may take (min..max, on the step or list)? */
bool options_size_allowed(const struct elastic_opts *o, unsigned n);

/*
 * Read the options Slurm forwards to slurmctld in a job's spank_job_env
 * (entries "_SLURM_SPANK_OPTION_elastic_elastic_min=4").  Entries of other
 * plugins are ignored; an unknown option of ours is an error.
 */
int options_from_env(struct elastic_opts *o, char *const *env, size_t n,
		     elastic_error_t *err);

/* The nodes of a spare unit: the step, or with --elastic-sizes the last
 * increment (from the next-to-largest size to the largest); with a
 * single size, 1 (a base's lost node). */
unsigned options_spare_nodes(const struct elastic_opts *o);

/* Value of NAME in an env array of n entries ("NAME=value"), or NULL. */
const char *options_env_get(char *const *env, size_t n, const char *name);

/*
 * The tag stored in the job's AdminComment, which elasticd parses, e.g.
 * "elastic:v1 min=2 max=8 step=2 grace=60 delay=30 fault=60
 * ondemand=never signal=URG keep=3 resume=4711@200 eval=python3%20ev.py
 * ckpt=/home/a/ck/%j".  Later releases may append keys within v1, which
 * readers skip.  resume= and eval= are there only when given.  Their
 * values and the checkpoint dir (always last) are %-encoded (space, '%'
 * and control characters).  The tag fits ELASTIC_TAG_MAX.
 * options_format_tag returns the length it needed (snprintf-style);
 * options_parse_tag returns 0 or -1 and fills a finalized *o.
 */
#define ELASTIC_TAG_PREFIX "elastic:v1"
/* The tag ends here when elasticd noted the group's account after it
 * (AdminComment "TAG | goodput=... ettr=... held_s=..."); readers
 * ignore what follows. */
#define ELASTIC_TAG_END " | "
int options_format_tag(const struct elastic_opts *o, char *buf, size_t len);
int options_parse_tag(const char *tag, struct elastic_opts *o,
		      elastic_error_t *err);

/*
 * Expand a checkpoint dir pattern: %j job id, %u user, %h home, %% '%'.
 * Returns 0, or -1 if the result does not fit, a % sequence is unknown,
 * or what it stands for is NULL or empty (the owner's passwd entry could
 * not be read: fail closed, never "%h/x" as "/x").
 */
int options_expand_path(const char *pattern, const char *job_id,
			const char *user, const char *home, char *out,
			size_t len);

#endif
