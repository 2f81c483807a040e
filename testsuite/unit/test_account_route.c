/*
 * Unit tests of the launcher's account report as elasticd's API parses
 * it (POST /v1/groups/ID/account, route_parse_account): the path, every
 * argument's bounds and names, and the check that the causes add up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elasticd/api_route.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A query as key=value pairs; a key set to NULL is missing. */
struct query {
	const char *key[40];
	const char *val[40];
	size_t n;
};

static const char *query_get(void *cls, const char *key)
{
	const struct query *q = cls;

	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->key[i], key))
			return q->val[i];
	return NULL;
}

static void query_set(struct query *q, const char *key, const char *val)
{
	for (size_t i = 0; i < q->n; i++)
		if (!strcmp(q->key[i], key)) {
			q->val[i] = val;
			return;
		}
	q->key[q->n] = key;
	q->val[q->n++] = val;
}

/* A good report: 4 nodes held 100 s, 80 s training (60 at 4, 20 at 2). */
static void good_query(struct query *q)
{
	static const char *const kv[][2] = {
		{ "v", "1" },
		{ "t", "1764630600456" },
		{ "wall_ms", "100000" },
		{ "train_wall_ms", "90000" },
		{ "held_nms", "400000" },
		{ "training_nms", "320000" },
		{ "waiting_nms", "20000" },
		{ "resize_restart_nms", "10000" },
		{ "resize_inplace_nms", "5000" },
		{ "resize_swap_nms", "0" },
		{ "detect_nms", "15000" },
		{ "redo_nms", "10000" },
		{ "checkpoint_nms", "10000" },
		{ "outside_nms", "10000" },
		{ "at", "4:240000,2:80000" },
		{ "steps", "4544" },
		{ "redone", "120" },
		{ "world", "4" },
		{ "held", "4" },
		{ "phase", "training" },
	};

	q->n = 0;
	for (size_t i = 0; i < N(kv); i++)
		query_set(q, kv[i][0], kv[i][1]);
}

static void account_path(void **state)
{
	struct route r;

	(void)state;
	route_parse("POST", "/v1/groups/42/account", &r);
	assert_int_equal(r.kind, ROUTE_ACCOUNT);
	assert_int_equal(r.id, 42);
	assert_true(r.method_ok);
	assert_true(route_needs_auth(&r));
	route_parse("GET", "/v1/groups/42/account", &r);
	assert_int_equal(r.kind, ROUTE_ACCOUNT);
	assert_true(r.method_ok);
	route_parse("DELETE", "/v1/groups/42/account", &r);
	assert_false(r.method_ok);
	assert_string_equal(r.allow, "GET, HEAD, POST");
	route_parse("POST", "/v1/groups/42/account/x", &r);
	assert_int_equal(r.kind, ROUTE_NOT_FOUND);
}

static void account_good(void **state)
{
	struct account_report r;
	struct query q;
	elastic_error_t err;

	(void)state;
	good_query(&q);
	assert_int_equal(route_parse_account(query_get, &q, &r, &err), 0);
	assert_int_equal(r.t_ms, 1764630600456ULL);
	assert_int_equal(r.held_nms, 400000);
	assert_int_equal(r.nms[ACCTNAMES_CAUSE_TRAINING], 320000);
	assert_int_equal(r.nms[ACCTNAMES_CAUSE_OUTSIDE], 10000);
	assert_int_equal(r.nat, 2);
	assert_int_equal(r.at_world[1], 2);
	assert_int_equal(r.at_nms[1], 80000);
	assert_int_equal(r.world, 4);
	assert_int_equal(r.phase, ACCTNAMES_PHASE_TRAINING);
	assert_int_equal(r.event, -1);
	assert_false(r.resized);
	assert_false(r.final);

	query_set(&q, "event", "spare-swap");
	query_set(&q, "resize", "preemption:inplace:4700:3");
	query_set(&q, "final", "1");
	query_set(&q, "at", "");
	query_set(&q, "phase", "ended");
	assert_int_equal(route_parse_account(query_get, &q, &r, &err), 0);
	assert_int_equal(r.event, ACCTNAMES_KIND_SPARE_SWAP);
	assert_true(r.resized);
	assert_int_equal(r.resize_kind, ACCTNAMES_KIND_PREEMPTION);
	assert_int_equal(r.resize_path, ACCTNAMES_PATH_INPLACE);
	assert_int_equal(r.resize_ms, 4700);
	assert_int_equal(r.resize_seq, 3);
	assert_true(r.final);
	assert_int_equal(r.nat, 0);
	assert_int_equal(r.phase, ACCTNAMES_PHASE_ENDED);

	/* Within a second of node-time the sums may differ (rounding). */
	query_set(&q, "held_nms", "401000");
	assert_int_equal(route_parse_account(query_get, &q, &r, &err), 0);
	query_set(&q, "held_nms", "9007199254740992");
	query_set(&q, "outside_nms", "9007199254350992");
	assert_int_equal(route_parse_account(query_get, &q, &r, &err), 0);
}

