/*
 * elasticd's API server for real, its answers: a synthetic view published
 * (apihttp.c), real HTTP through libcurl and real munge credentials from a
 * private munged.  Health and metrics before and after the first publish,
 * missing, bad, replayed and expired credentials, the debug log, what the
 * owner, another user and the admins see, raise requests, methods, paths
 * and bodies, a group that leaves the view, and a stop and a restart.  As
 * another user than root the tests that need other uids are skipped.
 */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "common/log.h"
#include "elasticd/api.h"
#include "elasticd/groupinfo.h"
#include "apihttp.h"

#define need_root()                                                            \
	do {                                                                   \
		if (!t.root)                                                   \
			skip();                                                \
	} while (0)

/* The ids of the groups in a /v1/groups answer, "100 200". */
static void group_ids(struct reply *r, char *buf, size_t len)
{
	json_object *d = json_of(r), *gs = get(d, "groups");
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(gs); i++)
		used += (size_t)snprintf(
		    buf + used, len - used, "%s%lld", used ? " " : "",
		    (long long)json_object_get_int64(
			get(json_object_array_get_idx(gs, i), "id")));
	json_object_put(d);
}

/* Tests, in order: the first publishes the view the others read. */

static void before_first_publish(void **state)
{
	struct reply r = http("GET", "/healthz", NULL, NULL);

	assert_int_equal(r.status, 503);
	free(r.body);
	r = http("GET", "/metrics", NULL, NULL);
	assert_int_equal(r.status, 503);
	free(r.body);
	r = as(getuid(), "GET", "/v1/groups");
	error_says(&r, 503, "starting");

	api_publish(make_http_view(true));
	r = http("GET", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "ok\n");
	free(r.body);
	r = http("HEAD", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 200);
	assert_null(r.body);
}

static void no_credential(void **state)
{
	static const char *const paths[] = { "/v1/groups", "/v1/groups/100",
					     "/v1/groups/100/events" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct reply r = http("GET", paths[i], NULL, NULL);

		assert_true(r.www_auth);
		error_says(&r, 401, "no credential");
	}
	{
		struct reply r =
		    http("POST", "/v1/groups/100/raise", NULL, NULL);

		error_says(&r, 401, "no credential");
	}
	assert_int_equal(api_take_raise_requests((uint32_t[4]){ 0 }, 4), 0);
}

static void bad_credentials(void **state)
{
	struct reply r;
	char auth[4200];

	r = http("GET", "/v1/groups", "Basic dXNlcjpwYXNz", NULL);
	error_says(&r, 401, "scheme");
	r = http("GET", "/v1/groups", "Munge MUNGE:bm90IGEgY3JlZA==:", NULL);
	error_says(&r, 401, "invalid");
	r = http("GET", "/v1/groups", "Munge not-a-credential", NULL);
	error_says(&r, 401, "malformed");

	/* Once only: the same credential again is a replay. */
	munge_auth(mint_for(getuid(), "GET", "/v1/groups", 0), auth,
		   sizeof(auth));
	r = http("GET", "/v1/groups", auth, NULL);
	assert_int_equal(r.status, 200);
	assert_true(r.signed_);
	free(r.body);
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "replayed");

	/* A credential bound to nothing, or to something else, does not
	 * authenticate: one taken from a request is good for that request
	 * alone. */
	munge_auth(mint(getuid(), NULL, 0), auth, sizeof(auth));
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "not bound to the request");
	assert_false(r.signed_);
	munge_auth(mint(getuid(), "slurm", 0), auth, sizeof(auth));
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "not an elasticd request");
	munge_auth(mint_for(getuid(), "GET", "/v1/groups/100", 0), auth,
		   sizeof(auth));
	r = http("POST", "/v1/groups/100/raise", auth, NULL);
	error_says(&r, 401, "made for another request");
	munge_auth(
	    mint_for(getuid(), "POST", "/v1/groups/100/report?generation=2", 0),
	    auth, sizeof(auth));
	r = http("POST", "/v1/groups/100/report?generation=3", auth, NULL);
	error_says(&r, 401, "made for another request");
	assert_int_equal(api_take_raise_requests((uint32_t[4]){ 0 }, 4), 0);
}

