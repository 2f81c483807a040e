/* Unit tests of the goodput simulator (goodsim.c): the oracle's
 * arithmetic, each policy on small traces whose outcome is known, spares
 * and sizes groups, the parameters' checks, the synthetic traces, and the
 * scheduled passes against a pass at every tick on the real trace. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/trace.h"
#include "goodsim/goodsim.h"

/* Four spot nodes for an hour; the last line only ends the trace. */
#define HOUR_MS 3600000
static const char steady[] = "0,add,a\n0,add,b\n0,add,c\n0,add,d\n"
			     "3600000,remove,d\n";
/* The same, node d taken back half-way. */
static const char half[] = "0,add,a\n0,add,b\n0,add,c\n0,add,d\n"
			   "1800000,remove,d\n3600000,remove,c\n";

static struct trace *parse(const char *text)
{
	elastic_error_t err;
	struct trace *t = trace_parse(text, "test", &err);

	if (!t)
		fail_msg("%s", err.text);
	return t;
}

/* Four spot nodes, two on-demand (the base), one group of 2..6. */
static void params(struct goodsim_params *p)
{
	goodsim_defaults(p);
	p->spot_nodes = 4;
	p->ondemand_nodes = 2;
	p->min = 2;
	p->max = 6;
	p->rate = 10;
}

static struct goodsim_result run(const struct goodsim_params *p,
				 const char *text, enum goodsim_policy pol)
{
	struct trace *t = parse(text);
	struct goodsim_result r;
	elastic_error_t err;

	if (goodsim_run(p, t, pol, NULL, NULL, 0, &r, &err) < 0)
		fail_msg("%s: %s", goodsim_policy_name(pol), err.text);
	trace_destroy(t);
	return r;
}

static void test_oracle(void **state)
{
	struct goodsim_params p;
	struct goodsim_result r;

	(void)state;
	params(&p);
	/* 4 spot + 2 on-demand for 3600 s at 10 a node: 216000 */
	r = run(&p, steady, GOODSIM_ORACLE);
	assert_float_equal(r.seconds, 3600, 1e-9);
	assert_float_equal(r.samples, 216000, 1e-6);
	assert_float_equal(r.goodput, 60, 1e-9);
	assert_float_equal(r.spot_node_s, 4 * 3600, 1e-6);
	assert_float_equal(r.ondemand_node_s, 2 * 3600, 1e-6);
	/* half of it by 1800 s */
	assert_float_equal(r.time_to_target_s, 1800, 1e-6);
	/* node d gone at 1800 s: 6 then 5 nodes */
	r = run(&p, half, GOODSIM_ORACLE);
	assert_float_equal(r.samples, (6 + 5) * 1800 * 10, 1e-6);
	/* at speed 2, the hour lasts 1800 s */
	p.speed = 2;
	r = run(&p, half, GOODSIM_ORACLE);
	assert_float_equal(r.seconds, 1800, 1e-9);
	assert_float_equal(r.samples, (6 + 5) * 900 * 10, 1e-6);
	/* the groups' max caps it: spot first, then on-demand */
	p.speed = 1;
	p.max = 5;
	r = run(&p, steady, GOODSIM_ORACLE);
	assert_float_equal(r.samples, 5 * 3600 * 10, 1e-6);
	assert_float_equal(r.spot_node_s, 4 * 3600, 1e-6);
	assert_float_equal(r.ondemand_node_s, 1 * 3600, 1e-6);
	/* prices: node-hours times their price */
	assert_float_equal(r.cost, 4 * p.spot_price + p.ondemand_price, 1e-9);
}

/* Nothing happens: every policy trains on all six nodes, minus its start
 * and the periodic checkpoints (2 s every 600 s). */
static void test_steady(void **state)
{
	struct goodsim_params p;

	(void)state;
	params(&p);
	for (int k = 0; k < GOODSIM_ORACLE; k++) {
		struct goodsim_result r = run(&p, steady, k);

		assert_true(r.samples <= 216000);
		if (r.samples < 0.98 * 216000)
			fail_msg("%s: %.0f samples, below 98%% of 216000",
				 goodsim_policy_name(k), r.samples);
		assert_float_equal(r.repeated, 0, 0);
		assert_int_equal(r.preemptions + r.crashes, 0);
	}
	/* elasticd's own decisions: the group formed, then grew to 6 */
	assert_int_equal(run(&p, steady, GOODSIM_ELASTIC).resizes, 1);
}

