/*
 * bench_cluster: the cluster simulator's command (cluster.h,
 * bench_cluster(1)).  A workload of rigid jobs, elastic groups and
 * preemptors (generated as published GPU clusters' are, or read from a
 * file) on a model of Slurm of 1,000 to 10,000 nodes, without
 * slurm-elastic and with it (elasticd's own decisions linked in); prints
 * utilization, rigid jobs' waits and completions, each group's goodput
 * and share, Jain's index over equal groups, units' starts and
 * preemptions, and the targets met or missed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_cluster.h"
#include "common/filesave.h"
#include "common/parse.h"

static double bc_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The processor time used so far (user and system), seconds. */
static double bc_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The workload: read from --workload, or generated; written to
 * --write-workload.  0, or -1 with the error printed. */
static int bc_workload(const struct bc_args *a, struct workload *w)
{
	elastic_error_t err;
	char *text = NULL;
	int rc;

	if (a->in) {
		rc =
		    parse_read_file(a->in, (size_t)1 << 30, false, &text, &err);
		if (rc == 0)
			rc = workload_parse(text, a->in, w, &err);
	} else
		rc = workload_generate(&a->gen, w, &err);
	free(text);
	if (rc == 0 && a->out) {
		char tmp[4096];

		snprintf(tmp, sizeof(tmp), "%s.tmp", a->out);
		text = workload_format(w);
		rc = text ? file_save_atomic(a->out, tmp, 0644, text,
					     strlen(text), &err)
			  : elastic_errorf(&err, "out of memory");
		free(text);
	}
	if (rc < 0)
		fprintf(stderr, "bench_cluster: %s\n", err.text);
	return rc;
}

/* The k-th repeat (from 0) of a run, seed k + 1, into run: its report
 * (the first) or into the mean.  0, or -1 with err set. */
static int bc_repeat(const struct workload *w, struct cluster_params *p,
		     unsigned k, struct bc_run *run, elastic_error_t *err)
{
	struct cluster_result r;
	struct cluster_report rep;

	p->seed = (uint64_t)k + 1;
	if (cluster_run(p, w, &r, err) < 0)
		return -1;
	if (report_build(w, p->nodes, &r, k ? &rep : &run->rep, err) < 0) {
		cluster_result_free(&r);
		return -1;
	}
	if (k) {
		report_average(&run->rep, &rep, (size_t)k + 1);
		report_free(&rep);
	} else {
		run->passes = r.passes;
		run->sched_passes = r.sched_passes;
		run->backfill_passes = r.backfill_passes;
		run->timeline = r.timeline;
		run->ntimeline = r.ntimeline;
		r.timeline = NULL;
	}
	cluster_result_free(&r);
	return 0;
}

/* One run (with slurm-elastic or without), --repeat times: 0, or -1
 * with the error printed. */
static int bc_one(const struct bc_args *a, const struct workload *w,
		  bool elastic, struct bc_run *run)
{
	struct cluster_params p = a->params;
	elastic_error_t err;
	double t0 = bc_now(), c0 = bc_cpu();

	p.elastic = elastic;
	for (unsigned k = 0; k < a->repeat; k++)
		if (bc_repeat(w, &p, k, run, &err) < 0) {
			fprintf(stderr, "bench_cluster: %s: %s\n",
				elastic ? "with slurm-elastic" : "without",
				err.text);
			return -1;
		}
	run->wall_s = bc_now() - t0;
	run->cpu_s = bc_cpu() - c0;
	run->done = true;
	return 0;
}

int main(int argc, char **argv)
{
	struct bc_args a = { 0 };
	struct workload w = { 0 };
	struct bc_run run[2] = { 0 };
	unsigned missed = 0;
	int rc = bc_args_parse(argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (bc_workload(&a, &w) < 0)
		return 1;
	if (!a.json)
		bc_print_setup(&a, &w);
	rc = 0;
	if ((a.runs & BC_WITHOUT) && bc_one(&a, &w, false, &run[0]) < 0)
		rc = 1;
	if (!rc && (a.runs & BC_WITH) && bc_one(&a, &w, true, &run[1]) < 0)
		rc = 1;
	if (!rc) {
		if (a.json) {
			bc_print_json(run);
			missed = bc_print_targets(&a, run, true);
		} else {
			missed = bc_print_table(&a, run);
			bc_print_timeline(run);
		}
		if (a.check && missed)
			rc = 1;
	}
	for (int k = 0; k < 2; k++) {
		report_free(&run[k].rep);
		free(run[k].timeline);
	}
	workload_free(&w);
	return rc;
}
