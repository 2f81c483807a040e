/*
 * Unit tests of reconcile.c, the units a group is given and those it lets
 * go: on-demand units and who may have them, the caps and the bounds on
 * submissions, units cancelled when their base ends or is requeued (and
 * the base released when Slurm held it after a failed launch) and
 * orphans, and submissions that are late, unanswered or refused (never
 * made twice), near the base's time limit, with no partition to go to, or
 * beyond what the caps allow.  On the simulated Slurm of sim.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* ------------------------------------------------------------ on-demand */

static void ondemand_below_min(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t od[4] = { 0 }, pe[4] = { 0 };
	struct reconcile_group_status st;

	opts_step(&o, 2, 2, 1);
	o.ondemand = ELASTIC_ONDEMAND_BELOW_MIN;
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	strcpy(s->pol.ondemand_qos, "od");
	advance(s, 10000);
	pass(s);
	job(s, BASE)->nnodes = 1; /* below min */
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submits_od, 0);
	advance(s, 9900);
	pass(s);
	assert_int_equal(s->submits, 0);
	advance(s, 100);
	pass(s); /* the scale delay: on-demand */
	assert_int_equal(s->submits_od, 1);
	assert_string_equal(s->last_partition, "ondemand");
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(units(s, PHASE_PENDING, UNIT_ONDEMAND, od, 4), 1);
	start_one(s, od[0]);
	pass(s); /* replaces the lost node at once */
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 2);
	assert_int_equal(s->raises, 1);

	/* Preemptible capacity returns: make-before-break. */
	assert_int_equal(units(s, PHASE_PENDING, UNIT_PREEMPTIBLE, pe, 4), 1);
	start_one(s, pe[0]);
	pass(s);
	assert_int_equal(s->cancels, 0);
	advance(s, 10000);
	pass(s); /* after the delay: the world swaps */
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 2);
	assert_int_equal(s->raises, 1);
	assert_true(raised(s, od[0]));
	assert_int_equal(s->cancels, 0); /* not before the grace */
	advance(s, 29000);
	pass(s);
	assert_int_equal(s->cancels, 0);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], od[0]);
	assert_int_equal(s->submits, 0);
	sim_free(s);
}

static void ondemand_always_and_never(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 3, 1);
	o.ondemand = ELASTIC_ONDEMAND_ALWAYS;
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	pass(s);
	assert_int_equal(s->submits, 2);
	advance(s, 10000);
	pass(s);
	assert_int_equal(s->submits_od, 2); /* up to the target */
	start_pending(s, UNIT_ONDEMAND);
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 3);
	sim_free(s);

	/* below-min on a group at min: no on-demand. */
	o.ondemand = ELASTIC_ONDEMAND_BELOW_MIN;
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	pass(s);
	advance(s, 60000);
	pass(s);
	pass(s);
	assert_int_equal(count(s, PHASE_PENDING, UNIT_ONDEMAND), 0);
	sim_free(s);

	/* The policy forbids it (now), or the user is not listed. */
	o.ondemand = ELASTIC_ONDEMAND_ALWAYS;
	for (int k = 0; k < 3; k++) {
		s = sim_start(&o);
		s->pol.ondemand_allowed = k != 0;
		if (k == 1)
			s->pol.ondemand_partitions.n = 0;
		if (k == 2) {
			s->pol.ondemand_users.n = 1;
			strcpy(s->pol.ondemand_users.name[0], "bob");
		}
		pass(s);
		advance(s, 60000);
		pass(s);
		pass(s);
		assert_int_equal(count(s, PHASE_PENDING, UNIT_ONDEMAND), 0);
		sim_free(s);
	}
	/* Listed by account: allowed. */
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	s->pol.ondemand_accounts.n = 1;
	strcpy(s->pol.ondemand_accounts.name[0], "physics");
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(count(s, PHASE_PENDING, UNIT_ONDEMAND), 2);
	sim_free(s);
}

/* ------------------------------------------------------------ caps */

