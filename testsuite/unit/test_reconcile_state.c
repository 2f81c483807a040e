/*
 * Unit tests of reconcile.c across a restart of elasticd and in what it
 * shows: a restart with no saved state adopts what runs, one with its state
 * file keeps the world and its generation (and never signals a job that is
 * not the group's), the state file's text both ways, and the view of a
 * group built from a pass, with the names it gives.  On the simulated Slurm
 * of sim.c.
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

/* ------------------------------------------------------------ restart */

/* A restarted elasticd with no saved state adopts what runs, raises
 * nothing and takes a generation above the old one. */
static void restart_adopts(void **state)
{
	struct sim *s;
	struct reconcile_group_status before, after;
	uint32_t world[8];

	s = sim_start_step(1, 4, 1);
	grow_to_target(s);
	for (int i = 0; i < 5; i++) { /* churn the generation up */
		uint32_t ids[8] = { 0 };

		units(s, PHASE_RUNNING, ANY, ids, 8);
		preempt(s, ids[0]);
		advance(s, 200);
		pass(s);
		end_job(s, ids[0], END_PREEMPTED);
		pass(s); /* the replacement, after the grace */
		start_pending(s, ANY);
		pass(s);
		advance(s, 10000);
		pass(s);
	}
	before = status(s, NULL, 0);
	assert_true(before.generation >= 7);

	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	advance(s, 500);
	pass(s);
	after = status(s, world, 8);
	assert_true(after.generation > before.generation);
	assert_int_equal(after.world_nodes, 4);
	assert_int_equal(s->raises, 0);
	assert_int_equal(s->submits + s->cancels, 0);
	assert_int_equal(after.state, GROUP_RUNNING);
	sim_free(s);
}

/* With saved state: the same world and generation, nothing raised; a
 * member lost while elasticd was down is handled as usual. */
static void restart_with_state(void **state)
{
	struct sim *s;
	struct reconcile_group_status before, after;
	elastic_error_t err;
	char *text;
	uint32_t ids[8] = { 0 };

	s = sim_start_step(1, 4, 1);
	grow_to_target(s);
	before = status(s, NULL, 0);
	assert_true(reconcile_dirty(s->r));
	assert_int_equal(reconcile_state_format(s->r, &text, &err), 0);
	assert_false(reconcile_dirty(s->r));

	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	assert_int_equal(reconcile_state_load(s->r, text, &err), 0);
	pass(s);
	after = status(s, NULL, 0);
	assert_int_equal(after.generation, before.generation);
	assert_int_equal(after.world_nodes, 4);
	assert_int_equal(s->l.n, 0);

	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	assert_int_equal(reconcile_state_load(s->r, text, &err), 0);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	preempt(s, ids[2]);
	pass(s);
	after = status(s, NULL, 0);
	assert_int_equal(after.generation, before.generation + 1);
	assert_int_equal(after.world_nodes, 3);
	assert_int_equal(s->raises, 1);
	free(text);
	sim_free(s);
}

/* A state file whose world names a job that is not the group's (another
 * user's, running): elasticd never signals it. */
static void restored_world_checked(void **state)
{
	struct sim *s;
	elastic_error_t err;
	struct sjob *foreign;
	char text[256];

	(void)state;
	s = sim_start_step(1, 2, 1);
	grow_to_target(s);
	foreign = add(s, ROLE_OTHER, PHASE_RUNNING, 1);
	foreign->uid = OWNER + 1;
	foreign->start = T0;
	snprintf(text, sizeof(text),
		 "elasticd-state v1\ngroup %u gen 9 world %u:1:b,%u:1:p\n",
		 BASE, BASE, foreign->id);
	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	assert_int_equal(reconcile_state_load(s->r, text, &err), 0);
	pass(s);
	for (size_t i = 0; i < s->nraised; i++)
		assert_int_not_equal(s->raised[i], foreign->id);
	action_list_clear(&s->l);
	if (reconcile_raise_request(s->r, BASE, &s->l) == 0)
		for (size_t i = 0; i < s->l.n; i++)
			for (size_t k = 0; k < s->l.a[i].njobs; k++)
				assert_int_not_equal(s->l.a[i].jobs[k],
						     foreign->id);
	sim_free(s);
}

static void state_text(void **state)
{
	static const char *bad[] = {
		"nonsense\n",
		"elasticd-state v1\ngroup x gen 1\n",
		"elasticd-state v1\ngroup 5 gen -1\n",
		"elasticd-state v1\ngroup 5 gen 1 world\n",
		"elasticd-state v1\ngroup 5 gen 1 world 6:1:b\n",
		"elasticd-state v1\ngroup 5 gen 1 world 5:1:b,7:0:p\n",
		"elasticd-state v1\ngroup 5 gen 1 world 5:1:b,7:1:x\n",
		"elasticd-state v1\ngroup 5 gen 1\ngroup 5 gen 2\n",
		"elasticd-state v1\ngroup 5 gen 1 world 5:1:b extra\n",
	};
	struct reconcile *r;
	elastic_error_t err;
	char *text;

	for (size_t i = 0; i < N(bad); i++) {
		r = reconcile_create(NULL);
		if (reconcile_state_load(r, bad[i], &err) != -1)
			fail_msg("accepted: %s", bad[i]);
		reconcile_destroy(r);
	}
	r = reconcile_create(NULL);
	assert_int_equal(
	    reconcile_state_load(r,
				 "elasticd-state v1\n"
				 "group 5 gen 9 world 5:2:b,7:1:p,8:1:o\n"
				 "group 6 gen 3\n"
				 "\n",
				 &err),
	    0);
	assert_int_equal(reconcile_ngroups(r), 2);
	assert_int_equal(reconcile_state_format(r, &text, &err), 0);
	assert_non_null(
	    strstr(text, "group 5 gen 9 world 5:2:b,7:1:p,8:1:o\n"));
	assert_non_null(strstr(text, "group 6 gen 3\n"));
	free(text);
	reconcile_destroy(r);
}

