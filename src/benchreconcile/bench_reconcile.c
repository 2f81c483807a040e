/*
 * bench_reconcile: how long elasticd's decisions take on synthetic
 * clusters, how much memory they use, and how many slurmctld RPCs a
 * cycle costs.  Not a test: it prints figures ("make bench").
 *
 *   bench_reconcile [NODES:GROUPS...]     default: 1000:200 10000:2000
 *                                         10000:200
 *
 * Each group has a running base and units of its step filling the
 * cluster, and pending units up to its max.  Per cluster it times: the
 * snapshot built from the jobs (what slurmio does with slurmctld's
 * answer), the first pass (adopting every group), a steady pass (nothing
 * changed), a pass where 5% of the units are being preempted, and the
 * view the API gets.  RPCs per cycle are those slurmio would make: one
 * slurm_load_jobs, plus one per submission, cancel and raised job.  The
 * preempted cycle is counted twice: with launchers that do not relay
 * events (every job of a world signalled through slurmctld) and with
 * launchers that do (elastic-run: the base alone, the members' ranks told
 * over the launcher's heartbeat steps).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/options.h"
#include "common/policy.h"
#include "elasticd/reconcile.h"

#define RUNS 7

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return v[n / 2];
}

static long max_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* The cluster: per group, a base of min nodes and running units of step
 * nodes until the group holds its share; pending units up to max. */
static struct snapshot *build(unsigned nodes, unsigned groups,
			      unsigned preempt_pct,
			      const struct elastic_opts *o, time_t now,
			      const struct snapshot *prev)
{
	struct snapshot *s = snapshot_create(now);
	unsigned share = nodes / groups, id = 1000, node = 0;
	unsigned unit_seq = 0;
	elastic_error_t err;
	char list[64];

	/* As slurmio does with each job: its tag, parsed. */
	char tag[4096];
	struct elastic_opts parsed;

	options_format_tag(o, tag, sizeof(tag));
	for (unsigned g = 0; g < groups; g++) {
		uint32_t base_id = id++;
		struct job_view b = { 0 };
		unsigned held = o->min;

		const struct job_view *pj =
		    prev ? snapshot_find(prev, base_id) : NULL;

		/* slurmio parses a tag only when it changed */
		if (pj && pj->tag && !strcmp(pj->tag, tag))
			parsed = *pj->opts;
		else if (options_parse_tag(tag, &parsed, &err) < 0)
			goto fail;

		snprintf(list, sizeof(list), "n[%u-%u]", node + 1,
			 node + o->min);
		node += o->min;
		b.id = base_id;
		b.phase = PHASE_RUNNING;
		b.nnodes = o->min;
		b.nodes = list;
		b.uid = 1000 + g % 50;
		b.gid = 1000;
		b.user = "user";
		b.account = "acct";
		b.partition = "base";
		b.start_time = now - 3600;
		b.end_time = now + 86400;
		b.time_limit = 1440 + 60;
		b.role = ROLE_BASE;
		b.opts = &parsed;
		b.tag = tag;
		if (snapshot_add(s, &b, &err) < 0)
			goto fail;
		while (held < o->max) {
			struct job_view u = { 0 };
			bool running = held + o->step <= share;

			struct unit_tag ut = { base_id, UNIT_PREEMPTIBLE,
					       o->step, 0 };
			char utag[UNIT_TAG_MAX + 1];

			unittag_format(&ut, utag, sizeof(utag));
			u.id = id++;
			u.role = ROLE_UNIT;
			if (unittag_parse(utag, &u.unit, &err) < 0)
				goto fail;
			u.phase = running ? PHASE_RUNNING : PHASE_PENDING;
			u.nnodes = o->step;
			u.uid = b.uid;
			u.gid = b.gid;
			u.account = "acct";
			u.partition = "preempt";
			u.start_time = running ? now - 3000 : 0;
			if (running) {
				snprintf(list, sizeof(list), "n[%u-%u]",
					 node + 1, node + o->step);
				node += o->step;
				u.nodes = list;
				u.preempted = preempt_pct &&
					      unit_seq++ % 100 < preempt_pct;
			}
			if (snapshot_add(s, &u, &err) < 0)
				goto fail;
			held += o->step;
		}
	}
	snapshot_finish(s);
	return s;
fail:
	fprintf(stderr, "bench_reconcile: %s\n", err.text);
	snapshot_destroy(s);
	return NULL;
}