/* Node d is reclaimed half-way: the elastic job goes on at 5, the native
 * one (-N6) never runs again, restart-at-size starts again at 5. */
static void test_reclaim(void **state)
{
	struct goodsim_params p;
	struct goodsim_result e, n, r;
	double ideal = (6 + 5) * 1800 * 10;

	(void)state;
	params(&p);
	e = run(&p, half, GOODSIM_ELASTIC);
	n = run(&p, half, GOODSIM_NATIVE);
	r = run(&p, half, GOODSIM_RESTART);
	assert_int_equal(e.preemptions, 1);
	assert_int_equal(e.crashes, 0);
	assert_float_equal(e.repeated, 0, 0);
	if (e.samples < 0.97 * ideal || e.samples > ideal)
		fail_msg("elastic: %.0f samples, not 97..100%% of %.0f",
			 e.samples, ideal);
	if (r.samples < 0.97 * ideal || r.samples > ideal)
		fail_msg("restart: %.0f samples, not 97..100%% of %.0f",
			 r.samples, ideal);
	/* native: the first half only, and the requeued job waits */
	assert_true(n.samples < 6 * 1800 * 10);
	assert_true(n.samples > 0.97 * 6 * 1800 * 10);
	assert_float_equal(n.repeated, 0, 0);
	assert_true(e.goodput > 1.8 * n.goodput);
	/* the world changed once more for the reclaim */
	assert_int_equal(e.resizes, 2);
}

/* Nodes d and c are reclaimed 5 s apart.  elastic-run picks the new
 * world only once the old ranks are down (stop_s after the first
 * change): the second change is then taken by the same relaunch, and
 * the training starts 3 s sooner than after two relaunches. */
static void test_coalesce(void **state)
{
	static const char two[] = "0,add,a\n0,add,b\n0,add,c\n0,add,d\n"
				  "1800000,remove,d\n1805000,remove,c\n"
				  "3600000,remove,b\n";
	struct goodsim_params p;
	struct goodsim_result apart, once;
	elastic_error_t err;

	(void)state;
	params(&p);
	p.restart_s = 8;
	apart = run(&p, two, GOODSIM_ELASTIC);
	p.stop_s = 6;
	once = run(&p, two, GOODSIM_ELASTIC);
	/* formed; then 5 and 4 nodes apart, or only 4 */
	assert_int_equal(apart.resizes, 3);
	assert_int_equal(once.resizes, 2);
	/* 3 s of 4 nodes at 10 a node, give or take a tick */
	if (once.samples - apart.samples < 80 ||
	    once.samples - apart.samples > 160)
		fail_msg("coalesced: %.0f more samples, not about 120",
			 once.samples - apart.samples);
	/* a change after the pick (its checkpoint, 2 s, then 2 s) is a
	 * relaunch again */
	p.stop_s = 2;
	assert_int_equal(run(&p, two, GOODSIM_ELASTIC).resizes, 3);
	/* the part before the pick is a part of the relaunch */
	p.stop_s = 9;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "stop"));
}

/* Node d crashes half-way: the work since the last checkpoint is done
 * again, never more than a checkpoint period of it. */
static void test_crash(void **state)
{
	struct goodsim_params p;
	double period_work, crashed;

	(void)state;
	params(&p);
	p.reclaim_ratio = 0;
	period_work = 6 * 10 * p.ckpt_every_s;
	for (int k = 0; k < GOODSIM_ORACLE; k++) {
		struct goodsim_result r;

		if (k == GOODSIM_INPLACE)
			continue; /* test_inplace */
		r = run(&p, half, k);

		assert_int_equal(r.crashes, 1);
		assert_int_equal(r.preemptions, 0);
		if (!(r.repeated > 0 && r.repeated <= period_work))
			fail_msg("%s: %.0f repeated, not in (0, %.0f]",
				 goodsim_policy_name(k), r.repeated,
				 period_work);
	}
	/* a crash costs the elastic job more than a reclaim */
	crashed = run(&p, half, GOODSIM_ELASTIC).samples;
	p.reclaim_ratio = 1;
	assert_true(crashed < run(&p, half, GOODSIM_ELASTIC).samples);
}

