/*
 * The synthetic view that elasticd's API unit tests route, authorize and
 * render (synthview.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "synthview.h"

/*
 * The synthetic view: alice's running group 100 (base 2 nodes, a running
 * and a pending preemptible unit, an on-demand unit) with three events,
 * and bob's pending group 200 with nothing known but its owner.
 * Allocated as view.c would, so that view_free() frees it.
 */
struct elasticd_view *make_view(void)
{
	struct elasticd_view *v = calloc(1, sizeof(*v));
	struct group_info *g;
	struct member_info *m;
	struct event_info *e;

	assert_non_null(v);
	v->published.tv_sec = 1714566896; /* 2024-05-01T12:34:56Z */
	v->published.tv_nsec = 789000000;
	v->ngroups = 2;
	v->groups = calloc(2, sizeof(*v->groups));
	assert_non_null(v->groups);

	g = &v->groups[0];
	g->base_job_id = 100;
	g->user_id = ALICE;
	g->user = strdup("alice");
	g->account = strdup("proj");
	g->state = GROUP_RUNNING;
	g->min = 2;
	g->max = 8;
	g->generation = 3;
	g->world_nodes = 6;
	g->spares = 1;
	g->master_addr = strdup("n1");
	g->grace = 20;
	g->last_exit_ms = 12500;
	g->grace_warning = true;
	g->weight = 2;
	g->share = 0.75;
	g->growth_wait_ms = 4500;
	g->held = HELD_NODES;
	g->relay = true;
	g->nmembers = 4;
	g->members = m = calloc(4, sizeof(*m));
	assert_non_null(m);
	m[0] = (struct member_info){ 100,  MEMBER_BASE,	     MEMBER_RUNNING,
				     2,	   strdup("n[1-2]"), true,
				     false };
	m[1] = (struct member_info){ 101,  MEMBER_PREEMPTIBLE, MEMBER_RUNNING,
				     2,	   strdup("n[3-4]"),   true,
				     false };
	m[2] = (struct member_info){
		102, MEMBER_PREEMPTIBLE, MEMBER_PENDING, 2, NULL, false, false
	};
	m[3] = (struct member_info){ 103,  MEMBER_ONDEMAND, MEMBER_RUNNING,
				     2,	   strdup("n5,n6"), true,
				     false };
	g->nevents = 3;
	g->events = e = calloc(3, sizeof(*e));
	assert_non_null(e);
	e[0] = (struct event_info){ { 1714566800, 5000000 },
				    CAUSE_START,
				    1,
				    2,
				    strdup("first world") };
	e[1] = (struct event_info){ { 1714566850, 999999999 },
				    CAUSE_GROW,
				    2,
				    4,
				    strdup("unit 101 started (n[3-4])") };
	e[2] = (struct event_info){
		{ 1714566890, 0 }, CAUSE_ONDEMAND, 3, 6, NULL
	};

	g = &v->groups[1];
	g->base_job_id = 200;
	g->user_id = BOB;
	g->state = GROUP_PENDING;
	g->last_exit_ms = -1;
	g->growth_wait_ms = -1;
	g->min = 1;
	g->max = 4;

	v->nodes_base = 2;
	v->nodes_preemptible = 2;
	v->nodes_ondemand = 2;
	v->nodes_spare = 2;
	v->metrics.cycles = 42;
	v->metrics.slurm_rpcs = 84;
	v->metrics.slurm_rpcs_last_cycle = 2;
	v->metrics.notified = 7;
	v->metrics.notify_dropped = 3;
	v->metrics.light_cycles = 5;
	v->metrics.starts_told = 4;
	v->metrics.suspects[0][0] = 2; /* lost, drained */
	v->metrics.suspects[2][1] = 6; /* straggler, reported */
	v->metrics.reconcile_seconds_last = 0.0015;
	v->metrics.reconcile_seconds_sum = 0.25;
	v->metrics.resizes[CAUSE_START] = 1;
	v->metrics.resizes[CAUSE_GROW] = 1;
	v->metrics.resizes[CAUSE_ONDEMAND] = 1;
	v->metrics.resize_seconds_sum = 12.5;
	v->metrics.units_submitted = 3;
	v->metrics.units_cancelled = 1;
	v->metrics.swaps = 5;
	v->metrics.started = 1714560000;
	return v;
}
