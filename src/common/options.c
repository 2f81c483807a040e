#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "ckpt.h"
#include "ckpt_eval.h"
#include "options.h"
#include "parse.h"

/* Environment prefix Slurm gives our forwarded options: SPANK's option
 * prefix, then the SPANK plugin name "elastic". */
#define ENV_PREFIX    "_SLURM_SPANK_OPTION_elastic_"
#define MAX_VALUE_LEN ELASTIC_PATH_MAX /* what the path fields hold */

static const struct {
	const char *name;
	const char *allowed;
} table[ELASTIC_OPT_COUNT] = {
	[ELASTIC_OPT_MIN] = { "elastic-min", "a node count from 1 to 65535" },
	[ELASTIC_OPT_MAX] = { "elastic-max", "a node count from 1 to 65535" },
	[ELASTIC_OPT_STEP] = { "elastic-step", "a node count from 1 to 65535" },
	[ELASTIC_OPT_SIZES] = { "elastic-sizes",
				"strictly increasing node counts, e.g. 1,2,4" },
	[ELASTIC_OPT_GRACE] = { "elastic-grace", "seconds, 0 to 86400" },
	[ELASTIC_OPT_SCALE_DELAY] = { "elastic-scale-delay",
				      "seconds, 0 to 86400" },
	[ELASTIC_OPT_FAULT_TIMEOUT] = { "elastic-fault-timeout",
					"seconds, 0 to 86400" },
	[ELASTIC_OPT_ONDEMAND] = { "elastic-ondemand", ELASTIC_ONDEMAND_WORDS },
	[ELASTIC_OPT_SIGNAL] = { "elastic-signal", PARSE_SIGNALS },
	[ELASTIC_OPT_CHECKPOINT_DIR] = { "elastic-checkpoint-dir",
					 "an absolute path; %j %u %h expand" },
	[ELASTIC_OPT_KEEP] = { "elastic-keep", "a count from 1 to 1000" },
	[ELASTIC_OPT_SIZE_CONFIG] = { "elastic-size-config",
				      "a readable file of per-size settings" },
	[ELASTIC_OPT_RESUME_FROM] = { "elastic-resume-from", CKPT_SPEC_WORDS },
	[ELASTIC_OPT_EVAL] = { "elastic-eval",
			       "a command line of up to 1024 characters" },
	[ELASTIC_OPT_HEARTBEAT_TIMEOUT] = { "elastic-heartbeat-timeout",
					    "seconds, 2 to 3600, or 0 for "
					    "none" },
	[ELASTIC_OPT_HANG_TIMEOUT] = { "elastic-hang-timeout",
				       "seconds, 10 to 86400, or 0 for ten "
				       "median steps (at least 60)" },
	[ELASTIC_OPT_STRAGGLERS] = { "elastic-stragglers",
				     "report, evict or off" },
	[ELASTIC_OPT_SPARES] = { "elastic-spares",
				 "a count of units from 0 to 64" },
};

const char *options_name(enum elastic_opt_id id)
{
	return ((unsigned)id < ELASTIC_OPT_COUNT) ? table[id].name : NULL;
}

const char *options_allowed(enum elastic_opt_id id)
{
	return ((unsigned)id < ELASTIC_OPT_COUNT) ? table[id].allowed : NULL;
}

/* Compare treating '-' and '_' alike, as Slurm does for env names. */
static bool name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = (*a == '_') ? '-' : *a;
		char y = (*b == '_') ? '-' : *b;
		if (x != y)
			return false;
	}
	return !*a && !*b;
}

int options_lookup(const char *name)
{
	for (int i = 0; i < ELASTIC_OPT_COUNT; i++)
		if (name_eq(name, table[i].name))
			return i;
	return -1;
}

static int bad(elastic_error_t *err, enum elastic_opt_id id, const char *value,
	       const char *why)
{
	return elastic_errorf(err, "--%s=%s: %s (allowed: %s)", table[id].name,
			      value, why, table[id].allowed);
}

