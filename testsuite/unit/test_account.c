/*
 * Unit tests of a group's account (elasticd/account.h): the series and
 * its thinning, the events' bound, the JSON and its reading back, the
 * summary for AdminComment, which stored files go, and the metrics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elasticd/account.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A report at t (ms) of 4 nodes held for wall ms, 80% of it training. */
static struct account_report report_at(uint64_t t, uint64_t wall)
{
	struct account_report r = { .event = -1 };

	r.t_ms = t;
	r.wall_ms = wall;
	r.train_wall_ms = wall * 9 / 10;
	r.held_nms = 4 * wall;
	r.nms[ACCTNAMES_CAUSE_TRAINING] = 4 * wall * 8 / 10;
	r.nms[ACCTNAMES_CAUSE_WAITING] =
	    4 * wall - r.nms[ACCTNAMES_CAUSE_TRAINING];
	r.nat = 2;
	r.at_world[0] = 4;
	r.at_nms[0] = r.nms[ACCTNAMES_CAUSE_TRAINING] - 1000;
	r.at_world[1] = 2;
	r.at_nms[1] = 1000;
	r.steps = wall / 10;
	r.world = r.held = 4;
	r.phase = ACCTNAMES_PHASE_TRAINING;
	return r;
}

static struct account *make(void)
{
	struct account *a = account_create(42, 1000, "alice", "ml", "batch");

	assert_non_null(a);
	return a;
}

/* 2000 points at most: when full, every other point of the older half
 * goes, and the newest are all kept. */
static void series_thinned(void **state)
{
	struct account *a = make();

	(void)state;
	for (uint64_t i = 0; i < ACCOUNT_SERIES_MAX; i++) {
		struct account_report r = report_at(1000000 + i, 1000 + i);

		assert_int_equal(account_apply(a, &r), 0);
	}
	assert_int_equal(a->npoints, ACCOUNT_SERIES_MAX);
	{
		struct account_report r = report_at(1000000 + 2000, 3000);

		assert_int_equal(account_apply(a, &r), 0);
	}
	assert_int_equal(a->npoints, 1501);
	/* The older half: every other point, oldest first. */
	assert_int_equal(a->series[0].t_ms, 1000000);
	assert_int_equal(a->series[1].t_ms, 1000002);
	assert_int_equal(a->series[499].t_ms, 1000998);
	/* The newer half whole, then the new point. */
	assert_int_equal(a->series[500].t_ms, 1001000);
	assert_int_equal(a->series[1499].t_ms, 1001999);
	assert_int_equal(a->series[1500].t_ms, 1002000);
	for (size_t i = 1; i < a->npoints; i++)
		assert_true(a->series[i].t_ms > a->series[i - 1].t_ms);
	account_destroy(a);
}

/* 512 events at most, the oldest dropped; a report may carry both a
 * resize's end and the next one's start. */
static void events_bounded(void **state)
{
	struct account *a = make();

	(void)state;
	for (uint64_t i = 0; i < 300; i++) {
		struct account_report r = report_at(5000 + i, 1000);

		r.event = ACCTNAMES_KIND_GROWTH;
		r.resized = true;
		r.resize_kind = ACCTNAMES_KIND_CRASH;
		r.resize_path = ACCTNAMES_PATH_SWAP;
		r.resize_ms = 100 + i;
		r.resize_seq = i + 1;
		assert_int_equal(account_apply(a, &r), 0);
	}
	assert_int_equal(a->nevents, ACCOUNT_EVENTS_MAX);
	/* 600 events: the first 88 dropped (44 reports' two). */
	assert_int_equal(a->events[0].t_ms, 5044);
	assert_false(a->events[0].end);
	assert_true(a->events[1].end);
	assert_int_equal(a->events[1].seq, 45);
	assert_int_equal(a->events[511].seq, 300);
	assert_int_equal(a->events[511].path, ACCTNAMES_PATH_SWAP);
	account_destroy(a);
}

static void render_and_back(void **state)
{
	struct account *a = make(), *b;
	struct account_report r = report_at(1764630600456ULL, 600333);
	elastic_error_t err;
	char *text, *again;

	(void)state;
	r.event = ACCTNAMES_KIND_PREEMPTION;
	assert_int_equal(account_apply(a, &r), 0);
	r = report_at(1764630604956ULL, 604833);
	r.resized = true;
	r.resize_kind = ACCTNAMES_KIND_PREEMPTION;
	r.resize_path = ACCTNAMES_PATH_RESTART;
	r.resize_ms = 4500;
	r.resize_seq = 1;
	assert_int_equal(account_apply(a, &r), 0);
	text = account_render(a, false);
	assert_non_null(text);
	/* The contract's fields, decimals as such. */
	static const char *const want[] = {
		"\"id\":42",
		"\"user\":\"alice\"",
		"\"uid\":1000",
		"\"account\":\"ml\"",
		"\"partition\":\"batch\"",
		"\"ended\":false",
		"\"start\":1764630000.123",
		"\"updated\":1764630604.956",
		"\"wall_seconds\":604.833",
		"\"train_wall_seconds\":544.349",
		"\"node_seconds\":{\"held\":2419.332,\"training\":1935.465,"
		"\"waiting\":483.867,\"resize_restart\":0.0,",
		"\"outside\":0.0}",
		"\"training_at\":{\"4\":1934.465,\"2\":1.0}",
		"\"goodput\":0.8",
		"\"ettr\":0.9",
		"\"phase\":\"training\"",
		"\"series\":[{\"t\":1764630600.456,\"world\":4,\"held\":4,"
		"\"steps\":60033,\"phase\":\"training\"},",
		"\"events\":[{\"t\":1764630600.456,\"kind\":\"preemption\"},"
		"{\"t\":1764630604.956,\"kind\":\"preemption\",\"path\":"
		"\"restart\",\"seconds\":4.5,\"seq\":1}]",
	};
	for (size_t i = 0; i < N(want); i++)
		if (!strstr(text, want[i]))
			fail_msg("%s not in %s", want[i], text);
	/* Read back, it renders the same (ended now). */
	b = account_parse(text, &err);
	assert_non_null(b);
	assert_int_equal(b->uid, 1000);
	assert_int_equal(b->npoints, 2);
	assert_int_equal(b->nevents, 2);
	again = account_render(b, false);
	assert_string_equal(again, text);
	free(again);
	again = account_render(b, true);
	assert_non_null(strstr(again, "\"ended\":true"));
	free(again);
	free(text);
	account_destroy(b);
	assert_null(account_parse("{\"id\": 3}", &err));
	assert_null(account_parse("[", &err));
	assert_null(account_parse(
	    "{\"id\": 0, \"uid\": 1, \"node_seconds\": {}}", &err));
	account_destroy(a);
}

