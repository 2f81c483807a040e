/*
 * Unit tests of reconcile.c, how a group's world is sized and changes: the
 * sizes a group may take (--elastic-step, --elastic-sizes, MaxNodes), the
 * scale delay that batches growth, preemption with its grace, and failed
 * units and nodes with the fault timeout.  They run on the simulated Slurm
 * of sim.c: start, preempt or fail jobs, move the clock, and look at what
 * each pass did.
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

/* ------------------------------------------------------------ sizes */

/* Step: every unit to max at once, step nodes each. */
static void step_all_at_once(void **state)
{
	struct sim *s;
	struct reconcile_group_status st;

	s = sim_start_step(2, 8, 2);
	pass(s);
	assert_int_equal(s->submits, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(s->submit_nodes[i], 2);
	assert_string_equal(s->last_partition, "preempt");
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_STARTING);
	assert_int_equal(st.generation, 0);
	/* Nothing more while they are pending. */
	pass(s);
	assert_int_equal(s->submits, 0);
	/* All start at once: the world is complete, it forms at once. */
	start_pending(s, ANY);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 1);
	assert_int_equal(st.world_nodes, 8);
	assert_int_equal(s->raises, 0); /* no ranks yet */
	sim_free(s);
}

/* Step: a max off the step is never reached; the target is the largest
 * allowed size; the cap (MaxNodes) too. */
static void step_target(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 6, 2); /* 1, 3, 5 */
	s = sim_start(&o);
	pass(s);
	assert_int_equal(s->submits, 2);
	grow_to_target(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 5);
	sim_free(s);
}

/* --elastic-sizes: increments one at a time, the world never takes a size
 * outside the list. */
static void discrete_one_at_a_time(void **state)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };

	opts_sizes(&o, sizes, N(sizes));
	s = sim_start(&o);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 1);
	pass(s);
	assert_int_equal(s->submits, 0); /* not before it started */
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 2);
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 4);
	start_pending(s, ANY);
	advance(s, 11000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(status(s, NULL, 0).world_nodes, 8);

	/* The 1-node unit is preempted: 1+2+4 = 7 is not a size; the
	 * world falls to 1 (base), keeping the others for the refill. */
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);
	preempt(s, ids[0]);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 1);
	assert_int_equal(s->raises, 1);
	assert_int_equal(s->submits, 0); /* not in the grace */
	assert_int_equal(s->cancels, 0); /* 2 and 4 kept */
	end_job(s, ids[0], END_PREEMPTED);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 1);
	start_pending(s, ANY);
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 8);
	sim_free(s);
}

/* Property: whatever happens, a world is always an allowed size within
 * the cap, and made of running units. */
static void random_worlds_allowed(void **state)
{
	static const unsigned sizes[] = { 2, 3, 5, 8, 9 };
	unsigned seed = 12345;

	for (int round = 0; round < 40; round++) {
		struct elastic_opts o;
		struct sim *s;

		if (round % 2)
			opts_sizes(&o, sizes, N(sizes));
		else
			opts_step(&o, 1 + round % 3, 12, 1 + round % 4);
		o.ondemand = round % 3 ? ELASTIC_ONDEMAND_ALWAYS
				       : ELASTIC_ONDEMAND_NEVER;
		s = sim_start(&o);
		s->pol.ondemand_allowed = true;
		if (round % 5 == 0)
			s->pol.max_nodes = 7;
		for (int step = 0; step < 200; step++) {
			uint32_t ids[MAX_JOBS] = { 0 },
				 world[GROUP_MAX_SLOTS + 1] = { 0 };
			struct reconcile_group_status st;
			size_t n;
			unsigned total = 0;

			seed = seed * 1103515245 + 12345;
			switch ((seed >> 16) % 6) {
			case 0:
			case 1:
				n = units(s, PHASE_PENDING, ANY, ids, MAX_JOBS);
				if (n)
					start_one(s, ids[(seed >> 8) % n]);
				break;
			case 2:
				n = units(s, PHASE_RUNNING, ANY, ids, MAX_JOBS);
				if (n &&
				    !job(s, ids[(seed >> 8) % n])->preempted)
					preempt(s, ids[(seed >> 8) % n]);
				break;
			case 3:
				n = units(s, PHASE_RUNNING, ANY, ids, MAX_JOBS);
				if (n)
					end_job(s, ids[(seed >> 8) % n],
						(seed >> 4) % 2
						    ? END_FAILED
						    : END_PREEMPTED);
				break;
			default:
				advance(s, (int64_t)((seed >> 10) % 15000));
				break;
			}
			pass(s);
			st = status(s, world, N(world));
			if (!st.nworld)
				continue;
			for (size_t i = 0; i < st.nworld; i++) {
				struct sjob *j = job(s, world[i]);

				total += j->nnodes;
			}
			assert_int_equal(total, st.world_nodes);
			if (!options_size_allowed(&o, st.world_nodes))
				fail_msg("round %d step %d: world of %u nodes",
					 round, step, st.world_nodes);
			if (round % 5 == 0 && st.world_nodes > 7)
				fail_msg("world %u above MaxNodes=7",
					 st.world_nodes);
			/* Nothing is ever asked beyond the ladder: at most
			 * a preemptible and an on-demand unit per slot. */
			n = 0;
			for (size_t i = 0; i < s->n; i++)
				n += s->jobs[i].role == ROLE_UNIT &&
				     !s->jobs[i].preempted &&
				     (s->jobs[i].phase == PHASE_PENDING ||
				      s->jobs[i].phase == PHASE_RUNNING);
			if (n > 2 * 12)
				fail_msg("%zu live units", n);
		}
		sim_free(s);
	}
}

