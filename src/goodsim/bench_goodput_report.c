/*
 * bench_goodput's report (bench_goodput.h): the setup, the table, the
 * plot's data and script, and the fault schedule of --schedule.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_goodput.h"
#include "common/options.h"

static void print_fault(void *arg, uint64_t ms, unsigned node,
			enum goodsim_fault what)
{
	static const char *const name[] = { "add", "reclaim", "crash" };

	(void)arg;
	printf("%" PRIu64 " %s %u\n", ms, name[what], node + 1);
}

/* --schedule: the run's faults, for a replay: "MS add|reclaim|crash NODE",
 * nodes from 1, after a line "# duration MS".  The exit status. */
int goodput_report_schedule(const struct goodsim_params *p,
			    const struct trace *t)
{
	elastic_error_t err;
	int c;

	printf("# duration %" PRIu64 "\n",
	       trace_at_speed_ms(trace_duration_ms(t), p->speed));
	c = goodsim_schedule(p, t, print_fault, NULL, &err);
	if (c < 0)
		fprintf(stderr, "bench_goodput: %s\n", err.text);
	return c < 0 ? 1 : 0;
}

/* What is run: the trace, the cluster, the groups, the client, the
 * costs. */
void goodput_report_setup(const char *name, const struct trace *t,
			  const struct args *a)
{
	const struct goodsim_params *p = &a->p;
	struct elastic_opts o = { .step = p->step, .nsizes = p->nsizes };

	memcpy(o.sizes, p->sizes, sizeof(p->sizes));
	printf("bench_goodput: %s: %zu events, %zu nodes (available %u..%u, "
	       "mean %.1f), %.2f h\n",
	       name, trace_event_count(t), trace_node_count(t),
	       trace_available_min(t), trace_available_max(t),
	       trace_available_mean(t), (double)trace_duration_ms(t) / 3.6e6);
	printf("  on %u spot nodes%s and %u on-demand; speed %g (%.2f h "
	       "simulated); removes: %.0f%% reclaims (grace %u s), the rest "
	       "crashes (seed %" PRIu64 ")\n",
	       p->spot_nodes,
	       trace_available_max(t) > p->spot_nodes ? " (scaled)" : "",
	       p->ondemand_nodes, p->speed,
	       (double)trace_duration_ms(t) / p->speed / 3.6e6,
	       p->reclaim_ratio * 100, p->grace_s, p->seed);
	if (p->nsizes) {
		printf("  %u group%s of sizes=", p->groups,
		       p->groups == 1 ? "" : "s");
		for (unsigned i = 0; i < p->nsizes; i++)
			printf("%s%u", i ? "," : "", p->sizes[i]);
	} else
		printf("  %u group%s of min=%u max=%u step=%u", p->groups,
		       p->groups == 1 ? "" : "s", p->min, p->max, p->step);
	printf(", scale delay %u s, fault timeout %u s; ", p->scale_delay_s,
	       p->fault_timeout_s);
	if (a->spares)
		printf("beside, slurm-elastic's two with %u %s spare unit%s a "
		       "group of %u node%s (held, not training); ",
		       a->spares, a->spares_cold ? "cold" : "hot",
		       a->spares == 1 ? "" : "s", options_spare_nodes(&o),
		       options_spare_nodes(&o) == 1 ? "" : "s");
	if (p->ncurve)
		printf("client as measured: %.0f samples/s at 1 node, %.0f at "
		       "%u\n",
		       goodsim_world_rate(p, 1),
		       goodsim_world_rate(p, p->ncurve), p->ncurve);
	else
		printf("client %.0f samples/s per node, linear\n", p->rate);
	if (p->ckpt_stall_s >= 0)
		printf("  checkpoints async: the step loop stalls %.3f s a "
		       "save\n",
		       p->ckpt_stall_s);
	printf("  costs: checkpoint %.1f s every %.0f s, restart %.1f s (the "
	       "world picked after %.1f s), our "
	       "resize %.1f s, in place %.1f s (joiners ready %.1f s), job "
	       "start %.1f s, crash seen %.0f s (by our launchers %.1f s), "
	       "requeue %.0f s, queue wait %.0f s (our units %.0f s); prices "
	       "$%.2f spot, $%.2f on-demand per node-hour\n",
	       p->ckpt_s, p->ckpt_every_s, p->restart_s, p->stop_s, p->resize_s,
	       p->inplace_s, p->join_s, p->start_s, p->detect_s, p->lost_s,
	       p->requeue_s, p->queue_wait_s, p->unit_queue_wait_s,
	       p->spot_price, p->ondemand_price);
}

/* The name of policy k's row with spares. */
const char *goodput_report_row_name(const struct args *a, int k)
{
	static char name[64];

	snprintf(name, sizeof(name), "%s+%u%s spare%s", goodsim_policy_name(k),
		 a->spares, a->spares_cold ? " cold" : "",
		 a->spares == 1 ? "" : "s");
	return name;
}