static void summary_and_check(void **state)
{
	struct account *a = make();
	struct account_report r = report_at(1764630600456ULL, 600000);
	char buf[96];

	(void)state;
	assert_null(account_check(&r));
	assert_int_equal(account_apply(a, &r), 0);
	account_summary(a, buf, sizeof(buf));
	assert_string_equal(buf, "goodput=0.800 ettr=0.900 held_s=2400");
	r.nms[ACCTNAMES_CAUSE_OUTSIDE] = 1001;
	assert_string_equal(account_check(&r),
			    "account: causes do not add up to held");
	r.nms[ACCTNAMES_CAUSE_OUTSIDE] = 1000;
	assert_null(account_check(&r));
	r.at_nms[1] = 2001;
	assert_non_null(account_check(&r));
	account_destroy(a);
}

/* Older than the retention, or beyond the newest max_jobs. */
static void purge_selected(void **state)
{
	const time_t day = 86400, now = 100 * day;
	time_t mtime[] = { now - 40 * day, now, now - 1, now - 29 * day,
			   now - 31 * day };
	bool rm[N(mtime)];

	(void)state;
	assert_int_equal(account_purge_select(mtime, N(mtime), now, 30, 10, rm),
			 2);
	assert_true(rm[0] && rm[4]);
	assert_false(rm[1] || rm[2] || rm[3]);
	/* forever, 2 jobs: the 2 newest stay */
	assert_int_equal(account_purge_select(mtime, N(mtime), now, 0, 2, rm),
			 3);
	assert_false(rm[1] || rm[2]);
	assert_int_equal(account_purge_select(mtime, 0, now, 30, 10, rm), 0);
}

static void metrics_text(void **state)
{
	struct account *a = account_create(7, 1000, "al\"ice", "ml", "");
	struct account_report r = report_at(1764630600456ULL, 600000);
	struct account_hist h = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(account_apply(a, &r), 0);
	account_hist_add(&h, ACCTNAMES_KIND_GROWTH, ACCTNAMES_PATH_RESTART,
			 4700);
	account_hist_add(&h, ACCTNAMES_KIND_GROWTH, ACCTNAMES_PATH_RESTART,
			 100);
	account_hist_add(&h, ACCTNAMES_KIND_GROWTH, ACCTNAMES_PATH_RESTART,
			 400000);
	account_metrics(f, &a, 1, &h);
	fclose(f);
	static const char *const want[] = {
		"# TYPE elasticd_group_node_seconds_total counter\n",
		"elasticd_group_node_seconds_total{job_id=\"7\",user="
		"\"al\\\"ice\","
		"account=\"ml\",partition=\"\",cause=\"training\"} 1920.000\n",
		"elasticd_group_held_nodes{job_id=\"7\",user=\"al\\\"ice\","
		"account=\"ml\",partition=\"\"} 4\n",
		"elasticd_group_goodput_ratio{job_id=\"7\",",
		"} 0.800000\n",
		"# TYPE elasticd_group_steps_total counter\n",
		"# TYPE elasticd_resize_seconds histogram\n",
		"elasticd_resize_seconds_bucket{kind=\"growth\",path="
		"\"restart\","
		"le=\"0.1\"} 1\n",
		"elasticd_resize_seconds_bucket{kind=\"growth\",path="
		"\"restart\","
		"le=\"2.5\"} 1\n",
		"elasticd_resize_seconds_bucket{kind=\"growth\",path="
		"\"restart\","
		"le=\"5\"} 2\n",
		"elasticd_resize_seconds_bucket{kind=\"growth\",path="
		"\"restart\","
		"le=\"300\"} 2\n",
		"elasticd_resize_seconds_bucket{kind=\"growth\",path="
		"\"restart\","
		"le=\"+Inf\"} 3\n",
		"elasticd_resize_seconds_sum{kind=\"growth\",path=\"restart\"} "
		"404.800\n",
		"elasticd_resize_seconds_count{kind=\"shrink\",path=\"swap\"} "
		"0\n",
	};
	for (size_t i = 0; i < N(want); i++)
		if (!strstr(buf, want[i]))
			fail_msg("%s not in %s", want[i], buf);
	free(buf);
	account_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(series_thinned),
		cmocka_unit_test(events_bounded),
		cmocka_unit_test(render_and_back),
		cmocka_unit_test(summary_and_check),
		cmocka_unit_test(purge_selected),
		cmocka_unit_test(metrics_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
