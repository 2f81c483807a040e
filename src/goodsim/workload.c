/*
 * The cluster simulator's workload (workload.h): generated, seeded and
 * deterministic, or parsed from a file's text, and written as one.
 *
 * The generator follows what two studies of large multi-tenant GPU
 * clusters published: Microsoft's Philly (Jeon et al., "Analysis of
 * Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads",
 * USENIX ATC'19) and SenseTime's Helios (Hu et al., "Characterization and
 * Prediction of Deep Learning Workloads in Large-Scale GPU Datacenters",
 * SC'21).  What we take from them, and how:
 *
 * - Sizes: both find that most jobs ask for one GPU and few for more than
 *   8, in powers of two, while the few large jobs hold much of the GPU
 *   time.  One node here is the site's unit of allocation; a job asks for
 *   1, 2, 4, 8, 16 or 32 nodes with probabilities 0.70, 0.10, 0.09, 0.07,
 *   0.03, 0.01 (mean 2.6 nodes; jobs of 8 or more are 11% of the jobs and
 *   about 60% of the node-time at equal runtimes).
 * - Runtimes: both find heavy tails: medians of minutes, some jobs
 *   running days (Philly's CDFs span minutes to weeks; Helios reports
 *   GPU jobs' durations spread over orders of magnitude).  We draw a
 *   log-normal of median 15 minutes and sigma 2 (mean about 1.8 hours),
 *   cut to 1 minute .. 2 days (so that a week's run drains in days);
 *   preemptors (short, urgent work) a log-normal of median 10 minutes and
 *   sigma 1, cut to 1 minute .. 6 hours.
 * - Time limits: users ask for more than they use (both traces' limits
 *   are well above the runtimes): 1.5 to 3 times the runtime, uniform,
 *   rounded up to the minute, at least a minute above it, at most
 *   Slurm's MaxTime of the example partitions (7 days).
 * - Arrivals: Poisson.  The jobs are drawn until their node-seconds reach
 *   the offered load of the nodes over the span; their submit times are
 *   then uniform over the span, sorted (a Poisson process given its
 *   count), so the load is the target whatever the draws.
 *
 * The elastic groups and preemptors are ours: groups submitted at the
 * start 10 s apart and running the whole span, owned in turn by
 * group_users users; equal groups alike so that Jain's index can be
 * taken; preemptors a share of the jobs, in partition high.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simrand.h"
#include "workload.h"

#define MAXTIME_S	(7u * 86400) /* the example partitions' MaxTime */
#define RUNTIME_MAX_S	(2u * 86400)
#define PREEMPT_MAX_S	(6u * 3600)
#define GROUP_STAGGER_S 10

const char *workload_kind_name(enum workload_kind k)
{
	static const char *const name[] = { "rigid", "elastic", "preemptor" };

	return name[k];
}

void workload_free(struct workload *w)
{
	free(w->job);
	w->job = NULL;
	w->n = w->cap = 0;
}

