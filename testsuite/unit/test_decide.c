/* Unit tests of elastic-run's decision (src/elastic-run/decide.c): what a
 * launch's end means, case by case, the rank/launcher race among them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <string.h>

#include "elastic-run/decide.h"
#include "libelastic/elastic.h"

/* wait(2) statuses as the kernel encodes them. */
#define EXITED(n)   (((n)&0xff) << 8)
#define SIGNALED(s) ((s)&0x7f)

static struct launch_obs obs(unsigned ok, unsigned ev, unsigned failed)
{
	struct launch_obs o;

	memset(&o, 0, sizeof(o));
	o.ok = ok;
	o.event_exits = ev;
	o.failed = failed;
	o.max_restarts = 3;
	return o;
}

static void expect(const struct launch_obs *o, enum decision what,
		   const char *why)
{
	struct decision_out d;

	decide(o, &d);
	if (d.what != what || strcmp(d.why, why) != 0)
		fail_msg("decided %s (%s), want %s (%s)", decision_name(d.what),
			 d.why, decision_name(what), why);
}

static void test_member_end(void **state)
{
	(void)state;
	assert_int_equal(member_end_of(EXITED(0)), MEMBER_OK);
	assert_int_equal(member_end_of(EXITED(ELASTIC_EXIT_EVENT)),
			 MEMBER_EVENT);
	assert_int_equal(member_end_of(EXITED(75)), MEMBER_EVENT);
	assert_int_equal(member_end_of(EXITED(1)), MEMBER_FAILED);
	assert_int_equal(member_end_of(EXITED(137)), MEMBER_FAILED);
	assert_int_equal(member_end_of(SIGNALED(SIGKILL)), MEMBER_FAILED);
	assert_int_equal(member_end_of(SIGNALED(SIGSEGV)), MEMBER_FAILED);
}

/* Every member exited 0, nothing happened: the training finished. */
static void test_success(void **state)
{
	struct launch_obs o = obs(4, 0, 0);

	(void)state;
	expect(&o, DECIDE_SUCCESS, "ranks-finished");
	/* A plain torchrun script (no library, exit 0) is the same case. */
	o = obs(1, 0, 0);
	expect(&o, DECIDE_SUCCESS, "ranks-finished");
}

/*
 * The race of a node failure: the ranks learned of the event through a
 * peer (the all-reduce), checkpointed and exited before the launcher
 * heard of anything.
 */
static void test_race_event_status(void **state)
{
	/* They exit with the event status: relaunch, whatever the rest. */
	struct launch_obs o = obs(0, 4, 0);
	struct decision_out d;

	(void)state;
	expect(&o, DECIDE_RELAUNCH, "ranks-event-exit");
	decide(&o, &d);
	assert_true(d.unexplained);
	/* srun passes the highest status: some members 0, one 75. */
	o = obs(3, 1, 0);
	expect(&o, DECIDE_RELAUNCH, "ranks-event-exit");
	/* A member whose ranks died (the failed node's) beside it. */
	o = obs(0, 3, 1);
	expect(&o, DECIDE_RELAUNCH, "ranks-event-exit");
}

static void test_race_exit_zero_world_changed(void **state)
{
	/* A script of the old contract: all exit 0 after the event, but a
	 * node of the world is down (or a member is being preempted, or
	 * elasticd published another world): never a success. */
	struct launch_obs o = obs(4, 0, 0);

	(void)state;
	o.world_changed = true;
	expect(&o, DECIDE_RELAUNCH, "world-changed");
	/* ... and the event signal reaching the launcher after the ranks
	 * (slurmd tells the batch step last). */
	o.world_changed = false;
	o.event = true;
	expect(&o, DECIDE_RELAUNCH, "event");
}

/* In place, the ranks all finished while the launcher readied joiners
 * for them (they are never told of a join): a success, whatever the
 * event that started the join; not when any rank failed or stopped. */
