#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "api_render.h"

/*
 * JSON building: each helper records an allocation failure in *ok rather
 * than let json-c turn a missing value into a silent null.
 */
static json_object *obj(bool *ok)
{
	json_object *o = json_object_new_object();

	if (!o)
		*ok = false;
	return o;
}

static void put(json_object *o, const char *key, json_object *v, bool *ok)
{
	if (!o || !v || json_object_object_add(o, key, v)) {
		json_object_put(v);
		*ok = false;
	}
}

static void put_null(json_object *o, const char *key, bool *ok)
{
	if (!o || json_object_object_add(o, key, NULL))
		*ok = false;
}

static void put_int(json_object *o, const char *key, int64_t v, bool *ok)
{
	put(o, key, json_object_new_int64(v), ok);
}

/* A string that may be NULL (then JSON null), made valid UTF-8. */
static void put_str(json_object *o, const char *key, const char *s, bool *ok)
{
	char *u;

	if (!s)
		return put_null(o, key, ok);
	u = render_utf8(s);
	if (!u) {
		*ok = false;
		return;
	}
	put(o, key, json_object_new_string(u), ok);
	free(u);
}

static void push(json_object *a, json_object *v, bool *ok)
{
	if (!a || !v || json_object_array_add(a, v)) {
		json_object_put(v);
		*ok = false;
	}
}

