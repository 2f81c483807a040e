/*
 * Unit tests of elasticd's API, the bodies it renders from the synthetic
 * view (synthview.c): the JSON of groups and events as each caller sees
 * them, errors and raises, UTF-8 and times in JSON, the Prometheus metrics
 * and their exposition format, and view.c's names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "elasticd/api_render.h"
#include "elasticd/groupinfo.h"
#include "synthview.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* JSON */

static json_object *parse(char *s)
{
	json_object *o;

	assert_non_null(s);
	o = json_tokener_parse(s);
	if (!o)
		fail_msg("not JSON: %s", s);
	free(s);
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

static void is_str(json_object *o, const char *key, const char *want)
{
	json_object *v = get(o, key);

	if (!want) {
		if (v)
			fail_msg("\"%s\" is %s, want null", key,
				 json_object_to_json_string(v));
		return;
	}
	assert_true(json_object_is_type(v, json_type_string));
	assert_string_equal(json_object_get_string(v), want);
}

static void is_int(json_object *o, const char *key, int64_t want)
{
	json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_int));
	assert_int_equal(json_object_get_int64(v), want);
}

static void is_bool(json_object *o, const char *key, bool want)
{
	json_object *v = get(o, key);

	assert_true(json_object_is_type(v, json_type_boolean));
	assert_int_equal(json_object_get_boolean(v), want);
}

/* Exactly these keys, no others: the field names are the contract. */
static void has_keys(json_object *o, const char *const *keys, size_t n)
{
	size_t count = 0;

	assert_true(json_object_is_type(o, json_type_object));
	for (size_t i = 0; i < n; i++)
		(void)get(o, keys[i]);
	json_object_object_foreach(o, k, val)
	{
		(void)k;
		(void)val;
		count++;
	}
	assert_int_equal(count, n);
}

static const char *const group_keys[] = {
	"id",
	"user",
	"uid",
	"account",
	"state",
	"min",
	"max",
	"generation",
	"world_nodes",
	"spares",
	"master_addr",
	"grace",
	"last_exit_seconds",
	"grace_warning",
	"weight",
	"share",
	"growth_wait_seconds",
	"held",
	"relay",
	"members",
};
static const char *const member_keys[] = { "job_id", "kind",  "state",
					   "nnodes", "nodes", "in_world",
					   "spare" };
static const char *const event_keys[] = { "time", "cause", "generation",
					  "world_nodes", "detail" };

static void check_group100(json_object *g)
{
	json_object *m;

	has_keys(g, group_keys, N(group_keys));
	is_int(g, "id", 100);
	is_str(g, "user", "alice");
	is_int(g, "uid", ALICE);
	is_str(g, "account", "proj");
	is_str(g, "state", "RUNNING");
	is_int(g, "min", 2);
	is_int(g, "max", 8);
	is_int(g, "generation", 3);
	is_int(g, "grace", 20);
	assert_true(json_object_get_double(get(g, "last_exit_seconds")) ==
		    12.5);
	is_bool(g, "grace_warning", true);
	is_bool(g, "relay", true);
	is_int(g, "world_nodes", 6);
	is_int(g, "weight", 2);
	assert_true(json_object_get_double(get(g, "share")) == 0.75);
	assert_true(json_object_get_double(get(g, "growth_wait_seconds")) ==
		    4.5);
	is_str(g, "held", "nodes");
	is_int(g, "spares", 1);
	is_str(g, "master_addr", "n1");
	m = get(g, "members");
	assert_true(json_object_is_type(m, json_type_array));
	assert_int_equal(json_object_array_length(m), 4);
	for (size_t i = 0; i < 4; i++)
		has_keys(json_object_array_get_idx(m, i), member_keys,
			 N(member_keys));

	m = json_object_array_get_idx(get(g, "members"), 0);
	is_int(m, "job_id", 100);
	is_str(m, "kind", "base");
	is_str(m, "state", "running");
	is_int(m, "nnodes", 2);
	is_str(m, "nodes", "n[1-2]");
	is_bool(m, "in_world", true);

	m = json_object_array_get_idx(get(g, "members"), 2);
	is_int(m, "job_id", 102);
	is_str(m, "kind", "preemptible");
	is_str(m, "state", "pending");
	is_int(m, "nnodes", 2);
	is_str(m, "nodes", NULL);
	is_bool(m, "in_world", false);
	is_bool(m, "spare", false);

	m = json_object_array_get_idx(get(g, "members"), 3);
	is_str(m, "kind", "ondemand");
	is_str(m, "nodes", "n5,n6");
}