static int set_uint(unsigned *field, enum elastic_opt_id id, const char *value,
		    unsigned long lo, unsigned long hi, elastic_error_t *err)
{
	unsigned long v;
	enum parse_result r = parse_uint(value, lo, hi, &v);

	if (r != PARSE_OK)
		return bad(err, id, value, parse_strerror(r));
	*field = v;
	return 0;
}

/* 0 turns heartbeats off; a timeout shorter than the minimum would take
 * a loaded node for a lost one. */
static int set_heartbeat(struct elastic_opts *o, const char *value,
			 elastic_error_t *err)
{
	enum elastic_opt_id id = ELASTIC_OPT_HEARTBEAT_TIMEOUT;
	unsigned v;

	if (set_uint(&v, id, value, 0, POLICY_HEARTBEAT_MAX, err) < 0)
		return -1;
	if (v && v < POLICY_HEARTBEAT_MIN)
		return bad(err, id, value, "too short");
	o->heartbeat_timeout = v;
	return 0;
}

/* 0 derives it; under 10 s a step's jitter would be a hang. */
static int set_hang(struct elastic_opts *o, const char *value,
		    elastic_error_t *err)
{
	enum elastic_opt_id id = ELASTIC_OPT_HANG_TIMEOUT;
	unsigned v;

	if (set_uint(&v, id, value, 0, ELASTIC_MAX_SECONDS, err) < 0)
		return -1;
	if (v && v < 10)
		return bad(err, id, value, "too short");
	o->hang_timeout = v;
	return 0;
}

static int set_sizes(struct elastic_opts *o, const char *value,
		     elastic_error_t *err)
{
	/* Zeroed: all of it is copied, past the last size too. */
	unsigned sizes[ELASTIC_MAX_SIZES] = { 0 }, n = 0;
	const char *p = value;

	if (!*value)
		return bad(err, ELASTIC_OPT_SIZES, value, "empty value");
	for (;;) {
		char item[16];
		size_t len = strcspn(p, ",");
		unsigned long v;
		enum parse_result r;

		if (n == ELASTIC_MAX_SIZES)
			return bad(err, ELASTIC_OPT_SIZES, value,
				   "more than 64 sizes");
		if (len >= sizeof(item))
			return bad(err, ELASTIC_OPT_SIZES, value,
				   "out of range");
		memcpy(item, p, len);
		item[len] = '\0';
		r = parse_uint(item, 1, ELASTIC_NODES_LIMIT, &v);
		if (r != PARSE_OK)
			return bad(err, ELASTIC_OPT_SIZES, value,
				   r == PARSE_EMPTY ? "empty entry"
						    : parse_strerror(r));
		if (n && v <= sizes[n - 1])
			return bad(err, ELASTIC_OPT_SIZES, value,
				   "not strictly increasing");
		sizes[n++] = v;
		if (!p[len])
			break;
		p += len + 1;
	}
	memcpy(o->sizes, sizes, sizeof(sizes));
	o->nsizes = n;
	return 0;
}

