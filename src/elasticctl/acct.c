/*
 * elasticd's account document read into a struct acct (acct.h), checked
 * field by field: the numbers finite and in range, the words of a known
 * shape (they end up in a gnuplot script).  Pure.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "acct.h"

/* The contract bounds node-milliseconds by 2^53: node-seconds by this. */
#define MAX_SECONDS 9007199254740.992
#define MAX_COUNT   1099511627776.0 /* 2^40: steps, sequence numbers */
/* Goodput and ETTR are fractions, but a first report's rounding (1000
 * node-ms of slack on a held of less) may take them past 1: shown as
 * they are. */
#define MAX_RATIO 1000.0

static json_object *acct_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/*
 * The number v, o's key (where: the path to o, for messages, "" or
 * "series[3]."), from 0 to max: 0; a missing one (NULL) is 0 unless
 * required; -1 with err when it is wrong or a required one is missing.
 */
static int acct_number(json_object *v, const char *where, const char *key,
		       bool required, double max, double *ret,
		       elastic_error_t *err)
{
	double d;

	*ret = 0;
	if (!v || json_object_is_type(v, json_type_null)) {
		if (!required)
			return 0;
		return elastic_errorf(err, "account: %s%s: missing", where,
				      key);
	}
	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return elastic_errorf(err, "account: %s%s: not a number", where,
				      key);
	d = json_object_get_double(v);
	if (!isfinite(d) || d < 0 || d > max)
		return elastic_errorf(err,
				      "account: %s%s: %g: not from 0 to %g",
				      where, key, d, max);
	*ret = d;
	return 0;
}

/* The number o[key], as acct_number(). */
static int acct_num(json_object *o, const char *where, const char *key,
		    bool required, double max, double *ret,
		    elastic_error_t *err)
{
	return acct_number(acct_get(o, key), where, key, required, max, ret,
			   err);
}

/* The same, a whole number. */
static int acct_count(json_object *o, const char *where, const char *key,
		      bool required, double max, uint64_t *ret,
		      elastic_error_t *err)
{
	double d;

	if (acct_num(o, where, key, required, max, &d, err))
		return -1;
	if (d != floor(d))
		return elastic_errorf(err,
				      "account: %s%s: %g: not a whole number",
				      where, key, d);
	*ret = (uint64_t)d;
	return 0;
}

static int acct_u32(json_object *o, const char *where, const char *key,
		    double max, uint32_t *ret, elastic_error_t *err)
{
	uint64_t v;

	if (acct_count(o, where, key, false, max, &v, err))
		return -1;
	*ret = (uint32_t)v;
	return 0;
}

/*
 * The string o[key] into buf (len bytes), "" if missing.  word: of
 * [a-z0-9_-] (kinds, paths, phases: they reach the gnuplot script); else
 * no control character (names, only printed).  0, or -1 with err.
 */
static int acct_str(json_object *o, const char *where, const char *key,
		    bool word, char *buf, size_t len, elastic_error_t *err)
{
	json_object *v = acct_get(o, key);
	const char *s;
	size_t n;

	buf[0] = '\0';
	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return elastic_errorf(err, "account: %s%s: not a string", where,
				      key);
	s = json_object_get_string(v);
	n = strlen(s);
	if (n >= len)
		return elastic_errorf(err, "account: %s%s: longer than %zu",
				      where, key, len - 1);
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool ok = word ? (c >= 'a' && c <= 'z') ||
				     (c >= '0' && c <= '9') || c == '_' ||
				     c == '-'
			       : (unsigned char)c >= ' ' && c != 127;

		if (!ok)
			return elastic_errorf(
			    err, "account: %s%s: \"%s\": not %s", where, key, s,
			    word ? "a word of a-z, 0-9, _ and -" : "a name");
	}
	memcpy(buf, s, n + 1);
	return 0;
}

/* node_seconds: held (required) and each cause. */
static int acct_read_causes(json_object *d, struct acct *a,
			    elastic_error_t *err)
{
	json_object *ns = acct_get(d, "node_seconds");

	if (!ns || !json_object_is_type(ns, json_type_object))
		return elastic_errorf(err, "account: node_seconds: %s",
				      ns ? "not an object" : "missing");
	if (acct_num(ns, "node_seconds.", "held", true, MAX_SECONDS, &a->held_s,
		     err))
		return -1;
	for (int c = 0; c < ACCTNAMES_NCAUSES; c++)
		if (acct_num(ns, "node_seconds.", acctnames_cause_name(c),
			     false, MAX_SECONDS, &a->cause_s[c], err))
			return -1;
	return 0;
}

