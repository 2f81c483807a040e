/* Unit tests of trace.c: spot-availability traces, their mapping onto a
 * cluster, time compression and the oracle; and the real trace of
 * testsuite/bench/traces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace.h"
#include "fixture.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The made-up trace: four nodes, two at first.
 *
 *     time (ms)   0     1000   3000      4000   6000   8000
 *     event       +a +b  +c    -a +d     -b     +a     -c
 *     A after     2      3     3 (2,3)   2      3      2
 *
 * Pieces of A: [0,1000) 2, [1000,3000) 3, [3000,4000) 3, [4000,6000) 2,
 * [6000,8000) 3: min 2, max 3, duration 8000 ms, integral 2000 + 6000 +
 * 3000 + 4000 + 6000 = 21000 node-ms, mean 21000 / 8000 = 2.625.
 */
static const char small[] = "0,add,a\n"
			    "0,add,b\n"
			    "1000,add,c\n"
			    "3000,remove,a\n"
			    "3000,add,d\n"
			    "4000,remove,b\n"
			    "6000,add,a\n"
			    "8000,remove,c\n";

struct ev {
	uint64_t ms;
	bool add;
	uint32_t node;
	uint32_t available;
};

/* Its events: nodes a, b, c, d are 0, 1, 2, 3. */
static const struct ev small_events[] = {
	{ 0, true, 0, 1 },     { 0, true, 1, 2 },     { 1000, true, 2, 3 },
	{ 3000, false, 0, 2 }, { 3000, true, 3, 3 },  { 4000, false, 1, 2 },
	{ 6000, true, 0, 3 },  { 8000, false, 2, 2 },
};

static struct trace *must_parse(const char *text)
{
	elastic_error_t err = { "" };
	struct trace *t = trace_parse(text, "t.csv", &err);

	if (!t)
		fail_msg("trace_parse(\"%.200s\"): %s", text, err.text);
	return t;
}

static struct trace *must_map(const struct trace *t, unsigned nodes)
{
	elastic_error_t err = { "" };
	struct trace *m = trace_map(t, nodes, &err);

	if (!m)
		fail_msg("trace_map(%u): %s", nodes, err.text);
	return m;
}

static void must_fail(const char *text, const char *msg)
{
	elastic_error_t err = { "" };
	struct trace *t = trace_parse(text, "t.csv", &err);

	if (t)
		fail_msg("trace_parse(\"%.200s\") parsed, want: %s", text, msg);
	assert_string_equal(err.text, msg);
}

static void expect_events(const struct trace *t, const struct ev *want,
			  size_t n)
{
	assert_int_equal(trace_event_count(t), n);
	for (size_t i = 0; i < n; i++) {
		const struct trace_event *e = trace_event(t, i);

		if (e->ms != want[i].ms || e->add != want[i].add ||
		    e->node != want[i].node ||
		    e->available != want[i].available)
			fail_msg("event %zu: %llu %s %u (%u up), want %llu %s "
				 "%u (%u up)",
				 i, (unsigned long long)e->ms,
				 e->add ? "add" : "remove", e->node,
				 e->available, (unsigned long long)want[i].ms,
				 want[i].add ? "add" : "remove", want[i].node,
				 want[i].available);
	}
}

/* text on a cluster of nodes: its events and node-ms (over the trace's
 * duration, which the mapping keeps). */
static void expect_map(const char *text, unsigned nodes, const struct ev *want,
		       size_t n, uint64_t node_ms)
{
	struct trace *t = must_parse(text);
	struct trace *m = must_map(t, nodes);

	expect_events(m, want, n);
	assert_int_equal(trace_duration_ms(m), trace_duration_ms(t));
	assert_int_equal(trace_node_ms(m), node_ms);
	for (size_t i = 0; i < trace_node_count(m); i++) {
		char name[24];

		snprintf(name, sizeof(name), "%zu", i);
		assert_string_equal(trace_node_name(m, i), name);
	}
	trace_destroy(m);
	trace_destroy(t);
}

