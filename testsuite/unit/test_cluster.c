/* Unit tests of the cluster simulator (src/goodsim/cluster*.c): the
 * report's arithmetic (percentiles, Jain's index, shares, utilization,
 * the targets), and the model on small workloads: a rigid job that could
 * start but for units starts within their grace, idle nodes go to the
 * groups, the same workload gives the same figures, the timeline tells
 * what happened in order, and the start jitter and the mean of runs. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "goodsim/cluster.h"
#include "goodsim/cluster_report.h"
#include "goodsim/workload.h"

static void test_percentile(void **state)
{
	double v[] = { 5, 1, 3, 2, 4 }, one[] = { 7 };

	(void)state;
	assert_float_equal(report_percentile(v, 5, 50), 3, 0);
	assert_float_equal(report_percentile(v, 5, 95), 5, 0);
	assert_float_equal(report_percentile(v, 5, 0), 1, 0);
	assert_float_equal(report_percentile(v, 5, 20), 1, 0);
	assert_float_equal(report_percentile(v, 5, 21), 2, 0);
	assert_float_equal(report_percentile(one, 1, 95), 7, 0);
	assert_float_equal(report_percentile(NULL, 0, 95), 0, 0);
}

static void test_jain(void **state)
{
	double eq[] = { 3, 3, 3 }, half[] = { 1, 0 }, two[] = { 2, 1 };
	double zero[] = { 0, 0 };

	(void)state;
	assert_float_equal(report_jain(eq, 3), 1, 1e-12);
	assert_float_equal(report_jain(half, 2), 0.5, 1e-12);
	assert_float_equal(report_jain(two, 2), 0.9, 1e-12);
	assert_float_equal(report_jain(zero, 2), 1, 0);
	assert_float_equal(report_jain(NULL, 0), 1, 0);
}

/* A made-up run: two rigid jobs, three groups (two equal). */
static void test_report_build(void **state)
{
	static const char text[] = "0 elastic a 2 8 3600 7200\n"
				   "0 elastic b 2 8 3600 7200\n"
				   "0 elastic c 1 4 3600 7200\n"
				   "10 rigid r 1 - 100 200\n"
				   "20 rigid r 2 - 100 200\n";
	struct workload w = { 0 };
	struct cluster_times jobs[5] = {
		{ 0, 0, 3600000 },	  { 0, 0, 3600000 },
		{ 0, 0, 3600000 },	  { 10000, 40000, 140000 },
		{ 20000, 20000, 120000 },
	};
	struct cluster_group groups[3] = {
		{ 7200, 3600, 10, 2 },
		{ 3600, 1800, 5, 1 },
		{ 3600, 3600, 1, 0 },
	};
	struct cluster_result r = { .njobs = 5,
				    .job = jobs,
				    .ngroups = 3,
				    .group = groups,
				    .first_ms = 0,
				    .last_ms = 3600000,
				    .held_node_s = 18000,
				    .below_s = 1800,
				    .below_held_node_s = 9000,
				    .unit_starts = 16,
				    .unit_preemptions = 3 };
	struct cluster_report rep, without;
	struct report_verdict v;
	elastic_error_t err;

	(void)state;
	assert_int_equal(workload_parse(text, "t", &w, &err), 0);
	assert_int_equal(report_build(&w, 10, &r, &rep, &err), 0);
	assert_float_equal(rep.span_s, 3600, 0);
	assert_float_equal(rep.utilization, 0.5, 1e-12);
	assert_float_equal(rep.below_utilization, 0.5, 1e-12);
	assert_int_equal(rep.rigid_n, 2);
	assert_float_equal(rep.wait_p50_s, 0, 0);
	assert_float_equal(rep.wait_p95_s, 30, 0);
	assert_float_equal(rep.completion_mean_s, 115, 1e-9);
	assert_float_equal(rep.completion_p95_s, 130, 0);
	assert_int_equal(rep.ngroups, 3);
	assert_float_equal(rep.groups[0].share, 0.4, 1e-12);
	assert_float_equal(rep.groups[2].share, 0.4, 1e-12);
	assert_true(rep.groups[0].equal && rep.groups[1].equal);
	assert_false(rep.groups[2].equal);
	assert_int_equal(rep.njain, 2);
	assert_float_equal(rep.jain, 0.9, 1e-12); /* 7200 and 3600 */
	assert_float_equal(rep.unit_starts_per_h, 16, 1e-12);
	assert_float_equal(rep.unit_preemptions_per_h, 3, 1e-12);

	without = rep;
	without.wait_p95_s = 0;
	report_check(&rep, &without, 30, &v);
	assert_true(v.wait);
	assert_false(v.utilization);
	assert_false(v.jain);
	report_check(&rep, &without, 29, &v);
	assert_false(v.wait);
	report_free(&rep);
	workload_free(&w);
}