static void expired_credential(void **state)
{
	char auth[4200];
	struct reply r;

	munge_auth(mint_for(getuid(), "GET", "/v1/groups", 1), auth,
		   sizeof(auth));
	sleep(3);
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "expired");
	/* Signed for its maker alone: the client learns why. */
	assert_true(r.signed_);
}

/* elasticd -v: a debug line per request, the caller's uid once it is
 * authenticated; at the default level none. */
static void debug_log(void **state)
{
	char *buf = NULL, line[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct reply r;

	assert_non_null(f);
	elog_set_stream(f);
	r = http("GET", "/healthz", NULL, NULL);
	free(r.body);
	elog_set_level(ELOG_DEBUG);
	r = http("GET", "/nowhere", NULL, NULL);
	free(r.body);
	r = as(getuid(), "GET", "/v1/groups");
	assert_int_equal(r.status, 200);
	free(r.body);
	elog_set_level(ELOG_INFO);
	elog_set_stream(NULL);
	fclose(f);
	assert_null(strstr(buf, "/healthz"));
	assert_non_null(strstr(buf, "debug: API: GET /nowhere: 404\n"));
	snprintf(line, sizeof(line),
		 "debug: API: GET /v1/groups from uid %u: 200\n",
		 (unsigned)getuid());
	assert_non_null(strstr(buf, line));
	free(buf);
}

static void owner_sees_own_group(void **state)
{
	struct reply r = as(t.owner, "GET", "/v1/groups");
	char ids[64];
	json_object *d, *m;

	assert_int_equal(r.status, 200);
	group_ids(&r, ids, sizeof(ids));
	assert_string_equal(ids, t.root ? "100" : "100 200");

	r = as(t.owner, "GET", "/v1/groups/100");
	assert_int_equal(r.status, 200);
	d = json_of(&r);
	assert_int_equal(json_object_get_int64(get(d, "id")), 100);
	assert_string_equal(json_object_get_string(get(d, "state")), "RUNNING");
	assert_string_equal(json_object_get_string(get(d, "master_addr")),
			    "n1");
	assert_int_equal(json_object_get_int64(get(d, "world_nodes")), 3);
	m = json_object_array_get_idx(get(d, "members"), 1);
	assert_int_equal(json_object_get_int64(get(m, "job_id")), 101);
	assert_string_equal(json_object_get_string(get(m, "kind")),
			    "preemptible");
	assert_string_equal(json_object_get_string(get(m, "nodes")), "n[2-3]");
	json_object_put(d);

	/* A unit's id names its group. */
	r = as(t.owner, "GET", "/v1/groups/101");
	assert_int_equal(r.status, 200);
	d = json_of(&r);
	assert_int_equal(json_object_get_int64(get(d, "id")), 100);
	json_object_put(d);

	r = as(t.owner, "GET", "/v1/groups/100/events");
	assert_int_equal(r.status, 200);
	d = json_of(&r);
	assert_int_equal(json_object_array_length(get(d, "events")), 2);
	m = json_object_array_get_idx(get(d, "events"), 1);
	assert_string_equal(json_object_get_string(get(m, "time")),
			    "2024-05-01T12:35:00.000Z");
	assert_string_equal(json_object_get_string(get(m, "cause")), "grow");
	json_object_put(d);

	r = as(t.owner, "GET", "/v1/groups/999");
	error_says(&r, 404, "no elastic group");
}

static void other_user_sees_nothing(void **state)
{
	static const char *const paths[] = { "/v1/groups/100", "/v1/groups/101",
					     "/v1/groups/100/events" };
	struct reply r;
	uint32_t ids[4];
	char list[64];

	need_root();
	r = as(t.other, "GET", "/v1/groups");
	assert_int_equal(r.status, 200);
	group_ids(&r, list, sizeof(list));
	assert_string_equal(list, "200");
	/* Exactly what a group that does not exist gets. */
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		r = as(t.other, "GET", paths[i]);
		error_says(&r, 404, "no elastic group of yours");
	}
	r = as(t.other, "POST", "/v1/groups/100/raise");
	error_says(&r, 404, "no elastic group of yours");
	assert_int_equal(api_take_raise_requests(ids, 4), 0);
	/* Nor the owner bob's. */
	r = as(t.owner, "GET", "/v1/groups/200");
	error_says(&r, 404, "no elastic group of yours");
}