static void caps(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 8, 1);
	s = sim_start(&o);
	s->pol.user_caps.n = 1;
	strcpy(s->pol.user_caps.cap[0].name, "alice");
	s->pol.user_caps.cap[0].nodes = 4;
	pass(s);
	assert_int_equal(s->submits, 3); /* to 4, the user's cap */
	grow_to_target(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 4);
	sim_free(s);

	s = sim_start(&o);
	s->pol.account_caps.n = 1;
	strcpy(s->pol.account_caps.cap[0].name, "physics");
	s->pol.account_caps.cap[0].nodes = 3;
	pass(s);
	assert_int_equal(s->submits, 2);
	sim_free(s);

	/* A cap off the step: the largest allowed size below it. */
	opts_step(&o, 2, 8, 3); /* 2, 5, 8 */
	s = sim_start(&o);
	s->pol.max_nodes = 7;
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 3);
	sim_free(s);
}

/* Bounds on submissions: a group that wants 99 units gets a few per
 * pass, a user only so many pending at once. */
static void submit_bounds_group_user(void **state)
{
	struct reconcile_config cfg;
	struct sim *s;

	(void)state;
	s = sim_start_step(1, 100, 1);
	s->pol.max_nodes = 100;
	reconcile_config_defaults(&cfg);
	pass(s);
	assert_int_equal(s->submits, cfg.max_submit_group);
	assert_true(s->notes >= 1); /* said once why the rest waits */
	for (unsigned k = 1; k * cfg.max_submit_group < cfg.max_pending_user;
	     k++) {
		advance(s, 1000);
		pass(s);
		assert_int_equal(s->submits, cfg.max_submit_group);
	}
	assert_int_equal(count(s, PHASE_PENDING, ANY), cfg.max_pending_user);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 0); /* the user's pending bound */
	/* As units start, more are asked for. */
	start_pending(s, ANY);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, cfg.max_submit_group);
	sim_free(s);
}

static size_t group_units(struct sim *s, uint32_t group)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->jobs[i].role == ROLE_UNIT &&
		     s->jobs[i].unit.group == group;
	return n;
}

/* The bound per pass: the groups it made wait go first next time, so
 * that no group starves behind one that always wants more. */
static void submit_bounds_pass_fair(void **state)
{
	struct reconcile_config cfg;
	struct elastic_opts o;
	uint32_t bases[4] = { BASE };
	struct sim *s;

	(void)state;
	opts_step(&o, 1, 100, 1);
	s = sim_new(&o);
	s->pol.max_nodes = 100;
	reconcile_config_defaults(&cfg);
	cfg.max_submit_group = 8;
	cfg.max_submit_pass = 10;
	cfg.max_pending_user = 1000;
	reconcile_destroy(s->r);
	s->r = reconcile_create(&cfg);
	assert_non_null(s->r);
	s->next_id = BASE + 1;
	for (size_t i = 1; i < N(bases); i++)
		bases[i] = add_base(s, 1)->id;
	s->next_id = BASE + 100;
	for (int k = 0; k < 3; k++) {
		pass(s);
		assert_int_equal(s->submits, cfg.max_submit_pass);
		advance(s, 1000);
	}
	for (size_t i = 0; i < N(bases); i++)
		assert_true(group_units(s, bases[i]) > 0);
	sim_free(s);
}

/* Did the last pass note text? */
static bool noted(struct sim *s, const char *text)
{
	for (size_t i = 0; i < s->l.n; i++)
		if (s->l.a[i].type == ACTION_NOTE &&
		    strstr(s->l.a[i].text, text))
			return true;
	return false;
}

/* A base moved out of BasePartitions gets no units. */
static void base_partition_checked(void **state)
{
	struct sim *s;

	(void)state;
	s = sim_start_step(1, 4, 1);
	s->pol.base_partitions.n = 1;
	strcpy(s->pol.base_partitions.name[0], "base");
	strcpy(job(s, BASE)->partition, "high");
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_true(noted(s, "not one of BasePartitions"));
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_false(noted(s, "BasePartitions")); /* said once */
	strcpy(job(s, BASE)->partition, "base");
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 3);
	sim_free(s);
}

/* ------------------------------------------------------------ ends */

