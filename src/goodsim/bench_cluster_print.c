/*
 * bench_cluster's printed report (bench_cluster.h): the setup, the table
 * of the runs side by side, the groups, the targets, and the JSON of the
 * report format the real-cluster replay shares.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bench_cluster.h"

void bc_print_setup(const struct bc_args *a, const struct workload *w)
{
	const struct cluster_params *p = &a->params;
	size_t n[3] = { 0, 0, 0 };

	for (size_t i = 0; i < w->n; i++)
		n[w->job[i].kind]++;
	printf("bench_cluster: %u nodes; workload %s: %zu rigid jobs, %zu "
	       "elastic groups, %zu preemptors, over %.1f h\n",
	       p->nodes, a->in ? a->in : "generated", n[WORKLOAD_RIGID],
	       n[WORKLOAD_ELASTIC], n[WORKLOAD_PREEMPTOR],
	       w->n ? (double)w->job[w->n - 1].submit_ms / 3.6e6 : 0);
	if (!a->in)
		printf("  generated: load %.2f offered by rigid jobs and "
		       "preemptors (%.0f%% of the jobs), %u groups (%u equal: "
		       "min %u max %u), seed %" PRIu64 "\n",
		       a->gen.load, a->gen.preempt_share * 100, a->gen.groups,
		       a->gen.equal_groups, a->gen.equal_min, a->gen.group_max,
		       a->gen.seed);
	printf("  units' grace %u s, ranks leave in %.0f s; elasticd passes "
	       "every %.0f s at most (%.0f s idle), scale delay %u s, "
	       "UnitNice %u; backfill every %u s\n",
	       p->grace_s, p->leave_s, p->pass_ms / 1000.0,
	       p->idle_pass_ms / 1000.0, p->scale_delay_s, p->unit_nice,
	       p->bf_interval_s);
}

/* A row: its name and each run's value with so many decimals (or "-"
 * where it did not run). */
static void bc_row(const char *name, const struct bc_run *run,
		   double (*get)(const struct bc_run *), int decimals)
{
	printf("%-34s", name);
	for (int k = 0; k < 2; k++) {
		char v[32] = "-";

		if (run[k].done)
			snprintf(v, sizeof(v), "%.*f", decimals, get(&run[k]));
		printf(" %14s", v);
	}
	printf("\n");
}

#define BC_GETTER(name, expr)                                                  \
	static double bc_##name(const struct bc_run *r)                        \
	{                                                                      \
		return (expr);                                                 \
	}
BC_GETTER(util, 100 * r->rep.utilization)
BC_GETTER(below, 100 * r->rep.below_utilization)
BC_GETTER(below_h, r->rep.below_s / 3600)
BC_GETTER(rigid_n, (double)r->rep.rigid_n)
BC_GETTER(wait50, r->rep.wait_p50_s)
BC_GETTER(wait95, r->rep.wait_p95_s)
BC_GETTER(done_mean, r->rep.completion_mean_s)
BC_GETTER(done95, r->rep.completion_p95_s)
BC_GETTER(pwait95, r->rep.preemptor_wait_p95_s)
BC_GETTER(starts, r->rep.unit_starts_per_h)
BC_GETTER(preempts, r->rep.unit_preemptions_per_h)
BC_GETTER(jain, r->rep.jain)
BC_GETTER(passes, (double)r->passes)
BC_GETTER(wall, r->wall_s)
BC_GETTER(cpu, r->cpu_s)
#undef BC_GETTER