/* A row of the table, its name w wide. */
static void print_row(const char *name, int w, const struct goodsim_result *r,
		      const struct goodsim_result *oracle)
{
	char ttt[32];

	if (r->time_to_target_s < 0)
		snprintf(ttt, sizeof(ttt), "never");
	else
		snprintf(ttt, sizeof(ttt), "%.0f", r->time_to_target_s);
	printf("%-*s %12.1f %9.1f %12s %10.2f %10.2f %12.0f %10.2f %12.2f "
	       "%8u\n",
	       w, name, r->goodput,
	       oracle->goodput > 0 ? 100 * r->goodput / oracle->goodput : 0,
	       ttt, r->spot_node_s / 3600, r->ondemand_node_s / 3600,
	       r->repeated, r->cost,
	       r->samples > 0 ? r->cost / (r->samples / 1e6) : 0, r->resizes);
}

/* The table: a row a policy run (with spares after the same without),
 * and the target; then what the spares held. */
void goodput_report_table(const struct args *a,
			  const struct goodsim_result *res,
			  const struct goodsim_result *spres)
{
	const struct goodsim_params *p = &a->p;
	int w = a->spares ? 24 : 16;

	printf("\n%-*s %12s %9s %12s %10s %10s %12s %10s %12s %8s\n", w,
	       "policy", "samples/s", "% oracle", "to target s", "spot n-h",
	       "od n-h", "repeated", "cost $", "$/M samples", "resizes");
	for (int k = 0; k < GOODSIM_NPOLICIES; k++) {
		if (!a->run[k])
			continue;
		print_row(goodsim_policy_name(k), w, &res[k],
			  &res[GOODSIM_ORACLE]);
		if (a->spares && k <= GOODSIM_INPLACE)
			print_row(goodput_report_row_name(a, k), w, &spres[k],
				  &res[GOODSIM_ORACLE]);
	}
	printf("(target: %.0f samples, half the oracle's unless --target)\n",
	       p->target_samples ? p->target_samples
				 : res[GOODSIM_ORACLE].samples / 2);
	for (int k = GOODSIM_ELASTIC; a->spares && k <= GOODSIM_INPLACE; k++) {
		const struct goodsim_result *r = &spres[k];

		if (!a->run[k])
			continue;
		printf("%s: %.2f spare node-hours held, not training (of its "
		       "spot n-h; $%.2f); %u swaps for %u crashes, %u "
		       "preemptions; %+.3f%% goodput against no spares\n",
		       goodput_report_row_name(a, k), r->spare_node_s / 3600,
		       r->spare_node_s / 3600 * p->spot_price, r->swaps,
		       r->crashes, r->preemptions,
		       res[k].goodput > 0
			   ? 100 * (r->goodput / res[k].goodput - 1)
			   : 0);
	}
}

int goodput_report_plot(const char *prefix, const char *title,
			struct series *ser, const bool *run)
{
	char path[4096], png[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s.dat", prefix);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "bench_goodput: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	for (int p = 0; p < GOODSIM_NPOLICIES; p++) {
		if (!run[p])
			continue;
		fprintf(f, "# %s: seconds available training samples\n",
			goodsim_policy_name(p));
		for (size_t i = 0; i < ser[p].n; i++)
			fprintf(f, "%.3f %.0f %.0f %.1f\n", ser[p].v[i].t,
				ser[p].v[i].available, ser[p].v[i].training,
				ser[p].v[i].samples);
		fprintf(f, "\n\n");
	}
	if (fclose(f) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s.gp", prefix);
	snprintf(png, sizeof(png), "%s.png", prefix);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f,
		"set terminal pngcairo size 1200,900\n"
		"set output '%s'\n"
		"set multiplot layout 2,1 title '%s'\n"
		"set xlabel 'hours'\nset ylabel 'nodes'\nset key outside\n"
		"plot '%s.dat' index 0 using ($1/3600):2 with steps lw 2 "
		"title 'available'",
		png, title, prefix);
	for (int p = 0, k = 0; p < GOODSIM_NPOLICIES; p++)
		if (run[p])
			fprintf(f,
				", '' index %d using ($1/3600):3 with steps "
				"title '%s'",
				k++, goodsim_policy_name(p));
	fprintf(f, "\nset ylabel 'samples (millions)'\nplot ");
	for (int p = 0, k = 0; p < GOODSIM_NPOLICIES; p++)
		if (run[p])
			fprintf(f,
				"%s'%s.dat' index %d using ($1/3600):($4/1e6) "
				"with lines lw 2 title '%s'",
				k ? ", " : "", prefix, k,
				goodsim_policy_name(p)),
			    k++;
	fprintf(f, "\nunset multiplot\n");
	if (fclose(f) != 0)
		return -1;
	snprintf(png, sizeof(png), "gnuplot '%s.gp' 2>/dev/null", prefix);
	if (system(png) == 0)
		printf("plot: %s.png (data %s.dat)\n", prefix, prefix);
	else
		printf("plot: gnuplot not found or failed: data %s.dat, "
		       "script %s.gp\n",
		       prefix, prefix);
	return 0;
}