/* RPCs slurmio would make for these actions, besides the load; *relayed:
 * the jobs told by their launcher instead, *raises: the groups raised. */
static size_t rpcs(const struct action_list *l, size_t *relayed, size_t *raises)
{
	size_t n = 0;

	*relayed = *raises = 0;
	for (size_t i = 0; i < l->n; i++) {
		n += l->a[i].type == ACTION_RAISE  ? l->a[i].njobs
		     : l->a[i].type == ACTION_NOTE ? 0
						   : 1;
		if (l->a[i].type == ACTION_RAISE) {
			*relayed += l->a[i].relayed;
			(*raises)++;
		}
	}
	return n;
}

/* Every group's launcher reports its world, saying it relays events. */
static int relaying(struct reconcile *r, const struct snapshot *s, int64_t now)
{
	struct elasticd_view *v = reconcile_view(r, s, now);

	if (!v)
		return -1;
	for (size_t i = 0; i < v->ngroups; i++) {
		struct launch_report rep = {
			.group = v->groups[i].base_job_id,
			.generation = v->groups[i].generation,
			.exit_ms = -1,
			.relay = true,
		};

		reconcile_report(r, &rep, now);
	}
	view_free(v);
	return 0;
}

/* Answer every submission, as slurmio does, with made-up job ids. */
static void answer(struct reconcile *r, const struct action_list *l,
		   int64_t now)
{
	static uint32_t next = 10000000;

	for (size_t i = 0; i < l->n; i++)
		if (l->a[i].type == ACTION_SUBMIT)
			reconcile_submitted(r, l->a[i].group, l->a[i].token,
					    next++, now);
}

/* A cluster's figures: each run's times, the last run's counts. */
struct bench_figures {
	double t_build[RUNS], t_rebuild[RUNS], t_first[RUNS], t_steady[RUNS],
	    t_pre[RUNS], t_view[RUNS];
	size_t njobs, a_first, a_steady, a_pre;
	/* the preempted cycle without and with relaying launchers: RPCs,
	 * groups raised, jobs told without slurmctld */
	size_t r_pre[2], raises[2], relayed[2];
};

/* The policy and the groups' options for a cluster of nodes. */
static void bench_opts(unsigned nodes, unsigned groups,
		       struct elastic_policy *p, struct elastic_opts *o)
{
	unsigned share = nodes / groups;

	policy_defaults(p);
	p->preemptible_partitions.n = 1;
	strcpy(p->preemptible_partitions.name[0], "preempt");
	o->min = share >= 8 ? 2 : 1;
	o->step = share >= 8 ? 2 : 1;
	o->max = share * 2 - (share * 2 - o->min) % o->step;
	o->grace = 30;
	o->scale_delay = 10;
	o->fault_timeout = 20;
	o->signal = SIGURG;
	o->keep = 3;
	strcpy(o->checkpoint_dir, "%h/elastic-checkpoints/%j");
	o->given = (1u << ELASTIC_OPT_MIN) | (1u << ELASTIC_OPT_MAX) |
		   (1u << ELASTIC_OPT_STEP);
}

/* One run: the snapshots, the three passes and the view, timed (relay:
 * the launchers relay events; then only the counts are kept). */