static void json_group(void **state)
{
	struct elasticd_view *v = make_view();
	json_object *g = parse(render_group(&v->groups[0]));

	check_group100(g);
	json_object_put(g);

	/* Unknown strings are null, not "" or missing. */
	g = parse(render_group(&v->groups[1]));
	has_keys(g, group_keys, N(group_keys));
	is_int(g, "id", 200);
	is_str(g, "user", NULL);
	is_int(g, "uid", BOB);
	is_str(g, "account", NULL);
	is_str(g, "state", "PENDING");
	is_int(g, "generation", 0);
	is_str(g, "master_addr", NULL);
	assert_true(
	    json_object_is_type(get(g, "last_exit_seconds"), json_type_null));
	is_bool(g, "grace_warning", false);
	assert_true(
	    json_object_is_type(get(g, "growth_wait_seconds"), json_type_null));
	is_str(g, "held", NULL);
	is_bool(g, "relay", false);
	assert_int_equal(json_object_array_length(get(g, "members")), 0);
	json_object_put(g);
	view_free(v);
}

static void json_groups_filtered(void **state)
{
	struct elasticd_view *v = make_view();
	json_object *d, *gs;

	d = parse(render_groups(v, &alice));
	is_str(d, "published", "2024-05-01T12:34:56.789Z");
	gs = get(d, "groups");
	assert_int_equal(json_object_array_length(gs), 1);
	check_group100(json_object_array_get_idx(gs, 0));
	json_object_put(d);

	d = parse(render_groups(v, &bob));
	gs = get(d, "groups");
	assert_int_equal(json_object_array_length(gs), 1);
	is_int(json_object_array_get_idx(gs, 0), "id", 200);
	json_object_put(d);

	d = parse(render_groups(v, &eve));
	assert_int_equal(json_object_array_length(get(d, "groups")), 0);
	json_object_put(d);

	d = parse(render_groups(v, &admin));
	gs = get(d, "groups");
	assert_int_equal(json_object_array_length(gs), 2);
	check_group100(json_object_array_get_idx(gs, 0));
	is_int(json_object_array_get_idx(gs, 1), "id", 200);
	json_object_put(d);
	view_free(v);
}

static void json_events(void **state)
{
	struct elasticd_view *v = make_view();
	json_object *d = parse(render_events(&v->groups[0])), *es, *e;

	is_int(d, "id", 100);
	es = get(d, "events");
	assert_int_equal(json_object_array_length(es), 3);
	for (size_t i = 0; i < 3; i++)
		has_keys(json_object_array_get_idx(es, i), event_keys,
			 N(event_keys));
	e = json_object_array_get_idx(es, 0);
	is_str(e, "time", "2024-05-01T12:33:20.005Z");
	is_str(e, "cause", "start");
	is_int(e, "generation", 1);
	is_int(e, "world_nodes", 2);
	is_str(e, "detail", "first world");
	e = json_object_array_get_idx(es, 1);
	/* Milliseconds are truncated, never rounded into the next second. */
	is_str(e, "time", "2024-05-01T12:34:10.999Z");
	is_str(e, "cause", "grow");
	is_str(e, "detail", "unit 101 started (n[3-4])");
	e = json_object_array_get_idx(es, 2);
	is_str(e, "cause", "ondemand");
	is_int(e, "generation", 3);
	is_int(e, "world_nodes", 6);
	is_str(e, "detail", NULL);
	json_object_put(d);

	d = parse(render_events(&v->groups[1]));
	is_int(d, "id", 200);
	assert_int_equal(json_object_array_length(get(d, "events")), 0);
	json_object_put(d);
	view_free(v);
}

static void json_error_and_raise(void **state)
{
	json_object *d = parse(render_error(404, "no \"such\" group\n"));

	is_str(d, "error", "no \"such\" group\n");
	is_int(d, "status", 404);
	json_object_put(d);

	d = parse(render_raise(100));
	is_int(d, "id", 100);
	is_str(d, "raise", "queued");
	json_object_put(d);
}