/* A standard normal (Box-Muller, one of the pair). */
static double wl_normal(uint64_t *s)
{
	double u = 1 - simrand_uniform(s), v = simrand_uniform(s);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

uint32_t workload_draw_size(uint64_t *rng)
{
	static const double cum[] = { 0.70, 0.80, 0.89, 0.96, 0.99, 1.0 };
	double u = simrand_uniform(rng);
	unsigned k = 0;

	while (k < 5 && u >= cum[k])
		k++;
	return 1u << k;
}

uint32_t workload_draw_runtime(uint64_t *rng, bool preemptor)
{
	double median = preemptor ? 600 : 900, sigma = preemptor ? 1 : 2;
	double cap = preemptor ? PREEMPT_MAX_S : RUNTIME_MAX_S;
	double d = median * exp(sigma * wl_normal(rng));

	return (uint32_t)(d < 60 ? 60 : d > cap ? cap : d);
}

uint32_t workload_draw_limit(uint64_t *rng, uint32_t runtime_s)
{
	double f = 1.5 + 1.5 * simrand_uniform(rng);
	uint32_t lim = (uint32_t)ceil(runtime_s * f / 60) * 60;

	if (lim < runtime_s + 60)
		lim = (runtime_s + 119) / 60 * 60;
	return lim > MAXTIME_S ? MAXTIME_S : lim;
}

void workload_gen_defaults(struct workload_gen *g, unsigned nodes)
{
	memset(g, 0, sizeof(*g));
	g->nodes = nodes;
	g->hours = 24 * 7;
	g->load = 0.8;
	g->preempt_share = 0.02;
	g->groups = nodes / 125 < 4 ? 4 : nodes / 125;
	g->equal_groups = g->groups * 3 / 4;
	g->equal_min = 2;
	g->group_max = nodes / 8 > 64 ? 64 : nodes / 8 < 8 ? 8 : nodes / 8;
	g->rigid_users = 100;
	g->group_users = g->groups / 4 ? g->groups / 4 : 1;
	g->seed = 1;
}

int workload_gen_check(const struct workload_gen *g, elastic_error_t *err)
{
	if (g->nodes < 32 || g->nodes > WORKLOAD_NODES_MAX)
		return elastic_errorf(err, "nodes %u: not in 32..%u", g->nodes,
				      WORKLOAD_NODES_MAX);
	if (!(g->hours > 0) || g->hours * 3600 > WORKLOAD_TIME_MAX)
		return elastic_errorf(err, "hours %g: not in (0, %u]", g->hours,
				      WORKLOAD_TIME_MAX / 3600);
	if (!(g->load >= 0 && g->load <= 2))
		return elastic_errorf(err, "load %g: not in 0..2", g->load);
	if (!(g->preempt_share >= 0 && g->preempt_share <= 1))
		return elastic_errorf(err, "preemptor share %g: not in 0..1",
				      g->preempt_share);
	if (g->equal_groups > g->groups || g->groups > 100000)
		return elastic_errorf(err,
				      "groups %u, equal %u: not 0..100000 "
				      "with equal <= groups",
				      g->groups, g->equal_groups);
	if (!g->equal_min || g->equal_min > g->group_max ||
	    g->group_max > g->nodes)
		return elastic_errorf(err,
				      "group min %u, max %u: not 1 <= min <= "
				      "max <= nodes",
				      g->equal_min, g->group_max);
	if (!g->rigid_users || !g->group_users)
		return elastic_errorf(err, "users: at least one of each");
	return 0;
}

/* Room for one more job in w: it, or NULL when out of memory. */
static struct workload_job *wl_push(struct workload *w)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 1024;
		struct workload_job *v;

		if (cap > WORKLOAD_JOBS_MAX)
			return NULL;
		v = realloc(w->job, cap * sizeof(*v));
		if (!v)
			return NULL;
		w->job = v;
		w->cap = cap;
	}
	memset(&w->job[w->n], 0, sizeof(w->job[0]));
	return &w->job[w->n++];
}

/* The groups: the equal ones, then the others (min 1 or 4, max half or
 * twice the equal ones'), owned in turn by the group users. */
static int wl_groups(const struct workload_gen *g, struct workload *w)
{
	uint32_t span = (uint32_t)(g->hours * 3600);

	for (unsigned i = 0; i < g->groups; i++) {
		struct workload_job *j = wl_push(w);
		bool equal = i < g->equal_groups;

		if (!j)
			return -1;
		j->submit_ms = (int64_t)i * GROUP_STAGGER_S * 1000;
		j->kind = WORKLOAD_ELASTIC;
		snprintf(j->user, sizeof(j->user), "e%u",
			 i % g->group_users + 1);
		j->nodes = equal ? g->equal_min : i % 2 ? 4 : 1;
		j->max = equal	 ? g->group_max
			 : i % 2 ? g->group_max * 2
				 : (g->group_max + 1) / 2;
		if (j->max > g->nodes)
			j->max = g->nodes;
		if (j->max > j->nodes + WORKLOAD_UNITS_MAX)
			j->max = j->nodes + WORKLOAD_UNITS_MAX;
		if (j->max < j->nodes)
			j->max = j->nodes;
		j->runtime_s = span;
		j->limit_s = span + 3600;
	}
	return 0;
}