static void parse_small(void **state)
{
	struct trace *t = must_parse(small);

	(void)state;
	expect_events(t, small_events, N(small_events));
	assert_int_equal(trace_node_count(t), 4);
	assert_string_equal(trace_node_name(t, 0), "a");
	assert_string_equal(trace_node_name(t, 3), "d");
	assert_int_equal(trace_duration_ms(t), 8000);
	assert_int_equal(trace_available_min(t), 2);
	assert_int_equal(trace_available_max(t), 3);
	assert_int_equal(trace_node_ms(t), 21000);
	assert_true(trace_available_mean(t) == 2.625);
	/* The step function: the events at a time count from that time. */
	assert_int_equal(trace_available_at(t, 0), 2);
	assert_int_equal(trace_available_at(t, 999), 2);
	assert_int_equal(trace_available_at(t, 1000), 3);
	assert_int_equal(trace_available_at(t, 3000), 3);
	assert_int_equal(trace_available_at(t, 4000), 2);
	assert_int_equal(trace_available_at(t, 7999), 3);
	assert_int_equal(trace_available_at(t, 8000), 2);
	assert_int_equal(trace_available_at(t, UINT64_MAX), 2);
	trace_destroy(t);
	trace_destroy(NULL);
}

/* The same events however the lines end, and what is before the first
 * event counts as nothing available. */
static void parse_forms(void **state)
{
	static const char *const same[] = {
		"0,add,a\r\n5,add,b\r\n9,remove,a\r\n",
		"0,add,a\n5,add,b\n9,remove,a",
		"0,add,a\n5,add,b\n9,remove,a\n\n",
		"0,add,a\n5,add,b\n9,remove,a\n \t\r\n",
		"0,add,a\n5,add,b\n9,remove,a\n \t",
	};
	char name[TRACE_NAME_MAX + 1];
	char text[128];
	struct trace *t;

	(void)state;
	for (size_t i = 0; i < N(same); i++) {
		t = must_parse(same[i]);
		assert_int_equal(trace_event_count(t), 3);
		assert_int_equal(trace_node_ms(t), 1 * 5 + 2 * 4);
		trace_destroy(t);
	}
	/* [0,10) 0, [10,30) 1: min 0, mean 20 / 30. */
	t = must_parse("10,add,x\n30,add,y\n");
	assert_int_equal(trace_available_at(t, 9), 0);
	assert_int_equal(trace_available_min(t), 0);
	assert_int_equal(trace_available_max(t), 2);
	assert_true(fabs(trace_available_mean(t) - 20.0 / 30) < 1e-12);
	trace_destroy(t);
	/* All at time 0: the mean is A(0). */
	t = must_parse("0,add,x\n0,add,y\n0,remove,x\n");
	assert_int_equal(trace_duration_ms(t), 0);
	assert_true(trace_available_mean(t) == 1);
	trace_destroy(t);
	/* The longest name, every character allowed, the latest time. */
	memset(name, 'n', TRACE_NAME_MAX);
	memcpy(name, "Az09._-", 7);
	name[TRACE_NAME_MAX] = '\0';
	snprintf(text, sizeof(text), "1000000000000,add,%s", name);
	t = must_parse(text);
	assert_string_equal(trace_node_name(t, 0), name);
	assert_int_equal(trace_duration_ms(t), TRACE_MS_MAX);
	trace_destroy(t);
}

#define FIELDS "not <milliseconds>,<add|remove>,<node name>"
#define TIME   "not a time (allowed: whole milliseconds, 0 to 1000000000000)"
#define NAME   "not a node name (allowed: 1 to 64 of A-Z a-z 0-9 . _ -)"

