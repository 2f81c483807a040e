/*
 * Unit tests of elasticd's API, the pure parts: routing, listen addresses,
 * the Authorization header, who may see which group, and the JSON and
 * Prometheus bodies rendered from a synthetic view.
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
#include <munge.h>

#include "common/hostport.h"
#include "elasticd/api_auth.h"
#include "elasticd/api_render.h"
#include "elasticd/api_route.h"
#include "elasticd/groupinfo.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define ALICE 1001
#define BOB   1002
#define SLURM 64030

/*
 * The synthetic view: alice's running group 100 (base 2 nodes, a running
 * and a pending preemptible unit, an on-demand unit) with three events,
 * and bob's pending group 200 with nothing known but its owner.
 * Allocated as view.c would, so that view_free() frees it.
 */
static struct elasticd_view *make_view(void)
{
	struct elasticd_view *v = calloc(1, sizeof(*v));
	struct group_info *g;
	struct member_info *m;
	struct event_info *e;

	assert_non_null(v);
	v->published.tv_sec = 1714566896; /* 2024-05-01T12:34:56Z */
	v->published.tv_nsec = 789000000;
	v->ngroups = 2;
	v->groups = calloc(2, sizeof(*v->groups));
	assert_non_null(v->groups);

	g = &v->groups[0];
	g->base_job_id = 100;
	g->user_id = ALICE;
	g->user = strdup("alice");
	g->account = strdup("proj");
	g->state = GROUP_RUNNING;
	g->min = 2;
	g->max = 8;
	g->generation = 3;
	g->world_nodes = 6;
	g->master_addr = strdup("n1");
	g->grace = 20;
	g->last_exit_ms = 12500;
	g->grace_warning = true;
	g->nmembers = 4;
	g->members = m = calloc(4, sizeof(*m));
	assert_non_null(m);
	m[0] = (struct member_info){ 100, MEMBER_BASE,	    MEMBER_RUNNING,
				     2,	  strdup("n[1-2]"), true };
	m[1] = (struct member_info){ 101, MEMBER_PREEMPTIBLE, MEMBER_RUNNING,
				     2,	  strdup("n[3-4]"),   true };
	m[2] = (struct member_info){
		102, MEMBER_PREEMPTIBLE, MEMBER_PENDING, 2, NULL, false
	};
	m[3] = (struct member_info){ 103, MEMBER_ONDEMAND, MEMBER_RUNNING,
				     2,	  strdup("n5,n6"), true };
	g->nevents = 3;
	g->events = e = calloc(3, sizeof(*e));
	assert_non_null(e);
	e[0] = (struct event_info){ { 1714566800, 5000000 },
				    CAUSE_START,
				    1,
				    2,
				    strdup("first world") };
	e[1] = (struct event_info){ { 1714566850, 999999999 },
				    CAUSE_GROW,
				    2,
				    4,
				    strdup("unit 101 started (n[3-4])") };
	e[2] = (struct event_info){
		{ 1714566890, 0 }, CAUSE_ONDEMAND, 3, 6, NULL
	};

	g = &v->groups[1];
	g->base_job_id = 200;
	g->user_id = BOB;
	g->state = GROUP_PENDING;
	g->last_exit_ms = -1;
	g->min = 1;
	g->max = 4;

	v->nodes_base = 2;
	v->nodes_preemptible = 2;
	v->nodes_ondemand = 2;
	v->metrics.cycles = 42;
	v->metrics.slurm_rpcs = 84;
	v->metrics.slurm_rpcs_last_cycle = 2;
	v->metrics.reconcile_seconds_last = 0.0015;
	v->metrics.reconcile_seconds_sum = 0.25;
	v->metrics.resizes[CAUSE_START] = 1;
	v->metrics.resizes[CAUSE_GROW] = 1;
	v->metrics.resizes[CAUSE_ONDEMAND] = 1;
	v->metrics.resize_seconds_sum = 12.5;
	v->metrics.units_submitted = 3;
	v->metrics.units_cancelled = 1;
	v->metrics.started = 1714560000;
	return v;
}

static const struct auth_caller alice = { .uid = ALICE, .admin = false };
static const struct auth_caller bob = { .uid = BOB, .admin = false };
static const struct auth_caller eve = { .uid = 1003, .admin = false };
static const struct auth_caller admin = { .uid = 1004, .admin = true };