static void base_ends_units_cancelled(void **state)
{
	struct sim *s;

	s = sim_start_step(1, 4, 1);
	grow_to_target(s);
	pass(s);
	assert_int_equal(count(s, PHASE_RUNNING, ANY), 3);
	end_job(s, BASE, END_COMPLETE);
	pass(s);
	assert_int_equal(s->cancels, 3);
	assert_int_equal(status(s, NULL, 0).state, GROUP_COMPLETING);
	pass(s); /* all gone: ENDED, its status and events still read */
	assert_int_equal(reconcile_ngroups(s->r), 1);
	assert_int_equal(status(s, NULL, 0).state, GROUP_ENDED);
	assert_int_equal(s->cancels + s->submits + s->raises, 0);
	{
		struct elasticd_view *v = reconcile_view(s->r, s->snap, s->now);

		assert_non_null(v);
		assert_int_equal(v->ngroups, 1);
		assert_int_equal(v->groups[0].state, GROUP_ENDED);
		assert_int_equal(
		    v->groups[0].events[v->groups[0].nevents - 1].cause,
		    CAUSE_END);
		view_free(v);
	}
	/* An hour later it is gone. */
	advance(s, (int64_t)RECONCILE_ENDED_KEEP_S * 1000 - 1000);
	pass(s);
	assert_int_equal(reconcile_ngroups(s->r), 1);
	advance(s, 1000);
	pass(s);
	assert_int_equal(reconcile_ngroups(s->r), 0);
	assert_int_equal(s->cancels + s->submits + s->raises, 0);
	sim_free(s);
}

/* A requeued base: units go, the group waits (PENDING) and starts a new
 * world above the old generation. */
static void base_requeued(void **state)
{
	struct sim *s;
	struct reconcile_group_status st;
	uint64_t gen;

	s = sim_start_step(1, 2, 1);
	grow_to_target(s);
	gen = status(s, NULL, 0).generation;
	job(s, BASE)->phase = PHASE_PENDING;
	pass(s);
	assert_int_equal(s->cancels, 1);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_PENDING);
	assert_int_equal(st.nworld, 0);
	pass(s);
	assert_int_equal(s->submits, 0);
	job(s, BASE)->phase = PHASE_RUNNING;
	job(s, BASE)->start = (time_t)(s->now / 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	start_pending(s, ANY);
	pass(s);
	st = status(s, NULL, 0);
	assert_true(st.generation > gen);
	assert_int_equal(st.world_nodes, 2);
	sim_free(s);
}

/* A requeued base Slurm held after a failed launch: released once per
 * hold (its requeue count), again only if the release got lost, at most
 * release_launch_holds times; then left to an admin, said once. */
static void base_launch_held(void **state)
{
	struct sim *s;
	struct sjob *b;

	s = sim_start_step(1, 2, 1);
	grow_to_target(s);
	b = job(s, BASE);
	b->phase = PHASE_PENDING;
	b->restarts = 1;
	b->launch_held = true;
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->releases, 1);
	assert_int_equal(status(s, NULL, 0).state, GROUP_PENDING);
	pass(s);
	assert_int_equal(s->releases, 0);
	/* Its next launch fails too. */
	b->restarts = 2;
	b->launch_held = true;
	pass(s);
	assert_int_equal(s->releases, 1);
	/* The release got lost: sent again after the retry time only. */
	b->launch_held = true;
	pass(s);
	assert_int_equal(s->releases, 0);
	advance(s, 31000);
	pass(s);
	assert_int_equal(s->releases, 1);
	/* A third hold: past the bound (2), said once. */
	b->restarts = 3;
	b->launch_held = true;
	pass(s);
	assert_int_equal(s->releases, 0);
	assert_int_equal(s->notes, 1);
	advance(s, 60000);
	pass(s);
	assert_int_equal(s->releases, 0);
	assert_int_equal(s->notes, 0);
	/* Released by an admin, it runs and the group goes on. */
	b->launch_held = false;
	b->phase = PHASE_RUNNING;
	b->start = (time_t)(s->now / 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	sim_free(s);
}