/* A crash is known to slurm-elastic's launchers after lost_s (their
 * heartbeats), to Slurm after detect_s: the elastic and in-place
 * policies gain from the first, native's requeue does not. */
static void test_lost(void **state)
{
	struct goodsim_params p;
	double slow, fast, nslow, nfast;
	elastic_error_t err;

	(void)state;
	params(&p);
	p.reclaim_ratio = 0;
	p.detect_s = 300;
	p.lost_s = 300;
	slow = run(&p, half, GOODSIM_ELASTIC).samples;
	nslow = run(&p, half, GOODSIM_NATIVE).samples;
	p.lost_s = 5;
	fast = run(&p, half, GOODSIM_ELASTIC).samples;
	nfast = run(&p, half, GOODSIM_NATIVE).samples;
	if (!(fast > slow))
		fail_msg("elastic: %.0f samples with a 5 s detection, %.0f "
			 "with 300 s",
			 fast, slow);
	assert_true(nfast == nslow);
	p.lost_s = -1;
	assert_int_equal(goodsim_check(&p, &err), -1);
}

/* A measured client: the curve's points and the lines between them, the
 * last point's per node past it; the oracle and the groups train at it. */
static void test_curve(void **state)
{
	static const char *const bad[] = { "",	      "0:5",	 "2:5,2:6",
					   "3:5,2:6", "2:-1",	 "2:5,",
					   "x",	      "2:5;3:6", "2000:5" };
	struct goodsim_params p;
	struct goodsim_result r, e;
	elastic_error_t err;

	(void)state;
	params(&p);
	assert_int_equal(goodsim_set_curve(&p, "2:100,4:150", &err), 0);
	assert_int_equal(p.ncurve, 4);
	assert_float_equal(goodsim_world_rate(&p, 1), 50, 1e-9);
	assert_float_equal(goodsim_world_rate(&p, 2), 100, 1e-9);
	assert_float_equal(goodsim_world_rate(&p, 3), 125, 1e-9);
	assert_float_equal(goodsim_world_rate(&p, 4), 150, 1e-9);
	assert_float_equal(goodsim_world_rate(&p, 6), 225, 1e-9);
	assert_int_equal(goodsim_check(&p, &err), 0);
	/* the oracle: 6 nodes, one group: 225 a second */
	r = run(&p, steady, GOODSIM_ORACLE);
	assert_float_equal(r.samples, 225.0 * 3600, 1e-6);
	/* the group trains at the curve too, less its start */
	e = run(&p, steady, GOODSIM_ELASTIC);
	if (e.samples > r.samples || e.samples < 0.98 * r.samples)
		fail_msg("elastic: %.0f samples, not 98..100%% of %.0f",
			 e.samples, r.samples);
	/* two groups of 4 nodes each (4 spot, 4 on-demand): 2 x 150 */
	p.groups = 2;
	p.ondemand_nodes = 4;
	r = run(&p, steady, GOODSIM_ORACLE);
	assert_float_equal(r.samples, 300.0 * 3600, 1e-6);
	/* 7 nodes over 2 groups: 3 and 4 */
	p.ondemand_nodes = 3;
	r = run(&p, steady, GOODSIM_ORACLE);
	assert_float_equal(r.samples, (125.0 + 150) * 3600, 1e-6);
	/* without one, linear */
	p.ncurve = 0;
	assert_float_equal(goodsim_world_rate(&p, 6), 60, 1e-9);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (goodsim_set_curve(&p, bad[i], &err) != -1)
			fail_msg("'%s' taken", bad[i]);
		assert_non_null(strstr(err.text, "rate-curve"));
		assert_int_equal(p.ncurve, 0);
	}
}