/* route_parse */

static void route_paths(void **state)
{
	static const struct {
		const char *method, *path;
		enum route_kind kind;
		uint32_t id;
		bool method_ok;
	} cases[] = {
		{ "GET", "/healthz", ROUTE_HEALTHZ, 0, true },
		{ "HEAD", "/healthz", ROUTE_HEALTHZ, 0, true },
		{ "GET", "/metrics", ROUTE_METRICS, 0, true },
		{ "POST", "/metrics", ROUTE_METRICS, 0, false },
		{ "GET", "/v1/groups", ROUTE_GROUPS, 0, true },
		{ "DELETE", "/v1/groups", ROUTE_GROUPS, 0, false },
		{ "GET", "/v1/groups/42", ROUTE_GROUP, 42, true },
		{ "GET", "/v1/groups/4294967295", ROUTE_GROUP, 4294967295u,
		  true },
		{ "GET", "/v1/groups/42/events", ROUTE_EVENTS, 42, true },
		{ "POST", "/v1/groups/42/raise", ROUTE_RAISE, 42, true },
		{ "GET", "/v1/groups/42/raise", ROUTE_RAISE, 42, false },
		{ "POST", "/v1/groups/42/report", ROUTE_REPORT, 42, true },
		{ "GET", "/v1/groups/42/report", ROUTE_REPORT, 42, false },
		{ "POST", "/v1/groups/42/report/", ROUTE_NOT_FOUND, 0, true },
		{ "PUT", "/v1/groups/42", ROUTE_GROUP, 42, false },
		/* Nothing else exists. */
		{ "GET", "/", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groupsx", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/0", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/4294967296", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/-1", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/+1", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/1x", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/0x10", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/42/", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/42/events/", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/42/other", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups//42", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/metrics/", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/HEALTHZ", ROUTE_NOT_FOUND, 0, true },
		{ "GET", "/v1/groups/12345678901234567890", ROUTE_NOT_FOUND, 0,
		  true },
	};

	for (size_t i = 0; i < N(cases); i++) {
		struct route r;

		route_parse(cases[i].method, cases[i].path, &r);
		if (r.kind != cases[i].kind || r.id != cases[i].id ||
		    r.method_ok != cases[i].method_ok)
			fail_msg("%s %s: kind %d id %u ok %d", cases[i].method,
				 cases[i].path, r.kind, r.id, r.method_ok);
	}
}

/* The launcher's report: strict arguments, each error names its own. */
static void report_args(void **state)
{
	struct launch_report r = { 0 };
	const char *why = NULL;

	(void)state;
	assert_int_equal(route_parse_report("3", NULL, &r, &why), 0);
	assert_int_equal(r.generation, 3);
	assert_int_equal(r.exit_ms, -1);
	assert_int_equal(route_parse_report("18446744073709551", "0", &r, &why),
			 0);
	assert_int_equal(r.exit_ms, 0);
	assert_int_equal(route_parse_report("7", "86400000", &r, &why), 0);
	assert_int_equal(r.exit_ms, 86400000);
	static const char *const bad_gen[] = { NULL,
					       "",
					       "0",
					       "-1",
					       "+1",
					       "1x",
					       " 1",
					       "0x10",
					       "9223372036854775809",
					       "99999999999999999999" };
	for (size_t i = 0; i < N(bad_gen); i++) {
		why = NULL;
		assert_int_equal(route_parse_report(bad_gen[i], "5", &r, &why),
				 -1);
		assert_non_null(strstr(why, "generation:"));
	}
	static const char *const bad_ms[] = { "",    "-1",  "86400001",
					      "1.5", "1e3", "ms" };
	for (size_t i = 0; i < N(bad_ms); i++) {
		why = NULL;
		assert_int_equal(route_parse_report("1", bad_ms[i], &r, &why),
				 -1);
		assert_non_null(strstr(why, "exit_ms:"));
	}
}

static void route_allow_and_auth(void **state)
{
	struct route r;

	route_parse("GET", "/v1/groups/7/raise", &r);
	assert_string_equal(r.allow, "POST");
	assert_true(route_needs_auth(&r));
	route_parse("POST", "/v1/groups/7", &r);
	assert_string_equal(r.allow, "GET, HEAD");
	assert_true(route_needs_auth(&r));
	route_parse("GET", "/v1/groups", &r);
	assert_true(route_needs_auth(&r));
	route_parse("GET", "/v1/groups/7/report", &r);
	assert_string_equal(r.allow, "POST");
	assert_true(route_needs_auth(&r));
	route_parse("GET", "/v1/groups/7/events", &r);
	assert_true(route_needs_auth(&r));
	/* Metrics and health: the bind address is their protection. */
	route_parse("GET", "/metrics", &r);
	assert_false(route_needs_auth(&r));
	route_parse("GET", "/healthz", &r);
	assert_false(route_needs_auth(&r));
	route_parse("GET", "/nope", &r);
	assert_false(route_needs_auth(&r));
}

/* hostport_parse */

static void hostport_good(void **state)
{
	static const struct {
		const char *in, *host;
		unsigned port;
	} cases[] = {
		{ "127.0.0.1:6830", "127.0.0.1", 6830 },
		{ "localhost:1", "localhost", 1 },
		{ "head-node.example.org:65535", "head-node.example.org",
		  65535 },
		{ "*:6830", "", 6830 },
		{ ":6830", "", 6830 },
		{ "[::1]:6830", "::1", 6830 },
		{ "[fe80::1%eth0]:80", "fe80::1%eth0", 80 },
		{ "0.0.0.0:6830", "0.0.0.0", 6830 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		char host[HOSTPORT_HOST_MAX + 1] = "untouched";
		unsigned port = 0;
		elastic_error_t err = { "" };

		if (hostport_parse(cases[i].in, host, &port, &err))
			fail_msg("%s: %s", cases[i].in, err.text);
		assert_string_equal(host, cases[i].host);
		assert_int_equal(port, cases[i].port);
	}
}

static void hostport_bad(void **state)
{
	static const char *const cases[] = {
		"",
		"6830",
		"127.0.0.1",
		"127.0.0.1:",
		"127.0.0.1:0",
		"127.0.0.1:65536",
		"127.0.0.1:-1",
		"h:+1",
		"h: 1",
		"h:1 ",
		"::1:6830",
		"[::1]6830",
		"[::1]",
		"[]:6830",
		"[::1:6830",
		"h st:1",
		"h/st:1",
		"**:1",
		"h\n:1",
		"[::1]:x",
	};
	char big[300];

	for (size_t i = 0; i < N(cases); i++) {
		char host[HOSTPORT_HOST_MAX + 1] = "untouched";
		unsigned port = 7;
		elastic_error_t err = { "" };

		if (!hostport_parse(cases[i], host, &port, &err))
			fail_msg("'%s' accepted", cases[i]);
		assert_string_equal(host, "untouched");
		assert_int_equal(port, 7);
		assert_true(strlen(err.text) > 0);
	}
	memset(big, 'a', sizeof(big));
	memcpy(big + sizeof(big) - 6, ":6830", 6);
	{
		char host[HOSTPORT_HOST_MAX + 1];
		unsigned port;

		assert_int_equal(hostport_parse(big, host, &port, NULL), -1);
	}
}

/* apiauth_parse_header */

static void header_good(void **state)
{
	static const struct {
		const char *in, *cred;
	} cases[] = {
		{ "Munge MUNGE:AwQFAAB+abc/def=:", "MUNGE:AwQFAAB+abc/def=:" },
		{ "munge MUNGE:x:", "MUNGE:x:" },
		{ "MUNGE MUNGE:x:", "MUNGE:x:" },
		{ "Munge   MUNGE:x:  ", "MUNGE:x:" },
		{ "\tMunge\tMUNGE:x:\t", "MUNGE:x:" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		const char *cred = NULL, *why = NULL;
		size_t len = 0;

		if (apiauth_parse_header(cases[i].in, &cred, &len, &why))
			fail_msg("'%s': %s", cases[i].in, why);
		assert_int_equal(len, strlen(cases[i].cred));
		assert_memory_equal(cred, cases[i].cred, len);
		/* cred points into the header: no copy to free. */
		assert_true(cred >= cases[i].in &&
			    cred < cases[i].in + strlen(cases[i].in));
	}
}

static void header_bad(void **state)
{
	static const char *const cases[] = {
		"",
		"   ",
		"Munge",
		"Munge ",
		"Munge\t \t",
		"MungeMUNGE:x:",
		"Basic dXNlcjpwYXNz",
		"Bearer MUNGE:x:",
		"Mung MUNGE:x:",
		"Munge MUNGE:x: MUNGE:y:",
		"Munge MUNGE:x:\r\n",
		"Munge \"MUNGE:x:\"",
		"Munge MUNGE:x:;",
		"Munge MUNGE:\xc3\xa9:",
	};
	char *big;

	for (size_t i = 0; i < N(cases); i++) {
		const char *cred = NULL, *why = NULL;
		size_t len = 0;

		if (!apiauth_parse_header(cases[i], &cred, &len, &why))
			fail_msg("'%s' accepted", cases[i]);
		assert_non_null(why);
		assert_null(cred);
	}
	{
		const char *cred = NULL, *why = NULL;
		size_t len = 0;

		assert_int_equal(apiauth_parse_header(NULL, &cred, &len, &why),
				 -1);
		assert_non_null(strstr(why, "Authorization: Munge"));
	}

	/* Exactly the limit passes, one more fails. */
	big = malloc(6 + APIAUTH_CRED_MAX + 2);
	assert_non_null(big);
	memcpy(big, "Munge ", 6);
	memset(big + 6, 'A', APIAUTH_CRED_MAX);
	big[6 + APIAUTH_CRED_MAX] = '\0';
	{
		const char *cred, *why;
		size_t len;

		assert_int_equal(apiauth_parse_header(big, &cred, &len, &why),
				 0);
		assert_int_equal(len, APIAUTH_CRED_MAX);
		big[6 + APIAUTH_CRED_MAX] = 'A';
		big[6 + APIAUTH_CRED_MAX + 1] = '\0';
		assert_int_equal(apiauth_parse_header(big, &cred, &len, &why),
				 -1);
		assert_non_null(strstr(why, "too long"));
	}
	free(big);
}

/* Who is an admin, who sees what */

static void admins(void **state)
{
	const uint32_t listed[] = { 1004, 1005 };

	assert_true(auth_is_admin(0, SLURM, NULL, 0));
	assert_true(auth_is_admin(SLURM, SLURM, NULL, 0));
	assert_true(auth_is_admin(1004, SLURM, listed, 2));
	assert_true(auth_is_admin(1005, SLURM, listed, 2));
	assert_false(auth_is_admin(1006, SLURM, listed, 2));
	assert_false(auth_is_admin(ALICE, SLURM, listed, 2));
	assert_false(auth_is_admin(ALICE, SLURM, NULL, 0));
	/* Only the first nadmin entries count. */
	assert_false(auth_is_admin(1005, SLURM, listed, 1));
}

static void who_sees_what(void **state)
{
	struct elasticd_view *v = make_view();
	const struct group_info *g100 = &v->groups[0], *g200 = &v->groups[1];

	assert_true(auth_may_see(&alice, g100));
	assert_false(auth_may_see(&alice, g200));
	assert_true(auth_may_see(&bob, g200));
	assert_false(auth_may_see(&bob, g100));
	assert_false(auth_may_see(&eve, g100));
	assert_false(auth_may_see(&eve, g200));
	assert_true(auth_may_see(&admin, g100));
	assert_true(auth_may_see(&admin, g200));

	/* By base id. */
	assert_ptr_equal(auth_find_group(v, &alice, 100), g100);
	assert_ptr_equal(auth_find_group(v, &bob, 200), g200);
	assert_ptr_equal(auth_find_group(v, &admin, 100), g100);
	assert_ptr_equal(auth_find_group(v, &admin, 200), g200);
	/* Another user's group is as absent as a group that does not
	 * exist. */
	assert_null(auth_find_group(v, &bob, 100));
	assert_null(auth_find_group(v, &alice, 200));
	assert_null(auth_find_group(v, &eve, 100));
	assert_null(auth_find_group(v, &alice, 999));
	assert_null(auth_find_group(v, &admin, 999));
	/* By a unit's id, pending ones too. */
	assert_ptr_equal(auth_find_group(v, &alice, 101), g100);
	assert_ptr_equal(auth_find_group(v, &alice, 102), g100);
	assert_ptr_equal(auth_find_group(v, &admin, 103), g100);
	assert_null(auth_find_group(v, &bob, 101));
	assert_null(auth_find_group(v, &alice, 0));
	assert_null(auth_find_group(NULL, &admin, 100));
	view_free(v);
}

/* A base id is the group's own even if a (stale) member of another group
 * has the same id. */
static void base_id_wins(void **state)
{
	struct elasticd_view *v = make_view();

	v->groups[0].members[2].job_id = 200;
	assert_ptr_equal(auth_find_group(v, &admin, 200), &v->groups[1]);
	assert_null(auth_find_group(v, &alice, 200));
	view_free(v);
}

static void raise_status(void **state)
{
	struct group_info g = { 0 };
	static const struct {
		enum group_state s;
		int status;
	} cases[] = {
		{ GROUP_PENDING, 409 },	 { GROUP_STARTING, 200 },
		{ GROUP_RUNNING, 200 },	 { GROUP_RESIZING, 200 },
		{ GROUP_DEGRADED, 200 }, { GROUP_COMPLETING, 409 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		g.state = cases[i].s;
		assert_int_equal(auth_raise_status(&g), cases[i].status);
	}
}

static void munge_status(void **state)
{
	static const struct {
		munge_err_t e;
		int status;
		const char *word;
	} cases[] = {
		{ EMUNGE_SUCCESS, 0, "" },
		{ EMUNGE_CRED_EXPIRED, 401, "expired" },
		{ EMUNGE_CRED_REPLAYED, 401, "replayed" },
		{ EMUNGE_CRED_REWOUND, 401, "future" },
		{ EMUNGE_CRED_INVALID, 401, "invalid" },
		{ EMUNGE_BAD_CRED, 401, "invalid" },
		{ EMUNGE_BAD_VERSION, 401, "invalid" },
		{ EMUNGE_BAD_MAC, 401, "invalid" },
		{ EMUNGE_BAD_REALM, 401, "not meant" },
		{ EMUNGE_CRED_UNAUTHORIZED, 401, "not meant" },
		{ EMUNGE_SOCKET, 503, "munged" },
		{ EMUNGE_NO_MEMORY, 500, "could not" },
		{ EMUNGE_SNAFU, 500, "could not" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		const char *why = NULL;

		assert_int_equal(auth_munge_status(cases[i].e, &why),
				 cases[i].status);
		assert_non_null(why);
		if (!strstr(why, cases[i].word))
			fail_msg("%d: '%s' lacks '%s'", cases[i].e, why,
				 cases[i].word);
	}
}

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
	"master_addr",
	"grace",
	"last_exit_seconds",
	"grace_warning",
	"members",
};
static const char *const member_keys[] = { "job_id", "kind",  "state",
					   "nnodes", "nodes", "in_world" };
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
	is_int(g, "world_nodes", 6);
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
	assert_true(sample(t, "elasticd_reconcile_seconds_sum") == 0.25);
	assert_true(sample(t, "elasticd_reconcile_seconds_count") == 42);
	assert_true(sample(t, "elasticd_reconcile_last_seconds") == 0.0015);
	assert_true(sample(t, "elasticd_reconcile_cycles_total") == 42);
	assert_true(sample(t, "elasticd_slurm_rpcs_total") == 84);
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
				 "^([a-z_]+)(\\{[a-z_]+=\"[A-Za-z_]+\"\\})? "
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
	assert_int_equal(nfamilies, 14);
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
		cmocka_unit_test(route_paths),
		cmocka_unit_test(route_allow_and_auth),
		cmocka_unit_test(report_args),
		cmocka_unit_test(hostport_good),
		cmocka_unit_test(hostport_bad),
		cmocka_unit_test(header_good),
		cmocka_unit_test(header_bad),
		cmocka_unit_test(admins),
		cmocka_unit_test(who_sees_what),
		cmocka_unit_test(base_id_wins),
		cmocka_unit_test(raise_status),
		cmocka_unit_test(munge_status),
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