/* The text of o (then freed), or NULL if anything failed on the way. */
static char *finish(json_object *o, bool ok)
{
	char *s = NULL;

	/* One line, as curl users and line-based tools expect. */
	if (ok && o) {
		const char *text = json_object_to_json_string_ext(
		    o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

		if (text && asprintf(&s, "%s\n", text) < 0)
			s = NULL;
	}
	json_object_put(o);
	return s;
}

static json_object *member_json(const struct member_info *m, bool *ok)
{
	json_object *o = obj(ok);

	put_int(o, "job_id", m->job_id, ok);
	put_str(o, "kind", member_kind_name(m->kind), ok);
	put_str(o, "state", member_state_name(m->state), ok);
	put_int(o, "nnodes", m->nnodes, ok);
	put_str(o, "nodes", m->nodes, ok);
	put(o, "in_world", json_object_new_boolean(m->in_world), ok);
	put(o, "spare", json_object_new_boolean(m->spare), ok);
	return o;
}

/* Milliseconds as seconds; a negative value (none) as null. */
static void put_ms_as_s(json_object *o, const char *key, int64_t ms, bool *ok)
{
	if (ms >= 0)
		put(o, key, json_object_new_double((double)ms / 1000.0), ok);
	else
		put_null(o, key, ok);
}

static json_object *group_json(const struct group_info *g, bool *ok)
{
	json_object *o = obj(ok), *members = json_object_new_array();

	put_int(o, "id", g->base_job_id, ok);
	put_str(o, "user", g->user, ok);
	put_int(o, "uid", g->user_id, ok);
	put_str(o, "account", g->account, ok);
	put_str(o, "state", group_state_name(g->state), ok);
	put_int(o, "min", g->min, ok);
	put_int(o, "max", g->max, ok);
	put_int(o, "generation", (int64_t)g->generation, ok);
	put_int(o, "world_nodes", g->world_nodes, ok);
	put_int(o, "spares", g->spares, ok);
	put_str(o, "master_addr", g->master_addr, ok);
	put_int(o, "grace", g->grace, ok);
	put_ms_as_s(o, "last_exit_seconds", g->last_exit_ms, ok);
	put(o, "grace_warning", json_object_new_boolean(g->grace_warning), ok);
	put_int(o, "weight", g->weight, ok);
	put(o, "share", json_object_new_double(g->share), ok);
	put_ms_as_s(o, "growth_wait_seconds", g->growth_wait_ms, ok);
	put_str(o, "held",
		*growth_held_name(g->held) ? growth_held_name(g->held) : NULL,
		ok);
	put(o, "relay", json_object_new_boolean(g->relay), ok);
	for (size_t i = 0; i < g->nmembers; i++)
		push(members, member_json(&g->members[i], ok), ok);
	put(o, "members", members, ok);
	return o;
}

char *render_group(const struct group_info *g)
{
	bool ok = true;

	return finish(group_json(g, &ok), ok);
}

char *render_groups(const struct elasticd_view *v, const struct auth_caller *c)
{
	bool ok = true;
	json_object *o = obj(&ok), *groups = json_object_new_array();
	char when[RENDER_TIME_MAX];

	render_time(&v->published, when);
	put_str(o, "published", when, &ok);
	/* Ended groups are read one by one (their status, their events). */
	for (size_t i = 0; i < v->ngroups; i++)
		if (v->groups[i].state != GROUP_ENDED &&
		    auth_may_see(c, &v->groups[i]))
			push(groups, group_json(&v->groups[i], &ok), &ok);
	put(o, "groups", groups, &ok);
	return finish(o, ok);
}

char *render_events(const struct group_info *g)
{
	bool ok = true;
	json_object *o = obj(&ok), *events = json_object_new_array();
	char when[RENDER_TIME_MAX];

	put_int(o, "id", g->base_job_id, &ok);
	for (size_t i = 0; i < g->nevents; i++) {
		const struct event_info *e = &g->events[i];
		json_object *eo = obj(&ok);

		render_time(&e->time, when);
		put_str(eo, "time", when, &ok);
		put_str(eo, "cause", event_cause_name(e->cause), &ok);
		put_int(eo, "generation", (int64_t)e->generation, &ok);
		put_int(eo, "world_nodes", e->world_nodes, &ok);
		put_str(eo, "detail", e->detail, &ok);
		push(events, eo, &ok);
	}
	put(o, "events", events, &ok);
	return finish(o, ok);
}

/* {"id": ID, key: value} */
static char *render_accepted(uint32_t id, const char *key, const char *value)
{
	bool ok = true;
	json_object *o = obj(&ok);

	put_int(o, "id", id, &ok);
	put_str(o, key, value, &ok);
	return finish(o, ok);
}

char *render_raise(uint32_t id)
{
	return render_accepted(id, "raise", "queued");
}

char *render_report(uint32_t id)
{
	return render_accepted(id, "report", "queued");
}

char *render_account(uint32_t id)
{
	return render_accepted(id, "account", "kept");
}

char *render_suspect(uint32_t id, const char *node)
{
	return render_accepted(id, "suspect", node);
}

char *render_notify(uint32_t id, const char *event)
{
	return render_accepted(id, "notify", event);
}

char *render_error(int status, const char *message)
{
	bool ok = true;
	json_object *o = obj(&ok);

	put_str(o, "error", message, &ok);
	put_int(o, "status", status, &ok);
	return finish(o, ok);
}

/* Prometheus text: one family per call. */
static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The groups: how many, in which state, on how many nodes, what changed
 * their worlds. */
static void metrics_groups(FILE *f, const struct elasticd_view *v)
{
	static const enum group_state states[] = {
		GROUP_PENDING,	GROUP_STARTING,	  GROUP_RUNNING, GROUP_RESIZING,
		GROUP_DEGRADED, GROUP_COMPLETING, GROUP_ENDED,
	};
	const struct elasticd_metrics *m = &v->metrics;

	family(f, "elasticd_groups", "gauge", "Elastic groups elasticd keeps.");
	fprintf(f, "elasticd_groups %zu\n", v->ngroups);

	family(f, "elasticd_groups_by_state", "gauge",
	       "Elastic groups by state.");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		size_t n = 0;

		for (size_t j = 0; j < v->ngroups; j++)
			n += v->groups[j].state == states[i];
		fprintf(f, "elasticd_groups_by_state{state=\"%s\"} %zu\n",
			group_state_name(states[i]), n);
	}

	family(f, "elasticd_nodes", "gauge",
	       "Nodes held by the groups' jobs, by kind of job.");
	fprintf(f, "elasticd_nodes{kind=\"%s\"} %" PRIu64 "\n",
		member_kind_name(MEMBER_BASE), v->nodes_base);
	fprintf(f, "elasticd_nodes{kind=\"%s\"} %" PRIu64 "\n",
		member_kind_name(MEMBER_PREEMPTIBLE), v->nodes_preemptible);
	fprintf(f, "elasticd_nodes{kind=\"%s\"} %" PRIu64 "\n",
		member_kind_name(MEMBER_ONDEMAND), v->nodes_ondemand);

	family(f, "elasticd_resizes_total", "counter",
	       "Events that formed a new world, by cause.");
	for (int c = CAUSE_START; c <= CAUSE_END; c++)
		fprintf(f, "elasticd_resizes_total{cause=\"%s\"} %" PRIu64 "\n",
			event_cause_name((enum event_cause)c), m->resizes[c]);

	family(f, "elasticd_resize_seconds_total", "counter",
	       "Time from raising an event to publishing the new world.");
	fprintf(f, "elasticd_resize_seconds_total %.6f\n",
		m->resize_seconds_sum);

	family(f, "elasticd_spare_nodes", "gauge",
	       "Nodes of the preemptible units kept as spares beside worlds.");
	fprintf(f, "elasticd_spare_nodes %" PRIu64 "\n", v->nodes_spare);
	family(f, "elasticd_swaps_total", "counter",
	       "Members lost and replaced at once by a spare, at the same "
	       "size.");
	fprintf(f, "elasticd_swaps_total %" PRIu64 "\n", m->swaps);
}