/* Restart-at-size: a change tells the old job to end; it holds its
 * nodes for stop_s, then the new one starts cold, its ranks up
 * restart_s - stop_s later.  The first job starts cold too. */
static void test_restart_stop(void **state)
{
	static const char early[] = "0,add,a\n0,add,b\n0,add,c\n0,add,d\n"
				    "2000,remove,d\n3600000,remove,c\n";
	struct goodsim_params p;
	struct goodsim_result r0, r3;

	(void)state;
	params(&p);
	p.restart_s = 8;
	r0 = run(&p, half, GOODSIM_RESTART);
	p.stop_s = 3;
	r3 = run(&p, half, GOODSIM_RESTART);
	assert_int_equal(r0.resizes, 2);
	assert_int_equal(r3.resizes, 2);
	/* the same dead time at the change; the first launch 3 s shorter:
	 * 3 s of 6 nodes at 10 a node */
	assert_float_equal(r3.samples - r0.samples, 180, 1e-6);
	/* for those 3 s the old job held its 4 spot nodes (the reclaimed
	 * one until it ended), where the new one would have held 3 */
	assert_float_equal(r3.spot_node_s - r0.spot_node_s, 3, 1e-6);
	assert_float_equal(r3.ondemand_node_s, r0.ondemand_node_s, 1e-6);
	/* a change while the first job's ranks start (they are up at 5 s):
	 * it ends at once, the next one is up 5 s after it starts (no
	 * periodic checkpoints, to count its samples) */
	p.ckpt_s = 0;
	r3 = run(&p, early, GOODSIM_RESTART);
	assert_int_equal(r3.resizes, 2); /* launches */
	assert_true(r3.samples >= 50.0 * (3600 - 2 - 5 - 1));
	assert_true(r3.samples < 50.0 * (3600 - 2 - 5 + 1));
}

/* In place, on the same traces: a shrink costs the survivors inplace_s
 * instead of a checkpoint and a relaunch; at a grow the old world trains
 * on while the joiners start; a crash loses nothing. */
static void test_inplace(void **state)
{
	static const char grow[] = "0,add,a\n0,add,b\n0,add,c\n"
				   "1800000,add,d\n3600000,remove,a\n";
	struct goodsim_params p;
	struct goodsim_result e, i;
	double d;
	elastic_error_t err;

	(void)state;
	params(&p);
	p.inplace_s = 1;
	p.join_s = 6;
	/* the base's 2 nodes launched, then grown to 6 in place: 2 train
	 * 6 s more, then 6 start 4.5 s sooner (390 samples) */
	e = run(&p, steady, GOODSIM_ELASTIC);
	i = run(&p, steady, GOODSIM_INPLACE);
	assert_int_equal(i.resizes, e.resizes);
	assert_float_equal(i.samples - e.samples, 390, 30);
	/* and d reclaimed: 5 nodes idle 1 s, not 2 + 8 + 1.5 s (525 more
	 * samples) */
	e = run(&p, half, GOODSIM_ELASTIC);
	i = run(&p, half, GOODSIM_INPLACE);
	assert_int_equal(i.resizes, e.resizes);
	assert_float_equal(i.repeated, 0, 0);
	d = i.samples - e.samples;
	if (fabs(d - (390 + 525)) > 60)
		fail_msg("reclaim in place: %.0f more samples, not about "
			 "390 + 525",
			 d);
	/* 2 grown to 5 at the start (345 samples); then d comes: 5 nodes
	 * train 6 s more, idle 1 s, then 6 train 4.5 s sooner than after
	 * a relaunch (570); less one periodic checkpoint more (2 s of 5
	 * nodes, 100), as no relaunch moved their schedule */
	e = run(&p, grow, GOODSIM_ELASTIC);
	i = run(&p, grow, GOODSIM_INPLACE);
	assert_int_equal(i.resizes, e.resizes);
	d = i.samples - e.samples;
	if (fabs(d - (345 + 570 - 100)) > 60)
		fail_msg("grow in place: %.0f more samples, not about 345 + "
			 "570 - 100",
			 d);
	/* joiners slower than a relaunch still cost the world nothing
	 * until they are ready */
	p.join_s = 20;
	d = run(&p, grow, GOODSIM_INPLACE).samples - e.samples;
	assert_true(d > 0);
	/* d crashes: nothing done again, and the survivors idle only until
	 * the next world (Slurm's detect_s, then elasticd's pass) */
	params(&p);
	p.inplace_s = 1;
	p.join_s = 6;
	p.reclaim_ratio = 0;
	e = run(&p, half, GOODSIM_ELASTIC);
	i = run(&p, half, GOODSIM_INPLACE);
	assert_int_equal(i.crashes, 1);
	assert_true(e.repeated > 0);
	assert_float_equal(i.repeated, 0, 0);
	assert_true(i.samples > e.samples + e.repeated);
	/* the launcher found it (lost_s): the survivors go on at once
	 * without its unit, whatever the fault timeout, which the restart
	 * path waits before its relaunch */
	{
		struct goodsim_result i2, e2;

		p.fault_timeout_s = 600;
		i2 = run(&p, half, GOODSIM_INPLACE);
		e2 = run(&p, half, GOODSIM_ELASTIC);
		assert_float_equal(i2.samples, i.samples, i.samples / 1000);
		assert_true(e2.samples < e.samples - 5 * 10 * 500);
		p.fault_timeout_s = 20;
	}
	/* its costs are checked as the others */
	p.inplace_s = -1;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "costs"));
	params(&p);
	p.join_s = NAN;
	assert_int_equal(goodsim_check(&p, &err), -1);
	params(&p);
	p.unit_queue_wait_s = -1;
	assert_int_equal(goodsim_check(&p, &err), -1);
}

