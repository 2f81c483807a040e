/* Unit tests of elastic-run's heartbeat table (src/elastic-run/detect.c):
 * which node fell silent, and which silences are not faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "elastic-run/detect.h"

/* n1, n2 of the base (job 10), n3 of a unit (11); timeout 5 s from t=100. */
static void three(struct detect *d)
{
	detect_init(d, 100, 5);
	assert_int_equal(detect_add(d, "n1", 10), 0);
	assert_int_equal(detect_add(d, "n2", 10), 0);
	assert_int_equal(detect_add(d, "n3", 11), 0);
	assert_int_equal(detect_add(d, "n3", 11), 0);
	assert_int_equal(d->n, 3);
}

static void hear_all(struct detect *d, double now)
{
	assert_int_equal(detect_heard(d, "n1", now), 0);
	assert_int_equal(detect_heard(d, "n2", now), 1);
	assert_int_equal(detect_heard(d, "n3", now), 2);
}

static void silent_after_timeout(void **state)
{
	struct detect d;
	double s = -1;

	(void)state;
	three(&d);
	hear_all(&d, 101);
	assert_int_equal(detect_silent(&d, 106, &s), -1);
	assert_int_equal(detect_heard(&d, "n1", 106), 0);
	assert_int_equal(detect_heard(&d, "n2", 106), 1);
	/* n3 last spoke at 101: silent past 5 s at 106.5. */
	assert_int_equal(detect_silent(&d, 106.5, &s), 2);
	assert_true(s > 5.4 && s < 5.6);
	assert_int_equal(d.node[2].job, 11);
	detect_free(&d);
}

/* A step that starts slowly (a loaded machine, a launch RPC waiting out
 * MessageTimeout) is not a lost node before DETECT_START_S. */
static void never_heard_gets_start_allowance(void **state)
{
	struct detect d;
	double s;

	(void)state;
	three(&d);
	assert_int_equal(detect_heard(&d, "n1", 101), 0);
	assert_int_equal(detect_silent(&d, 100 + DETECT_START_S - 1, &s), 0);
	assert_int_equal(detect_heard(&d, "n1", 100 + DETECT_START_S - 1), 0);
	assert_int_equal(detect_silent(&d, 100 + DETECT_START_S - 1, &s), -1);
	assert_int_equal(detect_silent(&d, 100 + DETECT_START_S + 0.1, &s), 1);
	detect_free(&d);
	/* A timeout longer than the allowance is the allowance. */
	detect_init(&d, 0, 60);
	assert_int_equal(detect_add(&d, "a", 1), 0);
	assert_int_equal(detect_silent(&d, 59, &s), -1);
	assert_int_equal(detect_silent(&d, 61, &s), 0);
	detect_free(&d);
}

/* A node not heard yet is asked about once the timeout has passed, then
 * once per timeout while its start allowance runs: a host that crashed
 * just after the launch is found then. */
static void unheard_probed(void **state)
{
	struct detect d;

	(void)state;
	three(&d);
	assert_int_equal(detect_heard(&d, "n1", 101), 0);
	assert_int_equal(detect_unheard(&d, 104), -1); /* within 5 s */
	assert_int_equal(detect_unheard(&d, 105.5), 1);
	detect_probed(&d, 1, 105.5); /* its host answers */
	assert_int_equal(detect_unheard(&d, 105.5), 2);
	detect_probed(&d, 2, 105.5);
	assert_int_equal(detect_unheard(&d, 110), -1);
	assert_int_equal(detect_unheard(&d, 110.6), 1);
	/* Heard, or leaving: not asked about. */
	assert_int_equal(detect_heard(&d, "n2", 110.6), 1);
	assert_int_equal(detect_heard(&d, "n3 TERM", 110.6), 2);
	assert_int_equal(detect_unheard(&d, 200), -1);
	detect_free(&d);
}

/* Slurm signalling the heartbeat (preemption, scancel, time limit): the
 * node leaves, it is not lost. */
static void leaving_never_lost(void **state)
{
	struct detect d;
	double s;

	(void)state;
	three(&d);
	hear_all(&d, 101);
	assert_int_equal(detect_heard(&d, "n3 TERM", 102), 2);
	assert_true(d.node[2].leaving);
	assert_int_equal(detect_heard(&d, "n1", 200), 0);
	assert_int_equal(detect_heard(&d, "n2", 200), 1);
	assert_int_equal(detect_silent(&d, 200, &s), -1);
	detect_free(&d);
}