/* ElasticdReleaseLaunchHolds=0: every hold is left to an admin. */
static void base_launch_held_never(void **state)
{
	struct reconcile_config c;
	struct sim *s;
	struct sjob *b;

	s = sim_start_step(1, 1, 1);
	reconcile_config_defaults(&c);
	assert_int_equal(c.release_launch_holds, 2);
	c.release_launch_holds = 0;
	reconcile_destroy(s->r);
	s->r = reconcile_create(&c);
	assert_non_null(s->r);
	b = job(s, BASE);
	b->phase = PHASE_PENDING;
	b->restarts = 1;
	b->launch_held = true;
	pass(s);
	assert_int_equal(s->releases, 0);
	assert_int_equal(s->notes, 1);
	pass(s);
	assert_int_equal(s->notes, 0);
	sim_free(s);
}

static void orphans(void **state)
{
	struct sim *s;
	struct sjob *u, *v, *w;

	s = sim_start_step(1, 2, 1);
	/* A unit of a group whose base is gone from slurmctld. */
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 1);
	u->unit = (struct unit_tag){ 99, UNIT_PREEMPTIBLE, 1, 0 };
	/* A unit of a base that ended before elasticd saw it. */
	v = add(s, ROLE_BASE, PHASE_GONE, 1);
	v->end = END_COMPLETE;
	w = add(s, ROLE_UNIT, PHASE_PENDING, 1);
	w->unit = (struct unit_tag){ v->id, UNIT_PREEMPTIBLE, 1, 0 };
	pass(s);
	assert_int_equal(s->cancels, 2);
	assert_int_equal(job(s, u->id)->phase, PHASE_GONE);
	assert_int_equal(job(s, w->id)->phase, PHASE_GONE);
	/* A unit of our group with another owner: never used. */
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 1);
	u->unit = (struct unit_tag){ BASE, UNIT_PREEMPTIBLE, 1, 0 };
	u->uid = 4242;
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], u->id);
	sim_free(s);
}

/* A cancel not yet effective is not sent again at once, but again after
 * the retry time. */
static void orphan_cancel_retried(void **state)
{
	struct sim *s;
	struct sjob *u;
	uint32_t id;

	s = sim_start_step(1, 2, 1);
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 1);
	u->unit = (struct unit_tag){ 99, UNIT_PREEMPTIBLE, 1, 0 };
	id = u->id;
	pass(s);
	assert_int_equal(s->cancels, 1);
	job(s, id)->phase = PHASE_RUNNING; /* slurmctld lost it */
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->cancels, 0);
	job(s, id)->phase = PHASE_RUNNING;
	advance(s, 30000);
	pass(s);
	assert_int_equal(s->cancels, 1);
	sim_free(s);
}

/* ------------------------------------------------------------ idempotence */

/* Submissions run beside the loop: a pass may see a unit in Slurm before
 * its submission's answer arrives.  It is that submission's unit (its tag
 * says which), not one more: none is cancelled, none submitted again. */
static void answers_late(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };

	(void)state;
	s = sim_start_step(1, 4, 1);
	s->late = true;
	pass(s);
	assert_int_equal(s->submits, 3);
	assert_int_equal(s->nheld, 3);
	for (int i = 0; i < 3; i++) {
		advance(s, 1000);
		pass(s);
		assert_int_equal(s->submits, 0);
		assert_int_equal(s->cancels, 0);
		if (i == 1)
			start_pending(s, ANY);
	}
	/* Past the time a submission may take: still those units. */
	advance(s, 61000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(s->cancels, 0);
	deliver(s);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(s->cancels, 0);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);
	s->late = false;
	sim_free(s);
}

static void idempotent(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };

	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	/* Submissions not answered yet (ignored): not made again on the
	 * same snapshot, nor on a later one within the timeout. */
	s->ignore = true;
	pass(s);
	assert_int_equal(s->submits, 3);
	pass_on(s, true);
	assert_int_equal(s->l.n, 0);
	advance(s, 30000);
	pass(s);
	assert_int_equal(s->submits, 0);
	/* Forgotten after the timeout: asked again. */
	advance(s, 31000);
	pass(s);
	assert_int_equal(s->submits, 3);
	s->ignore = false;
	sim_free(s);

	/* Every state of a group: a second pass on the same snapshot at the
	 * same time decides nothing. */
	s = sim_start(&o);
	for (int i = 0; i < 12; i++) {
		pass(s);
		pass_on(s, true);
		assert_int_equal(s->l.n, 0);
		switch (i) {
		case 2:
			start_pending(s, ANY);
			break;
		case 5:
			units(s, PHASE_RUNNING, ANY, ids, 8);
			preempt(s, ids[0]);
			break;
		case 7:
			units(s, PHASE_RUNNING, ANY, ids, 8);
			end_job(s, ids[1], END_FAILED);
			break;
		case 9:
			end_job(s, BASE, END_CANCELLED);
			break;
		}
		advance(s, 6000);
	}
	sim_free(s);
}