static struct cluster_report run(const char *text, unsigned nodes, bool elastic,
				 struct cluster_result *keep)
{
	struct cluster_params p;
	struct workload w = { 0 };
	struct cluster_result r;
	struct cluster_report rep;
	elastic_error_t err;

	cluster_params_defaults(&p, nodes);
	p.elastic = elastic;
	p.pass_ms = 10000; /* small clusters: elasticd's rhythm matters */
	assert_int_equal(workload_parse(text, "t", &w, &err), 0);
	if (cluster_run(&p, &w, &r, &err) < 0)
		fail_msg("cluster_run: %s", err.text);
	assert_int_equal(report_build(&w, nodes, &r, &rep, &err), 0);
	if (keep)
		*keep = r;
	else
		cluster_result_free(&r);
	workload_free(&w);
	return rep;
}

/* One group on 10 nodes holds them all; a rigid job of 6 nodes comes:
 * it preempts 6 units and starts within their grace (120 s), once their
 * ranks left and elasticd cancelled them.  Without slurm-elastic the
 * group is a rigid job of its min and the job starts at once. */
static void test_rigid_within_grace(void **state)
{
	static const char text[] = "0 elastic e1 1 10 3600 7200\n"
				   "600 rigid r1 6 - 600 900\n";
	struct cluster_result r;
	struct cluster_report with = run(text, 10, true, &r);
	struct cluster_report without = run(text, 10, false, NULL);
	double wait = (double)(r.job[1].start_ms - r.job[1].submit_ms) / 1000;

	(void)state;
	assert_true(wait > 0 && wait <= 120);
	assert_float_equal(without.wait_p95_s, 0, 0);
	assert_true(with.wait_p95_s <= without.wait_p95_s + 120);
	assert_true(r.unit_preemptions >= 6);
	/* the group had the idle nodes before and after the job */
	assert_true(with.groups[0].node_s > 3600 * 8);
	assert_float_equal(without.groups[0].node_s, 3600, 0);
	assert_float_equal(with.groups[0].share, 1, 0);
	assert_true(with.below_utilization > 0.95);
	cluster_result_free(&r);
	report_free(&with);
	report_free(&without);
}

/* A preemptor takes units' nodes too; two equal groups share the idle
 * nodes evenly. */
static void test_equal_groups(void **state)
{
	static const char text[] = "0 elastic e1 1 20 7200 9000\n"
				   "0 elastic e2 1 20 7200 9000\n"
				   "1800 preemptor p1 4 - 600 900\n";
	struct cluster_result r;
	struct cluster_report rep = run(text, 16, true, &r);
	double pwait = (double)(r.job[2].start_ms - r.job[2].submit_ms) / 1000;

	(void)state;
	assert_true(pwait <= 120);
	assert_int_equal(rep.njain, 2);
	assert_true(rep.jain > 0.95);
	assert_true(rep.below_utilization > 0.95);
	cluster_result_free(&r);
	report_free(&rep);
}

/* The run of test_timeline, its timeline kept or not. */
static void run_timeline(bool on, struct cluster_result *r)
{
	static const char text[] = "0 elastic e1 1 4 3600 7200\n"
				   "600 rigid r1 2 - 600 900\n";
	struct workload w = { 0 };
	struct cluster_params p;
	elastic_error_t err;

	cluster_params_defaults(&p, 4);
	p.pass_ms = 10000;
	p.timeline = on;
	assert_int_equal(workload_parse(text, "t", &w, &err), 0);
	if (cluster_run(&p, &w, r, &err) < 0)
		fail_msg("cluster_run: %s", err.text);
	workload_free(&w);
}

