/* Unit tests of the ranks' pace (src/elastic-run/pace.c): which rank
 * hangs, and which silences are not hangs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "elastic-run/pace.h"

/* Node `node` says rank `rank` is at step, written age_ms ago. */
static void say(struct pace *p, size_t node, unsigned rank, unsigned step,
		unsigned age_ms, char state, double now)
{
	char line[128];

	snprintf(line, sizeof(line), "n%zu r%u=%u/%u/%c", node, rank, step,
		 age_ms, state);
	assert_int_equal(pace_heard(p, node, line, now), 0);
}

/* Four ranks stepping every second from t=100 to t=110. */
static void four_stepping(struct pace *p, unsigned timeout)
{
	pace_init(p, 100, timeout);
	for (unsigned t = 101; t <= 110; t++)
		for (unsigned r = 0; r < 4; r++)
			say(p, r / 2, r, t - 100, 0, 'r', t);
}

static void derived_timeout(void **state)
{
	struct pace p;
	double s;

	(void)state;
	pace_init(&p, 0, 0);
	assert_true(pace_median_step(&p) == 0);
	assert_true(pace_timeout(&p) == PACE_MIN_TIMEOUT_S);
	pace_free(&p);
	four_stepping(&p, 0);
	assert_true(pace_median_step(&p) > 0.99 && pace_median_step(&p) < 1.01);
	assert_true(pace_timeout(&p) == PACE_MIN_TIMEOUT_S);
	assert_int_equal(pace_hung(&p, 160, &s), -1);
	assert_int_equal(pace_hung(&p, 171, &s), 0);
	pace_free(&p);
	/* Ten-second steps: a hundred seconds. */
	pace_init(&p, 0, 0);
	for (unsigned k = 1; k <= 5; k++)
		say(&p, 0, 0, k, 0, 'r', 10.0 * k);
	assert_true(pace_timeout(&p) > 99.9 && pace_timeout(&p) < 100.1);
	assert_int_equal(pace_hung(&p, 140, &s), -1);
	assert_int_equal(pace_hung(&p, 151, &s), 0);
	pace_free(&p);
}

/* The rank one step behind is the one that fell behind; the others wait
 * for it in the next collective. */
static void names_the_laggard(void **state)
{
	struct pace p;
	double s = 0;

	(void)state;
	four_stepping(&p, 5);
	/* Rank 2 stops at step 10; the others finish step 11, then wait. */
	for (unsigned r = 0; r < 4; r++)
		if (r != 2)
			say(&p, r / 2, r, 11, 0, 'r', 111);
	assert_int_equal(pace_hung(&p, 115, &s), -1);
	assert_int_equal(pace_hung(&p, 116.5, &s), 2);
	assert_true(s > 6.4 && s < 6.6);
	assert_int_equal(p.r[2].node, 1);
	pace_free(&p);
}

/* Ranks 0..3 (two a node) report step 11, sleeping, at t=111; rank odd
 * reports step `step` in process state `ps` at `at`. */
static void hear_one_odd(struct pace *p, unsigned odd, unsigned step, char ps,
			 double at)
{
	for (unsigned r = 0; r < 4; r++) {
		char line[128];

		snprintf(line, sizeof(line), "n%u r%u=%u/0/r/900/20/%c", r / 2,
			 r, r == odd ? step : 11, r == odd ? ps : 'S');
		assert_int_equal(
		    pace_heard(p, r / 2, line, r == odd ? at : 111), 0);
	}
}

/* Every rank at the same step (rank 1 stopped just after its report, the
 * others wait for it in the next collective), rank 1 even a little
 * later than the rest: its stopped process names it, not the clock. */
static void names_the_frozen(void **state)
{
	struct pace p;
	double s = 0;

	(void)state;
	four_stepping(&p, 5);
	hear_one_odd(&p, 1, 11, 'T', 111.2);
	assert_true(p.r[1].frozen && !p.r[0].frozen);
	assert_int_equal(pace_hung(&p, 116.5, &s), 1);
	assert_true(s > 5.2 && s < 5.4);
	/* A rank in an uninterruptible wait is frozen too; one that runs
	 * again is not. */
	assert_int_equal(
	    pace_heard(&p, 1, "n1 r1=11/0/r/900/20/R r2=11/0/r/900/20/D", 117),
	    0);
	assert_true(!p.r[1].frozen && p.r[2].frozen);
	/* Without the state (an older node task), the clock decides. */
	assert_int_equal(pace_heard(&p, 1, "n1 r2=11/0/r", 117.5), 0);
	assert_true(!p.r[2].frozen);
	pace_free(&p);
}

/* A stopped rank whose record is newer than its waiting peers' (it
 * stopped just after it reported, or is a joiner first heard late) is
 * still the one named, once the world hangs. */