/* A run's points, every 10 s (the first 1024). */
struct series {
	struct goodsim_point pts[1024];
	size_t n;
};

static void collect(void *arg, const struct goodsim_point *pt)
{
	struct series *ser = arg;

	if (ser->n < sizeof(ser->pts) / sizeof(*ser->pts))
		ser->pts[ser->n++] = *pt;
}

static struct goodsim_result run_series(const struct goodsim_params *p,
					const char *text,
					enum goodsim_policy pol,
					struct series *ser)
{
	struct trace *t = parse(text);
	struct goodsim_result r;
	elastic_error_t err;

	ser->n = 0;
	if (goodsim_run(p, t, pol, collect, ser, 10, &r, &err) < 0)
		fail_msg("%s: %s", goodsim_policy_name(pol), err.text);
	trace_destroy(t);
	return r;
}

/* Every point from..to trains on n nodes. */
static void trains(const struct series *ser, double from, double to, double n,
		   const char *what)
{
	for (size_t i = 0; i < ser->n; i++)
		if (ser->pts[i].t >= from && ser->pts[i].t <= to &&
		    ser->pts[i].training != n)
			fail_msg("%s: %.0f nodes training at %.0f s, not %.0f",
				 what, ser->pts[i].training, ser->pts[i].t, n);
}

/* A group at its max (5: the base's 2 and 3 units) with a spare on the
 * fourth spot node; node d, in the world, crashes half-way for good.
 * Checkpoints without a pause: the worlds' sizes are seen at any time.
 * Units wait wait s in the queue. */
static void spare_params(struct goodsim_params *p, unsigned spares, double wait)
{
	params(p);
	p->unit_queue_wait_s = wait;
	p->ckpt_s = 0;
	p->max = 5;
	p->spares = spares;
	p->reclaim_ratio = 0;
	p->inplace_s = 1;
	p->join_s = 30;
}

/* In place, the launcher swaps the spare in at once: the world stays at
 * 5; without one it goes on at 4 while a replacement joins (join_s), and
 * with units waiting in the queue, wait s longer and the scale delay of
 * the grow after (with no wait it ran before elasticd's next world, one
 * at the same size).  The next spare's wait costs the world nothing. */
