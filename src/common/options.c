#include "config.h"

#include <stdio.h>
#include <string.h>

#include "options.h"
#include "parse.h"

/* Environment prefix Slurm gives our forwarded options: SPANK's option
 * prefix, then the SPANK plugin name "elastic". */
#define ENV_PREFIX    "_SLURM_SPANK_OPTION_elastic_"
#define MAX_VALUE_LEN 64

static const char *const names[ELASTIC_OPT_COUNT] = {
	[ELASTIC_OPT_MIN] = "elastic-min",
	[ELASTIC_OPT_MAX] = "elastic-max",
};

const char *options_name(enum elastic_opt_id id)
{
	return ((unsigned)id < ELASTIC_OPT_COUNT) ? names[id] : NULL;
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
		if (name_eq(name, names[i]))
			return i;
	return -1;
}

int options_set(struct elastic_opts *o, enum elastic_opt_id id,
		const char *value, elastic_error_t *err)
{
	unsigned long v;
	enum parse_result r;

	if (!options_name(id))
		return elastic_errorf(err, "unknown elastic option #%d", id);
	if (strlen(value) > MAX_VALUE_LEN)
		return elastic_errorf(err,
				      "--%s: value longer than %d characters",
				      names[id], MAX_VALUE_LEN);
	r = parse_uint(value, 1, ELASTIC_NODES_LIMIT, &v);
	if (r != PARSE_OK)
		return elastic_errorf(err,
				      "--%s=%s: %s (allowed: a node count "
				      "from 1 to %d)",
				      names[id], value, parse_strerror(r),
				      ELASTIC_NODES_LIMIT);
	switch (id) {
	case ELASTIC_OPT_MIN:
		o->min = v;
		break;
	case ELASTIC_OPT_MAX:
		o->max = v;
		break;
	case ELASTIC_OPT_COUNT:
		break;
	}
	return 0;
}

bool options_any(const struct elastic_opts *o)
{
	return o->min || o->max;
}

int options_check(const struct elastic_opts *o, elastic_error_t *err)
{
	if (o->min && o->max && o->min > o->max)
		return elastic_errorf(err,
				      "--elastic-min=%u is greater than "
				      "--elastic-max=%u (need --elastic-min "
				      "<= --elastic-max)",
				      o->min, o->max);
	return 0;
}

int options_finalize(struct elastic_opts *o, const struct elastic_policy *p,
		     elastic_error_t *err)
{
	struct elastic_opts r = *o;
	unsigned dmax =
	    p->default_max_nodes ? p->default_max_nodes : p->max_nodes;

	if (options_check(o, err) < 0)
		return -1;
	/* A default never contradicts what the user did give. */
	if (!r.min)
		r.min = (r.max && r.max < p->default_min_nodes)
			    ? r.max
			    : p->default_min_nodes;
	if (!r.max)
		r.max = (dmax < r.min) ? r.min : dmax;

	if (o->max && r.max > p->max_nodes)
		return elastic_errorf(err,
				      "--elastic-max=%u is above this site's "
				      "limit of %u nodes (MaxNodes in "
				      "elastic.conf)",
				      r.max, p->max_nodes);
	if (r.min > p->max_nodes)
		return elastic_errorf(err,
				      "--elastic-min=%u is above this site's "
				      "limit of %u nodes (MaxNodes in "
				      "elastic.conf)",
				      r.min, p->max_nodes);
	*o = r;
	return 0;
}

int options_from_env(struct elastic_opts *o, char *const *env, size_t n,
		     elastic_error_t *err)
{
	const size_t plen = strlen(ENV_PREFIX);

	for (size_t i = 0; i < n && env[i]; i++) {
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

int options_format_tag(const struct elastic_opts *o, char *buf, size_t len)
{
	return snprintf(buf, len, ELASTIC_TAG_PREFIX " min=%u max=%u", o->min,
			o->max);
}

int options_parse_tag(const char *tag, struct elastic_opts *o,
		      elastic_error_t *err)
{
	struct elastic_opts r = { 0 };
	char buf[256];
	char *save = NULL, *word;

	if (!tag || strncmp(tag, ELASTIC_TAG_PREFIX " ",
			    strlen(ELASTIC_TAG_PREFIX) + 1))
		return elastic_errorf(err, "not an elastic tag");
	if (strlen(tag) >= sizeof(buf))
		return elastic_errorf(err, "elastic tag too long");
	strcpy(buf, tag + strlen(ELASTIC_TAG_PREFIX) + 1);
	for (word = strtok_r(buf, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(word, '=');
		char opt[32];
		int id;

		if (!eq)
			return elastic_errorf(err, "elastic tag: bad word '%s'",
					      word);
		*eq = '\0';
		snprintf(opt, sizeof(opt), "elastic-%s", word);
		id = options_lookup(opt);
		/* Later releases may add keys within v1: skip them. */
		if (id < 0)
			continue;
		if (options_set(&r, id, eq + 1, err) < 0)
			return -1;
	}
	if (!r.min || !r.max || r.min > r.max)
		return elastic_errorf(err, "elastic tag: incomplete or "
					   "inconsistent sizes");
	*o = r;
	return 0;
}
