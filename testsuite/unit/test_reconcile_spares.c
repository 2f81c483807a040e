/*
 * Unit tests of elasticd's spares (--elastic-spares, reconcile.c): units
 * kept beside the world, asked for once the world's own units run, never
 * in the world nor released, and taking a lost member's place at once,
 * at the same size.  On the simulated Slurm of sim.c.
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

/* Did the last pass log a line with text in it? */
static bool noted(const struct sim *s, const char *text)
{
	for (size_t i = 0; i < s->l.n; i++)
		if (s->l.a[i].type == ACTION_NOTE &&
		    strstr(s->l.a[i].text, text))
			return true;
	return false;
}

/* The view's count of spares, of spare members, and of swaps. */
static void view_says(struct sim *s, unsigned spares, uint64_t swaps)
{
	struct elasticd_view *v = reconcile_view(s->r, s->snap, s->now);
	unsigned flagged = 0;

	assert_non_null(v);
	assert_int_equal(v->ngroups, 1);
	for (size_t i = 0; i < v->groups[0].nmembers; i++) {
		const struct member_info *m = &v->groups[0].members[i];

		flagged += m->spare;
		assert_false(m->spare && m->in_world);
	}
	assert_int_equal(v->groups[0].spares, spares);
	assert_int_equal(flagged, spares);
	assert_int_equal(v->nodes_spare, spares);
	assert_int_equal(v->metrics.swaps, swaps);
	view_free(v);
}

static bool in(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* A step group min..max of 1-node units with spares, at its target,
 * its spares running. */
static struct sim *with_spares(unsigned min, unsigned max, unsigned spares)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, min, max, 1);
	o.spares = spares;
	o.given |= 1u << ELASTIC_OPT_SPARES;
	s = sim_start(&o);
	grow_to_target(s);
	pass(s);
	start_pending(s, ANY);
	pass(s);
	return s;
}

/* The world's units first; the spares once they run; a spare is never
 * in the world, never released, and no resize for it. */
static void spares_after_the_world(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t world[8], ids[8];
	struct reconcile_group_status st;

	(void)state;
	opts_step(&o, 1, 3, 1);
	o.spares = 2;
	s = sim_start(&o);
	pass(s);
	assert_int_equal(s->submits, 2); /* the world's two, no spare */
	pass(s);
	assert_int_equal(s->submits, 0);
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 3);
	assert_int_equal(s->submits, 2); /* now the spares */
	start_pending(s, ANY);
	for (int i = 0; i < 5; i++) {
		advance(s, 10000);
		pass(s);
		assert_int_equal(s->cancels, 0);
		assert_int_equal(s->raises, 0);
		assert_int_equal(s->submits, 0);
	}
	st = status(s, world, 8);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(st.nworld, 3);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 4);
	assert_int_equal(st.state, GROUP_RUNNING);
	view_says(s, 2, 0);
	/* The base ends: every unit goes, none is a spare any more. */
	end_job(s, BASE, END_COMPLETE);
	pass(s);
	assert_int_equal(s->cancels, 4);
	view_says(s, 0, 0);
	sim_free(s);
}

/* A failed member: the spare in its place in the same pass, no fault
 * timeout waited, the size kept; a new spare asked for. */
static void spare_replaces_failed(void **state)
{
	struct sim *s = with_spares(1, 3, 1);
	uint32_t before[8], after[8], ids[8];
	struct reconcile_group_status st;
	size_t n;

	(void)state;
	st = status(s, before, 8);
	assert_int_equal(st.world_nodes, 3);
	n = units(s, PHASE_RUNNING, ANY, ids, 8);
	assert_int_equal(n, 3);
	end_job(s, before[1], END_FAILED);
	pass(s);
	st = status(s, after, 8);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(st.generation, 2);
	assert_int_not_equal(st.state, GROUP_DEGRADED);
	assert_int_equal(s->raises, 1);
	assert_false(in(after, st.nworld, before[1]));
	for (size_t i = 0; i < n; i++)
		if (!in(before, 3, ids[i]))
			assert_true(in(after, st.nworld, ids[i]));
	assert_true(noted(s, "spare unit"));
	assert_false(noted(s, "waiting up to"));
	assert_int_equal(s->submits, 1); /* the next spare */
	view_says(s, 0, 1);
	start_pending(s, ANY);
	pass(s);
	view_says(s, 1, 1);
	sim_free(s);
}

/* A launcher that checks its spares said none is checked yet: a failed
 * member's place waits for the spare (no other unit asked for, within
 * the fault timeout), which joins no world until it is said checked;
 * then it does, at once. */