static int acct_by_world(const void *x, const void *y)
{
	const struct acct_world_time *p = x, *q = y;

	return (p->world > q->world) - (p->world < q->world);
}

/* training_at: {"W": node-seconds, ...}, sorted by W. */
static int acct_read_at(json_object *d, struct acct *a, elastic_error_t *err)
{
	json_object *at = acct_get(d, "training_at");
	size_t n;

	if (!at || json_object_is_type(at, json_type_null))
		return 0;
	if (!json_object_is_type(at, json_type_object))
		return elastic_errorf(err, "account: training_at: not an "
					   "object");
	n = (size_t)json_object_object_length(at);
	if (n > 4096)
		return elastic_errorf(err, "account: training_at: more than "
					   "4096 sizes");
	a->at = n ? calloc(n, sizeof(*a->at)) : NULL;
	if (n && !a->at)
		return elastic_errorf(err, "out of memory");
	json_object_object_foreach(at, key, val)
	{
		struct acct_world_time *w = &a->at[a->nat];
		char *end;
		unsigned long v = strtoul(key, &end, 10);

		if (!key[0] || *end || key[0] < '0' || key[0] > '9' || v < 1 ||
		    v > ACCT_MAX_WORLDS)
			return elastic_errorf(err,
					      "account: training_at: "
					      "\"%s\": not a world size "
					      "(1 to %d)",
					      key, ACCT_MAX_WORLDS);
		if (acct_number(val, "training_at.", key, true, MAX_SECONDS,
				&w->node_s, err))
			return -1;
		w->world = (uint32_t)v;
		a->nat++;
	}
	qsort(a->at, a->nat, sizeof(*a->at), acct_by_world);
	return 0;
}

/* The array d[key] of at most max objects: its length, 0 if missing;
 * -1 with err. */
