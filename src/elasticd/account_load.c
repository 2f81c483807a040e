/* A group's account read back from what account_render wrote (a file
 * of ElasticdStateDir/accounts), and which of those files to remove.
 * Pure (account.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "account.h"

static json_object *member(json_object *o, const char *key)
{
	json_object *v = NULL;

	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* Seconds (to the ms) back to ms; 0 for a missing or bad value. */
static uint64_t ms_of(json_object *o, const char *key)
{
	double s = json_object_get_double(member(o, key));

	return s > 0 && s < (double)ACCOUNT_NMS_MAX / 1000.0
		   ? (uint64_t)(s * 1000.0 + 0.5)
		   : 0;
}

static uint64_t count_of(json_object *o, const char *key)
{
	int64_t v = json_object_get_int64(member(o, key));

	return v > 0 && (uint64_t)v <= ACCOUNT_COUNT_MAX ? (uint64_t)v : 0;
}

static const char *str_of(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	return json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : "";
}

static void load_report(json_object *o, struct account_report *r)
{
	json_object *ns = member(o, "node_seconds");
	json_object *at = member(o, "training_at");
	int phase = acctnames_phase_find(str_of(o, "phase"));

	r->t_ms = ms_of(o, "updated");
	r->wall_ms = ms_of(o, "wall_seconds");
	r->train_wall_ms = ms_of(o, "train_wall_seconds");
	r->held_nms = ms_of(ns, "held");
	for (unsigned c = 0; c < ACCTNAMES_NCAUSES; c++)
		r->nms[c] = ms_of(ns, acctnames_cause_name(c));
	if (json_object_is_type(at, json_type_object)) {
		json_object_object_foreach(at, key, val)
		{
			long w = strtol(key, NULL, 10);

			(void)val;
			if (r->nat == ACCOUNT_AT_MAX || w < 1 ||
			    w > ACCOUNT_WORLD_MAX)
				continue;
			r->at_world[r->nat] = (uint32_t)w;
			r->at_nms[r->nat++] = ms_of(at, key);
		}
	}
	r->steps = count_of(o, "steps");
	r->redone = count_of(o, "redone");
	r->world = (uint32_t)count_of(o, "world");
	r->held = (uint32_t)count_of(o, "held");
	r->phase =
	    phase >= 0 ? (enum acctnames_phase)phase : ACCTNAMES_PHASE_ENDED;
	r->event = -1;
}

static void load_series(json_object *arr, struct account *a)
{
	size_t n = json_object_is_type(arr, json_type_array)
		       ? json_object_array_length(arr)
		       : 0;

	if (n > ACCOUNT_SERIES_MAX)
		n = ACCOUNT_SERIES_MAX;
	a->series = n ? calloc(n, sizeof(*a->series)) : NULL;
	a->cap = a->series ? n : 0;
	for (size_t i = 0; i < a->cap; i++) {
		json_object *p = json_object_array_get_idx(arr, i);
		struct account_point *q = &a->series[a->npoints++];
		int phase = acctnames_phase_find(str_of(p, "phase"));

		q->t_ms = (int64_t)ms_of(p, "t");
		q->world = (uint32_t)count_of(p, "world");
		q->held = (uint32_t)count_of(p, "held");
		q->steps = count_of(p, "steps");
		q->phase = phase >= 0 ? (enum acctnames_phase)phase
				      : ACCTNAMES_PHASE_ENDED;
	}
}

static void load_events(json_object *arr, struct account *a)
{
	size_t n = json_object_is_type(arr, json_type_array)
		       ? json_object_array_length(arr)
		       : 0;

	for (size_t i = n > ACCOUNT_EVENTS_MAX ? n - ACCOUNT_EVENTS_MAX : 0;
	     i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		struct account_event *q = &a->events[a->nevents];
		int kind = acctnames_kind_find(str_of(e, "kind"));
		int path = acctnames_path_find(str_of(e, "path"));

		if (kind < 0)
			continue;
		q->t_ms = (int64_t)ms_of(e, "t");
		q->kind = (enum acctnames_kind)kind;
		q->end = path >= 0;
		q->path = path >= 0 ? (enum acctnames_path)path
				    : ACCTNAMES_PATH_RESTART;
		q->ms = q->end ? ms_of(e, "seconds") : 0;
		q->seq = q->end ? count_of(e, "seq") : 0;
		a->nevents++;
	}
}

struct account *account_parse(const char *text, elastic_error_t *err)
{
	json_object *o = json_tokener_parse(text);
	int64_t id = json_object_get_int64(member(o, "id"));
	int64_t uid = json_object_get_int64(member(o, "uid"));
	struct account *a = NULL;

	if (!json_object_is_type(o, json_type_object) || id < 1 ||
	    id > UINT32_MAX || !member(o, "uid") || uid < 0 ||
	    uid > UINT32_MAX || !member(o, "node_seconds")) {
		elastic_errorf(err, "not an account (id, uid and node_seconds "
				    "are required)");
		goto out;
	}
	a = account_create((uint32_t)id, (uint32_t)uid, str_of(o, "user"),
			   str_of(o, "account"), str_of(o, "partition"));
	if (!a) {
		elastic_errorf(err, "out of memory");
		goto out;
	}
	load_report(o, &a->last);
	a->reported = true;
	load_series(member(o, "series"), a);
	load_events(member(o, "events"), a);
out:
	json_object_put(o);
	return a;
}

struct by_time {
	time_t t;
	size_t i;
};

static int newest_first(const void *x, const void *y)
{
	const struct by_time *a = x, *b = y;

	return a->t > b->t ? -1 : a->t < b->t ? 1 : 0;
}

size_t account_purge_select(const time_t *mtime, size_t n, time_t now,
			    unsigned days, unsigned max_jobs, bool *remove)
{
	struct by_time *order = n ? calloc(n, sizeof(*order)) : NULL;
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		remove[i] = days && now - mtime[i] > (time_t)days * 86400;
		if (order)
			order[i] = (struct by_time){ mtime[i], i };
	}
	if (order) {
		qsort(order, n, sizeof(*order), newest_first);
		for (size_t k = max_jobs; k < n; k++)
			remove[order[k].i] = true;
		free(order);
	}
	for (size_t i = 0; i < n; i++)
		count += remove[i];
	return count;
}
