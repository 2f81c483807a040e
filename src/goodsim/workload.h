#ifndef GOODSIM_WORKLOAD_H
#define GOODSIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/*
 * A cluster's workload (bench_cluster(1)): rigid jobs, elastic groups and
 * preemptors, as generated from published figures of real GPU clusters or
 * read from a file, and written to one.  Pure: text in, text out, no file.
 *
 * The file (shared with the real-cluster replay), one job per line,
 * fields separated by spaces, '#' comments:
 *
 *     # slurm-elastic workload v1
 *     # submit_s kind user nodes max runtime_s limit_s
 *     0 rigid r1 4 - 600 900
 *     30 elastic e1 1 8 1200 1800
 *     100 preemptor p1 2 - 300 600
 *
 * rigid: a protected job in partition base; elastic: a group
 * --elastic-min=nodes --elastic-max=max --elastic-step=1 whose base runs
 * runtime_s, its units preemptible; preemptor: a job in partition high,
 * which preempts units.  Jobs are kept in submission order.
 */

enum workload_kind { WORKLOAD_RIGID, WORKLOAD_ELASTIC, WORKLOAD_PREEMPTOR };
const char *workload_kind_name(enum workload_kind k);

#define WORKLOAD_USER_MAX  31
#define WORKLOAD_JOBS_MAX  10000000
#define WORKLOAD_NODES_MAX 1000000
#define WORKLOAD_TIME_MAX  (366u * 86400) /* a year, seconds */
/* A generated group's max - min: at most elasticd's units a group holds
 * (reconcile.h's GROUP_MAX_SLOTS; a step of 1). */
#define WORKLOAD_UNITS_MAX 1024

struct workload_job {
	int64_t submit_ms;
	enum workload_kind kind;
	char user[WORKLOAD_USER_MAX + 1];
	uint32_t nodes; /* elastic: its min */
	uint32_t max;	/* elastic only; else 0 ("-") */
	uint32_t runtime_s, limit_s;
};

/* Zero-initialize; workload_free() lets the jobs go. */
struct workload {
	struct workload_job *job;
	size_t n, cap;
};
void workload_free(struct workload *w);

/*
 * What the generator is asked for (workload_generate()).  The rigid and
 * preemptor jobs offer load of the nodes over hours (their node-seconds
 * against nodes * hours); groups elastic groups, in classes: the first
 * equal_groups alike (min equal_min, max group_max: Jain's index is taken
 * over them), the others of other sizes; group_users users own them
 * in turn.
 */
struct workload_gen {
	unsigned nodes;
	double hours;
	double load;	      /* offered by rigid jobs and preemptors */
	double preempt_share; /* of the jobs, preemptors */
	unsigned groups, equal_groups;
	unsigned equal_min, group_max;
	unsigned rigid_users, group_users;
	uint64_t seed;
};
/* The defaults for a cluster of nodes: a week, load 0.8, 2% preemptors, a
 * group per 125 nodes (at least 4), three in four of them equal (min 2,
 * max an eighth of the nodes, 8 to 64), a user per four groups. */
void workload_gen_defaults(struct workload_gen *g, unsigned nodes);
/* 0, or -1 with err naming the first parameter out of range. */
int workload_gen_check(const struct workload_gen *g, elastic_error_t *err);

/* Generate into w (emptied first): 0, or -1 with err set. */
int workload_generate(const struct workload_gen *g, struct workload *w,
		      elastic_error_t *err);

/* The draws, for the tests: a rigid job's size (nodes), its runtime and
 * its time limit (seconds), from the generator's state *rng. */
uint32_t workload_draw_size(uint64_t *rng);
uint32_t workload_draw_runtime(uint64_t *rng, bool preemptor);
uint32_t workload_draw_limit(uint64_t *rng, uint32_t runtime_s);

/* Parse the text of a workload file into w (emptied first): 0, or -1 with
 * err naming "name:LINE" and what is wrong. */
int workload_parse(const char *text, const char *name, struct workload *w,
		   elastic_error_t *err);
/* The workload as a file's text, malloc'd; NULL when out of memory. */
char *workload_format(const struct workload *w);

#endif