/* The rigid jobs and preemptors, until their node-seconds reach the
 * offered load; submit times left for wl_arrivals(). */
static int wl_jobs(const struct workload_gen *g, uint64_t *rng,
		   struct workload *w)
{
	double want = g->load * g->nodes * g->hours * 3600, have = 0;

	while (have < want) {
		struct workload_job *j = wl_push(w);
		bool pre = simrand_uniform(rng) < g->preempt_share;

		if (!j)
			return -1;
		j->kind = pre ? WORKLOAD_PREEMPTOR : WORKLOAD_RIGID;
		j->nodes = workload_draw_size(rng);
		if (j->nodes > g->nodes)
			j->nodes = g->nodes;
		j->runtime_s = workload_draw_runtime(rng, pre);
		j->limit_s = workload_draw_limit(rng, j->runtime_s);
		if (pre)
			snprintf(j->user, sizeof(j->user), "p%u",
				 (unsigned)(simrand_next(rng) % 5) + 1);
		else
			snprintf(
			    j->user, sizeof(j->user), "r%u",
			    (unsigned)(simrand_next(rng) % g->rigid_users) + 1);
		have += (double)j->nodes * j->runtime_s;
	}
	return 0;
}

static int wl_cmp_submit(const void *a, const void *b)
{
	const struct workload_job *x = a, *y = b;

	if (x->submit_ms != y->submit_ms)
		return x->submit_ms < y->submit_ms ? -1 : 1;
	return (x->kind > y->kind) - (x->kind < y->kind);
}

/* Poisson arrivals given their count: uniform times, sorted. */
static void wl_arrivals(const struct workload_gen *g, uint64_t *rng,
			struct workload *w, size_t from)
{
	double span_ms = g->hours * 3.6e6;

	for (size_t i = from; i < w->n; i++)
		w->job[i].submit_ms =
		    (int64_t)(simrand_uniform(rng) * span_ms / 1000) * 1000;
	qsort(w->job, w->n, sizeof(w->job[0]), wl_cmp_submit);
}

int workload_generate(const struct workload_gen *g, struct workload *w,
		      elastic_error_t *err)
{
	uint64_t rng = g->seed;
	size_t from;

	if (workload_gen_check(g, err) < 0)
		return -1;
	w->n = 0;
	if (wl_groups(g, w) < 0)
		goto oom;
	from = w->n;
	if (wl_jobs(g, &rng, w) < 0)
		goto oom;
	wl_arrivals(g, &rng, w, from);
	return 0;
oom:
	return elastic_errorf(err, "workload: out of memory (%zu jobs)", w->n);
}

/* One field of a line: its text in buf (cut at len - 1); the rest. */
static const char *wl_field(const char *p, char *buf, size_t len)
{
	size_t n = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '#') {
		if (n + 1 < len)
			buf[n++] = *p;
		p++;
	}
	buf[n] = '\0';
	return p;
}

