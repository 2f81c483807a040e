/*
 * Unit tests of elasticd's API, the parts that decide before anything is
 * rendered: routing and the launcher's report arguments, listen
 * addresses, the Authorization header, who is an admin and who may see
 * which group of the synthetic view (synthview.c), and the status of a
 * raise or of a munge error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <munge.h>

#include "common/hostport.h"
#include "elasticd/api_auth.h"
#include "elasticd/api_route.h"
#include "elasticd/groupinfo.h"
#include "synthview.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

#define SLURM 64030

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
		{ "POST", "/v1/groups/42/notify", ROUTE_NOTIFY, 42, true },
		{ "POST", "/v1/groups/42/suspect", ROUTE_SUSPECT, 42, true },
		{ "GET", "/v1/groups/42/suspect", ROUTE_SUSPECT, 42, false },
		{ "GET", "/v1/groups/42/notify", ROUTE_NOTIFY, 42, false },
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

/* A unit's notification: one of three words, nothing else. */
static void notify_args(void **state)
{
	static const char *const bad[] = { NULL,     "",	"START",
					   "start ", "started", "signal,end",
					   "x",	     "faults" };
	enum notify_event e;
	const char *why = NULL;

	(void)state;
	assert_int_equal(route_parse_notify("start", &e, &why), 0);
	assert_int_equal(e, NOTIFY_START);
	assert_int_equal(route_parse_notify("signal", &e, &why), 0);
	assert_int_equal(e, NOTIFY_SIGNAL);
	assert_int_equal(route_parse_notify("end", &e, &why), 0);
	assert_int_equal(e, NOTIFY_END);
	assert_int_equal(route_parse_notify("fault", &e, &why), 0);
	assert_int_equal(e, NOTIFY_FAULT);
	assert_string_equal(notify_event_name(NOTIFY_SIGNAL), "signal");
	assert_string_equal(notify_event_name(NOTIFY_FAULT), "fault");
	for (size_t i = 0; i < N(bad); i++) {
		why = NULL;
		assert_int_equal(route_parse_notify(bad[i], &e, &why), -1);
		assert_non_null(why);
		assert_non_null(strstr(why, "event:"));
		assert_non_null(strstr(why, "start, signal, end, fault"));
	}
	assert_true(route_needs_auth(&(struct route){ .kind = ROUTE_NOTIFY }));
}

/* A unit's nodes with its start: a Slurm node list, nothing else. */
static void route_nodes(void **state)
{
	static const char *const good[] = { "n1", "n[1-4,7]",
					    "gpu-a.b_c[01-02],x9" };
	static const char *const bad[] = { "",	      "n1;x",
					   "n1 n2",   "n1&event=end",
					   "n1/../x", "n1%5B" };
	char longlist[ROUTE_NODES_MAX + 2];
	const char *why = NULL;

	(void)state;
	assert_int_equal(route_parse_nodes(NOTIFY_START, NULL, &why), 0);
	for (size_t i = 0; i < N(good); i++)
		assert_int_equal(route_parse_nodes(NOTIFY_START, good[i], &why),
				 0);
	for (size_t i = 0; i < N(bad); i++) {
		why = NULL;
		assert_int_equal(route_parse_nodes(NOTIFY_START, bad[i], &why),
				 -1);
		assert_non_null(why);
		assert_non_null(strstr(why, "nodes:"));
	}
	memset(longlist, 'n', sizeof(longlist) - 1);
	longlist[ROUTE_NODES_MAX] = '\0';
	assert_int_equal(route_parse_nodes(NOTIFY_START, longlist, &why), 0);
	longlist[ROUTE_NODES_MAX] = 'n';
	longlist[ROUTE_NODES_MAX + 1] = '\0';
	assert_int_equal(route_parse_nodes(NOTIFY_START, longlist, &why), -1);
	why = NULL;
	assert_int_equal(route_parse_nodes(NOTIFY_SIGNAL, "n1", &why), -1);
	assert_non_null(strstr(why, "event=start"));
}

/* Wake-ups by lookups: a burst per user, then the rate; users apart; the
 * table bounded, the user idle longest forgotten. */