/*
 * An upgrade of elasticd keeps its state: the files earlier releases wrote
 * are read by this one, world and generation.  Each release's, byte for
 * byte as its elasticd wrote it on the embedded cluster; a release that
 * changes the format adds its own and keeps these.
 */
static void state_of_earlier_releases(void **state)
{
	static const struct {
		const char *release, *text;
		uint32_t group;
		uint64_t gen;
		size_t ngroups;
	} files[] = {
		{ "0.1.0",
		  "elasticd-state v1\n"
		  "group 750049 gen 16 world "
		  "750049:1:b,750062:1:p,750061:1:p,750059:1:p\n"
		  "group 285 gen 3\n",
		  750049, 16, 2 },
	};
	elastic_error_t err;

	(void)state;
	for (size_t i = 0; i < N(files); i++) {
		struct reconcile *r = reconcile_create(NULL);
		char *text;
		char want[128];

		if (reconcile_state_load(r, files[i].text, &err) != 0)
			fail_msg("the state of %s: %s", files[i].release,
				 err.text);
		assert_int_equal(reconcile_ngroups(r), files[i].ngroups);
		assert_int_equal(reconcile_state_format(r, &text, &err), 0);
		snprintf(want, sizeof(want), "group %u gen %llu world %u:1:b,",
			 files[i].group, (unsigned long long)files[i].gen,
			 files[i].group);
		assert_non_null(strstr(text, want));
		free(text);
		reconcile_destroy(r);
	}
}

/* ------------------------------------------------------------ view */

static void view(void **state)
{
	struct sim *s;
	struct elasticd_view *v;
	const struct group_info *g;
	uint32_t ids[8] = { 0 };
	size_t base = 0, pre = 0;

	s = sim_start_step(2, 4, 1);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	preempt(s, ids[0]);
	pass(s);
	v = reconcile_view(s->r, s->snap, s->now);
	assert_non_null(v);
	assert_int_equal(v->ngroups, 1);
	g = &v->groups[0];
	assert_int_equal(g->base_job_id, BASE);
	assert_int_equal(g->user_id, OWNER);
	assert_string_equal(g->user, "alice");
	assert_string_equal(g->account, "physics");
	assert_int_equal(g->min, 2);
	assert_int_equal(g->max, 4);
	assert_int_equal(g->world_nodes, 3);
	assert_string_equal(g->master_addr, "n100");
	assert_int_equal(g->state, GROUP_RESIZING);
	for (size_t i = 0; i < g->nmembers; i++) {
		const struct member_info *m = &g->members[i];

		if (m->kind == MEMBER_BASE) {
			base++;
			assert_int_equal(m->job_id, BASE);
			assert_true(m->in_world);
			assert_string_equal(m->nodes, "n[100-101]");
		}
		if (m->job_id == ids[0]) {
			pre++;
			assert_int_equal(m->state, MEMBER_PREEMPTED);
			assert_false(m->in_world);
		}
	}
	assert_int_equal(base, 1);
	assert_int_equal(pre, 1);
	assert_int_equal(g->nevents, 2);
	assert_int_equal(g->events[g->nevents - 1].cause, CAUSE_PREEMPT);
	assert_int_equal(g->events[0].cause, CAUSE_START);
	assert_int_equal(v->nodes_base, 2);
	assert_int_equal(v->nodes_preemptible, 2);
	assert_int_equal(v->metrics.resizes[CAUSE_PREEMPT], 1);
	assert_int_equal(v->metrics.units_submitted, 2); /* none in grace */
	view_free(v);
	view_free(NULL);
	sim_free(s);
}

static void names(void **state)
{
	assert_string_equal(group_state_name(GROUP_DEGRADED), "DEGRADED");
	assert_string_equal(group_state_name(GROUP_COMPLETING), "COMPLETING");
	assert_string_equal(member_kind_name(MEMBER_ONDEMAND), "ondemand");
	assert_string_equal(member_state_name(MEMBER_RELEASING), "releasing");
	assert_string_equal(event_cause_name(CAUSE_RETURN), "return");
	assert_string_equal(event_cause_name(CAUSE_GRACE_WARNING),
			    "grace-warning");
	assert_string_equal(group_state_name((enum group_state)99), "UNKNOWN");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(restart_adopts),
		cmocka_unit_test(restart_with_state),
		cmocka_unit_test(restored_world_checked),
		cmocka_unit_test(state_text),
		cmocka_unit_test(state_of_earlier_releases),
		cmocka_unit_test(view),
		cmocka_unit_test(names),
	};

	if (argc > 1) /* one test, by name (a pattern) */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
