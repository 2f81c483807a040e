#ifndef GOODSIM_BENCH_GOODPUT_H
#define GOODSIM_BENCH_GOODPUT_H

/*
 * What bench_goodput's parts share: the command line as parsed
 * (bench_goodput_args.c, which alone writes struct args), the report
 * (bench_goodput_report.c) and the runs (bench_goodput.c, main).
 */
#include <stdbool.h>
#include <stddef.h>

#include "goodsim.h"

/* A run's samples, for the plot. */
struct series {
	struct goodsim_point *v;
	size_t n, cap;
};

/* What the command line asks for. */
struct args {
	struct goodsim_params p;
	const char *trace_path, *synth, *plot;
	bool run[GOODSIM_NPOLICIES];
	bool nodes_given, od_given, max_given;
	bool schedule;
	double period;
	/* --spares: slurm-elastic's policies again with them, beside */
	struct goodsim_params sp;
	unsigned spares;
	bool spares_cold;
};

/* The command line into a (its defaults set): -1 to go on, else the exit
 * status (usage or --help printed). */
int goodput_args_parse(int argc, char **argv, struct args *a);
/* The trace file, or the synthetic trace, and its name in name: NULL with
 * *rc the exit status when it cannot be had (the error printed). */
struct trace *goodput_args_trace(const struct args *a, char *name, size_t len,
				 int *rc);
/* The trace's own scale, and a group that can use all of it, where the
 * command line left them; then the checks: 0, or the exit status. */
int goodput_args_fit(struct args *a, const struct trace *t);

/* --schedule: the run's faults, for a replay.  The exit status. */
int goodput_report_schedule(const struct goodsim_params *p,
			    const struct trace *t);
/* What is run: the trace, the cluster, the groups, the client, the costs. */
void goodput_report_setup(const char *name, const struct trace *t,
			  const struct args *a);
/* The name of policy k's row with spares (a static buffer). */
const char *goodput_report_row_name(const struct args *a, int k);
/* The table: a row a policy run, and what the spares held. */
void goodput_report_table(const struct args *a,
			  const struct goodsim_result *res,
			  const struct goodsim_result *spres);
/* The series as PREFIX.dat, a gnuplot script PREFIX.gp and, when
 * gnuplot runs, PREFIX.png: 0, or -1 (the error printed). */
int goodput_report_plot(const char *prefix, const char *title,
			struct series *ser, const bool *run);

#endif