static void test_finished_before_told(void **state)
{
	static const struct {
		unsigned ok, ev, failed;
		bool stopping;
		enum decision what;
		const char *why;
	} cases[] = {
		{ 3, 0, 0, false, DECIDE_SUCCESS, "ranks-finished" },
		{ 2, 0, 1, false, DECIDE_RELAUNCH, "event" },
		{ 2, 1, 0, false, DECIDE_RELAUNCH, "event" },
		{ 3, 0, 0, true, DECIDE_STOP, "stopping" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct launch_obs o =
		    obs(cases[i].ok, cases[i].ev, cases[i].failed);

		o.finished = o.event = o.world_changed = true;
		o.stopping = cases[i].stopping;
		expect(&o, cases[i].what, cases[i].why);
	}
}

static void test_event_wins_over_failure(void **state)
{
	/* After an event the collectives of the survivors fail: an elastic
	 * event, not a failure counted against --max-restarts. */
	struct launch_obs o = obs(0, 0, 4);
	struct decision_out d;

	(void)state;
	o.event = true;
	o.failures = 3;
	expect(&o, DECIDE_RELAUNCH, "event");
	decide(&o, &d);
	assert_false(d.unexplained);
	o.event = false;
	o.world_changed = true;
	expect(&o, DECIDE_RELAUNCH, "world-changed");
}

/* A script that fails on its own is retried up to --max-restarts. */
static void test_retry_then_give_up(void **state)
{
	struct launch_obs o = obs(3, 0, 1);
	unsigned i;

	(void)state;
	for (i = 0; i < 3; i++) {
		o.failures = i;
		expect(&o, DECIDE_RETRY, "ranks-failed");
	}
	o.failures = 3;
	expect(&o, DECIDE_GIVE_UP, "ranks-failed");
	o.max_restarts = 0;
	o.failures = 0;
	expect(&o, DECIDE_GIVE_UP, "ranks-failed");
}

/* A script that exits 75 for no reason does not loop for ever. */
static void test_unexplained_bounded(void **state)
{
	struct launch_obs o = obs(0, 2, 0);

	(void)state;
	o.unexplained = DECIDE_MAX_UNEXPLAINED - 1;
	expect(&o, DECIDE_RELAUNCH, "ranks-event-exit");
	o.unexplained = DECIDE_MAX_UNEXPLAINED;
	expect(&o, DECIDE_RETRY, "ranks-failed");
	o.failures = 3;
	expect(&o, DECIDE_GIVE_UP, "ranks-failed");
	/* Corroborated events are never bounded. */
	o.event = true;
	expect(&o, DECIDE_RELAUNCH, "event");
}

static void test_stop_wins(void **state)
{
	struct launch_obs o = obs(0, 4, 0);

	(void)state;
	o.stopping = true;
	o.event = true;
	o.world_changed = true;
	expect(&o, DECIDE_STOP, "stopping");
	o = obs(4, 0, 0);
	o.stopping = true;
	expect(&o, DECIDE_STOP, "stopping");
}

static void test_nothing_ran(void **state)
{
	struct launch_obs o = obs(0, 0, 0);

	(void)state;
	expect(&o, DECIDE_RETRY, "ranks-failed");
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(decision_name(DECIDE_SUCCESS), "success");
	assert_string_equal(decision_name(DECIDE_RELAUNCH), "relaunch");
	assert_string_equal(decision_name(DECIDE_RETRY), "retry");
	assert_string_equal(decision_name(DECIDE_GIVE_UP), "give-up");
	assert_string_equal(decision_name(DECIDE_STOP), "stop");
}

static void test_ompi_plm(void **state)
{
	(void)state;
	assert_string_equal(ompi_plm_of("mpirun (Open MPI) 4.1.4\n\nReport "
					"bugs to https://www.open-mpi.org/"),
			    "rsh");
	assert_string_equal(ompi_plm_of("mpirun (Open MPI) 5.0.7\n"), "ssh");
	assert_string_equal(ompi_plm_of("mpirun (Open MPI) 6.1a1\n"), "ssh");
	assert_null(ompi_plm_of("HYDRA build details:\n    Version: 4.0.2"));
	assert_null(ompi_plm_of("mpirun (Open MPI) x.y"));
	assert_null(ompi_plm_of("mpirun (Open MPI) 5"));
	assert_null(ompi_plm_of(""));
	assert_null(ompi_plm_of(NULL));
}

/* A node fell silent or hung: the survivors' failures (a collective with a dead
 * peer) are not the script's, never counted, even at the last restart. */
static void test_node_lost(void **state)
{
	struct launch_obs o = obs(0, 0, 3);

	(void)state;
	o.fault = "node-lost";
	o.failures = 3;
	expect(&o, DECIDE_RELAUNCH, "node-lost");
	o.event = true;
	expect(&o, DECIDE_RELAUNCH, "node-lost");
	o.fault = "hang";
	expect(&o, DECIDE_RELAUNCH, "hang");
	o.stopping = true;
	expect(&o, DECIDE_STOP, "stopping");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_member_end),
		cmocka_unit_test(test_success),
		cmocka_unit_test(test_race_event_status),
		cmocka_unit_test(test_race_exit_zero_world_changed),
		cmocka_unit_test(test_finished_before_told),
		cmocka_unit_test(test_event_wins_over_failure),
		cmocka_unit_test(test_retry_then_give_up),
		cmocka_unit_test(test_unexplained_bounded),
		cmocka_unit_test(test_stop_wins),
		cmocka_unit_test(test_node_lost),
		cmocka_unit_test(test_nothing_ran),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_ompi_plm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