/* Submissions refused: asked again only after a growing wait. */
static void refused_backoff(void **state)
{
	struct sim *s;

	s = sim_start_step(1, 2, 1);
	s->refuse = true;
	pass(s);
	assert_int_equal(s->submits, 1);
	advance(s, 4000);
	pass(s);
	assert_int_equal(s->submits, 0);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	advance(s, 9000);
	pass(s);
	assert_int_equal(s->submits, 0);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	s->refuse = false;
	advance(s, 20000);
	pass(s);
	assert_int_equal(s->submits, 1);
	sim_free(s);
}

/* Units never outlive the base's time limit; none near its end. */
static void time_limit(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	advance(s, 600000); /* 10 min of the base's 600 */
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_true(s->last_limit <= 590);
	assert_true(s->last_limit >= 589);
	sim_free(s);

	s = sim_start(&o);
	s->now = (int64_t)(T0 + 600 * 60 - 100) * 1000;
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_true(s->notes >= 1);
	sim_free(s);

	s = sim_start(&o);
	job(s, BASE)->time_limit = 0; /* no limit: the partition's */
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->last_limit, 0);
	sim_free(s);
}

/* No preemptible partition configured: no units, one note. */
static void no_partition(void **state)
{
	struct sim *s;

	s = sim_start_step(1, 2, 1);
	s->pol.preemptible_partitions.n = 0;
	pass(s);
	assert_int_equal(s->submits, 0);
	/* "no PreemptiblePartitions", and the first world's line. */
	assert_int_equal(s->notes, 2);
	pass(s);
	assert_int_equal(s->notes, 0);
	/* A group that cannot grow still forms its first world, at once:
	 * the base at min, so that the launcher starts on it. */
	{
		struct reconcile_group_status st = status(s, NULL, 0);

		assert_int_equal(st.generation, 1);
		assert_int_equal(st.world_nodes, 1);
		assert_int_equal(st.state, GROUP_RUNNING);
	}
	assert_int_equal(s->submits, 0);
	sim_free(s);
}

/* A unit that fits no increment (the policy's cap fell): released. */
static void surplus_released(void **state)
{
	struct sim *s;
	struct sjob *u;

	s = sim_start_step(1, 3, 1);
	pass(s);
	s->pol.max_nodes = 2;
	pass(s);
	assert_int_equal(s->cancels, 1); /* one pending unit too many */
	/* A running 2-node unit in a step-1 group: no slot fits it. */
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 2);
	u->unit = (struct unit_tag){ BASE, UNIT_PREEMPTIBLE, 2, 0 };
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], u->id);
	sim_free(s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ondemand_below_min),
		cmocka_unit_test(ondemand_always_and_never),
		cmocka_unit_test(caps),
		cmocka_unit_test(submit_bounds_group_user),
		cmocka_unit_test(submit_bounds_pass_fair),
		cmocka_unit_test(base_partition_checked),
		cmocka_unit_test(base_ends_units_cancelled),
		cmocka_unit_test(base_requeued),
		cmocka_unit_test(base_launch_held),
		cmocka_unit_test(base_launch_held_never),
		cmocka_unit_test(orphans),
		cmocka_unit_test(orphan_cancel_retried),
		cmocka_unit_test(idempotent),
		cmocka_unit_test(refused_backoff),
		cmocka_unit_test(time_limit),
		cmocka_unit_test(no_partition),
		cmocka_unit_test(surplus_released),
		cmocka_unit_test(answers_late),
	};

	if (argc > 1) /* one test, by name (a pattern) */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