/* Stray output and other nodes' names are ignored. */
static void stray_lines(void **state)
{
	struct detect d;

	(void)state;
	three(&d);
	assert_int_equal(detect_heard(&d, "", 101), -1);
	assert_int_equal(detect_heard(&d, "n4", 101), -1);
	assert_int_equal(detect_heard(&d, "n1 KILL", 101), -1);
	assert_int_equal(detect_heard(&d, "n1 TERM extra", 101), -1);
	assert_int_equal(detect_heard(&d, "n1 r=1", 101), -1);
	assert_int_equal(detect_heard(&d, "n1 rx=1", 101), -1);
	assert_int_equal(detect_heard(&d, "n1 r1", 101), -1);
	assert_int_equal(detect_heard(&d, "n1 ", 101), -1);
	assert_int_equal(detect_heard(&d, "n", 101), -1);
	assert_int_equal(detect_heard(&d, "n11", 101), -1);
	assert_false(d.node[0].heard);
	/* Ranks' progress words are the pace's, TERM anywhere. */
	assert_int_equal(detect_heard(&d, "n1 r0=5/10/r r1=5/12/r", 101), 0);
	assert_false(d.node[0].leaving);
	/* ... and a rank's save time (pace.h) */
	assert_int_equal(detect_heard(&d, "n1 r0=5/10/r s0=15000", 101), 0);
	assert_int_equal(detect_heard(&d, "n1 sx=1", 101), -1);
	assert_int_equal(detect_heard(&d, "n2 TERM r2=5/10/r", 101), 1);
	assert_true(d.node[1].leaving);
	/* The probe port, and a probe's answers (split.h's). */
	assert_int_equal(d.node[2].port, 0);
	assert_int_equal(detect_heard(&d, "n3 p=40123 r2=5/10/r/7/1", 101), 2);
	assert_int_equal(d.node[2].port, 40123);
	assert_int_equal(detect_heard(&d, "n3 X=n1,n2", 101), 2);
	assert_int_equal(detect_heard(&d, "n3 X+=n1", 101), 2);
	assert_int_equal(detect_heard(&d, "n3 R=n4", 101), 2); /* the ring's */
	assert_int_equal(detect_heard(&d, "n3 R=-", 101), 2);
	assert_int_equal(detect_heard(&d, "n3 p=99999999", 101), -1);
	assert_int_equal(d.node[2].port, 40123);
	detect_free(&d);
}

/* A late heartbeat from a host that answers: asked about again a whole
 * timeout later. */
static void defer_late(void **state)
{
	struct detect d;
	double s;

	(void)state;
	three(&d);
	hear_all(&d, 101);
	assert_int_equal(detect_silent(&d, 107, &s), 0);
	detect_defer(&d, 0, 107);
	detect_defer(&d, 1, 107);
	detect_defer(&d, 2, 107);
	detect_defer(&d, 9, 107);
	assert_int_equal(detect_silent(&d, 111.9, &s), -1);
	assert_int_equal(detect_silent(&d, 112.1, &s), 0);
	detect_free(&d);
}

static void names_and_interval(void **state)
{
	struct detect d;
	char longname[DETECT_NAME_MAX + 1];

	(void)state;
	memset(longname, 'x', sizeof(longname) - 1);
	longname[DETECT_NAME_MAX] = '\0';
	detect_init(&d, 0, 5);
	assert_int_equal(detect_add(&d, "", 1), -1);
	assert_int_equal(detect_add(&d, longname, 1), -1);
	longname[DETECT_NAME_MAX - 1] = '\0';
	assert_int_equal(detect_add(&d, longname, 1), 0);
	for (int i = 0; i < 100; i++) {
		char n[16];

		snprintf(n, sizeof(n), "gpu%03d", i);
		assert_int_equal(detect_add(&d, n, 2), 0);
	}
	assert_int_equal(d.n, 101);
	assert_int_equal(detect_heard(&d, "gpu099", 1), 100);
	detect_free(&d);
	detect_free(&d);
	assert_int_equal(detect_interval_ms(5), 1000);
	assert_int_equal(detect_interval_ms(2), 400);
	assert_int_equal(detect_interval_ms(0), 200);
	assert_int_equal(detect_interval_ms(3600), 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(silent_after_timeout),
		cmocka_unit_test(never_heard_gets_start_allowance),
		cmocka_unit_test(unheard_probed),
		cmocka_unit_test(leaving_never_lost),
		cmocka_unit_test(stray_lines),
		cmocka_unit_test(defer_late),
		cmocka_unit_test(names_and_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