static void names_the_stopped(void **state)
{
	struct pace p;
	double s = 0;

	(void)state;
	four_stepping(&p, 5);
	hear_one_odd(&p, 3, 3, 'T', 112);
	assert_true(p.r[3].stopped && !p.r[0].stopped);
	assert_int_equal(pace_hung(&p, 115, &s), -1); /* not yet */
	assert_int_equal(pace_hung(&p, 116.5, &s), 3);
	/* In D only: the clock decides among those past the timeout. */
	assert_int_equal(pace_heard(&p, 1, "n1 r3=3/0/r/900/20/D", 112), 0);
	assert_true(!p.r[3].stopped && p.r[3].frozen);
	assert_int_equal(pace_hung(&p, 116.5, &s), 0);
	pace_free(&p);
}

/* A checkpoint save announced by any rank: no hang, however long; the
 * silence counts from its end. */
static void saving_is_no_hang(void **state)
{
	struct pace p;
	double s;

	(void)state;
	four_stepping(&p, 5);
	say(&p, 0, 0, 10, 0, 's', 111);
	assert_int_equal(pace_hung(&p, 500, &s), -1);
	say(&p, 0, 0, 10, 0, 'r', 500);
	/* The others waited for it: silent since 500, not since 110. */
	assert_int_equal(pace_hung(&p, 504, &s), -1);
	assert_int_equal(pace_hung(&p, 505.1, &s), 1);
	assert_true(s > 5 && s < 5.2);
	pace_free(&p);
}

/* Never during the first step; a record older than the table (a resize
 * in place restarted it) waits for a step. */
static void first_step_and_old_records(void **state)
{
	struct pace p;
	double s;

	(void)state;
	pace_init(&p, 100, 5);
	assert_int_equal(pace_hung(&p, 1000, &s), -1);
	/* Written 50 s before the table: not watched until it moves. */
	say(&p, 0, 0, 7, 50000, 'r', 101);
	assert_int_equal(pace_hung(&p, 200, &s), -1);
	say(&p, 0, 0, 8, 0, 'r', 201);
	assert_int_equal(pace_hung(&p, 205, &s), -1);
	assert_int_equal(pace_hung(&p, 206.1, &s), 0);
	/* A record written after the start is watched at once. */
	say(&p, 1, 5, 1, 500, 'r', 101);
	assert_true(p.r[1].watched);
	pace_free(&p);
}

/* A node that kept a record of an earlier world (a crash, a resize in
 * place) with a rank number now another node's: the newer record wins. */
static void stale_record_elsewhere(void **state)
{
	struct pace p;
	double s;

	(void)state;
	four_stepping(&p, 5);
	/* Node 7 still has rank 2's record of 50 s ago, step 3. */
	say(&p, 7, 2, 3, 50000, 'r', 111);
	assert_int_equal(p.r[2].node, 1);
	assert_int_equal(p.r[2].step, 10);
	for (unsigned r = 0; r < 4; r++)
		say(&p, r / 2, r, 11, 0, 'r', 112);
	say(&p, 7, 2, 3, 51000, 'r', 112);
	assert_int_equal(pace_hung(&p, 116, &s), -1);
	/* Rank 2 moves to node 7 for real (a newer record there). */
	say(&p, 7, 2, 12, 0, 'r', 113);
	assert_int_equal(p.r[2].node, 7);
	pace_free(&p);
}

static void stray_words(void **state)
{
	struct pace p;
	double s;

	(void)state;
	pace_init(&p, 0, 5);
	assert_int_equal(pace_heard(&p, 0, "n1", 1), 0);
	assert_int_equal(pace_heard(&p, 0, "n1 TERM", 1), 0);
	assert_int_equal(pace_heard(&p, 0, "n1 r1=x/2/r r2=3/4/q r=1/1/r", 1),
			 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(pace_heard(&p, 0, "n1 TERM r3=4/0/r", 1), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.r[0].rank, 3);
	assert_int_equal(p.r[0].step, 4);
	assert_int_equal(pace_hung(&p, 2, &s), -1);
	pace_free(&p);
	pace_free(&p);
}

/* The ranks' save times: the longest, and whose; they take no part in
 * the steps. */
static void save_times(void **state)
{
	struct pace p;

	(void)state;
	pace_init(&p, 100, 0);
	assert_int_equal(pace_heard(&p, 0, "n0 r0=5/0/r s0=1200 r1=5/0/r", 101),
			 0);
	assert_int_equal(p.save_ms, 1200);
	assert_int_equal(p.save_rank, 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(pace_heard(&p, 1, "n1 r2=5/0/r s2=4500 s3=x", 102), 0);
	assert_int_equal(p.save_ms, 4500);
	assert_int_equal(p.save_rank, 2);
	/* A shorter one later: the longest stays. */
	assert_int_equal(pace_heard(&p, 0, "n0 s0=800", 103), 0);
	assert_int_equal(p.save_ms, 4500);
	assert_int_equal(p.save_rank, 2);
	pace_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(derived_timeout),
		cmocka_unit_test(names_the_laggard),
		cmocka_unit_test(names_the_frozen),
		cmocka_unit_test(names_the_stopped),
		cmocka_unit_test(saving_is_no_hang),
		cmocka_unit_test(first_step_and_old_records),
		cmocka_unit_test(stale_record_elsewhere),
		cmocka_unit_test(stray_words),
		cmocka_unit_test(save_times),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
