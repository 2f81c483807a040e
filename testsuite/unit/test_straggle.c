/* Unit tests of the straggler rule (src/elastic-run/straggle.c): which
 * rank holds the world back, and which slowness is not a straggler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "elastic-run/straggle.h"

/* Node `node` says rank `rank` is at step, having run run_ms and waited
 * for a CPU wait_ms. */
static void say2(struct straggle *s, size_t node, unsigned rank, unsigned step,
		 char state, unsigned long run_ms, unsigned long wait_ms)
{
	char line[128];

	snprintf(line, sizeof(line), "n%zu r%u=%u/0/%c/%lu/%lu", node, rank,
		 step, state, run_ms, wait_ms);
	assert_int_equal(straggle_heard(s, node, line), 0);
}

/* want_ms of which all but the others' 20 ms a step was waiting. */
static void say(struct straggle *s, size_t node, unsigned rank, unsigned step,
		char state, unsigned long want_ms)
{
	unsigned long run = step * 20UL < want_ms ? step * 20UL : want_ms;

	say2(s, node, rank, step, state, run, want_ms - run);
}

/*
 * Four ranks, two a node, from step `from` to `to`: each takes `ms` per
 * step, but those on node `slow` take slow_ms, waiting for a CPU beyond
 * the others' ms.  want[] carries the ranks' totals from call to call.
 */
static void run(struct straggle *s, unsigned from, unsigned to, size_t slow,
		double ms, double slow_ms, double *want)
{
	for (unsigned step = from; step <= to; step++)
		for (unsigned r = 0; r < 4; r++) {
			double run = ms * step, wait;

			want[r] += (size_t)r / 2 == slow ? slow_ms : ms;
			wait = want[r] > run ? want[r] - run : 0;
			say2(s, r / 2, r, step, 'r',
			     (unsigned long)(want[r] - wait),
			     (unsigned long)wait);
		}
}

static void no_straggler_when_even(void **state)
{
	struct straggle s;
	double want[4] = { 0 }, ratio;

	(void)state;
	straggle_init(&s, 10, 2.0);
	run(&s, 1, 200, (size_t)-1, 20, 20, want);
	assert_int_equal(straggle_find(&s, &ratio), -1);
	assert_true(straggle_median(&s, (size_t)-1) > 19.9);
	assert_true(straggle_median(&s, (size_t)-1) < 20.1);
	straggle_free(&s);
}

/* Node 1 wants its whole (slow) step: named after three windows, once
 * for the node, not once per rank. */
static void slow_node_named(void **state)
{
	struct straggle s;
	double want[4] = { 0 }, ratio;
	int i;

	(void)state;
	straggle_init(&s, 10, 2.0);
	run(&s, 1, 40, (size_t)-1, 20, 20, want);
	run(&s, 41, 60, 1, 20, 200, want);
	assert_int_equal(straggle_find(&s, &ratio), -1);
	run(&s, 61, 80, 1, 20, 200, want);
	i = straggle_find(&s, &ratio);
	assert_true(i >= 0);
	assert_int_equal(s.r[i].node, 1);
	assert_true(ratio > 9.9 && ratio < 10.1);
	assert_int_equal(straggle_find(&s, &ratio), -1);
	straggle_free(&s);
}

/* Under the factor, or above it by less than the floor: not slow. */
static void factor_and_floor(void **state)
{
	struct straggle s;
	double want[4] = { 0 }, ratio;

	(void)state;
	straggle_init(&s, 10, 2.0);
	run(&s, 1, 200, 1, 20, 38, want);
	assert_int_equal(straggle_find(&s, &ratio), -1);
	straggle_free(&s);
	memset(want, 0, sizeof(want));
	straggle_init(&s, 10, 2.0);
	run(&s, 1, 200, 1, 1, 4, want); /* 4x, but 3 ms a step */
	assert_int_equal(straggle_find(&s, &ratio), -1);
	straggle_free(&s);
	/* A site's factor of 1.5 takes 38 ms against 20. */
	memset(want, 0, sizeof(want));
	straggle_init(&s, 10, 1.5);
	run(&s, 1, 200, 1, 20, 38, want);
	assert_true(straggle_find(&s, &ratio) >= 0);
	straggle_free(&s);
}

/* One slow window (a save nobody announced, a loader's refill) is not a
 * straggler; nor is a save that is announced, however long. */
static void single_window_and_saves(void **state)
{
	struct straggle s;
	double want[4] = { 0 }, ratio;

	(void)state;
	straggle_init(&s, 10, 2.0);
	for (unsigned k = 0; k < 10; k++) {
		run(&s, 1 + 30 * k, 20 + 30 * k, (size_t)-1, 20, 20, want);
		/* Rank 0 spends 2 s on a save inside one step. */
		want[0] += 2000;
		run(&s, 21 + 30 * k, 30 + 30 * k, (size_t)-1, 20, 20, want);
	}
	assert_int_equal(straggle_find(&s, &ratio), -1);
	straggle_free(&s);
	/* Announced: the window is dropped. */
	memset(want, 0, sizeof(want));
	straggle_init(&s, 10, 2.0);
	run(&s, 1, 20, (size_t)-1, 20, 20, want);
	for (unsigned k = 0; k < 5; k++) {
		want[0] += 5000;
		say(&s, 0, 0, 20 + 20 * k, 's', (unsigned long)want[0]);
		run(&s, 21 + 20 * k, 40 + 20 * k, (size_t)-1, 20, 20, want);
	}
	assert_int_equal(straggle_find(&s, &ratio), -1);
	straggle_free(&s);
}