static void admins_see_all(void **state)
{
	const uid_t admins[] = { 0, ADMIN_UID, SLURM_UID };
	struct reply r;
	char ids[64];

	need_root();
	for (size_t i = 0; i < 3; i++) {
		r = as(admins[i], "GET", "/v1/groups");
		assert_int_equal(r.status, 200);
		group_ids(&r, ids, sizeof(ids));
		if (strcmp(ids, "100 200"))
			fail_msg("uid %u sees '%s'", (unsigned)admins[i], ids);
		r = as(admins[i], "GET", "/v1/groups/200");
		assert_int_equal(r.status, 200);
		free(r.body);
	}
}

static void raise_requests(void **state)
{
	uint32_t ids[4] = { 0 };
	struct reply r;
	json_object *d;

	r = as(t.owner, "POST", "/v1/groups/100/raise");
	assert_int_equal(r.status, 202);
	d = json_of(&r);
	assert_int_equal(json_object_get_int64(get(d, "id")), 100);
	assert_string_equal(json_object_get_string(get(d, "raise")), "queued");
	json_object_put(d);
	/* Twice before the daemon takes it, and by a unit's id: once. */
	r = as(t.owner, "POST", "/v1/groups/101/raise");
	assert_int_equal(r.status, 202);
	free(r.body);
	assert_int_equal(api_take_raise_requests(ids, 4), 1);
	assert_int_equal(ids[0], 100);
	assert_int_equal(api_take_raise_requests(ids, 4), 0);

	/* A pending group has no ranks to tell. */
	r = as(t.other, "POST", "/v1/groups/200/raise");
	error_says(&r, 409, "PENDING");
	assert_int_equal(api_take_raise_requests(ids, 4), 0);

	/* Admins act on any group. */
	if (t.root) {
		r = as(ADMIN_UID, "POST", "/v1/groups/100/raise");
		assert_int_equal(r.status, 202);
		free(r.body);
		assert_int_equal(api_take_raise_requests(ids, 4), 1);
	}
}

static void methods_paths_bodies(void **state)
{
	struct reply r;

	r = as(t.owner, "GET", "/v1/groups/100/raise");
	assert_string_equal(r.allow, "POST");
	error_says(&r, 405, "not allowed");
	r = as(t.owner, "DELETE", "/v1/groups/100");
	assert_string_equal(r.allow, "GET, HEAD");
	error_says(&r, 405, "not allowed");
	r = http("GET", "/v2/groups", NULL, NULL);
	error_says(&r, 404, "no such path");
	r = http("GET", "/v1/groups/0", NULL, NULL);
	error_says(&r, 404, "no such path");
	r = http("POST", "/v1/groups/100/raise", "Munge MUNGE:x:", "{}");
	error_says(&r, 413, "no body");
}