static void parse_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "0,add,a\n1,remov,b\n",
		  "t.csv:2: 'remov': not add or remove" },
		{ "0,ADD,a", "t.csv:1: 'ADD': not add or remove" },
		{ "0,,a", "t.csv:1: '': not add or remove" },
		{ "0,add", "t.csv:1: '0,add': " FIELDS },
		{ "0,add,a,b", "t.csv:1: '0,add,a,b': " FIELDS },
		{ "0 add a", "t.csv:1: '0 add a': " FIELDS },
		{ "x,add,a", "t.csv:1: 'x': " TIME },
		{ ",add,a", "t.csv:1: '': " TIME },
		{ "-1,add,a", "t.csv:1: '-1': " TIME },
		{ " 0,add,a", "t.csv:1: ' 0': " TIME },
		{ "1.5,add,a", "t.csv:1: '1.5': " TIME },
		{ "1000000000001,add,a", "t.csv:1: '1000000000001': " TIME },
		{ "00000000000001,add,a", "t.csv:1: '00000000000001': " TIME },
		{ "5,add,a\n4,add,b",
		  "t.csv:2: '4': before the previous event's 5 (allowed: "
		  "times that never decrease)" },
		{ "0,add,", "t.csv:1: '': " NAME },
		{ "0,add,a b", "t.csv:1: 'a b': " NAME },
		{ "0,add,a ", "t.csv:1: 'a ': " NAME },
		{ "0,add,n\xc3\xa9", "t.csv:1: 'n\xc3\xa9': " NAME },
		{ "0,add,"
		  "n12345678901234567890123456789012345678901234567890123456789"
		  "01"
		  "234",
		  "t.csv:1: "
		  "'n1234567890123456789012345678901234567890123456789012345678"
		  "901"
		  "234': " NAME },
		/* A control character is quoted as an escape. */
		{ "0,a\x01"
		  "d,a",
		  "t.csv:1: 'a\\x01d': not add or remove" },
		{ "0,add,a\n1,add,a\n",
		  "t.csv:2: 'a': added while present (added at line 1)" },
		{ "0,remove,a",
		  "t.csv:1: 'a': removed while absent (never added)" },
		{ "0,add,a\n1,remove,a\n2,remove,a",
		  "t.csv:3: 'a': removed while absent (removed at line 2)" },
		{ "0,add,a\n\n1,add,b\n",
		  "t.csv:2: a blank line (allowed: only as the last line)" },
		{ "0,add,a\n\n\n",
		  "t.csv:2: a blank line (allowed: only as the "
		  "last line)" },
		{ "", "t.csv: no events (one a line: "
		      "<milliseconds>,<add|remove>,<node name>)" },
		{ "\r\n", "t.csv: no events (one a line: "
			  "<milliseconds>,<add|remove>,<node name>)" },
	};

	(void)state;
	for (size_t i = 0; i < N(bad); i++)
		must_fail(bad[i].text, bad[i].msg);
}

/* A long field is quoted in part: the message stays one short line. */
static void parse_error_quote(void **state)
{
	char text[400], msg[400];

	(void)state;
	memset(text, 'x', 300);
	strcpy(text + 300, ",add,a");
	snprintf(msg, sizeof(msg), "t.csv:1: '%.80s': %s", text, TIME);
	must_fail(text, msg);
}

/* The bounds: TRACE_EVENTS_MAX events, TRACE_NODES_MAX distinct nodes. */
static void parse_limits(void **state)
{
	size_t len = (TRACE_EVENTS_MAX + 1) * 16 + 1, o = 0;
	char *text = malloc(len);
	struct trace *t;

	(void)state;
	assert_non_null(text);
	/* n0 added and removed, again and again: one event too many. */
	for (size_t i = 0; i < TRACE_EVENTS_MAX + 1; i++)
		o += (size_t)snprintf(text + o, len - o,
				      i % 2 ? "0,remove,n0\n" : "0,add,n0\n");
	must_fail(text, "t.csv:1000001: one event too many (allowed: at most "
			"1000000)");
	/* The last line gone: the most events are fine. */
	text[o - strlen("0,add,n0\n")] = '\0';
	t = must_parse(text);
	assert_int_equal(trace_event_count(t), TRACE_EVENTS_MAX);
	trace_destroy(t);
	/* One distinct node too many. */
	o = 0;
	for (size_t i = 0; i < TRACE_NODES_MAX + 1; i++)
		o += (size_t)snprintf(text + o, len - o,
				      "0,add,n%zu\n0,remove,n%zu\n", i, i);
	must_fail(text, "t.csv:131073: 'n65536': one node too many "
			"(allowed: at most 65536 distinct)");
	text[o - strlen("0,add,n65536\n0,remove,n65536\n")] = '\0';
	t = must_parse(text);
	assert_int_equal(trace_node_count(t), TRACE_NODES_MAX);
	assert_string_equal(trace_node_name(t, 65535), "n65535");
	trace_destroy(t);
	free(text);
}

