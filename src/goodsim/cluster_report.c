/*
 * The cluster simulator's report (cluster_report.h): percentiles, Jain's
 * index, the shares and the targets, from a run's figures.  Pure.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_report.h"

void report_free(struct cluster_report *r)
{
	free(r->groups);
	memset(r, 0, sizeof(*r));
}

static int report_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double report_percentile(double *v, size_t n, double pct)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), report_cmp);
	rank = (size_t)ceil(pct / 100 * (double)n);
	if (rank < 1)
		rank = 1;
	return v[(rank > n ? n : rank) - 1];
}

double report_jain(const double *x, size_t n)
{
	double sum = 0, sq = 0;

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return n && sq > 0 ? sum * sum / ((double)n * sq) : 1;
}

/* The rigid jobs' waits and completions (and the preemptors' waits). */
static int report_rigid(const struct workload *w,
			const struct cluster_result *r,
			struct cluster_report *rep)
{
	double *wait = malloc((w->n ? w->n : 1) * sizeof(*wait));
	double *done = malloc((w->n ? w->n : 1) * sizeof(*done));
	double *pwait = malloc((w->n ? w->n : 1) * sizeof(*pwait));
	double sum = 0;
	size_t n = 0, np = 0;

	if (!wait || !done || !pwait) {
		free(wait);
		free(done);
		free(pwait);
		return -1;
	}
	for (size_t i = 0; i < w->n && i < r->njobs; i++) {
		const struct cluster_times *t = &r->job[i];

		if (t->start_ms < 0 || t->end_ms < 0)
			continue;
		if (w->job[i].kind == WORKLOAD_PREEMPTOR)
			pwait[np++] =
			    (double)(t->start_ms - t->submit_ms) / 1000;
		if (w->job[i].kind != WORKLOAD_RIGID)
			continue;
		wait[n] = (double)(t->start_ms - t->submit_ms) / 1000;
		done[n] = (double)(t->end_ms - t->submit_ms) / 1000;
		sum += done[n++];
	}
	rep->rigid_n = n;
	rep->wait_p50_s = report_percentile(wait, n, 50);
	rep->wait_p95_s = report_percentile(wait, n, 95);
	rep->completion_mean_s = n ? sum / (double)n : 0;
	rep->completion_p95_s = report_percentile(done, n, 95);
	rep->preemptor_n = np;
	rep->preemptor_wait_p95_s = report_percentile(pwait, np, 95);
	free(wait);
	free(done);
	free(pwait);
	return 0;
}

/* The equal groups: the largest set alike in min and max (2 or more). */
static void report_equal(struct cluster_report *rep)
{
	size_t best = 0, best_n = 0;

	for (size_t i = 0; i < rep->ngroups; i++) {
		size_t n = 0;

		for (size_t k = 0; k < rep->ngroups; k++)
			n += rep->groups[k].min == rep->groups[i].min &&
			     rep->groups[k].max == rep->groups[i].max;
		if (n > best_n) {
			best = i;
			best_n = n;
		}
	}
	rep->njain = 0;
	if (best_n < 2)
		return;
	for (size_t k = 0; k < rep->ngroups; k++) {
		rep->groups[k].equal =
		    rep->groups[k].min == rep->groups[best].min &&
		    rep->groups[k].max == rep->groups[best].max;
		rep->njain += rep->groups[k].equal;
	}
}

/* The groups: goodput, share, and Jain's index over the equal ones. */
static int report_groups(const struct workload *w,
			 const struct cluster_result *r,
			 struct cluster_report *rep)
{
	double units = 0, *x;
	size_t g = 0, k = 0;