static void metrics(void **state)
{
	struct reply r = http("GET", "/metrics", NULL, NULL);

	assert_int_equal(r.status, 200);
	assert_string_equal(r.ctype,
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_non_null(strstr(r.body, "\nelasticd_groups 2\n"));
	assert_non_null(
	    strstr(r.body, "\nelasticd_nodes{kind=\"preemptible\"} 2\n"));
	assert_non_null(
	    strstr(r.body, "\nelasticd_reconcile_cycles_total 7\n"));
	assert_non_null(
	    strstr(r.body, "\nelasticd_start_time_seconds 1714560000\n"));
	free(r.body);
}

/* The launcher's account: kept from the owner, 400 naming what is
 * wrong, read back by the owner alone, and in /metrics. */
static void account(void **state)
{
	static const char q[] =
	    "/v1/groups/100/account?v=1&t=1764630600456&wall_ms=10000"
	    "&train_wall_ms=9000&held_nms=30000&training_nms=24000"
	    "&waiting_nms=3000&resize_restart_nms=3000&resize_inplace_nms=0"
	    "&resize_swap_nms=0&detect_nms=0&redo_nms=0&checkpoint_nms=0"
	    "&outside_nms=0&at=3:24000&steps=77&redone=0&world=3&held=3"
	    "&phase=training&resize=growth:restart:2500:1";
	struct reply r = as(t.owner, "POST", q);
	json_object *d;

	(void)state;
	if (r.status != 202)
		fail_msg("HTTP %ld: %s", r.status, r.body ? r.body : "");
	free(r.body);
	r = as(t.owner, "POST", "/v1/groups/100/account?v=1&t=1");
	error_says(&r, 400, "phase: ");
	r = as(t.owner, "GET", "/v1/groups/100/account");
	assert_int_equal(r.status, 200);
	d = json_of(&r);
	assert_int_equal(json_object_get_int64(get(d, "steps")), 77);
	assert_string_equal(json_object_get_string(get(d, "goodput")), "0.8");
	assert_false(json_object_get_boolean(get(d, "ended")));
	json_object_put(d);
	r = as(t.owner, "GET", "/v1/groups/200/account");
	error_says(&r, 404, "no account of yours");
	r = http("GET", "/metrics", NULL, NULL);
	assert_non_null(strstr(r.body, "\nelasticd_group_goodput_ratio{job_id="
				       "\"100\","));
	assert_non_null(strstr(r.body, "\nelasticd_resize_seconds_bucket{"
				       "kind=\"growth\",path=\"restart\","
				       "le=\"2.5\"} 1\n"));
	free(r.body);
	if (!t.root)
		return;
	r = as(t.other, "POST", q);
	error_says(&r, 404, "no account of yours");
	r = as(t.other, "GET", "/v1/groups/100/account");
	error_says(&r, 404, "no account of yours");
}

/* A group that leaves the view leaves the API. */
static void republish(void **state)
{
	struct reply r;

	api_publish(make_http_view(false));
	r = as(t.owner, "GET", "/v1/groups/100");
	error_says(&r, 404, "no elastic group");
	api_publish(make_http_view(true));
	r = as(t.owner, "GET", "/v1/groups/100");
	assert_int_equal(r.status, 200);
	free(r.body);
}

static void stop_and_restart(void **state)
{
	struct policy_list none = { 0 };
	elastic_error_t err = { "" };
	struct reply r;

	/* Taken: a second server on the same port fails, and says why. */
	assert_int_equal(api_start(t.server, t.sock, &none, SLURM_UID, &err),
			 -1);
	assert_non_null(strstr(err.text, "already running"));

	api_stop();
	r = http("GET", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 0);
	free(r.body);
	api_stop(); /* twice is fine */

	assert_int_equal(api_start("127.0.0.1", t.sock, NULL, 0, &err), -1);
	assert_non_null(strstr(err.text, "no port"));

	/* The same port again, with no view yet and nobody listed. */
	if (api_start(t.server, t.sock, NULL, SLURM_UID, &err))
		fail_msg("restart: %s", err.text);
	r = http("GET", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 503);
	free(r.body);
	api_publish(make_http_view(true));
	if (t.root) {
		char ids[64];

		/* ADMIN_NAME is no longer an admin. */
		r = as(ADMIN_UID, "GET", "/v1/groups");
		assert_int_equal(r.status, 200);
		group_ids(&r, ids, sizeof(ids));
		assert_string_equal(ids, "");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(before_first_publish),
		cmocka_unit_test(no_credential),
		cmocka_unit_test(bad_credentials),
		cmocka_unit_test(expired_credential),
		cmocka_unit_test(debug_log),
		cmocka_unit_test(owner_sees_own_group),
		cmocka_unit_test(other_user_sees_nothing),
		cmocka_unit_test(admins_see_all),
		cmocka_unit_test(raise_requests),
		cmocka_unit_test(methods_paths_bodies),
		cmocka_unit_test(metrics),
		cmocka_unit_test(account),
		cmocka_unit_test(republish),
		cmocka_unit_test(stop_and_restart),
	};

	/* Children must not die of a closed pipe without telling. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, api_test_setup, api_test_teardown);
}
