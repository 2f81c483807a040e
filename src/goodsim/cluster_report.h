#ifndef GOODSIM_CLUSTER_REPORT_H
#define GOODSIM_CLUSTER_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "common/error.h"
#include "workload.h"

/*
 * The cluster simulator's report (bench_cluster(1)): a run's figures as
 * the real-cluster replay reports them too, and the targets checked on a
 * run with slurm-elastic against one without.  Pure arithmetic.
 *
 * utilization: node-seconds held by any job over the node-seconds of the
 * nodes over [first submit, last end]; below_utilization the same while
 * a group runs below its max.  Rigid jobs (the workload's rigid lines):
 * wait = start - submit, completion = end - submit.  A group's node_s is
 * its goodput (node-seconds in its world), its share its units'
 * node-seconds over all groups' units'.  Jain's index is taken over the
 * node_s of the equal groups: the largest set of groups with the same min
 * and max (two or more; of sets alike in size, the first's).
 */

struct report_group {
	char user[WORKLOAD_USER_MAX + 1];
	unsigned min, max;
	double node_s, unit_node_s, share;
	bool equal;
};

struct cluster_report {
	unsigned nodes;
	double span_s, utilization;
	double below_s, below_utilization;
	size_t rigid_n;
	double wait_p50_s, wait_p95_s, completion_mean_s, completion_p95_s;
	size_t preemptor_n;
	double preemptor_wait_p95_s;
	size_t ngroups;
	struct report_group *groups;
	size_t njain;
	double jain;
	double unit_starts_per_h, unit_preemptions_per_h;
};
void report_free(struct cluster_report *r);

/* The pct-th percentile (nearest rank) of v, sorted in place; 0 when
 * n is 0. */
double report_percentile(double *v, size_t n, double pct);
/* Jain's fairness index of x: (sum x)^2 / (n sum x^2); 1 when n is 0 or
 * every x is 0. */
double report_jain(const double *x, size_t n);

/* The report of run r of workload w on nodes nodes: 0, or -1 with err
 * set when out of memory. */
int report_build(const struct workload *w, unsigned nodes,
		 const struct cluster_result *r, struct cluster_report *ret,
		 elastic_error_t *err);

/* mean, the mean of n - 1 reports of one workload, made the mean of n
 * with r: each figure, the groups' too (n >= 1; n 1 copies r's). */
void report_average(struct cluster_report *mean, const struct cluster_report *r,
		    size_t n);

/* The targets: rigid wait p95 with slurm-elastic at most grace_s above
 * without; utilization while a group is below its max at least 95% of
 * the nodes; Jain's index at least 0.95 (no equal groups: met). */
struct report_verdict {
	bool wait, utilization, jain;
};
void report_check(const struct cluster_report *with,
		  const struct cluster_report *without, unsigned grace_s,
		  struct report_verdict *v);

#define REPORT_UTILIZATION_MIN 0.95
#define REPORT_JAIN_MIN	       0.95

#endif