/* Bytes that are not UTF-8 in a user name still give valid JSON. */
static void json_bad_utf8(void **state)
{
	struct elasticd_view *v = make_view();
	char *s;
	json_object *g;

	free(v->groups[0].user);
	v->groups[0].user = strdup("al\xffice\xc3");
	free(v->groups[0].account);
	v->groups[0].account = strdup("pr\xc3\xa9j\x01");
	s = render_group(&v->groups[0]);
	assert_non_null(s);
	assert_null(strchr(s, '\xff'));
	g = parse(s);
	is_str(g, "user", "al\xef\xbf\xbdice\xef\xbf\xbd");
	is_str(g, "account", "pr\xc3\xa9j\x01");
	json_object_put(g);
	view_free(v);
}

static void utf8(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "", "" },
		{ "plain ascii", "plain ascii" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },	    /* U+00E9 */
		{ "\xe2\x82\xac", "\xe2\x82\xac" },	    /* U+20AC */
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" }, /* U+1F600 */
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" }, /* U+10FFFF */
		{ "a\x80z", "a\xef\xbf\xbdz" },		    /* stray */
		{ "\xc0\x80", "\xef\xbf\xbd\xef\xbf\xbd" }, /* overlong */
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
				      "\xef\xbf\xbd" }, /* > U+10FFFF */
		{ "\xf5", "\xef\xbf\xbd" },
		{ "x\xe2\x82", "x\xef\xbf\xbd\xef\xbf\xbd" }, /* cut short */
		{ "\xf0\x9f\x98", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		char *s = render_utf8(cases[i].in);

		assert_non_null(s);
		assert_string_equal(s, cases[i].out);
		free(s);
	}
	assert_null(render_utf8(NULL));
}

static void times(void **state)
{
	static const struct {
		time_t sec;
		long nsec;
		const char *want;
	} cases[] = {
		{ 0, 0, "1970-01-01T00:00:00.000Z" },
		{ 0, 999999999, "1970-01-01T00:00:00.999Z" },
		{ 1714566896, 1000000, "2024-05-01T12:34:56.001Z" },
		{ 951782400, 0, "2000-02-29T00:00:00.000Z" },
		{ 4102444799, 500000000, "2099-12-31T23:59:59.500Z" },
		/* A bad tv_nsec does not spill into another field. */
		{ 0, 1000000000, "1970-01-01T00:00:00.000Z" },
		{ 0, -1, "1970-01-01T00:00:00.000Z" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		struct timespec t = { cases[i].sec, cases[i].nsec };
		char buf[RENDER_TIME_MAX];

		render_time(&t, buf);
		assert_string_equal(buf, cases[i].want);
	}
}

/* Prometheus */

/* The value of the sample "name{labels}" in text, or fail. */
static double sample(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');

		if (!strncmp(l, series, n) && l[n] == ' ')
			return strtod(l + n + 1, NULL);
		if (!nl)
			break;
		l = nl + 1;
	}
	fail_msg("no sample %s in:\n%s", series, text);
	return 0;
}