static void lookup_limit(void **state)
{
	static struct auth_lookup_limit l;
	int n = 0;

	(void)state;
	while (auth_lookup_take(&l, 1000, 10.0) && n < 1000)
		n++;
	assert_int_equal(n, AUTH_LOOKUP_BURST);
	/* Another user has a bucket of its own. */
	assert_true(auth_lookup_take(&l, 1001, 10.0));
	/* Refilled at the rate: 1/AUTH_LOOKUP_RATE s brings one more. */
	assert_false(auth_lookup_take(&l, 1000, 10.0 + 0.5 / AUTH_LOOKUP_RATE));
	assert_true(auth_lookup_take(&l, 1000, 10.0 + 1.6 / AUTH_LOOKUP_RATE));
	assert_false(auth_lookup_take(&l, 1000, 10.0 + 1.6 / AUTH_LOOKUP_RATE));
	/* Never above the burst, however long idle. */
	n = 0;
	while (auth_lookup_take(&l, 1000, 1e6) && n < 1000)
		n++;
	assert_int_equal(n, AUTH_LOOKUP_BURST);
	/* A clock that goes back gives nothing. */
	assert_false(auth_lookup_take(&l, 1000, 5.0));
	/* A full table forgets the user idle longest (1001 at 10 s). */
	for (uint32_t u = 2000; u < 2000 + AUTH_LOOKUP_UIDS - 2; u++)
		assert_true(auth_lookup_take(&l, u, 20.0));
	assert_int_equal(l.n, AUTH_LOOKUP_UIDS);
	assert_true(auth_lookup_take(&l, 3000, 30.0));
	assert_int_equal(l.n, AUTH_LOOKUP_UIDS);
	for (size_t i = 0; i < l.n; i++)
		assert_int_not_equal(l.b[i].uid, 1001);
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
	/* relay: missing (an older launcher) is 0. */
	r.relay = true;
	assert_int_equal(route_parse_relay(NULL, &r, &why), 0);
	assert_false(r.relay);
	assert_int_equal(route_parse_relay("1", &r, &why), 0);
	assert_true(r.relay);
	assert_int_equal(route_parse_relay("0", &r, &why), 0);
	assert_false(r.relay);
	static const char *const bad_relay[] = { "", "2", "yes", "01", "1 " };
	for (size_t i = 0; i < N(bad_relay); i++) {
		why = NULL;
		assert_int_equal(route_parse_relay(bad_relay[i], &r, &why), -1);
		assert_non_null(strstr(why, "relay:"));
	}
}

/* A suspect node: a plain node name, and one of three faults. */
static void suspect_args(void **state)
{
	static const char *const bad_node[] = {
		NULL,
		"",
		"n[1-2]",
		"n1,n2",
		"n 1",
		"n1;x",
		"n1&why=hang",
		"12345678901234567890123456789012345678901234567890123456789012"
		"345",
	};
	static const char *const bad_why[] = { NULL, "", "crash", "Hang",
					       "lost " };
	struct suspect_report s = { 0 };
	const char *why = NULL;

	(void)state;
	assert_int_equal(route_parse_suspect("gpu-007.a_b", "hang", &s, &why),
			 0);
	assert_string_equal(s.node, "gpu-007.a_b");
	assert_string_equal(s.why, "hang");
	assert_int_equal(route_parse_suspect("n1", "lost", &s, &why), 0);
	assert_int_equal(route_parse_suspect("n1", "straggler", &s, &why), 0);
	for (size_t i = 0; i < sizeof(bad_node) / sizeof(bad_node[0]); i++) {
		why = NULL;
		assert_int_equal(
		    route_parse_suspect(bad_node[i], "lost", &s, &why), -1);
		assert_non_null(strstr(why, "node: "));
	}
	for (size_t i = 0; i < sizeof(bad_why) / sizeof(bad_why[0]); i++) {
		why = NULL;
		assert_int_equal(
		    route_parse_suspect("n1", bad_why[i], &s, &why), -1);
		assert_string_equal(why, "why: what the node did is required "
					 "(allowed: lost, hang, straggler, "
					 "spare-check)");
	}
	assert_int_equal(route_parse_suspect("n1", "spare-check", &s, &why), 0);
	assert_int_equal(s.fault, 3);
	assert_true(route_needs_auth(&(struct route){ .kind = ROUTE_SUSPECT }));
}

/* The spares a launcher checked: job ids, none, bounded. */
static void spares_checked_arg(void **state)
{
	static const char *const bad[] = { "x",	 "1,", "1,,2", "0",
					   "-1", "+1", "1 2",  "4294967296",
					   ",1", "1;2" };
	uint32_t jobs[4];
	size_t n = 9;
	const char *why = NULL;

	(void)state;
	assert_int_equal(route_parse_jobs("", jobs, 4, &n, &why), 0);
	assert_int_equal(n, 0);
	assert_int_equal(route_parse_jobs("12,4294967295", jobs, 4, &n, &why),
			 0);
	assert_int_equal(n, 2);
	assert_int_equal(jobs[0], 12);
	assert_int_equal(jobs[1], 4294967295u);
	assert_int_equal(route_parse_jobs("1,2,3,4,5", jobs, 4, &n, &why), -1);
	assert_non_null(strstr(why, "spares_checked: "));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		assert_int_equal(route_parse_jobs(bad[i], jobs, 4, &n, &why),
				 -1);
		assert_non_null(strstr(why, "spares_checked: "));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(route_paths),
		cmocka_unit_test(route_allow_and_auth),
		cmocka_unit_test(report_args),
		cmocka_unit_test(suspect_args),
		cmocka_unit_test(spares_checked_arg),
		cmocka_unit_test(notify_args),
		cmocka_unit_test(route_nodes),
		cmocka_unit_test(lookup_limit),
		cmocka_unit_test(hostport_good),
		cmocka_unit_test(hostport_bad),
		cmocka_unit_test(header_good),
		cmocka_unit_test(header_bad),
		cmocka_unit_test(admins),
		cmocka_unit_test(who_sees_what),
		cmocka_unit_test(base_id_wins),
		cmocka_unit_test(raise_status),
		cmocka_unit_test(munge_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