/* One group holds the 4 nodes (its base and 3 units); a rigid job of 2
 * comes at 600 s.  The timeline tells it in time order: the base's
 * submit and start, the units' starts, the world of 4, two units
 * preempted for the rigid job, the world of 2, their ends once their
 * ranks left, the rigid job's start within the grace, two units again
 * after it.  Keeping it changes
 * none of the figures; not asked for, there is none. */
static void test_timeline(void **state)
{
	struct cluster_result r, off;
	const struct cluster_tl_event *e;
	uint32_t rigid = 0, preempted[2] = { 0, 0 };
	unsigned npre = 0, ends = 0, unit_starts = 0;
	int64_t rigid_start = -1;
	bool world4 = false, world2 = false;

	(void)state;
	run_timeline(true, &r);
	run_timeline(false, &off);
	assert_null(off.timeline);
	assert_int_equal(off.ntimeline, 0);
	assert_memory_equal(r.job, off.job, r.njobs * sizeof(r.job[0]));
	assert_memory_equal(r.group, off.group, r.ngroups * sizeof(r.group[0]));
	assert_true(r.ntimeline > 6);
	e = r.timeline;
	assert_int_equal(e[0].what, CLUSTER_TL_SUBMIT);
	assert_int_equal(e[0].role, CLUSTER_TL_BASE);
	assert_int_equal(e[1].what, CLUSTER_TL_START);
	assert_int_equal(e[1].job, e[0].job);
	for (size_t i = 0; i < r.ntimeline; i++) {
		if (i)
			assert_true(e[i].t_ms >= e[i - 1].t_ms);
		if (e[i].role == CLUSTER_TL_RIGID &&
		    e[i].what == CLUSTER_TL_SUBMIT) {
			rigid = e[i].job;
			assert_int_equal(e[i].t_ms, 600000);
			assert_int_equal(e[i].wl, 1);
		}
		if (e[i].role == CLUSTER_TL_RIGID &&
		    e[i].what == CLUSTER_TL_START)
			rigid_start = e[i].t_ms;
		if (e[i].role == CLUSTER_TL_UNIT &&
		    e[i].what == CLUSTER_TL_START) {
			assert_int_equal(e[i].group, 0);
			assert_int_equal(e[i].wl, -1);
			unit_starts++;
		}
		if (e[i].what == CLUSTER_TL_PREEMPT) {
			assert_int_equal(e[i].by, rigid);
			assert_true(npre < 2);
			preempted[npre++] = e[i].job;
		}
		if (e[i].what == CLUSTER_TL_END && npre &&
		    (e[i].job == preempted[0] || e[i].job == preempted[1])) {
			assert_string_equal(e[i].why,
					    "cancelled after preemption");
			ends++;
		}
		if (e[i].what == CLUSTER_TL_WORLD) {
			world4 |= e[i].nodes == 4 && e[i].t_ms < 600000;
			world2 |= e[i].nodes == 2 && e[i].t_ms >= 600000 &&
				  e[i].t_ms < 1200000;
		}
	}
	assert_int_equal(unit_starts, 5); /* 3, and 2 once the job ended */
	assert_int_equal(npre, 2);
	assert_int_equal(ends, 2);
	assert_true(world4 && world2);
	assert_true(rigid_start > 600000 && rigid_start <= 720000);
	assert_int_equal(rigid_start, r.job[1].start_ms);
	cluster_result_free(&r);
	cluster_result_free(&off);
}