int options_set(struct elastic_opts *o, enum elastic_opt_id id,
		const char *value, elastic_error_t *err)
{
	int rc = 0;
	enum parse_result r;

	if (!options_name(id))
		return elastic_errorf(err, "unknown elastic option #%d", id);
	if (strlen(value) > MAX_VALUE_LEN)
		return elastic_errorf(err,
				      "--%s: value longer than %d characters",
				      table[id].name, MAX_VALUE_LEN);
	switch (id) {
	case ELASTIC_OPT_MIN:
		rc = set_uint(&o->min, id, value, 1, ELASTIC_NODES_LIMIT, err);
		break;
	case ELASTIC_OPT_MAX:
		rc = set_uint(&o->max, id, value, 1, ELASTIC_NODES_LIMIT, err);
		break;
	case ELASTIC_OPT_STEP:
		rc = set_uint(&o->step, id, value, 1, ELASTIC_NODES_LIMIT, err);
		break;
	case ELASTIC_OPT_SIZES:
		rc = set_sizes(o, value, err);
		break;
	case ELASTIC_OPT_GRACE:
		rc =
		    set_uint(&o->grace, id, value, 0, ELASTIC_MAX_SECONDS, err);
		break;
	case ELASTIC_OPT_SCALE_DELAY:
		rc = set_uint(&o->scale_delay, id, value, 0,
			      ELASTIC_MAX_SECONDS, err);
		break;
	case ELASTIC_OPT_FAULT_TIMEOUT:
		rc = set_uint(&o->fault_timeout, id, value, 0,
			      ELASTIC_MAX_SECONDS, err);
		break;
	case ELASTIC_OPT_HEARTBEAT_TIMEOUT:
		rc = set_heartbeat(o, value, err);
		break;
	case ELASTIC_OPT_SPARES:
		rc =
		    set_uint(&o->spares, id, value, 0, ELASTIC_MAX_SPARES, err);
		break;
	case ELASTIC_OPT_HANG_TIMEOUT:
		rc = set_hang(o, value, err);
		break;
	case ELASTIC_OPT_STRAGGLERS:
		if (policy_parse_stragglers(value, &o->stragglers) < 0)
			rc = bad(err, id, value,
				 *value ? "not valid" : "empty value");
		break;
	case ELASTIC_OPT_ONDEMAND:
		if (policy_parse_ondemand(value, &o->ondemand) < 0)
			rc = bad(err, id, value,
				 *value ? "not valid" : "empty value");
		break;
	case ELASTIC_OPT_SIGNAL:
		r = parse_signal(value, &o->signal);
		if (r != PARSE_OK)
			rc = bad(err, id, value, parse_strerror(r));
		break;
	case ELASTIC_OPT_CHECKPOINT_DIR: {
		char what[64];

		snprintf(what, sizeof(what), "--%s", table[id].name);
		if (policy_check_path(value, what, err) < 0)
			return -1;
		strcpy(o->checkpoint_dir, value);
		break;
	}
	case ELASTIC_OPT_KEEP:
		rc = set_uint(&o->keep, id, value, 1, ELASTIC_MAX_KEEP, err);
		break;
	case ELASTIC_OPT_SIZE_CONFIG:
		if (!*value)
			return bad(err, id, value, "empty value");
		strcpy(o->size_config_path, value);
		break;
	case ELASTIC_OPT_RESUME_FROM: {
		struct ckpt_spec spec;

		if (ckpt_spec_parse(value, &spec, err) < 0)
			return -1;
		strcpy(o->resume_from, value);
		break;
	}
	case ELASTIC_OPT_EVAL:
		if (ckpt_eval_check_cmd(value, err) < 0)
			return -1;
		strcpy(o->eval_cmd, value);
		break;
	case ELASTIC_OPT_COUNT:
		break;
	}
	if (rc == 0)
		o->given |= 1u << id;
	return rc;
}

bool options_any(const struct elastic_opts *o)
{
	return o->given != 0;
}

bool options_size_allowed(const struct elastic_opts *o, unsigned n)
{
	if (n < o->min || n > o->max)
		return false;
	if (o->nsizes) {
		for (unsigned i = 0; i < o->nsizes; i++)
			if (o->sizes[i] == n)
				return true;
		return false;
	}
	return o->step == 0 || (n - o->min) % o->step == 0;
}