static void spares_crash(double wait)
{
	struct goodsim_params p;
	struct goodsim_result with, without;
	struct series *ser = malloc(sizeof(*ser));
	double more = wait ? wait + 10 : 0; /* the scale delay: 10 s */

	assert_non_null(ser);
	spare_params(&p, 1, wait);
	with = run_series(&p, half, GOODSIM_INPLACE, ser);
	assert_int_equal(with.crashes, 1);
	assert_int_equal(with.swaps, 1);
	assert_float_equal(with.repeated, 0, 0);
	/* seen after lost_s (at the tick, 1807 s), re-formed 1 s later */
	trains(ser, 1810, 3590, 5, "in place, a spare");
	/* held to the swap, from after two waits: its units', its own */
	assert_float_equal(with.spare_node_s, 1805 - 2 * wait, 2);
	spare_params(&p, 0, wait);
	without = run_series(&p, half, GOODSIM_INPLACE, ser);
	assert_int_equal(without.swaps, 0);
	trains(ser, 1810, 1830 + more, 4, "in place, no spare");
	trains(ser, 1850 + more, 3590, 5, "in place, no spare");
	/* 31 s (+ more) of a node fewer, a pause of 4 nodes: about 350 */
	if (fabs(with.samples - without.samples - 350 - more * 10) > 40)
		fail_msg("a spare: %.0f more samples, not about %.0f",
			 with.samples - without.samples, 350 + more * 10);
	/* the restart path: the spare relaunched in the lost unit's place
	 * at once, whatever the fault timeout */
	spare_params(&p, 1, wait);
	with = run_series(&p, half, GOODSIM_ELASTIC, ser);
	assert_int_equal(with.swaps, 1);
	assert_true(with.repeated > 0);
	trains(ser, 1830, 3590, 5, "restart path, a spare");
	p.fault_timeout_s = 600;
	without = run_series(&p, half, GOODSIM_ELASTIC, ser);
	assert_float_equal(with.samples, without.samples, 1e-6);
	free(ser);
}

static void test_spares_crash(void **state)
{
	(void)state;
	spares_crash(0);
}

/* Units wait 600 s in the queue, behind the cluster's other work. */
static void test_unit_queue_wait(void **state)
{
	(void)state;
	spares_crash(600);
}

/* The spare's node is held and paid for, and does not train: the same
 * samples as without it on a steady trace, a node-hour more held. */
static void test_spares_held(void **state)
{
	struct goodsim_params p;
	struct goodsim_result with, without, o1, o0;
	struct series *ser = malloc(sizeof(*ser));

	(void)state;
	assert_non_null(ser);
	for (int k = GOODSIM_ELASTIC; k <= GOODSIM_INPLACE; k++) {
		spare_params(&p, 1, 0);
		with = run_series(&p, steady, k, ser);
		trains(ser, 60, 3590, 5, goodsim_policy_name(k));
		spare_params(&p, 0, 0);
		without = run(&p, steady, k);
		assert_float_equal(with.samples, without.samples, 1e-6);
		/* the spare from soon after the world's units ran */
		if (with.spare_node_s < 3590 || with.spare_node_s > 3600)
			fail_msg("%s: %.0f spare node-seconds, not 3590..3600",
				 goodsim_policy_name(k), with.spare_node_s);
		assert_float_equal(without.spare_node_s, 0, 0);
		/* held from its start, named a spare at the pass after */
		assert_float_equal(with.spot_node_s - without.spot_node_s,
				   with.spare_node_s, 1);
		assert_float_equal(with.cost - without.cost,
				   with.spot_node_s / 3600 * p.spot_price -
				       without.spot_node_s / 3600 *
					   p.spot_price,
				   1e-6);
		assert_true(with.cost - without.cost >=
			    3590 / 3600.0 * p.spot_price);
		assert_int_equal(with.swaps, 0);
	}
	/* the oracle holds none */
	spare_params(&p, 1, 0);
	o1 = run(&p, steady, GOODSIM_ORACLE);
	spare_params(&p, 0, 0);
	o0 = run(&p, steady, GOODSIM_ORACLE);
	assert_float_equal(o1.samples, o0.samples, 0);
	assert_float_equal(o1.spare_node_s, 0, 0);
	free(ser);
}