/* Each group: goodput (node-hours in its world) and share, each run. */
static void bc_groups(const struct bc_run *run)
{
	const struct cluster_report *g =
	    run[1].done ? &run[1].rep : &run[0].rep;

	printf("\n%-6s %-8s %5s %6s %16s %16s %8s\n", "group", "user", "min",
	       "max", "node-h without", "node-h with", "share");
	for (size_t i = 0; i < g->ngroups; i++) {
		char wo[32] = "-", wi[32] = "-", sh[32] = "-";

		if (run[0].done)
			snprintf(wo, sizeof(wo), "%.1f",
				 run[0].rep.groups[i].node_s / 3600);
		if (run[1].done) {
			snprintf(wi, sizeof(wi), "%.1f",
				 run[1].rep.groups[i].node_s / 3600);
			snprintf(sh, sizeof(sh), "%.1f%%",
				 100 * run[1].rep.groups[i].share);
		}
		printf("%-6zu %-8s %5u %6u %16s %16s %8s%s\n", i + 1,
		       g->groups[i].user, g->groups[i].min, g->groups[i].max,
		       wo, wi, sh, g->groups[i].equal ? "  (equal)" : "");
	}
}

unsigned bc_print_table(const struct bc_args *a, const struct bc_run *run)
{
	printf("\n%-34s %14s %14s\n", "", "without", "with");
	bc_row("utilization %", run, bc_util, 1);
	bc_row("utilization while a group < max %", run, bc_below, 1);
	bc_row("  hours a group was < max", run, bc_below_h, 1);
	bc_row("rigid jobs", run, bc_rigid_n, 0);
	bc_row("  wait p50 s", run, bc_wait50, 0);
	bc_row("  wait p95 s", run, bc_wait95, 0);
	bc_row("  completion mean s", run, bc_done_mean, 0);
	bc_row("  completion p95 s", run, bc_done95, 0);
	bc_row("preemptors' wait p95 s", run, bc_pwait95, 0);
	bc_row("unit starts / h", run, bc_starts, 1);
	bc_row("unit preemptions / h", run, bc_preempts, 1);
	bc_row("Jain's index (equal groups)", run, bc_jain, 4);
	bc_row("elasticd passes", run, bc_passes, 0);
	bc_row("simulated in s (wall)", run, bc_wall, 2);
	bc_row("simulated in s (processor)", run, bc_cpu, 2);
	bc_groups(run);
	return bc_print_targets(a, run, false);
}

static const char *const bc_what[] = { "submit", "start", "preempt", "end",
				       "world" };
static const char *const bc_role[] = { "rigid", "preemptor", "base", "unit" };

/* A timeline's event as a JSON object. */
static void bc_json_event(const struct cluster_tl_event *e)
{
	printf("{\"t_s\":%.3f,\"event\":\"%s\",\"role\":\"%s\",\"job\":%u,"
	       "\"nodes\":%u",
	       (double)e->t_ms / 1000, bc_what[e->what], bc_role[e->role],
	       e->job, e->nodes);
	if (e->group >= 0)
		printf(",\"group\":%d", e->group);
	if (e->wl >= 0)
		printf(",\"line\":%d", e->wl);
	if (e->what == CLUSTER_TL_SUBMIT)
		printf(",\"nice\":%u", e->nice);
	if (e->what == CLUSTER_TL_PREEMPT)
		printf(",\"by\":%u", e->by);
	if (e->why)
		printf(",\"why\":\"%s\"", e->why);
	printf("}");
}

/* One run's report as one JSON object. */
static void bc_json_one(const struct bc_run *run)
{
	const struct cluster_report *r = &run->rep;

	printf("{\"nodes\":%u,\"span_s\":%.0f,\"utilization\":%.4f,"
	       "\"rigid\":{\"n\":%zu,\"wait_p50_s\":%.1f,\"wait_p95_s\":%.1f,"
	       "\"completion_mean_s\":%.1f,\"completion_p95_s\":%.1f},"
	       "\"groups\":[",
	       r->nodes, r->span_s, r->utilization, r->rigid_n, r->wait_p50_s,
	       r->wait_p95_s, r->completion_mean_s, r->completion_p95_s);
	for (size_t i = 0; i < r->ngroups; i++)
		printf("%s{\"user\":\"%s\",\"min\":%u,\"max\":%u,"
		       "\"node_seconds\":%.0f,\"share\":%.4f}",
		       i ? "," : "", r->groups[i].user, r->groups[i].min,
		       r->groups[i].max, r->groups[i].node_s,
		       r->groups[i].share);
	printf("],\"jain\":%.4f,\"unit_starts_per_h\":%.2f,"
	       "\"unit_preemptions_per_h\":%.2f",
	       r->jain, r->unit_starts_per_h, r->unit_preemptions_per_h);
	if (run->timeline) {
		printf(",\"timeline\":[");
		for (size_t i = 0; i < run->ntimeline; i++) {
			printf(i ? "," : "");
			bc_json_event(&run->timeline[i]);
		}
		printf("]");
	}
	printf("}\n");
}

