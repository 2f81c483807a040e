/* Idle nodes shared between groups (share.h) through the reconcile pass,
 * on the simulated Slurm (sim.c) started in priority order: equal groups
 * level, no unit moves between running groups unless Rebalance=yes, and
 * then one at a time, through the grace, until the groups are level. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* Slurm's scheduler: pending units started by priority (the lowest nice,
 * then the oldest) on `idle` one-node slots. */
static unsigned start_by_priority(struct sim *s, unsigned idle)
{
	unsigned n = 0;

	while (idle) {
		struct sjob *best = NULL;

		for (size_t i = 0; i < s->n; i++) {
			struct sjob *j = &s->jobs[i];

			if (j->role != ROLE_UNIT || j->phase != PHASE_PENDING ||
			    j->nnodes > idle)
				continue;
			if (!best || j->nice < best->nice ||
			    (j->nice == best->nice && j->id < best->id))
				best = j;
		}
		if (!best)
			break;
		start_one(s, best->id);
		idle -= best->nnodes;
		n++;
	}
	return n;
}

static unsigned world_of(struct sim *s, uint32_t group)
{
	struct reconcile_group_status st;
	uint32_t w[64];

	assert_int_equal(reconcile_group_status(s->r, group, &st, w, N(w)), 0);
	return st.world_nodes;
}

/* Three equal groups (min 1, max 5) want 6 idle nodes: 2 each. */
static void equal_groups_level(void **state)
{
	struct sim *s = sim_start_step(1, 5, 1);
	uint32_t g2 = add_base(s, 1)->id, g3 = add_base(s, 1)->id;

	(void)state;
	pass(s);
	assert_int_equal(s->submits, 12);
	assert_int_equal(start_by_priority(s, 6), 6);
	advance(s, 11000);
	pass(s);
	assert_int_equal(world_of(s, BASE), 3);
	assert_int_equal(world_of(s, g2), 3);
	assert_int_equal(world_of(s, g3), 3);
	/* each a third, waiting for idle nodes since its world formed */
	{
		struct elasticd_view *v = reconcile_view(s->r, s->snap, s->now);

		assert_non_null(v);
		assert_int_equal(v->ngroups, 3);
		for (size_t i = 0; i < v->ngroups; i++) {
			assert_true(v->groups[i].share > 0.333 &&
				    v->groups[i].share < 0.334);
			assert_int_equal(v->groups[i].held, HELD_NODES);
			assert_true(v->groups[i].growth_wait_ms >= 0);
		}
		view_free(v);
	}
	sim_free(s);
}

/* A first group at its max of 5; a second comes with nothing idle. */
static struct sim *late_comer(bool rebalance, uint32_t *g2)
{
	struct sim *s = sim_start_step(1, 5, 1);

	s->pol.rebalance = rebalance;
	s->pol.rebalance_interval = 60;
	grow_to_target(s);
	assert_int_equal(world_of(s, BASE), 5);
	*g2 = add_base(s, 1)->id;
	pass(s);
	assert_int_equal(s->submits, 4);
	return s;
}

static void no_churn_by_default(void **state)
{
	uint32_t g2;
	struct sim *s = late_comer(false, &g2);

	(void)state;
	for (int i = 0; i < 60; i++) {
		advance(s, 10000);
		pass(s);
		assert_int_equal(s->raises, 0);
		assert_int_equal(s->cancels, 0);
	}
	assert_int_equal(world_of(s, BASE), 5);
	assert_int_equal(world_of(s, g2), 1);
	sim_free(s);
}

static void rebalance_one_at_a_time(void **state)
{
	uint32_t g2;
	struct sim *s = late_comer(true, &g2);
	unsigned moves = 0;
	int64_t last = 0;

	(void)state;
	for (int i = 0; i < 100; i++) {
		advance(s, 5000);
		pass(s);
		if (raised(s, BASE) && world_of(s, BASE) < 5 - moves) {
			/* one unit, an interval after the last */
			assert_true(!last || s->now - last >= 60000);
			last = s->now;
			moves++;
		}
		/* the node it gave goes to the group below its share (a
		 * pending unit cancelled frees none) */
		for (size_t k = 0; k < s->cancels; k++)
			if (job(s, s->cancelled[k])->start)
				start_by_priority(
				    s, job(s, s->cancelled[k])->nnodes);
	}
	assert_int_equal(moves, 2);
	assert_int_equal(world_of(s, BASE), 3);
	assert_int_equal(world_of(s, g2), 3);
	sim_free(s);
}

/* Pending units of the group (its units' tag). */
static unsigned pending_of(struct sim *s, uint32_t group)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->jobs[i].role == ROLE_UNIT &&
		     s->jobs[i].phase == PHASE_PENDING &&
		     s->jobs[i].unit.group == group;
	return n;
}

/* Two groups of one user that want 59 units each, nothing idle: the
 * user's bound on pending units (64) is theirs by halves, not all the
 * first group's (the second would never grow), even when the first came
 * alone and took it all. */
static void user_bound_shared(void **state)
{
	struct sim *s = sim_start_step(1, 60, 1);
	struct sjob *b2 = add_base(s, 1);
	uint32_t g2 = b2->id;

	(void)state;
	b2->phase = PHASE_PENDING;
	for (int i = 0; i < 10; i++) {
		pass(s);
		advance(s, 1000);
	}
	assert_int_equal(pending_of(s, BASE), 59);
	b2->phase = PHASE_RUNNING;
	b2->start = (time_t)(s->now / 1000);
	for (int i = 0; i < 20; i++) {
		pass(s);
		advance(s, 1000);
	}
	assert_int_equal(pending_of(s, BASE), 32);
	assert_int_equal(pending_of(s, g2), 32);
	sim_free(s);
}

/* The lowest nice of the group's pending units not being let go. */
static unsigned lowest_pending_nice(struct sim *s)
{
	unsigned low = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct sjob *j = &s->jobs[i];

		if (j->role == ROLE_UNIT && j->phase == PHASE_PENDING &&
		    (!low || j->nice < low))
			low = j->nice;
	}
	return low;
}

/* A group that lost its oldest units to a preemption: its pending units,
 * asked for at sizes 5 to 7, now fill the slots of sizes 3 to 5 and would
 * wait behind every other group's units of sizes 3 and 4; they are let go
 * and the slots asked for again at their rank. */
static void pending_reranked(void **state)
{
	struct sim *s = sim_start_step(1, 7, 1);
	uint32_t ids[8];

	(void)state;
	pass(s);
	assert_int_equal(start_by_priority(s, 3), 3);
	advance(s, 11000);
	pass(s);
	assert_int_equal(world_of(s, BASE), 4);
	assert_int_equal(lowest_pending_nice(s), 10501);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, N(ids)), 3);
	preempt(s, ids[0]);
	preempt(s, ids[1]);
	pass(s);
	end_job(s, ids[0], END_PREEMPTED);
	end_job(s, ids[1], END_PREEMPTED);
	for (int i = 0; i < 5; i++) {
		advance(s, 1000);
		pass(s);
	}
	assert_int_equal(world_of(s, BASE), 2);
	assert_int_equal(lowest_pending_nice(s), 10301);
	sim_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_groups_level),
		cmocka_unit_test(no_churn_by_default),
		cmocka_unit_test(rebalance_one_at_a_time),
		cmocka_unit_test(user_bound_shared),
		cmocka_unit_test(pending_reranked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