static void load_file(void **state)
{
	struct tmp *tmp = *state;
	elastic_error_t err = { "" };
	char msg[300];
	struct trace *t;

	write_text(tmp->path, "0,add,a\r\n10,add,b\r\n20,remove,a\r\n");
	t = trace_load(tmp->path, &err);
	assert_non_null(t);
	assert_int_equal(trace_event_count(t), 3);
	assert_int_equal(trace_node_ms(t), 10 + 2 * 10);
	trace_destroy(t);
	/* Errors name the file as given and the line. */
	write_text(tmp->path, "0,add,a\n10,add,a\n");
	assert_null(trace_load(tmp->path, &err));
	snprintf(msg, sizeof(msg),
		 "%s:2: 'a': added while present (added "
		 "at line 1)",
		 tmp->path);
	assert_string_equal(err.text, msg);
	write_file(tmp->path, "0,add,a\n\0", 9);
	assert_null(trace_load(tmp->path, &err));
	snprintf(msg, sizeof(msg), "%s: contains a NUL byte", tmp->path);
	assert_string_equal(err.text, msg);
	assert_null(trace_load("/nonexistent/t.csv", &err));
	assert_string_equal(err.text, "/nonexistent/t.csv: cannot open: No "
				      "such file or directory");
}

/* Four distinct nodes or fewer than the cluster's: a is cluster node 0,
 * b 1, c 2, d 3, event for event. */
static void map_identity(void **state)
{
	(void)state;
	expect_map(small, 4, small_events, N(small_events), 21000);
	expect_map(small, 5, small_events, N(small_events), 21000);
	expect_map(small, TRACE_NODES_MAX, small_events, N(small_events),
		   21000);
}

/*
 * Three cluster nodes, four trace nodes, at most three at once: K = A and
 * each trace node holds a cluster node while present; an add takes the
 * node that went down last (at first 0, 1, 2).
 *
 *     0 +a: 0   0 +b: 1   1000 +c: 2   3000 -a: 0 down   3000 +d: 0
 *     4000 -b: 1 down   6000 +a: 1   8000 -c: 2 down
 */
static void map_reuse(void **state)
{
	static const struct ev want[] = {
		{ 0, true, 0, 1 },    { 0, true, 1, 2 },
		{ 1000, true, 2, 3 }, { 3000, false, 0, 2 },
		{ 3000, true, 0, 3 }, { 4000, false, 1, 2 },
		{ 6000, true, 1, 3 }, { 8000, false, 2, 2 },
	};

	(void)state;
	expect_map(small, 3, want, N(want), 21000);
}

/*
 * Two cluster nodes, at most three trace nodes at once: K = round(A * 2 /
 * 3), half up: A 1 -> 1, 2 -> 1, 3 -> 2.
 *
 *     0 +a    A 1 K 1: 0 up, held by a
 *     0 +b    A 2 K 1: b waits
 *     1000 +c A 3 K 2: 1 up, held by c
 *     3000 -a A 2 K 1: a's 0 down
 *     3000 +d A 3 K 2: 0 (down last) up, held by d
 *     4000 -b A 2 K 1: b held none: 0, raised last, down; d waits
 *     6000 +a A 3 K 2: 0 up, held by a
 *     8000 -c A 2 K 1: c's 1 down
 *
 * K: [0,1000) 1, [1000,3000) 2, [3000,4000) 2, [4000,6000) 1,
 * [6000,8000) 2, then 1: 1000 + 4000 + 2000 + 2000 + 4000 = 13000
 * node-ms.  On one node, K = round(A / 3) is 1 from the second add on:
 * one event, and the node up until the end, 8000 node-ms.
 */
static void map_scaled(void **state)
{
	static const struct ev want[] = {
		{ 0, true, 0, 1 },     { 1000, true, 1, 2 },
		{ 3000, false, 0, 1 }, { 3000, true, 0, 2 },
		{ 4000, false, 0, 1 }, { 6000, true, 0, 2 },
		{ 8000, false, 1, 1 },
	};
	static const struct ev one[] = { { 0, true, 0, 1 } };

	(void)state;
	expect_map(small, 2, want, N(want), 13000);
	expect_map(small, 1, one, N(one), 8000);
}