/* Hot spares' ranks were started ahead; cold ones start at the swap:
 * join_s of the whole world (5 nodes) more, in place only. */
static void test_spares_cold(void **state)
{
	struct goodsim_params p;
	struct goodsim_result hot, cold;

	(void)state;
	spare_params(&p, 1, 0);
	p.join_s = 6;
	hot = run(&p, half, GOODSIM_INPLACE);
	p.spares_cold = true;
	cold = run(&p, half, GOODSIM_INPLACE);
	assert_int_equal(cold.swaps, 1);
	assert_float_equal(hot.samples - cold.samples, 5 * 10 * 6, 1e-6);
	assert_float_equal(hot.spare_node_s, cold.spare_node_s, 1e-6);
	/* the restart path starts the spare's ranks with the others */
	p.spares_cold = false;
	hot = run(&p, half, GOODSIM_ELASTIC);
	p.spares_cold = true;
	cold = run(&p, half, GOODSIM_ELASTIC);
	assert_float_equal(hot.samples, cold.samples, 1e-6);
}

/* Training is only ever at one of sizes (0..n). */
static void only_sizes(const struct series *ser, const unsigned *sizes,
		       size_t n, const char *what)
{
	for (size_t i = 0; i < ser->n; i++) {
		bool ok = ser->pts[i].training == 0;

		for (size_t k = 0; k < n; k++)
			ok |= ser->pts[i].training == sizes[k];
		if (!ok)
			fail_msg("%s: %.0f nodes training at %.0f s", what,
				 ser->pts[i].training, ser->pts[i].t);
	}
}

/* A sizes group: its worlds only the sizes listed (5 nodes there after
 * d goes: 3 of them train, or 2); spares of its last increment. */
static void test_sizes(void **state)
{
	static const unsigned sizes[] = { 2, 3, 6 }, even[] = { 2, 4, 6 };
	static const char six[] = "0,add,a\n0,add,b\n0,add,c\n0,add,d\n"
				  "0,add,e\n0,add,f\n1800000,remove,f\n"
				  "3600000,remove,e\n";
	static const char *const bad[] = { "",	"0",   "3,2",  "2,2", "2,",
					   "x", "2;3", "2,,3", "4000" };
	static const int pols[] = { GOODSIM_ELASTIC, GOODSIM_INPLACE,
				    GOODSIM_RESTART };
	struct goodsim_params p;
	struct goodsim_result r;
	struct series *ser = malloc(sizeof(*ser));
	elastic_error_t err;

	(void)state;
	assert_non_null(ser);
	for (size_t i = 0; i < sizeof(pols) / sizeof(*pols); i++) {
		const char *name = goodsim_policy_name(pols[i]);

		params(&p);
		p.ckpt_s = 0;
		assert_int_equal(goodsim_set_sizes(&p, "2,3,6", &err), 0);
		run_series(&p, half, pols[i], ser);
		only_sizes(ser, sizes, 3, name);
		trains(ser, 100, 1790, 6, name);
		for (size_t k = 0; k < ser->n; k++)
			if (ser->pts[k].t > 1900 && ser->pts[k].t < 3590 &&
			    ser->pts[k].training != 2 &&
			    ser->pts[k].training != 3)
				fail_msg("%s: %.0f training at %.0f s", name,
					 ser->pts[k].training, ser->pts[k].t);
	}
	/* 2-node units and a 2-node spare: f's unit crashes, the spare
	 * takes its place, the world stays at 6 */
	params(&p);
	p.ckpt_s = 0;
	p.spot_nodes = 6;
	p.reclaim_ratio = 0;
	p.spares = 1;
	assert_int_equal(goodsim_set_sizes(&p, "2,4,6", &err), 0);
	r = run_series(&p, six, GOODSIM_INPLACE, ser);
	only_sizes(ser, even, 3, "in place, sizes, a spare");
	trains(ser, 1820, 3590, 6, "in place, sizes, a spare");
	assert_int_equal(r.swaps, 1);
	assert_float_equal(r.spare_node_s, 2 * 1800, 20);
	/* the parse, and the checks of what it sets */
	params(&p);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (goodsim_set_sizes(&p, bad[i], &err) != -1)
			fail_msg("'%s' taken", bad[i]);
		assert_non_null(strstr(err.text, "sizes"));
		assert_int_equal(p.nsizes, 0);
	}
	assert_int_equal(goodsim_set_sizes(&p, "2,4,6", &err), 0);
	assert_int_equal(p.min, 2);
	assert_int_equal(p.max, 6);
	assert_int_equal(goodsim_check(&p, &err), 0);
	p.max = 5;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "sizes"));
	params(&p);
	p.spares = 65;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "spares"));
	free(ser);
}