static void spare_checked_before_world(void **state)
{
	struct sim *s = with_spares(1, 3, 1);
	uint32_t before[8], after[8], ids[8], spare = 0;
	struct reconcile_group_status st;
	size_t n;

	(void)state;
	st = status(s, before, 8);
	n = units(s, PHASE_RUNNING, ANY, ids, 8);
	for (size_t i = 0; i < n; i++)
		if (!in(before, st.nworld, ids[i]))
			spare = ids[i];
	assert_int_not_equal(spare, 0);
	assert_int_equal(reconcile_spares_checked(s->r, BASE, NULL, 0), 0);
	assert_int_equal(reconcile_spares_checked(s->r, BASE + 999, NULL, 0),
			 -1);
	end_job(s, before[1], END_FAILED);
	for (int i = 0; i < 3; i++) {
		pass(s);
		st = status(s, after, 8);
		assert_int_equal(st.state, GROUP_DEGRADED);
		assert_false(in(after, st.nworld, spare));
		assert_int_equal(s->submits, 0);
		assert_int_equal(s->cancels, 0);
		view_says(s, 1, 0);
		advance(s, 1000);
	}
	/* Another spare checked is not this one. */
	ids[0] = spare + 1000;
	assert_int_equal(reconcile_spares_checked(s->r, BASE, ids, 1), 0);
	pass(s);
	assert_false(in(after, status(s, after, 8).nworld, spare));
	assert_int_equal(reconcile_spares_checked(s->r, BASE, &spare, 1), 0);
	pass(s);
	st = status(s, after, 8);
	assert_int_equal(st.world_nodes, 3);
	assert_true(in(after, st.nworld, spare));
	assert_int_equal(s->submits, 1); /* the next spare */
	sim_free(s);
}

/* Spares where Slurm takes them first (SparePartitions, SpareQOS): the
 * world's units in PreemptiblePartitions, every spare (the first, and
 * the one asked for after a swap) in the spares' partition and QOS. */
static void spares_where_taken_first(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t world[8];

	(void)state;
	opts_step(&o, 1, 2, 1);
	o.spares = 1;
	o.given |= 1u << ELASTIC_OPT_SPARES;
	s = sim_start(&o);
	s->pol.spare_partitions.n = 1;
	strcpy(s->pol.spare_partitions.name[0], "spare");
	strcpy(s->pol.spare_qos, "scavenger");
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_string_equal(s->last_partition, "preempt");
	assert_string_equal(s->last_qos, "spot");
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_string_equal(s->last_partition, "spare");
	assert_string_equal(s->last_qos, "scavenger");
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(status(s, world, 8).world_nodes, 2);
	end_job(s, world[1], END_FAILED);
	pass(s);
	assert_int_equal(status(s, world, 8).world_nodes, 2);
	assert_int_equal(s->submits, 1);
	assert_string_equal(s->last_partition, "spare");
	assert_string_equal(s->last_qos, "scavenger");
	sim_free(s);
}

/* A preempted member: the same, at once. */
static void spare_replaces_preempted(void **state)
{
	struct sim *s = with_spares(2, 4, 1);
	uint32_t before[8], after[8];
	struct reconcile_group_status st;

	(void)state;
	st = status(s, before, 8);
	assert_int_equal(st.world_nodes, 4);
	preempt(s, before[2]);
	pass(s);
	st = status(s, after, 8);
	assert_int_equal(st.world_nodes, 4);
	assert_int_equal(st.nworld, 3); /* the base and two units */
	assert_false(in(after, st.nworld, before[2]));
	assert_true(noted(s, "preempted; spare unit"));
	sim_free(s);
}

/* Without a spare, the fault timeout as before. */
static void no_spare_waits(void **state)
{
	struct sim *s = with_spares(1, 3, 0);
	uint32_t before[8];

	(void)state;
	status(s, before, 8);
	end_job(s, before[1], END_FAILED);
	pass(s);
	assert_int_equal(status(s, NULL, 0).state, GROUP_DEGRADED);
	assert_true(noted(s, "waiting up to 20 s"));
	assert_false(noted(s, "spare unit"));
	sim_free(s);
}

/* The spares' nodes count in the cap: as many as fit beside the
 * target. */
static void spares_within_the_cap(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	(void)state;
	opts_step(&o, 1, 3, 1);
	o.spares = 2;
	s = sim_new(&o);
	s->pol.max_nodes = 4;
	pass(s);
	start_pending(s, ANY);
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 3);
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(count(s, PHASE_RUNNING, ANY), 3); /* 2 + 1 spare */
	assert_int_equal(count(s, PHASE_PENDING, ANY), 0);
	sim_free(s);
}

/* --elastic-sizes: spares of the last increment, once the world is at
 * its largest size. */
static void spares_of_discrete_sizes(void **state)
{
	static const unsigned sizes[] = { 2, 4, 8 };
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8];
	size_t n;

	(void)state;
	opts_sizes(&o, sizes, 3);
	o.spares = 1;
	s = sim_start(&o);
	pass(s);
	assert_int_equal(s->submits, 1); /* one increment at a time */
	grow_to_target(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 8);
	n = units(s, PHASE_RUNNING, ANY, ids, 8);
	assert_int_equal(n, 3); /* 2 and 4 of the world, a spare of 4 */
	assert_int_equal(job(s, ids[0])->nnodes + job(s, ids[1])->nnodes +
			     job(s, ids[2])->nnodes,
			 10);
	assert_int_equal(status(s, NULL, 0).world_nodes, 8);
	sim_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spares_after_the_world),
		cmocka_unit_test(spare_replaces_failed),
		cmocka_unit_test(spares_where_taken_first),
		cmocka_unit_test(spare_checked_before_world),
		cmocka_unit_test(spare_replaces_preempted),
		cmocka_unit_test(no_spare_waits),
		cmocka_unit_test(spares_within_the_cap),
		cmocka_unit_test(spares_of_discrete_sizes),
	};

	return cmocka_run_group_tests_name("reconcile_spares", tests, NULL,
					   NULL);
}