/* Relations among the values in o, whatever their origin. */
static int check_relations(const struct elastic_opts *o,
			   const struct size_config *sc, elastic_error_t *err)
{
	if (options_given(o, ELASTIC_OPT_STEP) &&
	    options_given(o, ELASTIC_OPT_SIZES))
		return elastic_errorf(err, "--elastic-step and --elastic-sizes "
					   "cannot be used together");
	if (o->min && o->max && o->min > o->max)
		return elastic_errorf(err,
				      "--elastic-min=%u is greater than "
				      "--elastic-max=%u (need --elastic-min "
				      "<= --elastic-max)",
				      o->min, o->max);
	if (o->nsizes && ((o->min && o->sizes[0] < o->min) ||
			  (o->max && o->sizes[o->nsizes - 1] > o->max)))
		return elastic_errorf(err,
				      "--elastic-sizes: every size must be "
				      "within --elastic-min=%u and "
				      "--elastic-max=%u",
				      o->min, o->max);
	/* The base job holds --elastic-min nodes: the world's first size. */
	if (o->nsizes && o->min && o->sizes[0] != o->min)
		return elastic_errorf(err,
				      "--elastic-min=%u must be the smallest "
				      "of --elastic-sizes (%u): the job "
				      "starts at --elastic-min",
				      o->min, o->sizes[0]);
	if (sc && o->min && o->max) {
		for (unsigned i = 0; i < sc->n; i++) {
			unsigned s = sc->entry[i].size;

			char how[64] = "";

			if (!s || options_size_allowed(o, s))
				continue;
			if (o->nsizes)
				snprintf(how, sizeof(how),
					 ", in --elastic-sizes");
			else if (o->step > 1)
				snprintf(how, sizeof(how),
					 ", on --elastic-step=%u", o->step);
			return elastic_errorf(err,
					      "--elastic-size-config: size %u "
					      "is not a size this job can "
					      "take (between --elastic-min=%u "
					      "and --elastic-max=%u%s)",
					      s, o->min, o->max, how);
		}
	}
	return 0;
}

int options_check(const struct elastic_opts *o, const struct size_config *sc,
		  elastic_error_t *err)
{
	struct elastic_opts t = *o;

	/* Sizes bound min and max when those are omitted. */
	if (t.nsizes && !t.min)
		t.min = t.sizes[0];
	if (t.nsizes && !t.max)
		t.max = t.sizes[t.nsizes - 1];
	return check_relations(&t, (t.min && t.max) ? sc : NULL, err);
}

unsigned options_node_cap(const struct elastic_policy *p,
			  const struct elastic_submitter *who,
			  const char **source)
{
	unsigned cap;

	if (who && (cap = policy_caps_get(&p->user_caps, who->user))) {
		*source = "UserMaxNodes";
		return cap;
	}
	if (who && (cap = policy_caps_get(&p->account_caps, who->account))) {
		*source = "AccountMaxNodes";
		return cap;
	}
	*source = "MaxNodes";
	return p->max_nodes;
}

/* Is this submitter among those OnDemandUsers/OnDemandAccounts allow? */
bool options_ondemand_listed(const struct elastic_policy *p,
			     const struct elastic_submitter *who)
{
	if (!p->ondemand_users.n && !p->ondemand_accounts.n)
		return true;
	if (who && who->user && policy_list_has(&p->ondemand_users, who->user))
		return true;
	return who && who->account &&
	       policy_list_has(&p->ondemand_accounts, who->account);
}

static int check_ondemand(const struct elastic_opts *o,
			  const struct elastic_policy *p,
			  const struct elastic_submitter *who,
			  elastic_error_t *err)
{
	const char *mode = policy_ondemand_name(o->ondemand);

	if (o->ondemand == ELASTIC_ONDEMAND_NEVER)
		return 0;
	if (!p->ondemand_allowed)
		return elastic_errorf(err,
				      "--elastic-ondemand=%s: this site does "
				      "not allow on-demand fallback (OnDemand "
				      "in elastic.conf)",
				      mode);
	if (options_ondemand_listed(p, who))
		return 0;
	return elastic_errorf(err,
			      "--elastic-ondemand=%s: not allowed for user %s "
			      "account %s (OnDemandUsers, OnDemandAccounts in "
			      "elastic.conf)",
			      mode, (who && who->user) ? who->user : "?",
			      (who && who->account) ? who->account
						    : "(default)");
}

unsigned options_spare_nodes(const struct elastic_opts *o)
{
	if (!o->nsizes)
		return o->step ? o->step : 1;
	if (o->nsizes == 1)
		return 1;
	return o->sizes[o->nsizes - 1] - o->sizes[o->nsizes - 2];
}

/* The site's default, as many as fit the submitter's cap beside max. */
static unsigned default_spares(const struct elastic_opts *o,
			       const struct elastic_policy *p, unsigned cap)
{
	unsigned each = options_spare_nodes(o), n = p->default_spares;

	if (o->max >= cap)
		return 0;
	if (n > (cap - o->max) / each)
		n = (cap - o->max) / each;
	return n;
}