/* ------------------------------------------------------------ debounce */

static void debounce(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;

	s = sim_start_step(1, 4, 1);
	pass(s); /* 3 units pending */
	advance(s, 10000);
	pass(s); /* scale delay after the base started: world = base */
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 1);
	assert_int_equal(st.world_nodes, 1);
	assert_int_equal(st.state, GROUP_RUNNING);

	units(s, PHASE_PENDING, ANY, ids, 8);
	start_one(s, ids[0]);
	pass(s); /* the delay starts */
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 1);
	assert_int_equal(st.state, GROUP_RESIZING);
	advance(s, 5000);
	start_one(s, ids[1]);
	pass(s); /* batched */
	assert_int_equal(status(s, NULL, 0).generation, 1);
	advance(s, 4900);
	pass(s);
	assert_int_equal(status(s, NULL, 0).generation, 1);
	advance(s, 100);
	pass(s); /* 10 s after the first start: one change for both */
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 2);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(s->raises, 1);
	assert_true(raised(s, BASE));
	assert_int_equal(s->nraised, 1); /* the old world was the base */
	pass(s);
	assert_int_equal(s->raises, 0);
	sim_free(s);
}

/* ------------------------------------------------------------ preempt */

static void preempt_at_once(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;

	s = sim_start_step(1, 4, 1);
	grow_to_target(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 4);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);

	preempt(s, ids[1]);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(s->raises, 1);
	/* Every job of the old world, the preempted one too. */
	assert_int_equal(s->nraised, 4);
	assert_true(raised(s, ids[1]));
	/* No replacement while the grace runs (it could take a node the
	 * preemptor waits for); nobody cancelled (Slurm ends it). */
	assert_int_equal(s->submits, 0);
	assert_int_equal(s->cancels, 0);
	assert_int_equal(st.state, GROUP_RESIZING);
	/* The other units and the base run on. */
	assert_int_equal(job(s, ids[0])->phase, PHASE_RUNNING);
	assert_int_equal(job(s, ids[2])->phase, PHASE_RUNNING);

	/* Its ranks had --elastic-grace to checkpoint: elasticd cancels it
	 * then, before Slurm's GraceTime ends, for the preemptor. */
	advance(s, 29900);
	pass(s);
	assert_int_equal(s->raises + s->submits + s->cancels, 0);
	advance(s, 100);
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], ids[1]);
	assert_int_equal(s->raises + s->submits, 0);
	/* Gone: now the replacement, which starts: a grow after the delay. */
	assert_false(job(s, ids[1])->phase == PHASE_RUNNING);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->raises + s->cancels, 0);
	start_pending(s, ANY);
	pass(s);
	advance(s, 10000);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 4);
	assert_int_equal(s->raises, 1);
	sim_free(s);
}