/*
 * Who holds what when K does not follow A: two cluster nodes, at most
 * three trace nodes at once (K as above).
 *
 *     0 +a  K 1: 0 up (a)     0 +b  K 1: b waits      0 +c  K 2: 1 up (c)
 *     10 -b K 1: b held none: 1, raised last, down; c waits
 *     20 -a K 1: a's 0 passes to c, the first waiting
 *     30 -c K 0: c's 0 down
 *
 * K: [0,10) 2, [10,30) 1: 40 node-ms.
 */
static void map_line(void **state)
{
	static const struct ev want[] = {
		{ 0, true, 0, 1 },
		{ 0, true, 1, 2 },
		{ 10, false, 1, 1 },
		{ 30, false, 0, 0 },
	};

	(void)state;
	expect_map("0,add,a\n0,add,b\n0,add,c\n"
		   "10,remove,b\n20,remove,a\n30,remove,c\n",
		   2, want, N(want), 40);
}

static void map_errors(void **state)
{
	struct trace *t = must_parse(small);
	elastic_error_t err = { "" };

	(void)state;
	assert_null(trace_map(t, 0, &err));
	assert_string_equal(err.text, "0 cluster nodes: out of range "
				      "(allowed: 1 to 65536)");
	assert_null(trace_map(t, TRACE_NODES_MAX + 1, &err));
	assert_string_equal(err.text, "65537 cluster nodes: out of range "
				      "(allowed: 1 to 65536)");
	trace_destroy(t);
}

static void speed(void **state)
{
	static const double bad[] = { 0, -1, 0.0009, 1000001, NAN, INFINITY };
	elastic_error_t err = { "" };

	(void)state;
	assert_int_equal(trace_check_speed(1, &err), 0);
	assert_int_equal(trace_check_speed(TRACE_SPEED_MIN, &err), 0);
	assert_int_equal(trace_check_speed(TRACE_SPEED_MAX, &err), 0);
	for (size_t i = 0; i < N(bad); i++)
		assert_int_equal(trace_check_speed(bad[i], &err), -1);
	assert_int_equal(trace_check_speed(0, &err), -1);
	assert_string_equal(err.text, "speed 0: not a time compression factor "
				      "(allowed: 0.001 to 1000000)");
	/* 8000 / 2, 1000 / 3 = 333.3, 2000 / 3 = 666.7, 1 / 0.001. */
	assert_int_equal(trace_at_speed_ms(8000, 2), 4000);
	assert_int_equal(trace_at_speed_ms(1000, 3), 333);
	assert_int_equal(trace_at_speed_ms(2000, 3), 667);
	assert_int_equal(trace_at_speed_ms(1, 0.001), 1000);
	assert_int_equal(trace_at_speed_ms(TRACE_MS_MAX, TRACE_SPEED_MIN),
			 TRACE_MS_MAX * 1000);
}

/*
 * The small trace at speed 2 and 4 samples per second per node: 8000 ms
 * last 4 s; 21000 node-ms are 21 node-seconds of trace time, 10.5 at
 * speed 2; 10.5 * 4 = 42 samples.
 *
 * Time to S samples: S / 4 node-seconds at speed 2 are S / 4 * 2000 =
 * 500 S node-ms of trace time.  Cumulated node-ms at the pieces' ends:
 * 1000: 2000, 3000: 8000, 4000: 11000, 6000: 15000, 8000: 21000.
 *   16 samples: 8000, reached at 3000 ms: 1.5 s
 *   20 samples: 10000, in [3000,4000) at 3 nodes: 3000 + 2000 / 3 ms,
 *               11 / 6 s
 *   22 samples: 11000 at 4000 ms: 2 s
 *   42 samples: all of it, at 8000 ms: 4 s; 42.5: never
 */