/* A rank's number reported by another node, or with less want (a new
 * process), starts a new window; words without a want are skipped. */
static void restarts_and_old_words(void **state)
{
	struct straggle s;
	double want[4] = { 0 }, ratio;

	(void)state;
	straggle_init(&s, 10, 2.0);
	run(&s, 1, 25, (size_t)-1, 20, 20, want);
	say(&s, 1, 0, 26, 'r', 10); /* rank 0 now on node 1, a new process */
	assert_int_equal(s.r[0].ref_run, 10);
	assert_int_equal(straggle_heard(&s, 0, "n0 r9=5/0/r r8=x"), 0);
	for (size_t i = 0; i < s.n; i++)
		assert_int_not_equal(s.r[i].rank, 9);
	assert_int_equal(straggle_find(&s, &ratio), -1);
	straggle_free(&s);
}

/* A rank with more work than the others (rank 0 logs, evaluates, saves
 * unannounced at every step) holds the world back, but runs all its time:
 * its node is not slow.  The same time spent waiting for a CPU is. */
static void own_work_is_not_slow(void **state)
{
	struct straggle s;
	double ratio;
	unsigned long run[4] = { 0 }, wait[4] = { 0 };

	(void)state;
	straggle_init(&s, 10, 2.0);
	for (unsigned step = 1; step <= 200; step++)
		for (unsigned r = 0; r < 4; r++) {
			run[r] += r == 0 ? 70 : 20;
			wait[r] += 1;
			say2(&s, r / 2, r, step, 'r', run[r], wait[r]);
		}
	assert_int_equal(straggle_find(&s, &ratio), -1);
	straggle_free(&s);
	memset(run, 0, sizeof(run));
	memset(wait, 0, sizeof(wait));
	straggle_init(&s, 10, 2.0);
	for (unsigned step = 1; step <= 200; step++)
		for (unsigned r = 0; r < 4; r++) {
			run[r] += 20;
			wait[r] += r == 0 ? 51 : 1;
			say2(&s, r / 2, r, step, 'r', run[r], wait[r]);
		}
	assert_true(straggle_find(&s, &ratio) >= 0);
	assert_true(ratio > 3.3 && ratio < 3.5);
	straggle_free(&s);
}

/* A machine oversubscribed three times over, rank 0 with more work of
 * its own (250 ms every fifth step).  The others' short bursts, woken
 * from their collectives, wait 0.3 ms per ms run, rank 0's long ones
 * twice what they run: its waits say nothing of its node, no straggler.
 * Then all wait in proportion to what they run, the same. */
static void loaded_machine_own_work(void **state)
{
	struct straggle s;
	double ratio;
	unsigned long run[4] = { 0 }, wait[4] = { 0 };

	(void)state;
	for (int even = 0; even < 2; even++) {
		memset(run, 0, sizeof(run));
		memset(wait, 0, sizeof(wait));
		straggle_init(&s, 10, 2.0);
		for (unsigned step = 1; step <= 200; step++)
			for (unsigned r = 0; r < 4; r++) {
				unsigned long ms =
				    r == 0 && step % 5 == 0 ? 270 : 20;

				run[r] += ms;
				wait[r] += r == 0 || even ? 2 * ms : 6;
				say2(&s, r / 2, r, step, 'r', run[r], wait[r]);
			}
		assert_int_equal(straggle_find(&s, &ratio), -1);
		straggle_free(&s);
	}
}

/* The same machine: rank 1, on rank 0's node, waits far beyond the
 * others' share (its node throttled), rank 0 runs more: rank 1 names
 * the node. */
static void loaded_machine_slow_node(void **state)
{
	struct straggle s;
	double ratio;
	unsigned long run[4] = { 0 }, wait[4] = { 0 };
	int i;

	(void)state;
	straggle_init(&s, 10, 2.0);
	for (unsigned step = 1; step <= 200; step++)
		for (unsigned r = 0; r < 4; r++) {
			run[r] += r == 0 ? 70 : 20;
			wait[r] += r == 0 ? 140 : r == 1 ? 400 : 6;
			say2(&s, r / 2, r, step, 'r', run[r], wait[r]);
		}
	i = straggle_find(&s, &ratio);
	assert_true(i >= 0);
	assert_int_equal(s.r[i].rank, 1);
	assert_int_equal(s.r[i].node, 0);
	straggle_free(&s);
}

/* Two nodes: the slow one against the other's median. */
static void two_nodes(void **state)
{
	struct straggle s;
	double ratio;
	unsigned long b = 0;
	int i;

	(void)state;
	straggle_init(&s, 5, 2.0);
	for (unsigned step = 1; step <= 40; step++) {
		b += 270;
		say2(&s, 0, 0, step, 'r', 30UL * step, 0);
		say2(&s, 1, 1, step, 'r', 30UL * step, b);
	}
	i = straggle_find(&s, &ratio);
	assert_true(i >= 0);
	assert_int_equal(s.r[i].rank, 1);
	straggle_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_straggler_when_even),
		cmocka_unit_test(slow_node_named),
		cmocka_unit_test(factor_and_floor),
		cmocka_unit_test(single_window_and_saves),
		cmocka_unit_test(restarts_and_old_words),
		cmocka_unit_test(own_work_is_not_slow),
		cmocka_unit_test(loaded_machine_own_work),
		cmocka_unit_test(loaded_machine_slow_node),
		cmocka_unit_test(two_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