static long acct_array(json_object *d, const char *key, size_t max,
		       json_object **ret, elastic_error_t *err)
{
	json_object *v = acct_get(d, key);
	size_t n;

	*ret = NULL;
	if (!v || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return elastic_errorf(err, "account: %s: not an array", key);
	n = json_object_array_length(v);
	if (n > max)
		return elastic_errorf(err, "account: %s: more than %zu", key,
				      max);
	for (size_t i = 0; i < n; i++)
		if (!json_object_is_type(json_object_array_get_idx(v, i),
					 json_type_object))
			return elastic_errorf(err,
					      "account: %s[%zu]: not an "
					      "object",
					      key, i);
	*ret = v;
	return (long)n;
}

static int acct_read_point(json_object *o, const char *where,
			   struct acct_point *p, elastic_error_t *err)
{
	if (acct_num(o, where, "t", true, MAX_SECONDS, &p->t, err) ||
	    acct_u32(o, where, "world", ACCT_MAX_WORLDS, &p->world, err) ||
	    acct_u32(o, where, "held", ACCT_MAX_WORLDS, &p->held, err) ||
	    acct_count(o, where, "steps", false, MAX_COUNT, &p->steps, err))
		return -1;
	return acct_str(o, where, "phase", true, p->phase, sizeof(p->phase),
			err);
}

static int acct_read_event(json_object *o, const char *where,
			   struct acct_event *e, elastic_error_t *err)
{
	if (acct_num(o, where, "t", true, MAX_SECONDS, &e->t, err) ||
	    acct_str(o, where, "kind", true, e->kind, sizeof(e->kind), err) ||
	    acct_str(o, where, "path", true, e->path, sizeof(e->path), err) ||
	    acct_num(o, where, "seconds", false, MAX_SECONDS, &e->seconds,
		     err) ||
	    acct_count(o, where, "seq", false, MAX_COUNT, &e->seq, err))
		return -1;
	if (!e->kind[0])
		return elastic_errorf(err, "account: %skind: missing", where);
	return 0;
}

/* series and events. */
static int acct_read_lists(json_object *d, struct acct *a, elastic_error_t *err)
{
	json_object *s, *e;
	long ns = acct_array(d, "series", ACCT_MAX_SERIES, &s, err);
	long ne =
	    ns < 0 ? -1 : acct_array(d, "events", ACCT_MAX_EVENTS, &e, err);
	char where[48];

	if (ns < 0 || ne < 0)
		return -1;
	a->series = ns ? calloc((size_t)ns, sizeof(*a->series)) : NULL;
	a->events = ne ? calloc((size_t)ne, sizeof(*a->events)) : NULL;
	if ((ns && !a->series) || (ne && !a->events))
		return elastic_errorf(err, "out of memory");
	for (long i = 0; i < ns; i++, a->nseries++) {
		snprintf(where, sizeof(where), "series[%ld].", i);
		if (acct_read_point(json_object_array_get_idx(s, (size_t)i),
				    where, &a->series[i], err))
			return -1;
	}
	for (long i = 0; i < ne; i++, a->nevents++) {
		snprintf(where, sizeof(where), "events[%ld].", i);
		if (acct_read_event(json_object_array_get_idx(e, (size_t)i),
				    where, &a->events[i], err))
			return -1;
	}
	return 0;
}

/* The job: who, when, how long, the ratios and the state now. */
static int acct_read_job(json_object *d, struct acct *a, elastic_error_t *err)
{
	uint64_t id;
	json_object *ended = acct_get(d, "ended");

	if (acct_count(d, "", "id", true, UINT32_MAX, &id, err) ||
	    acct_str(d, "", "user", false, a->user, sizeof(a->user), err) ||
	    acct_str(d, "", "account", false, a->account, sizeof(a->account),
		     err) ||
	    acct_str(d, "", "partition", false, a->partition,
		     sizeof(a->partition), err) ||
	    acct_num(d, "", "start", false, MAX_SECONDS, &a->start, err) ||
	    acct_num(d, "", "updated", false, MAX_SECONDS, &a->updated, err) ||
	    acct_num(d, "", "wall_seconds", false, MAX_SECONDS, &a->wall_s,
		     err) ||
	    acct_num(d, "", "train_wall_seconds", false, MAX_SECONDS,
		     &a->train_wall_s, err) ||
	    acct_count(d, "", "steps", false, MAX_COUNT, &a->steps, err) ||
	    acct_count(d, "", "redone", false, MAX_COUNT, &a->redone, err) ||
	    acct_num(d, "", "goodput", false, MAX_RATIO, &a->goodput, err) ||
	    acct_num(d, "", "ettr", false, MAX_RATIO, &a->ettr, err) ||
	    acct_u32(d, "", "world", ACCT_MAX_WORLDS, &a->world, err) ||
	    acct_u32(d, "", "held", ACCT_MAX_WORLDS, &a->held, err) ||
	    acct_str(d, "", "phase", true, a->phase, sizeof(a->phase), err))
		return -1;
	if (!id)
		return elastic_errorf(err, "account: id: 0: not a job id");
	if (ended && !json_object_is_type(ended, json_type_boolean))
		return elastic_errorf(err, "account: ended: not true or false");
	a->id = (uint32_t)id;
	a->ended = ended && json_object_get_boolean(ended);
	return 0;
}

int acct_parse(const char *text, struct acct *a, elastic_error_t *err)
{
	enum json_tokener_error jerr;
	json_object *d = json_tokener_parse_verbose(text, &jerr);
	int rc;

	*a = (struct acct){ 0 };
	if (!d)
		return elastic_errorf(err, "account: not JSON (%s)",
				      json_tokener_error_desc(jerr));
	if (!json_object_is_type(d, json_type_object))
		rc = elastic_errorf(err, "account: not a JSON object");
	else
		rc = acct_read_job(d, a, err)	   ? -1
		     : acct_read_causes(d, a, err) ? -1
		     : acct_read_at(d, a, err)	   ? -1
						   : acct_read_lists(d, a, err);
	json_object_put(d);
	if (rc)
		acct_free(a);
	return rc;
}

void acct_free(struct acct *a)
{
	if (!a)
		return;
	free(a->at);
	free(a->series);
	free(a->events);
	*a = (struct acct){ 0 };
}

double acct_lost_s(const struct acct *a)
{
	double lost = 0;

	for (int c = 0; c < ACCTNAMES_NCAUSES; c++)
		if (c != ACCTNAMES_CAUSE_TRAINING)
			lost += a->cause_s[c];
	return lost;
}

bool acct_adds_up(const struct acct *a, double *off)
{
	double d =
	    a->held_s - a->cause_s[ACCTNAMES_CAUSE_TRAINING] - acct_lost_s(a);

	if (off)
		*off = d;
	return fabs(d) <= ACCT_SLACK_S;
}