/* A rigid job's end with start jitter j ms and seed: its run time. */
static int64_t jittered_run(unsigned j, uint64_t seed)
{
	static const char text[] = "0 rigid r1 2 - 100 200\n"
				   "0 elastic e1 1 2 300 600\n";
	struct workload w = { 0 };
	struct cluster_params p;
	struct cluster_result r;
	elastic_error_t err;
	int64_t run;

	cluster_params_defaults(&p, 4);
	p.start_jitter_ms = j;
	p.seed = seed;
	assert_int_equal(workload_parse(text, "t", &w, &err), 0);
	if (cluster_run(&p, &w, &r, &err) < 0)
		fail_msg("cluster_run: %s", err.text);
	run = r.job[0].end_ms - r.job[0].start_ms;
	cluster_result_free(&r);
	workload_free(&w);
	return run;
}

/* Start jitter: a job ends up to j later than its runtime, the same for
 * a seed, not for all seeds; none without it; out of range refused. */
static void test_start_jitter(void **state)
{
	struct cluster_params p;
	elastic_error_t err;
	bool differ = false;
	int64_t first = jittered_run(1000, 1);

	(void)state;
	assert_int_equal(jittered_run(0, 1), 100000);
	assert_int_equal(jittered_run(0, 7), 100000);
	assert_int_equal(jittered_run(1000, 1), first);
	for (uint64_t seed = 1; seed <= 20; seed++) {
		int64_t run = jittered_run(1000, seed);

		assert_true(run >= 100000 && run < 101000);
		differ |= run != first;
	}
	assert_true(differ);
	cluster_params_defaults(&p, 4);
	assert_int_equal(p.start_jitter_ms, 0);
	p.start_jitter_ms = 3600001;
	assert_int_equal(cluster_params_check(&p, &err), -1);
}

/* The mean of reports: each figure and each group's, one at a time. */
static void test_report_average(void **state)
{
	struct report_group ga[2] = { { .node_s = 10, .share = 0.2 },
				      { .node_s = 30, .share = 0.8 } };
	struct report_group gb[2] = { { .node_s = 20, .share = 0.4 },
				      { .node_s = 60, .share = 0.6 } };
	struct cluster_report mean = { .utilization = 0.9,
				       .wait_p95_s = 10,
				       .jain = 1,
				       .ngroups = 2,
				       .groups = ga };
	struct cluster_report b = { .utilization = 0.6,
				    .wait_p95_s = 40,
				    .jain = 0.5,
				    .ngroups = 2,
				    .groups = gb };

	(void)state;
	report_average(&mean, &b, 2);
	assert_float_equal(mean.utilization, 0.75, 1e-12);
	assert_float_equal(mean.wait_p95_s, 25, 1e-12);
	assert_float_equal(mean.jain, 0.75, 1e-12);
	assert_float_equal(ga[0].node_s, 15, 1e-12);
	assert_float_equal(ga[1].node_s, 45, 1e-12);
	assert_float_equal(ga[0].share, 0.3, 1e-12);
	assert_float_equal(ga[1].share, 0.7, 1e-12);
	/* a third, as heavy as each of the two before */
	b.utilization = 0;
	report_average(&mean, &b, 3);
	assert_float_equal(mean.utilization, 0.5, 1e-12);
}

/* A generated day on 200 nodes, twice: the same figures. */
static void test_deterministic(void **state)
{
	struct workload_gen g;
	struct workload w = { 0 };
	struct cluster_params p;
	struct cluster_result a, b;
	elastic_error_t err;

	(void)state;
	workload_gen_defaults(&g, 200);
	g.hours = 6;
	assert_int_equal(workload_generate(&g, &w, &err), 0);
	cluster_params_defaults(&p, 200);
	assert_int_equal(cluster_run(&p, &w, &a, &err), 0);
	assert_int_equal(cluster_run(&p, &w, &b, &err), 0);
	assert_int_equal(a.last_ms, b.last_ms);
	assert_int_equal(a.unit_starts, b.unit_starts);
	assert_memory_equal(a.job, b.job, a.njobs * sizeof(a.job[0]));
	assert_memory_equal(a.group, b.group, a.ngroups * sizeof(a.group[0]));
	cluster_result_free(&a);
	cluster_result_free(&b);
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_report_build),
		cmocka_unit_test(test_rigid_within_grace),
		cmocka_unit_test(test_equal_groups),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_start_jitter),
		cmocka_unit_test(test_report_average),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
