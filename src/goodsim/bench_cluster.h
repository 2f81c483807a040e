#ifndef GOODSIM_BENCH_CLUSTER_H
#define GOODSIM_BENCH_CLUSTER_H

/*
 * What bench_cluster's parts share: the command line as parsed
 * (bench_cluster_args.c, which alone writes struct bc_args), the printed
 * report (bench_cluster_print.c) and the runs (bench_cluster.c, main).
 */
#include <stdbool.h>

#include "cluster.h"
#include "cluster_report.h"
#include "workload.h"

enum { BC_WITHOUT = 1, BC_WITH = 2 };

struct bc_args {
	struct workload_gen gen; /* the cluster's defaults, and those given */
	unsigned gen_given;	 /* bit (1 << option) */
	struct cluster_params params;
	const char *in;	 /* --workload FILE: read, not generated */
	const char *out; /* --write-workload FILE */
	bool json, check;
	int runs;	 /* BC_WITHOUT | BC_WITH */
	double max_cpu;	 /* --max-cpu S: each run's processor time; 0: none */
	unsigned repeat; /* --repeat N: each run N times (seeds 1..N) */
};

/* The command line into a: -1 to go on, else the exit status (usage or
 * --help printed). */
int bc_args_parse(int argc, char **argv, struct bc_args *a);

/* A run's report (with --repeat, the mean of its repeats'; the passes
 * and the timeline the first's) and how long it took (all of them). */
struct bc_run {
	bool done;
	struct cluster_report rep;
	double wall_s, cpu_s;
	uint64_t passes, sched_passes, backfill_passes;
	struct cluster_tl_event *timeline; /* --timeline */
	size_t ntimeline;
};

/* What is simulated: the cluster, the workload, the model's settings. */
void bc_print_setup(const struct bc_args *a, const struct workload *w);
/* The table of the runs done (without, with), the groups, the targets
 * when both ran; the number of targets missed. */
unsigned bc_print_table(const struct bc_args *a, const struct bc_run *run);
/* Each run done as one JSON object a line (without, then with), in the
 * report format the real-cluster replay shares (with --timeline, a key
 * "timeline" more: bench_cluster(1)). */
void bc_print_json(const struct bc_run *run);
/* Each run's timeline as text, one event a line. */
void bc_print_timeline(const struct bc_run *run);
/* The targets when both ran (and the time with --max-cpu): the
 * number missed, printed unless quiet. */
unsigned bc_print_targets(const struct bc_args *a, const struct bc_run *run,
			  bool quiet);

#endif