/* A preempted unit whose ranks have left (no step of its own runs) is
 * cancelled at once: the preemptor need not wait for the grace. */
static void preempt_ranks_gone(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };

	(void)state;
	s = sim_start_step(1, 4, 1);
	grow_to_target(s);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);
	preempt(s, ids[1]);
	pass(s);
	assert_int_equal(s->cancels, 0);
	/* Its ranks checkpoint and exit: 0.3 s later, no step of its own. */
	advance(s, 300);
	pass(s);
	assert_int_equal(s->cancels, 0);
	job(s, ids[1])->steps_gone = true;
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], ids[1]);
	/* Not again, and no other unit with it. */
	advance(s, 30000);
	pass(s);
	assert_int_equal(s->cancels, 0);
	sim_free(s);
}

/* The launcher's report: its ranks run in the new world, so the group is
 * RUNNING again before the grace ends; slow ranks are a grace warning. */
static void launcher_report(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;
	struct launch_report rep = { .group = BASE };
	struct elasticd_view *v;

	(void)state;
	s = sim_start_step(1, 4, 1);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	preempt(s, ids[1]);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_RESIZING);
	/* An old world's report changes nothing. */
	rep.generation = st.generation - 1;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	advance(s, 500);
	pass(s);
	assert_int_equal(status(s, NULL, 0).state, GROUP_RESIZING);
	/* The new one's: RUNNING, 29 s before the grace would end. */
	rep.generation = st.generation;
	rep.exit_ms = 2000;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	pass(s);
	assert_int_equal(status(s, NULL, 0).state, GROUP_RUNNING);
	v = reconcile_view(s->r, s->snap, s->now);
	assert_non_null(v);
	assert_int_equal(v->groups[0].last_exit_ms, 2000);
	assert_false(v->groups[0].grace_warning);
	assert_int_equal(v->groups[0].grace, 30);
	view_free(v);
	/* 15 s of a 30 s grace: a warning, and an event saying so. */
	rep.exit_ms = 15000;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	v = reconcile_view(s->r, s->snap, s->now);
	assert_non_null(v);
	assert_true(v->groups[0].grace_warning);
	assert_int_equal(v->groups[0].events[v->groups[0].nevents - 1].cause,
			 CAUSE_GRACE_WARNING);
	assert_string_equal(
	    v->groups[0].events[v->groups[0].nevents - 1].detail,
	    "ranks took 15.0 s of the 30 s grace to checkpoint and exit");
	view_free(v);
	/* No group, no world: refused. */
	rep.group = 4242;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), -1);
	sim_free(s);
}

/*
 * Who elasticd signals for an event: every running job of the old world
 * while the launcher has not said it relays (none reported, an older
 * one, a plain srun script); the base alone once it has, the others
 * told by the launcher; every job again when the base does not run (no
 * launcher to relay) or a later report withdraws it.
 */
static void raise_relay(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct launch_report rep = { .group = BASE, .exit_ms = -1 };
	struct elasticd_view *v;

	(void)state;
	s = sim_start_step(1, 5, 1);
	grow_to_target(s);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 4);
	/* A report without relay (an older launcher): every job. */
	rep.generation = status(s, NULL, 0).generation;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	preempt(s, ids[0]);
	pass(s);
	assert_int_equal(s->raises, 1);
	assert_int_equal(s->nraised, 5);
	assert_int_equal(s->nrelayed, 0);
	advance(s, 30000);
	pass(s);

	/* It relays: the base alone, once, the 3 units left to it. */
	rep.generation = status(s, NULL, 0).generation;
	rep.relay = true;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	v = reconcile_view(s->r, s->snap, s->now);
	assert_non_null(v);
	assert_true(v->groups[0].relay);
	view_free(v);
	preempt(s, ids[1]);
	pass(s);
	assert_int_equal(s->raises, 1);
	assert_int_equal(s->nraised, 1);
	assert_true(raised(s, BASE));
	assert_int_equal(s->nrelayed, 3);
	/* Asked through the API: the same. */
	action_list_clear(&s->l);
	assert_int_equal(reconcile_raise_request(s->r, BASE, &s->l), 0);
	assert_int_equal(s->l.n, 1);
	assert_int_equal(s->l.a[0].njobs, 1);
	assert_int_equal(s->l.a[0].jobs[0], BASE);
	assert_int_equal(s->l.a[0].relayed, 2);

	/* A later report without relay withdraws it. */
	rep.generation = status(s, NULL, 0).generation;
	rep.relay = false;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	action_list_clear(&s->l);
	assert_int_equal(reconcile_raise_request(s->r, BASE, &s->l), 0);
	assert_int_equal(s->l.a[0].njobs, 3);
	assert_int_equal(s->l.a[0].relayed, 0);
	sim_free(s);
}