static int bench_one(unsigned nodes, unsigned groups,
		     const struct elastic_policy *p,
		     const struct elastic_opts *o, time_t now, int run,
		     bool relay, struct action_list *l, struct bench_figures *f)
{
	int64_t ms = (int64_t)now * 1000;
	struct reconcile *r = reconcile_create(NULL);
	struct snapshot *s, *sp;
	struct elasticd_view *v;
	elastic_error_t err;
	size_t unused;
	double t;

	t = now_s();
	s = build(nodes, groups, 0, o, now, NULL);
	f->t_build[run] = now_s() - t;
	t = now_s();
	sp = build(nodes, groups, 5, o, now, s);
	f->t_rebuild[run] = now_s() - t;
	if (!r || !s || !sp)
		return -1;
	f->njobs = snapshot_count(s);

	t = now_s();
	if (reconcile_pass(r, s, p, ms, l, &err) < 0)
		goto fail;
	f->t_first[run] = now_s() - t;
	f->a_first = l->n;
	answer(r, l, ms);

	/* Nothing changed: slurmctld answered "no change" and the
	 * same snapshot is reconciled again. */
	t = now_s();
	if (reconcile_pass(r, s, p, ms + 1000, l, &err) < 0)
		goto fail;
	f->t_steady[run] = now_s() - t;
	f->a_steady = rpcs(l, &unused, &unused);
	if (relay && relaying(r, s, ms + 1000) < 0)
		goto fail;

	t = now_s();
	if (reconcile_pass(r, sp, p, ms + 2000, l, &err) < 0)
		goto fail;
	if (!relay)
		f->t_pre[run] = now_s() - t;
	f->a_pre = l->n;
	f->r_pre[relay] = rpcs(l, &f->relayed[relay], &f->raises[relay]);
	answer(r, l, ms + 2000);

	t = now_s();
	v = reconcile_view(r, sp, ms + 2000);
	if (!relay)
		f->t_view[run] = now_s() - t;
	if (!v)
		goto fail;
	view_free(v);
	reconcile_destroy(r);
	snapshot_destroy(s);
	snapshot_destroy(sp);
	return 0;
fail:
	fprintf(stderr, "bench_reconcile: %s\n", err.text);
	return -1;
}

/* The medians of the runs. */
static void bench_report(unsigned nodes, unsigned groups,
			 const struct elastic_opts *o, struct bench_figures *f)
{
	printf("%6u nodes %5u groups (%zu jobs; min=%u max=%u step=%u)\n",
	       nodes, groups, f->njobs, o->min, o->max, o->step);
	printf("  snapshot, first load %8.2f ms  (every tag parsed)\n",
	       median(f->t_build, RUNS) * 1e3);
	printf("  snapshot, next loads %8.2f ms  (unchanged base tags "
	       "reused, as slurmio does)\n",
	       median(f->t_rebuild, RUNS) * 1e3);
	printf("  first pass (adopt)   %8.2f ms  %zu actions\n",
	       median(f->t_first, RUNS) * 1e3, f->a_first);
	printf("  steady pass          %8.2f ms  RPCs/cycle: %zu (one "
	       "slurm_load_jobs, answered \"no change\") + %zu\n",
	       median(f->t_steady, RUNS) * 1e3, (size_t)1, f->a_steady);
	printf("  5%% units preempted   %8.2f ms  %zu actions, RPCs/cycle: "
	       "1 + %zu (%zu groups raised; launchers that do not relay: "
	       "every job signalled)\n",
	       median(f->t_pre, RUNS) * 1e3, f->a_pre, f->r_pre[0],
	       f->raises[0]);
	printf("  same, launchers relay           RPCs/cycle: 1 + %zu (%zu "
	       "groups raised in their base; %zu jobs told without "
	       "slurmctld)\n",
	       f->r_pre[1], f->raises[1], f->relayed[1]);
	printf("  view for the API     %8.2f ms\n",
	       median(f->t_view, RUNS) * 1e3);
	printf("  max RSS so far       %8ld KiB\n", max_rss_kib());
}

static int bench(unsigned nodes, unsigned groups)
{
	struct elastic_policy p;
	struct elastic_opts o = { 0 };
	struct action_list l = { 0 };
	struct bench_figures f = { .njobs = 0 };
	time_t now = time(NULL);

	bench_opts(nodes, groups, &p, &o);
	for (int run = 0; run < RUNS; run++)
		for (int relay = 0; relay < 2; relay++)
			if (bench_one(nodes, groups, &p, &o, now, run, relay,
				      &l, &f) < 0)
				return -1;
	action_list_free(&l);
	bench_report(nodes, groups, &o, &f);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *defaults[] = { "1000:200", "10000:2000",
					  "10000:200" };
	const char **cases = argc > 1 ? (const char **)argv + 1 : defaults;
	int n = argc > 1 ? argc - 1 : 3;

	printf("bench_reconcile: median of %d runs; target < 50 ms per pass "
	       "at 10k nodes\n",
	       RUNS);
	for (int i = 0; i < n; i++) {
		unsigned nodes, groups;

		if (sscanf(cases[i], "%u:%u", &nodes, &groups) != 2 ||
		    !groups || nodes < groups) {
			fprintf(stderr, "usage: bench_reconcile "
					"[NODES:GROUPS...]\n");
			return 2;
		}
		if (bench(nodes, groups) < 0)
			return 1;
	}
	return 0;
}
