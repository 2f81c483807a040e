/* A group's account as JSON (elasticd-api(7)) and back from it, its
 * summary for the base's AdminComment, and which stored accounts to
 * remove.  Pure (account.h). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "account.h"

/* Decimals written as such (json-c's own doubles print 17 digits). */
static json_object *decimal(double x, int digits)
{
	char buf[48];
	size_t n;

	snprintf(buf, sizeof(buf), "%.*f", digits, x);
	n = strlen(buf);
	while (n > 2 && buf[n - 1] == '0' && buf[n - 2] != '.')
		buf[--n] = '\0';
	return json_object_new_double_s(x, buf);
}

/* Milliseconds as seconds, to the millisecond. */
static json_object *secs(uint64_t ms)
{
	return decimal((double)ms / 1000.0, 3);
}

static void add(json_object *o, const char *key, json_object *v, bool *ok)
{
	if (!v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		*ok = false;
	}
}

static void push(json_object *a, json_object *v, bool *ok)
{
	if (!v || json_object_array_add(a, v)) {
		json_object_put(v);
		*ok = false;
	}
}

static json_object *node_seconds(const struct account_report *r, bool *ok)
{
	json_object *o = json_object_new_object();

	if (!o) {
		*ok = false;
		return NULL;
	}
	add(o, "held", secs(r->held_nms), ok);
	for (unsigned c = 0; c < ACCTNAMES_NCAUSES; c++)
		add(o, acctnames_cause_name(c), secs(r->nms[c]), ok);
	return o;
}

static json_object *training_at(const struct account_report *r, bool *ok)
{
	json_object *o = json_object_new_object();
	char key[16];

	for (size_t i = 0; o && i < r->nat; i++) {
		snprintf(key, sizeof(key), "%u", r->at_world[i]);
		add(o, key, secs(r->at_nms[i]), ok);
	}
	if (!o)
		*ok = false;
	return o;
}

static json_object *series_json(const struct account *a, bool *ok)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && i < a->npoints; i++) {
		const struct account_point *p = &a->series[i];
		json_object *o = json_object_new_object();

		if (o) {
			add(o, "t", secs((uint64_t)p->t_ms), ok);
			add(o, "world", json_object_new_int64(p->world), ok);
			add(o, "held", json_object_new_int64(p->held), ok);
			add(o, "steps",
			    json_object_new_int64((int64_t)p->steps), ok);
			add(o, "phase",
			    json_object_new_string(
				acctnames_phase_name(p->phase)),
			    ok);
		}
		push(arr, o, ok);
	}
	if (!arr)
		*ok = false;
	return arr;
}

static json_object *events_json(const struct account *a, bool *ok)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; arr && i < a->nevents; i++) {
		const struct account_event *e = &a->events[i];
		json_object *o = json_object_new_object();

		if (o) {
			add(o, "t", secs((uint64_t)e->t_ms), ok);
			add(o, "kind",
			    json_object_new_string(
				acctnames_kind_name(e->kind)),
			    ok);
			if (e->end) {
				add(o, "path",
				    json_object_new_string(
					acctnames_path_name(e->path)),
				    ok);
				add(o, "seconds", secs(e->ms), ok);
				add(o, "seq",
				    json_object_new_int64((int64_t)e->seq), ok);
			}
		}
		push(arr, o, ok);
	}
	if (!arr)
		*ok = false;
	return arr;
}

char *account_render(const struct account *a, bool ended)
{
	const struct account_report *r = &a->last;
	json_object *o = json_object_new_object();
	bool ok = o != NULL;
	char *text = NULL;

	if (!o)
		return NULL;
	add(o, "id", json_object_new_int64(a->id), &ok);
	add(o, "user", json_object_new_string(a->user), &ok);
	add(o, "uid", json_object_new_int64(a->uid), &ok);
	add(o, "account", json_object_new_string(a->account), &ok);
	add(o, "partition", json_object_new_string(a->partition), &ok);
	add(o, "ended", json_object_new_boolean(ended), &ok);
	add(o, "start", secs(r->t_ms > r->wall_ms ? r->t_ms - r->wall_ms : 0),
	    &ok);
	add(o, "updated", secs(r->t_ms), &ok);
	add(o, "wall_seconds", secs(r->wall_ms), &ok);
	add(o, "train_wall_seconds", secs(r->train_wall_ms), &ok);
	add(o, "node_seconds", node_seconds(r, &ok), &ok);
	add(o, "training_at", training_at(r, &ok), &ok);
	add(o, "steps", json_object_new_int64((int64_t)r->steps), &ok);
	add(o, "redone", json_object_new_int64((int64_t)r->redone), &ok);
	add(o, "goodput", decimal(account_goodput(r), 4), &ok);
	add(o, "ettr", decimal(account_ettr(r), 4), &ok);
	add(o, "world", json_object_new_int64(r->world), &ok);
	add(o, "held", json_object_new_int64(r->held), &ok);
	add(o, "phase", json_object_new_string(acctnames_phase_name(r->phase)),
	    &ok);
	add(o, "series", series_json(a, &ok), &ok);
	add(o, "events", events_json(a, &ok), &ok);
	if (ok)
		text = strdup(json_object_to_json_string_ext(
		    o,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return text;
}

int account_summary(const struct account *a, char *buf, size_t len)
{
	const struct account_report *r = &a->last;

	return snprintf(buf, len, "goodput=%.3f ettr=%.3f held_s=%" PRIu64,
			account_goodput(r), account_ettr(r),
			(r->held_nms + 500) / 1000);
}