/* Spares within MaxSpares, and counted with max in the node cap. */
static int check_spares(const struct elastic_opts *r,
			const struct elastic_policy *p, unsigned cap,
			const char *cap_key, elastic_error_t *err)
{
	unsigned long held =
	    r->max + (unsigned long)r->spares * options_spare_nodes(r);

	if (r->spares > p->max_spares)
		return elastic_errorf(err,
				      "--elastic-spares=%u is above this "
				      "site's limit of %u (MaxSpares in "
				      "elastic.conf)",
				      r->spares, p->max_spares);
	if (held > cap)
		return elastic_errorf(err,
				      "--elastic-spares=%u: the spares' %lu "
				      "nodes beside --elastic-max=%u make "
				      "%lu, above this site's limit of %u "
				      "nodes (%s in elastic.conf)",
				      r->spares, held - r->max, r->max, held,
				      cap, cap_key);
	return 0;
}

void options_apply_defaults(struct elastic_opts *o,
			    const struct elastic_policy *p,
			    const struct elastic_submitter *who)
{
	const char *cap_key;
	unsigned cap = options_node_cap(p, who, &cap_key);
	/* Defaults stay within the submitter's cap, which may be below
	 * the MaxNodes that DefaultMinNodes and DefaultMaxNodes obey. */
	unsigned dmin = p->default_min_nodes < cap ? p->default_min_nodes : cap;
	unsigned dmax = (p->default_max_nodes && p->default_max_nodes < cap)
			    ? p->default_max_nodes
			    : cap;

	/* A default never contradicts what the user did give. */
	if (!o->min)
		o->min = o->nsizes		     ? o->sizes[0]
			 : (o->max && o->max < dmin) ? o->max
						     : dmin;
	if (!o->max)
		o->max = o->nsizes ? o->sizes[o->nsizes - 1]
				   : (dmax < o->min ? o->min : dmax);
	if (!o->nsizes && !options_given(o, ELASTIC_OPT_STEP))
		o->step = p->default_step;
	if (!options_given(o, ELASTIC_OPT_GRACE))
		o->grace = p->default_grace;
	if (!options_given(o, ELASTIC_OPT_SCALE_DELAY))
		o->scale_delay = p->default_scale_delay;
	if (!options_given(o, ELASTIC_OPT_FAULT_TIMEOUT))
		o->fault_timeout = p->default_fault_timeout;
	if (!options_given(o, ELASTIC_OPT_HEARTBEAT_TIMEOUT))
		o->heartbeat_timeout = p->default_heartbeat_timeout;
	if (!options_given(o, ELASTIC_OPT_STRAGGLERS))
		o->stragglers = p->default_stragglers;
	/* Not on-demand by default for whom the site does not allow it. */
	if (!options_given(o, ELASTIC_OPT_ONDEMAND))
		o->ondemand = options_ondemand_listed(p, who)
				  ? p->default_ondemand
				  : ELASTIC_ONDEMAND_NEVER;
	if (!options_given(o, ELASTIC_OPT_SIGNAL))
		o->signal = p->default_signal;
	if (!options_given(o, ELASTIC_OPT_KEEP))
		o->keep = p->default_keep;
	if (!options_given(o, ELASTIC_OPT_CHECKPOINT_DIR))
		strcpy(o->checkpoint_dir, p->default_checkpoint_dir);
	if (!options_given(o, ELASTIC_OPT_SPARES))
		o->spares = default_spares(o, p, cap);
}

