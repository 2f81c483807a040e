#ifndef ELASTIC_COMMON_OPTIONS_H
#define ELASTIC_COMMON_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "policy.h"

/*
 * A job's elastic options as the user gave them (0 = not given), and after
 * options_finalize() as the job will run with them.  A plain value type.
 */
struct elastic_opts {
	unsigned min; /* --elastic-min */
	unsigned max; /* --elastic-max */
};

enum elastic_opt_id {
	ELASTIC_OPT_MIN,
	ELASTIC_OPT_MAX,
	ELASTIC_OPT_COUNT,
};

/* Option name without dashes, e.g. "elastic-min"; NULL if id is invalid. */
const char *options_name(enum elastic_opt_id id);

/* Look an option up by name, with '-' or '_' ("elastic_min"); -1 if none. */
int options_lookup(const char *name);

/* Parse one option's value (strict: digits only, bounded). */
int options_set(struct elastic_opts *o, enum elastic_opt_id id,
		const char *value, elastic_error_t *err);

/* True if any elastic option was given: the job is elastic. */
bool options_any(const struct elastic_opts *o);

/*
 * Relations the user's options must satisfy on their own, with no site
 * policy (what sbatch can check before contacting slurmctld).
 */
int options_check(const struct elastic_opts *o, elastic_error_t *err);

/*
 * Fill omitted options from the policy's defaults, then check relations and
 * the site's caps.  On failure *o is untouched.
 */
int options_finalize(struct elastic_opts *o, const struct elastic_policy *p,
		     elastic_error_t *err);

/*
 * Read the options Slurm forwards to slurmctld in a job's spank_job_env
 * (entries "_SLURM_SPANK_OPTION_elastic_elastic_min=4").  Entries of other
 * plugins are ignored; an unknown option of ours is an error.
 */
int options_from_env(struct elastic_opts *o, char *const *env, size_t n,
		     elastic_error_t *err);

/*
 * The tag stored in the job's AdminComment, which elasticd parses:
 * "elastic:v1 min=2 max=8".  Later releases may append keys within v1,
 * which readers skip.  options_format_tag returns the length it needed
 * (snprintf-style); options_parse_tag returns 0 or -1.
 */
#define ELASTIC_TAG_PREFIX "elastic:v1"
int options_format_tag(const struct elastic_opts *o, char *buf, size_t len);
int options_parse_tag(const char *tag, struct elastic_opts *o,
		      elastic_error_t *err);

#endif