/* A preempted unit that ends before a pass saw its grace. */
static void preempt_missed_grace(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };

	s = sim_start_step(1, 3, 1);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	end_job(s, ids[0], END_PREEMPTED);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 2);
	assert_int_equal(s->raises, 1);
	assert_int_equal(s->submits, 1);
	sim_free(s);
}

/* ------------------------------------------------------------ faults */

static void fault_replaced_in_time(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 }, world[8] = { 0 };
	struct reconcile_group_status st;

	s = sim_start_step(1, 3, 1);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	end_job(s, ids[0], END_FAILED);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_DEGRADED);
	assert_int_equal(st.world_nodes, 3); /* waiting, no new world */
	assert_int_equal(s->submits, 1);     /* replacement at once */
	assert_int_equal(s->raises, 0);
	advance(s, 15000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).state, GROUP_DEGRADED);
	/* It starts within the fault timeout: the size is kept, at once. */
	start_pending(s, ANY);
	pass(s);
	st = status(s, world, 8);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(st.state, GROUP_RESIZING);
	assert_int_equal(s->raises, 1);
	for (size_t i = 0; i < st.nworld; i++)
		assert_int_not_equal(world[i], ids[0]);
	sim_free(s);
}

static void fault_timeout_shrinks(void **state)
{
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;

	s = sim_start_step(2, 6, 2);
	grow_to_target(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 6);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	end_job(s, ids[0], END_FAILED);
	pass(s);
	advance(s, 19900);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_DEGRADED);
	assert_int_equal(st.world_nodes, 6);
	advance(s, 100);
	pass(s); /* fault timeout: on at the smaller size */
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 4);
	assert_int_equal(s->raises, 1);
	assert_int_not_equal(st.state, GROUP_DEGRADED);
	/* The replacement is still wanted: a grow when it starts. */
	assert_int_equal(count(s, PHASE_PENDING, ANY), 1);
	start_pending(s, ANY);
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 6);
	sim_free(s);
}

/* The base loses a node (--no-kill): a refill unit of that size; never
 * below min: until it starts, the group waits. */
static void base_loses_nodes(void **state)
{
	struct sim *s;
	struct reconcile_group_status st;

	s = sim_start_step(2, 2, 1);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 2);
	job(s, BASE)->nnodes = 1;
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 1);
	assert_int_equal(status(s, NULL, 0).state, GROUP_DEGRADED);
	advance(s, 25000); /* past the fault timeout: still no world */
	pass(s);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_DEGRADED);
	assert_int_equal(st.world_nodes, 2); /* the old one, unchanged */
	assert_int_equal(s->raises, 0);
	start_pending(s, ANY);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 2);
	assert_int_equal(st.nworld, 2);
	assert_int_equal(s->raises, 1);
	sim_free(s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(step_all_at_once),
		cmocka_unit_test(step_target),
		cmocka_unit_test(discrete_one_at_a_time),
		cmocka_unit_test(random_worlds_allowed),
		cmocka_unit_test(debounce),
		cmocka_unit_test(preempt_at_once),
		cmocka_unit_test(preempt_ranks_gone),
		cmocka_unit_test(preempt_missed_grace),
		cmocka_unit_test(launcher_report),
		cmocka_unit_test(raise_relay),
		cmocka_unit_test(fault_replaced_in_time),
		cmocka_unit_test(fault_timeout_shrinks),
		cmocka_unit_test(base_loses_nodes),
	};

	if (argc > 1) /* one test, by name (a pattern) */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