/* One number bad in each way (over its bound, missing, empty, signed,
 * decimal): refused, the message starting with its key. */
static void number_refused(const char *key, const char *over)
{
	const char *bad[] = { over,  NULL, "",	   "-1", "+1",
			      "1.5", " 1", "0x10", "1e3" };
	struct account_report r;
	elastic_error_t err;
	struct query q;
	char want[64];

	snprintf(want, sizeof(want), "%s: ", key);
	for (size_t b = 0; b < N(bad); b++) {
		good_query(&q);
		query_set(&q, key, bad[b]);
		assert_int_equal(route_parse_account(query_get, &q, &r, &err),
				 -1);
		if (strncmp(err.text, want, strlen(want)))
			fail_msg("%s=%s: %s", key,
				 bad[b] ? bad[b] : "(missing)", err.text);
	}
}

/* Each number, and each cause's node-ms by the contract's names. */
static void account_numbers(void **state)
{
	static const struct {
		const char *key, *over;
	} nums[] = {
		{ "t", "9007199254740993" },
		{ "wall_ms", "1099511627777" },
		{ "train_wall_ms", "1099511627777" },
		{ "held_nms", "9007199254740993" },
		{ "steps", "1099511627777" },
		{ "redone", "1099511627777" },
		{ "world", "65537" },
		{ "held", "65537" },
	};
	char key[48];

	(void)state;
	for (size_t i = 0; i < N(nums); i++)
		number_refused(nums[i].key, nums[i].over);
	for (unsigned c = 0; c < ACCTNAMES_NCAUSES; c++) {
		snprintf(key, sizeof(key), "%s_nms",
			 acctnames_cause_name((enum acctnames_cause)c));
		number_refused(key, "9007199254740993");
	}
}

/* The words and lists: one bad value each, the message names it. */
static void account_words(void **state)
{
	static const struct {
		const char *key, *val, *why;
	} bad[] = {
		{ "v", NULL, "v: " },
		{ "v", "2", "v: " },
		{ "phase", NULL, "phase: " },
		{ "phase", "Training", "phase: " },
		{ "event", "", "event: " },
		{ "event", "spare_swap", "event: " },
		{ "resize", "growth:restart:5", "resize: " },
		{ "resize", "growth:restart:5:0", "resize: " },
		{ "resize", "growth:move:5:1", "resize: " },
		{ "resize", "grow:restart:5:1", "resize: " },
		{ "resize", "growth:restart:-5:1", "resize: " },
		{ "resize", "growth:restart:5:1:2", "resize: " },
		{ "final", "yes", "final: " },
		{ "at", "4", "at: " },
		{ "at", "0:320000", "at: " },
		{ "at", "65537:320000", "at: " },
		{ "at", "4:320000,", "at: " },
		{ "at", "4:32x", "at: " },
		{ "at", "4:200000,2:20000", "at: the sums" },
		{ "held_nms", "401001",
		  "account: causes do not add up to held" },
		{ "held_nms", "398999",
		  "account: causes do not add up to held" },
	};
	struct account_report r;
	struct query q;
	elastic_error_t err;
	char many[64 * 12 + 16];
	size_t len = 0;

	(void)state;
	for (size_t i = 0; i < N(bad); i++) {
		good_query(&q);
		query_set(&q, bad[i].key, bad[i].val);
		assert_int_equal(route_parse_account(query_get, &q, &r, &err),
				 -1);
		if (strncmp(err.text, bad[i].why, strlen(bad[i].why)))
			fail_msg("%s=%s: %s", bad[i].key,
				 bad[i].val ? bad[i].val : "(missing)",
				 err.text);
	}
	/* at: 64 pairs, not 65. */
	for (int w = 1; w <= 64; w++)
		len +=
		    (size_t)snprintf(many + len, sizeof(many) - len, "%s%d:%d",
				     w > 1 ? "," : "", w, w == 1 ? 320000 : 0);
	good_query(&q);
	query_set(&q, "at", many);
	assert_int_equal(route_parse_account(query_get, &q, &r, &err), 0);
	assert_int_equal(r.nat, 64);
	snprintf(many + len, sizeof(many) - len, ",65:0");
	assert_int_equal(route_parse_account(query_get, &q, &r, &err), -1);
	assert_non_null(strstr(err.text, "at: "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(account_path),
		cmocka_unit_test(account_good),
		cmocka_unit_test(account_numbers),
		cmocka_unit_test(account_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