	rep->groups = calloc(r->ngroups ? r->ngroups : 1, sizeof(*rep->groups));
	x = malloc((r->ngroups ? r->ngroups : 1) * sizeof(*x));
	if (!rep->groups || !x) {
		free(x);
		return -1;
	}
	for (size_t i = 0; i < w->n && g < r->ngroups; i++) {
		struct report_group *rg = &rep->groups[g];

		if (w->job[i].kind != WORKLOAD_ELASTIC)
			continue;
		snprintf(rg->user, sizeof(rg->user), "%s", w->job[i].user);
		rg->min = w->job[i].nodes;
		rg->max = w->job[i].max;
		rg->node_s = r->group[g].world_node_s;
		rg->unit_node_s = r->group[g].unit_node_s;
		units += rg->unit_node_s;
		g++;
	}
	rep->ngroups = g;
	for (size_t i = 0; i < g; i++)
		rep->groups[i].share =
		    units > 0 ? rep->groups[i].unit_node_s / units : 0;
	report_equal(rep);
	for (size_t i = 0; i < g; i++)
		if (rep->groups[i].equal)
			x[k++] = rep->groups[i].node_s;
	rep->jain = report_jain(x, k);
	free(x);
	return 0;
}

int report_build(const struct workload *w, unsigned nodes,
		 const struct cluster_result *r, struct cluster_report *ret,
		 elastic_error_t *err)
{
	struct cluster_report rep = { .nodes = nodes };
	double hours;

	rep.span_s = (double)(r->last_ms - r->first_ms) / 1000;
	rep.utilization =
	    rep.span_s > 0 && nodes ? r->held_node_s / (nodes * rep.span_s) : 0;
	rep.below_s = r->below_s;
	rep.below_utilization =
	    r->below_s > 0 && nodes
		? r->below_held_node_s / (nodes * r->below_s)
		: 0;
	hours = rep.span_s / 3600;
	rep.unit_starts_per_h = hours > 0 ? (double)r->unit_starts / hours : 0;
	rep.unit_preemptions_per_h =
	    hours > 0 ? (double)r->unit_preemptions / hours : 0;
	if (report_rigid(w, r, &rep) < 0 || report_groups(w, r, &rep) < 0) {
		report_free(&rep);
		return elastic_errorf(err, "report: out of memory");
	}
	*ret = rep;
	return 0;
}

/* x made the mean of n with v. */
static void report_avg(double *x, double v, size_t n)
{
	*x += (v - *x) / (double)n;
}

void report_average(struct cluster_report *mean, const struct cluster_report *r,
		    size_t n)
{
	report_avg(&mean->span_s, r->span_s, n);
	report_avg(&mean->utilization, r->utilization, n);
	report_avg(&mean->below_s, r->below_s, n);
	report_avg(&mean->below_utilization, r->below_utilization, n);
	report_avg(&mean->wait_p50_s, r->wait_p50_s, n);
	report_avg(&mean->wait_p95_s, r->wait_p95_s, n);
	report_avg(&mean->completion_mean_s, r->completion_mean_s, n);
	report_avg(&mean->completion_p95_s, r->completion_p95_s, n);
	report_avg(&mean->preemptor_wait_p95_s, r->preemptor_wait_p95_s, n);
	report_avg(&mean->jain, r->jain, n);
	report_avg(&mean->unit_starts_per_h, r->unit_starts_per_h, n);
	report_avg(&mean->unit_preemptions_per_h, r->unit_preemptions_per_h, n);
	for (size_t i = 0; i < mean->ngroups && i < r->ngroups; i++) {
		report_avg(&mean->groups[i].node_s, r->groups[i].node_s, n);
		report_avg(&mean->groups[i].unit_node_s,
			   r->groups[i].unit_node_s, n);
		report_avg(&mean->groups[i].share, r->groups[i].share, n);
	}
}

void report_check(const struct cluster_report *with,
		  const struct cluster_report *without, unsigned grace_s,
		  struct report_verdict *v)
{
	v->wait = with->wait_p95_s <= without->wait_p95_s + grace_s;
	v->utilization = with->below_s <= 0 ||
			 with->below_utilization >= REPORT_UTILIZATION_MIN;
	v->jain = !with->njain || with->jain >= REPORT_JAIN_MIN;
}