static void oracle(void **state)
{
	struct trace *t = must_parse(small);
	struct trace_oracle o;
	elastic_error_t err = { "" };
	double s = -1;

	(void)state;
	assert_int_equal(trace_oracle(t, 2, 4, &o, &err), 0);
	assert_true(o.seconds == 4);
	assert_true(o.node_seconds == 10.5);
	assert_true(o.samples == 42);
	assert_int_equal(trace_oracle_time_to(t, 2, 4, 16, &s, &err), 1);
	assert_true(s == 1.5);
	assert_int_equal(trace_oracle_time_to(t, 2, 4, 20, &s, &err), 1);
	assert_true(fabs(s - 11.0 / 6) < 1e-12);
	assert_int_equal(trace_oracle_time_to(t, 2, 4, 22, &s, &err), 1);
	assert_true(s == 2);
	assert_int_equal(trace_oracle_time_to(t, 2, 4, 42, &s, &err), 1);
	assert_true(s == 4);
	assert_int_equal(trace_oracle_time_to(t, 2, 4, 0, &s, &err), 1);
	assert_true(s == 0);
	s = -1;
	assert_int_equal(trace_oracle_time_to(t, 2, 4, 42.5, &s, &err), 0);
	assert_true(s == -1);
	/* Before the first event nothing is available: 1 sample on
	 * "10,add,x\n30,..." at speed 1, rate 1 takes 10 + 1000 ms. */
	trace_destroy(t);
	t = must_parse("10,add,x\n2000,remove,x\n");
	assert_int_equal(trace_oracle_time_to(t, 1, 1, 1, &s, &err), 1);
	assert_true(fabs(s - 1.010) < 1e-12);
	trace_destroy(t);
}

static void oracle_errors(void **state)
{
	struct trace *t = must_parse(small);
	struct trace_oracle o = { 1, 2, 3 };
	const struct trace_oracle before = o;
	elastic_error_t err = { "" };
	double s = -1;

	(void)state;
	assert_int_equal(trace_oracle(t, 0, 4, &o, &err), -1);
	assert_string_equal(err.text, "speed 0: not a time compression factor "
				      "(allowed: 0.001 to 1000000)");
	assert_int_equal(trace_oracle(t, 1, 0, &o, &err), -1);
	assert_string_equal(err.text, "rate 0: not a throughput (allowed: "
				      "samples per second per node, above 0)");
	assert_int_equal(trace_oracle(t, 1, NAN, &o, &err), -1);
	assert_int_equal(trace_oracle(t, 1, INFINITY, &o, &err), -1);
	assert_memory_equal(&o, &before, sizeof(o));
	assert_int_equal(trace_oracle_time_to(t, 1, -2, 1, &s, &err), -1);
	assert_string_equal(err.text, "rate -2: not a throughput (allowed: "
				      "samples per second per node, above 0)");
	assert_int_equal(trace_oracle_time_to(t, 1, 1, -1, &s, &err), -1);
	assert_string_equal(err.text, "-1 samples: not an amount of training "
				      "(allowed: 0 or more)");
	assert_int_equal(trace_oracle_time_to(t, 1, 1, NAN, &s, &err), -1);
	assert_true(s == -1);
	trace_destroy(t);
}

static struct trace *load_real(void)
{
	elastic_error_t err = { "" };
	struct trace *t = trace_load(TRACES_DIR "/aws-p3-spot.csv", &err);

	if (!t)
		fail_msg("%s", err.text);
	return t;
}

/* What its README says: 344 events over 11.4 hours on up to 32 nodes
 * (177 distinct); and it has no add or remove out of turn. */
static void real_trace(void **state)
{
	struct trace *t = load_real();

	(void)state;
	assert_int_equal(trace_event_count(t), 344);
	assert_int_equal(trace_node_count(t), 177);
	assert_int_equal(trace_available_max(t), 32);
	assert_int_equal(trace_available_min(t), 10);
	assert_int_equal(trace_duration_ms(t), 40920000);
	assert_true(fabs(trace_duration_ms(t) / 3600e3 - 11.4) < 0.05);
	assert_int_equal(trace_node_ms(t), 983220000);
	assert_true(fabs(trace_available_mean(t) - 24.028) < 0.001);
	trace_destroy(t);
}

/*
 * The real trace on clusters: on 32 nodes or more, the same availability
 * (A never passes 32); on 16 and 8, about A / 2 and A / 4, each cluster
 * node up at most once at a time (trace_map() checks as it goes).  The
 * node-ms agree with a model of the rule written apart in Python.
 */