static void metrics_values(void **state)
{
	struct elasticd_view *v = make_view();
	char *t = render_metrics(v);

	assert_non_null(t);
	assert_true(sample(t, "elasticd_groups") == 2);
	assert_true(sample(t, "elasticd_groups_by_state{state=\"RUNNING\"}") ==
		    1);
	assert_true(sample(t, "elasticd_groups_by_state{state=\"PENDING\"}") ==
		    1);
	assert_true(sample(t, "elasticd_groups_by_state{state=\"DEGRADED\"}") ==
		    0);
	assert_true(sample(t, "elasticd_nodes{kind=\"base\"}") == 2);
	assert_true(sample(t, "elasticd_nodes{kind=\"preemptible\"}") == 2);
	assert_true(sample(t, "elasticd_nodes{kind=\"ondemand\"}") == 2);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"start\"}") == 1);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"grow\"}") == 1);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"preempt\"}") ==
		    0);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"fail\"}") == 0);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"ondemand\"}") ==
		    1);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"return\"}") == 0);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"end\"}") == 0);
	assert_true(sample(t, "elasticd_resize_seconds_total") == 12.5);
	assert_true(sample(t, "elasticd_spare_nodes") == 2);
	assert_true(sample(t, "elasticd_swaps_total") == 5);
	/* who is held back: the live groups' shares and waits */
	assert_true(sample(t, "elasticd_group_world_nodes{group=\"100\","
			      "user=\"alice\"}") == 6);
	assert_true(sample(t, "elasticd_group_share{group=\"100\","
			      "user=\"alice\"}") == 0.75);
	assert_true(sample(t, "elasticd_group_weight{group=\"100\","
			      "user=\"alice\"}") == 2);
	assert_true(sample(t, "elasticd_group_growth_wait_seconds{group="
			      "\"100\",user=\"alice\"}") == 4.5);
	assert_true(sample(t, "elasticd_group_growth_wait_seconds{group="
			      "\"200\",user=\"?\"}") == 0);
	assert_true(sample(t, "elasticd_groups_held_back{reason=\"nodes\"}") ==
		    1);
	assert_true(sample(t, "elasticd_groups_held_back{reason=\"cap\"}") ==
		    0);
	assert_true(sample(t, "elasticd_reconcile_seconds_sum") == 0.25);
	assert_true(sample(t, "elasticd_reconcile_seconds_count") == 42);
	assert_true(sample(t, "elasticd_reconcile_last_seconds") == 0.0015);
	assert_true(sample(t, "elasticd_reconcile_cycles_total") == 42);
	assert_true(sample(t, "elasticd_slurm_rpcs_total") == 84);
	assert_true(
	    sample(t, "elasticd_notifications_total{action=\"read\"}") == 7);
	assert_true(
	    sample(t, "elasticd_notifications_total{action=\"dropped\"}") == 3);
	assert_true(sample(t, "elasticd_notified_cycles_total") == 5);
	assert_true(sample(t, "elasticd_unit_starts_told_total") == 4);
	assert_true(sample(t, "elasticd_suspect_nodes_total{fault=\"lost\","
			      "action=\"drained\"}") == 2);
	assert_true(sample(t,
			   "elasticd_suspect_nodes_total{fault=\"straggler\","
			   "action=\"reported\"}") == 6);
	assert_true(sample(t, "elasticd_suspect_nodes_total{fault=\"hang\","
			      "action=\"drained\"}") == 0);
	assert_true(sample(t, "elasticd_slurm_rpcs_last_cycle") == 2);
	assert_true(sample(t, "elasticd_units_submitted_total") == 3);
	assert_true(sample(t, "elasticd_units_cancelled_total") == 1);
	assert_true(sample(t, "elasticd_start_time_seconds") == 1714560000);
	assert_true(sample(t, "elasticd_last_publish_time_seconds") ==
		    1714566896.789);
	free(t);
	view_free(v);
}

/*
 * The exposition format: every line is a HELP, a TYPE or a sample; each
 * family has HELP then TYPE before its samples, is declared once, and its
 * samples follow it (a summary's as NAME_sum and NAME_count).
 */
static void metrics_format(void **state)
{
	struct elasticd_view *v = make_view();
	char *t = render_metrics(v), *save = NULL, *line;
	char family[128] = "", type[16] = "", declared[4096] = " ";
	regex_t re_help, re_type, re_sample;
	int nfamilies = 0;

	assert_non_null(t);
	assert_int_equal(t[strlen(t) - 1], '\n');
	assert_int_equal(
	    regcomp(&re_help, "^# HELP [a-z_]+ [^\n]+$", REG_EXTENDED), 0);
	assert_int_equal(regcomp(&re_type,
				 "^# TYPE [a-z_]+ (gauge|counter|summary)$",
				 REG_EXTENDED),
			 0);
	assert_int_equal(regcomp(&re_sample,
				 "^([a-z_]+)(\\{[a-z_]+=\"[A-Za-z0-9_.@?-]+\""
				 "(,[a-z_]+=\"[A-Za-z0-9_.@?-]+\")*\\})? "
				 "-?[0-9]+(\\.[0-9]+)?$",
				 REG_EXTENDED),
			 0);
	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];

		if (!strncmp(line, "# HELP ", 7)) {
			char mark[140];

			if (regexec(&re_help, line, 0, NULL, 0))
				fail_msg("bad HELP: %s", line);
			sscanf(line + 7, "%127s", family);
			snprintf(mark, sizeof(mark), " %s ", family);
			if (strstr(declared, mark))
				fail_msg("%s declared twice", family);
			strncat(declared, family,
				sizeof(declared) - strlen(declared) - 2);
			strcat(declared, " ");
			type[0] = '\0';
			nfamilies++;
		} else if (!strncmp(line, "# TYPE ", 7)) {
			if (regexec(&re_type, line, 0, NULL, 0))
				fail_msg("bad TYPE: %s", line);
			sscanf(line + 7, "%127s %15s", name, type);
			if (strcmp(name, family))
				fail_msg("TYPE %s after HELP %s", name, family);
		} else {
			size_t n;

			if (regexec(&re_sample, line, 0, NULL, 0))
				fail_msg("bad sample: '%s'", line);
			if (!*type)
				fail_msg("sample before TYPE: %s", line);
			n = strcspn(line, "{ ");
			snprintf(name, sizeof(name), "%.*s", (int)n, line);
			if (!strcmp(type, "summary")) {
				char sum[140], count[140];

				snprintf(sum, sizeof(sum), "%s_sum", family);
				snprintf(count, sizeof(count), "%s_count",
					 family);
				if (strcmp(name, sum) && strcmp(name, count))
					fail_msg("%s in summary %s", name,
						 family);
			} else if (strcmp(name, family)) {
				fail_msg("%s in family %s", name, family);
			}
			if (!strcmp(type, "counter") && strlen(name) > 6 &&
			    strcmp(name + strlen(name) - 6, "_total") &&
			    strcmp(name + strlen(name) - 6, "_count"))
				fail_msg("counter %s lacks _total", name);
		}
	}
	assert_int_equal(nfamilies, 25);
	regfree(&re_help);
	regfree(&re_type);
	regfree(&re_sample);
	free(t);
	view_free(v);
}