/* A whole number in 0..max, or "-" (0) where dash is allowed. */
static int wl_number(const char *s, uint64_t max, bool dash, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (dash && !strcmp(s, "-")) {
		*ret = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (*end || v > max)
		return -1;
	*ret = v;
	return 0;
}

/* The fields of one job's line into j: 0, or -1 with err set. */
static int wl_line(char f[8][64], const char *where, struct workload_job *j,
		   elastic_error_t *err)
{
	uint64_t v[6];
	int k;

	for (k = 0; k < 3; k++)
		if (!strcmp(f[1], workload_kind_name(k)))
			break;
	if (k == 3)
		return elastic_errorf(err,
				      "%s: kind '%s': not rigid, elastic or "
				      "preemptor",
				      where, f[1]);
	j->kind = k;
	if (!f[2][0] || strlen(f[2]) > WORKLOAD_USER_MAX)
		return elastic_errorf(err, "%s: user '%s': 1..%d characters",
				      where, f[2], WORKLOAD_USER_MAX);
	snprintf(j->user, sizeof(j->user), "%s", f[2]);
	if (wl_number(f[0], WORKLOAD_TIME_MAX, false, &v[0]) ||
	    wl_number(f[3], WORKLOAD_NODES_MAX, false, &v[1]) || !v[1] ||
	    wl_number(f[4], WORKLOAD_NODES_MAX, k != WORKLOAD_ELASTIC, &v[2]) ||
	    wl_number(f[5], WORKLOAD_TIME_MAX, false, &v[3]) || !v[3] ||
	    wl_number(f[6], WORKLOAD_TIME_MAX, false, &v[4]) || v[4] < v[3])
		return elastic_errorf(err,
				      "%s: not 'submit_s kind user nodes max "
				      "runtime_s limit_s' (whole numbers; "
				      "nodes and runtime > 0, limit >= "
				      "runtime, max '-' but for elastic)",
				      where);
	if (k == WORKLOAD_ELASTIC && v[2] < v[1])
		return elastic_errorf(err, "%s: max %llu below nodes %llu",
				      where, (unsigned long long)v[2],
				      (unsigned long long)v[1]);
	j->submit_ms = (int64_t)v[0] * 1000;
	j->nodes = (uint32_t)v[1];
	j->max = (uint32_t)v[2];
	j->runtime_s = (uint32_t)v[3];
	j->limit_s = (uint32_t)v[4];
	return 0;
}

int workload_parse(const char *text, const char *name, struct workload *w,
		   elastic_error_t *err)
{
	unsigned line = 0;

	w->n = 0;
	for (const char *p = text; *p;) {
		char f[8][64], where[96];
		const char *q = p;
		struct workload_job *j;
		int n = 0;

		line++;
		snprintf(where, sizeof(where), "%s:%u", name, line);
		while (n < 8 && (q = wl_field(q, f[n], sizeof(f[n])), f[n][0]))
			n++;
		q = strchr(p, '\n');
		p = q ? q + 1 : p + strlen(p);
		if (!n)
			continue;
		if (n != 7)
			return elastic_errorf(err,
					      "%s: %d fields, not 7 (submit_s "
					      "kind user nodes max runtime_s "
					      "limit_s)",
					      where, n);
		j = wl_push(w);
		if (!j)
			return elastic_errorf(err, "%s: out of memory", where);
		if (wl_line(f, where, j, err) < 0)
			return -1;
		if (w->n > 1 && j->submit_ms < w->job[w->n - 2].submit_ms)
			return elastic_errorf(err,
					      "%s: submitted before the line "
					      "above (jobs in submission "
					      "order)",
					      where);
	}
	return 0;
}

char *workload_format(const struct workload *w)
{
	size_t cap = 128 + w->n * 128, len;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	len = (size_t)snprintf(s, cap,
			       "# slurm-elastic workload v1\n"
			       "# submit_s kind user nodes max runtime_s "
			       "limit_s\n");
	for (size_t i = 0; i < w->n; i++) {
		const struct workload_job *j = &w->job[i];
		char max[16] = "-";

		if (j->kind == WORKLOAD_ELASTIC)
			snprintf(max, sizeof(max), "%u", j->max);
		len += (size_t)snprintf(
		    s + len, cap - len, "%lld %s %s %u %s %u %u\n",
		    (long long)(j->submit_ms / 1000),
		    workload_kind_name(j->kind), j->user, j->nodes, max,
		    j->runtime_s, j->limit_s);
	}
	return s;
}