static void real_trace_mapped(void **state)
{
	static const struct {
		unsigned nodes;
		size_t events, distinct;
		unsigned min, max;
		uint64_t node_ms;
	} want[] = {
		{ 400, 344, 177, 10, 32, 983220000 },
		{ 32, 344, 32, 10, 32, 983220000 },
		{ 16, 165, 16, 5, 16, 499800000 },
		{ 8, 75, 8, 3, 8, 252840000 },
		{ 1, 10, 1, 0, 1, 34140000 },
	};
	struct trace *t = load_real();

	(void)state;
	for (size_t i = 0; i < N(want); i++) {
		struct trace *m = must_map(t, want[i].nodes);

		assert_int_equal(trace_event_count(m), want[i].events);
		assert_int_equal(trace_node_count(m), want[i].distinct);
		assert_int_equal(trace_available_min(m), want[i].min);
		assert_int_equal(trace_available_max(m), want[i].max);
		assert_int_equal(trace_node_ms(m), want[i].node_ms);
		assert_int_equal(trace_duration_ms(m), 40920000);
		trace_destroy(m);
	}
	trace_destroy(t);
}

/*
 * What the replay will do with the API: the real trace on 8 cluster
 * hosts at speed 60, each event a time of the replay and a host; the
 * oracle's node-seconds are the events' own integral, and the oracle
 * reaches half its samples half way through its node-seconds.
 */
static void replay_plan(void **state)
{
	static const char *const hosts[] = { "n1", "n2", "n3", "n4",
					     "n5", "n6", "n7", "n8" };
	const double speed = 60, rate = 10;
	struct trace *t = load_real();
	struct trace *m = must_map(t, N(hosts));
	elastic_error_t err = { "" };
	struct trace_oracle o;
	uint64_t prev = 0, node_ms = 0;
	unsigned up = 0;
	double half, s;

	(void)state;
	assert_int_equal(trace_check_speed(speed, &err), 0);
	for (size_t i = 0; i < trace_event_count(m); i++) {
		const struct trace_event *e = trace_event(m, i);
		uint64_t at = trace_at_speed_ms(e->ms, speed);
		const char *host =
		    hosts[strtoul(trace_node_name(m, e->node), NULL, 10)];

		assert_true(at >= prev);
		assert_string_equal(host, hosts[e->node]);
		node_ms += (uint64_t)up *
			   (e->ms - (i ? trace_event(m, i - 1)->ms : 0));
		up = e->available;
		assert_true(up <= N(hosts));
		prev = at;
	}
	node_ms +=
	    (uint64_t)up * (trace_duration_ms(m) -
			    trace_event(m, trace_event_count(m) - 1)->ms);
	assert_int_equal(node_ms, trace_node_ms(m));
	assert_int_equal(trace_oracle(m, speed, rate, &o, &err), 0);
	assert_true(fabs(o.seconds - 40920.0 / 60) < 1e-9);
	assert_true(fabs(o.node_seconds - node_ms / 1000.0 / speed) < 1e-6);
	assert_true(fabs(o.samples - o.node_seconds * rate) < 1e-6);
	half = o.samples / 2;
	assert_int_equal(trace_oracle_time_to(m, speed, rate, half, &s, &err),
			 1);
	assert_true(s > 0 && s < o.seconds);
	assert_int_equal(
	    trace_oracle_time_to(m, speed, rate, o.samples * 1.01, &s, &err),
	    0);
	trace_destroy(m);
	trace_destroy(t);
}

static int setup(void **state)
{
	return tmp_make(state, "test_trace", "t.csv");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_small),
		cmocka_unit_test(parse_forms),
		cmocka_unit_test(parse_errors),
		cmocka_unit_test(parse_error_quote),
		cmocka_unit_test(parse_limits),
		cmocka_unit_test_setup_teardown(load_file, setup, tmp_teardown),
		cmocka_unit_test(map_identity),
		cmocka_unit_test(map_reuse),
		cmocka_unit_test(map_scaled),
		cmocka_unit_test(map_line),
		cmocka_unit_test(map_errors),
		cmocka_unit_test(speed),
		cmocka_unit_test(oracle),
		cmocka_unit_test(oracle_errors),
		cmocka_unit_test(real_trace),
		cmocka_unit_test(real_trace_mapped),
		cmocka_unit_test(replay_plan),
	};

	return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