/* An empty view: every family still there, at zero. */
static void metrics_empty(void **state)
{
	struct elasticd_view *v = calloc(1, sizeof(*v));
	char *t;

	assert_non_null(v);
	t = render_metrics(v);
	assert_non_null(t);
	assert_true(sample(t, "elasticd_groups") == 0);
	assert_true(sample(t, "elasticd_nodes{kind=\"base\"}") == 0);
	assert_true(sample(t, "elasticd_resizes_total{cause=\"fail\"}") == 0);
	free(t);
	view_free(v);
}

/* view.c's names, as the API and elasticctl show them. */
static void names(void **state)
{
	assert_string_equal(group_state_name(GROUP_PENDING), "PENDING");
	assert_string_equal(group_state_name(GROUP_STARTING), "STARTING");
	assert_string_equal(group_state_name(GROUP_RUNNING), "RUNNING");
	assert_string_equal(group_state_name(GROUP_RESIZING), "RESIZING");
	assert_string_equal(group_state_name(GROUP_DEGRADED), "DEGRADED");
	assert_string_equal(group_state_name(GROUP_COMPLETING), "COMPLETING");
	assert_string_equal(member_kind_name(MEMBER_BASE), "base");
	assert_string_equal(member_kind_name(MEMBER_PREEMPTIBLE),
			    "preemptible");
	assert_string_equal(member_kind_name(MEMBER_ONDEMAND), "ondemand");
	assert_string_equal(member_state_name(MEMBER_PENDING), "pending");
	assert_string_equal(member_state_name(MEMBER_RUNNING), "running");
	assert_string_equal(member_state_name(MEMBER_PREEMPTED), "preempted");
	assert_string_equal(member_state_name(MEMBER_RELEASING), "releasing");
	assert_string_equal(event_cause_name(CAUSE_START), "start");
	assert_string_equal(event_cause_name(CAUSE_GROW), "grow");
	assert_string_equal(event_cause_name(CAUSE_PREEMPT), "preempt");
	assert_string_equal(event_cause_name(CAUSE_FAIL), "fail");
	assert_string_equal(event_cause_name(CAUSE_ONDEMAND), "ondemand");
	assert_string_equal(event_cause_name(CAUSE_RETURN), "return");
	assert_string_equal(event_cause_name(CAUSE_END), "end");
	view_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(json_group),
		cmocka_unit_test(json_groups_filtered),
		cmocka_unit_test(json_events),
		cmocka_unit_test(json_error_and_raise),
		cmocka_unit_test(json_bad_utf8),
		cmocka_unit_test(utf8),
		cmocka_unit_test(times),
		cmocka_unit_test(metrics_values),
		cmocka_unit_test(metrics_format),
		cmocka_unit_test(metrics_empty),
		cmocka_unit_test(names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