/* A user name as a label's value: the characters of a name or '?'. */
static const char *label_user(const char *u)
{
	if (!u || !*u ||
	    strspn(u, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-@") != strlen(u))
		return "?";
	return u;
}

/* Each live group's part of the groups' nodes, its weight and how long
 * it has waited to grow (elasticd(8), Sharing): who is held back. */
static void metrics_shares(FILE *f, const struct elasticd_view *v)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
		{ "elasticd_group_world_nodes", "Nodes in the group's world." },
		{ "elasticd_group_share",
		  "The group's part of the nodes in all groups' worlds." },
		{ "elasticd_group_weight",
		  "The group's weight (AccountShareWeights, "
		  "QOSShareWeights)." },
		{ "elasticd_group_growth_wait_seconds",
		  "How long the group has waited below its target with a unit "
		  "pending (0: it does not wait)." },
	};

	static const enum growth_held held[] = {
		HELD_NODES, HELD_CAP, HELD_TIME, HELD_BACKOFF, HELD_PARTITION,
	};

	family(f, "elasticd_groups_held_back", "gauge",
	       "Running groups below their max, by what holds them: nodes "
	       "(units pending, no idle node yet), cap, time, backoff, "
	       "partition.");
	for (size_t h = 0; h < sizeof(held) / sizeof(held[0]); h++) {
		size_t n = 0;

		for (size_t i = 0; i < v->ngroups; i++)
			n += v->groups[i].held == held[h];
		fprintf(f, "elasticd_groups_held_back{reason=\"%s\"} %zu\n",
			growth_held_name(held[h]), n);
	}
	for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
		family(f, fam[k].name, "gauge", fam[k].help);
		for (size_t i = 0; i < v->ngroups; i++) {
			const struct group_info *g = &v->groups[i];
			double x = k == 0   ? g->world_nodes
				   : k == 1 ? g->share
				   : k == 2 ? g->weight
				   : g->growth_wait_ms > 0
				       ? (double)g->growth_wait_ms / 1000.0
				       : 0;

			if (g->state == GROUP_ENDED)
				continue;
			fprintf(f, "%s{group=\"%u\",user=\"%s\"} %.*f\n",
				fam[k].name, g->base_job_id,
				label_user(g->user), k == 1 ? 6 : 3, x);
		}
	}
}

/* elasticd's own cycles, and what it was told and did between them. */
static void metrics_cycles(FILE *f, const struct elasticd_metrics *m)
{
	static const char *const faults[] = SUSPECT_FAULT_NAMES;

	family(f, "elasticd_reconcile_seconds", "summary",
	       "Duration of the reconcile cycles' decision passes.");
	fprintf(f, "elasticd_reconcile_seconds_sum %.6f\n",
		m->reconcile_seconds_sum);
	fprintf(f, "elasticd_reconcile_seconds_count %" PRIu64 "\n", m->cycles);

	family(f, "elasticd_reconcile_last_seconds", "gauge",
	       "Duration of the last reconcile cycle's decision pass.");
	fprintf(f, "elasticd_reconcile_last_seconds %.6f\n",
		m->reconcile_seconds_last);

	family(f, "elasticd_reconcile_cycles_total", "counter",
	       "Reconcile cycles run.");
	fprintf(f, "elasticd_reconcile_cycles_total %" PRIu64 "\n", m->cycles);

	family(f, "elasticd_notifications_total", "counter",
	       "Notifications from units, by what was done with them.");
	fprintf(f,
		"elasticd_notifications_total{action=\"read\"} %" PRIu64 "\n",
		m->notified);
	fprintf(
	    f, "elasticd_notifications_total{action=\"dropped\"} %" PRIu64 "\n",
	    m->notify_dropped);

	family(f, "elasticd_notified_cycles_total", "counter",
	       "Cycles that read only the jobs notified.");
	fprintf(f, "elasticd_notified_cycles_total %" PRIu64 "\n",
		m->light_cycles);

	family(f, "elasticd_unit_starts_told_total", "counter",
	       "Units taken as started on slurmstepd's word (as root), "
	       "before a read of Slurm.");
	fprintf(f, "elasticd_unit_starts_told_total %" PRIu64 "\n",
		m->starts_told);

	family(f, "elasticd_suspect_nodes_total", "counter",
	       "Nodes the groups' launchers found lost, hung, straggling or "
	       "failing a spare's check, by fault and what elasticd did "
	       "(SuspectNodes).");
	for (size_t i = 0; i < SUSPECT_FAULTS; i++)
		for (size_t a = 0; a < 2; a++)
			fprintf(f,
				"elasticd_suspect_nodes_total{fault=\"%s\","
				"action=\"%s\"} %" PRIu64 "\n",
				faults[i], a ? "reported" : "drained",
				m->suspects[i][a]);
}