void bc_print_json(const struct bc_run *run)
{
	for (int k = 0; k < 2; k++)
		if (run[k].done)
			bc_json_one(&run[k]);
}

void bc_print_timeline(const struct bc_run *run)
{
	for (int k = 0; k < 2; k++) {
		if (!run[k].done || !run[k].timeline)
			continue;
		printf("\ntimeline %s slurm-elastic (s, event, role, job, "
		       "nodes, group, more: bench_cluster(1)):\n",
		       k ? "with" : "without");
		for (size_t i = 0; i < run[k].ntimeline; i++) {
			const struct cluster_tl_event *e = &run[k].timeline[i];

			printf("%10.3f %-7s %-9s %6u %5u",
			       (double)e->t_ms / 1000, bc_what[e->what],
			       bc_role[e->role], e->job, e->nodes);
			if (e->group >= 0)
				printf(" group %d", e->group + 1);
			if (e->what == CLUSTER_TL_SUBMIT)
				printf(" nice %u", e->nice);
			if (e->what == CLUSTER_TL_PREEMPT)
				printf(" for %u", e->by);
			if (e->why)
				printf(" (%s)", e->why);
			printf("\n");
		}
	}
}

static const char *bc_verdict(bool ok)
{
	return ok ? "pass" : "FAIL";
}

unsigned bc_print_targets(const struct bc_args *a, const struct bc_run *run,
			  bool quiet)
{
	struct report_verdict v;
	unsigned missed = 0;
	bool time_ok = true;

	for (int k = 0; k < 2; k++)
		time_ok &=
		    !run[k].done || !a->max_cpu || run[k].cpu_s <= a->max_cpu;
	missed += !time_ok;
	if (!quiet)
		printf("\ntargets:\n");
	if (run[0].done && run[1].done) {
		report_check(&run[1].rep, &run[0].rep, a->params.grace_s, &v);
		missed += !v.wait + !v.utilization + !v.jain;
		if (!quiet)
			printf("  rigid wait p95 with <= without + grace: "
			       "%.0f <= %.0f + %u s: %s\n"
			       "  utilization while a group is below its max "
			       ">= %.0f%%: %.1f%%: %s\n"
			       "  Jain's index over %zu equal groups >= %.2f: "
			       "%.4f: %s\n",
			       run[1].rep.wait_p95_s, run[0].rep.wait_p95_s,
			       a->params.grace_s, bc_verdict(v.wait),
			       100 * REPORT_UTILIZATION_MIN,
			       100 * run[1].rep.below_utilization,
			       bc_verdict(v.utilization), run[1].rep.njain,
			       REPORT_JAIN_MIN, run[1].rep.jain,
			       bc_verdict(v.jain));
	} else if (!quiet)
		printf("  (the run with slurm-elastic and the one without are "
		       "needed)\n");
	if (!quiet && a->max_cpu)
		printf("  each run simulated in under %.0f s of processor "
		       "time: %.2f s, %.2f s (wall %.2f s, %.2f s): %s\n",
		       a->max_cpu, run[0].cpu_s, run[1].cpu_s, run[0].wall_s,
		       run[1].wall_s, bc_verdict(time_ok));
	return missed;
}