static void test_check(void **state)
{
	struct goodsim_params p;
	elastic_error_t err;

	(void)state;
	params(&p);
	assert_int_equal(goodsim_check(&p, &err), 0);
	p.min = 7;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "min/max/step"));
	params(&p);
	p.reclaim_ratio = 1.5;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "reclaim ratio"));
	params(&p);
	p.rate = NAN;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "rate"));
	params(&p);
	p.groups = 0;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "groups"));
	params(&p);
	p.speed = 0;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "speed"));
}

static void test_synthetic(void **state)
{
	char *a = goodsim_synthetic(200, 48, 3600, 1200, 0, 0, 7);
	char *b = goodsim_synthetic(200, 48, 3600, 1200, 0, 0, 7);
	char *c = goodsim_synthetic(200, 48, 3600, 1200, 0, 0, 8);
	char *d = goodsim_synthetic(50, 2, 600, 60, 300, 10, 1);
	struct trace *t;
	double mean;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_non_null(d);
	assert_string_equal(a, b); /* the seed decides */
	assert_true(strcmp(a, c) != 0);
	t = parse(a);
	assert_int_equal(trace_node_count(t), 200);
	assert_int_equal(trace_duration_ms(t), 48ULL * HOUR_MS);
	/* up 60 min, down 20 on average: 3/4 of the nodes */
	mean = trace_available_mean(t);
	if (fabs(mean - 150) > 6)
		fail_msg("mean availability %.1f, not 150 +- 6", mean);
	trace_destroy(t);
	t = parse(d); /* bursts: still a valid trace */
	assert_int_equal(trace_duration_ms(t), 2ULL * HOUR_MS);
	trace_destroy(t);
	assert_null(goodsim_synthetic(0, 1, 1, 1, 0, 0, 1));
	assert_null(goodsim_synthetic(1, 0, 1, 1, 0, 0, 1));
	free(a);
	free(b);
	free(c);
	free(d);
}

/* The real trace: the scheduled passes decide as a pass at every tick
 * does, with far fewer passes. */
static void test_passes(void **state)
{
	struct goodsim_params p;
	elastic_error_t err;
	struct trace *t = trace_load(TRACES_DIR "/aws-p3-spot.csv", &err);
	struct goodsim_result fast, exact;

	(void)state;
	if (!t)
		fail_msg("%s", err.text);
	goodsim_defaults(&p);
	p.spot_nodes = 32;
	p.max = 34;
	p.reclaim_ratio = 0.7;
	assert_int_equal(
	    goodsim_run(&p, t, GOODSIM_ELASTIC, NULL, NULL, 0, &fast, &err), 0);
	p.exact_passes = true;
	assert_int_equal(
	    goodsim_run(&p, t, GOODSIM_ELASTIC, NULL, NULL, 0, &exact, &err),
	    0);
	trace_destroy(t);
	if (fabs(fast.goodput - exact.goodput) > 0.005 * exact.goodput)
		fail_msg("goodput %.1f with scheduled passes, %.1f exact",
			 fast.goodput, exact.goodput);
	assert_true(fast.passes * 4 < exact.passes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_oracle),
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_reclaim),
		cmocka_unit_test(test_coalesce),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_inplace),
		cmocka_unit_test(test_curve),
		cmocka_unit_test(test_restart_stop),
		cmocka_unit_test(test_spares_crash),
		cmocka_unit_test(test_spares_held),
		cmocka_unit_test(test_spares_cold),
		cmocka_unit_test(test_unit_queue_wait),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_passes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