/* What elasticd asked of Slurm, and when it started and last published. */
static void metrics_slurm(FILE *f, const struct elasticd_view *v)
{
	const struct elasticd_metrics *m = &v->metrics;

	family(f, "elasticd_slurm_rpcs_total", "counter",
	       "RPCs sent to slurmctld.");
	fprintf(f, "elasticd_slurm_rpcs_total %" PRIu64 "\n", m->slurm_rpcs);

	family(f, "elasticd_slurm_rpcs_last_cycle", "gauge",
	       "RPCs sent to slurmctld in the last reconcile cycle.");
	fprintf(f, "elasticd_slurm_rpcs_last_cycle %" PRIu64 "\n",
		m->slurm_rpcs_last_cycle);

	family(f, "elasticd_units_submitted_total", "counter",
	       "Unit jobs submitted.");
	fprintf(f, "elasticd_units_submitted_total %" PRIu64 "\n",
		m->units_submitted);

	family(f, "elasticd_units_cancelled_total", "counter",
	       "Unit jobs cancelled.");
	fprintf(f, "elasticd_units_cancelled_total %" PRIu64 "\n",
		m->units_cancelled);

	family(f, "elasticd_start_time_seconds", "gauge",
	       "When elasticd started, in seconds since the Epoch.");
	fprintf(f, "elasticd_start_time_seconds %lld\n", (long long)m->started);

	family(f, "elasticd_last_publish_time_seconds", "gauge",
	       "When the last reconcile cycle ended, in seconds since the "
	       "Epoch.");
	fprintf(f, "elasticd_last_publish_time_seconds %lld.%03ld\n",
		(long long)v->published.tv_sec, v->published.tv_nsec / 1000000);
}

char *render_metrics(const struct elasticd_view *v)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	metrics_groups(f, v);
	metrics_shares(f, v);
	metrics_cycles(f, &v->metrics);
	metrics_slurm(f, v);
	if (ferror(f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

void render_time(const struct timespec *t, char buf[RENDER_TIME_MAX])
{
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t->tv_sec, &tm)) {
		snprintf(buf, RENDER_TIME_MAX, "1970-01-01T00:00:00.000Z");
		return;
	}
	n = strftime(buf, RENDER_TIME_MAX, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, RENDER_TIME_MAX - n, ".%03ldZ",
		 (t->tv_nsec >= 0 && t->tv_nsec < 1000000000)
		     ? t->tv_nsec / 1000000
		     : 0L);
}

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), 0 if none. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return (s[1] & 0xC0) == 0x80 ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		if (c == 0xE0)
			lo = 0xA0;
		if (c == 0xED)
			hi = 0x9F;
		return (s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80) ? 3
									   : 0;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		if (c == 0xF0)
			lo = 0x90;
		if (c == 0xF4)
			hi = 0x8F;
		return (s[1] >= lo && s[1] <= hi && (s[2] & 0xC0) == 0x80 &&
			(s[3] & 0xC0) == 0x80)
			   ? 4
			   : 0;
	}
	return 0;
}

char *render_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;

	if (!s)
		return NULL;
	out = malloc(strlen(s) * 3 + 1);
	if (!out)
		return NULL;
	o = out;
	while (*p) {
		size_t n = utf8_len(p);

		if (n) {
			memcpy(o, p, n);
			o += n;
			p += n;
		} else {
			memcpy(o, "\xEF\xBF\xBD", 3);
			o += 3;
			p++;
		}
	}
	*o = '\0';
	return out;
}