int options_finalize(struct elastic_opts *o, const struct elastic_policy *p,
		     const struct elastic_submitter *who,
		     const struct size_config *sc, elastic_error_t *err)
{
	struct elastic_opts r = *o;
	const char *cap_key;
	unsigned cap = options_node_cap(p, who, &cap_key);

	if (options_check(o, sc, err) < 0)
		return -1;
	options_apply_defaults(&r, p, who);
	/* Defaults are within the cap: a given value is above it. */
	if (r.max > cap && !options_given(o, ELASTIC_OPT_MAX) && r.nsizes)
		return elastic_errorf(err,
				      "--elastic-sizes: size %u is above this "
				      "site's limit of %u nodes (%s in "
				      "elastic.conf)",
				      r.max, cap, cap_key);
	if (r.max > cap)
		return elastic_errorf(
		    err,
		    "--elastic-%s=%u is above this site's "
		    "limit of %u nodes (%s in elastic.conf)",
		    options_given(o, ELASTIC_OPT_MAX) ? "max" : "min",
		    options_given(o, ELASTIC_OPT_MAX) ? r.max : r.min, cap,
		    cap_key);
	if (check_relations(&r, sc, err) < 0)
		return -1;
	if (r.grace > p->max_grace)
		return elastic_errorf(err,
				      "--elastic-grace=%u is above this "
				      "site's limit of %u seconds (MaxGrace "
				      "in elastic.conf)",
				      r.grace, p->max_grace);
	if (r.heartbeat_timeout &&
	    r.heartbeat_timeout < p->min_heartbeat_timeout)
		return elastic_errorf(err,
				      "--elastic-heartbeat-timeout=%u is below "
				      "this site's floor of %u seconds "
				      "(MinHeartbeatTimeout in elastic.conf)",
				      r.heartbeat_timeout,
				      p->min_heartbeat_timeout);
	if (r.keep > p->max_keep)
		return elastic_errorf(err,
				      "--elastic-keep=%u is above this site's "
				      "limit of %u (MaxKeep in elastic.conf)",
				      r.keep, p->max_keep);
	if (check_ondemand(&r, p, who, err) < 0)
		return -1;
	if (check_spares(&r, p, cap, cap_key, err) < 0)
		return -1;
	if (!p->shared_checkpoint_dirs &&
	    !policy_path_per_user(r.checkpoint_dir, who ? who->user : NULL))
		return elastic_errorf(err,
				      "--elastic-checkpoint-dir=%s: no "
				      "per-user part, so another user could "
				      "make the job's directory first "
				      "(allowed: a path with %%u, %%h or "
				      "your user name; SharedCheckpointDirs="
				      "yes in elastic.conf allows any)",
				      r.checkpoint_dir);
	*o = r;
	return 0;
}

const char *options_env_get(char *const *env, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n && env && env[i]; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

int options_from_env(struct elastic_opts *o, char *const *env, size_t n,
		     elastic_error_t *err)
{
	const size_t plen = strlen(ENV_PREFIX);

	for (size_t i = 0; i < n && env && env[i]; i++) {
		char name[64];
		const char *e = env[i], *eq;
		size_t nlen;
		int id;

		if (strncmp(e, ENV_PREFIX, plen))
			continue;
		e += plen;
		eq = strchr(e, '=');
		if (!eq)
			continue;
		nlen = (size_t)(eq - e);
		if (nlen >= sizeof(name))
			return elastic_errorf(err, "unknown elastic option");
		memcpy(name, e, nlen);
		name[nlen] = '\0';
		id = options_lookup(name);
		if (id < 0)
			return elastic_errorf(err,
					      "unknown elastic option '%s' "
					      "(client and controller plugins "
					      "differ?)",
					      name);
		if (options_set(o, id, eq + 1, err) < 0)
			return -1;
	}
	return 0;
}

int options_expand_path(const char *pattern, const char *job_id,
			const char *user, const char *home, char *out,
			size_t len)
{
	size_t j = 0;

	for (const char *p = pattern; *p; p++) {
		const char *add;
		char one[2] = { *p, 0 };
		size_t n;

		if (*p != '%') {
			add = one;
		} else {
			switch (*++p) {
			case 'j':
				add = job_id;
				break;
			case 'u':
				add = user;
				break;
			case 'h':
				add = home;
				break;
			case '%':
				add = "%";
				break;
			default:
				return -1;
			}
		}
		/* Never "%h/x" as "/x": no owner, no path. */
		if (!add || !*add)
			return -1;
		n = strlen(add);
		if (j + n >= len)
			return -1;
		memcpy(out + j, add, n);
		j += n;
	}
	out[j] = '\0';
	return 0;
}
