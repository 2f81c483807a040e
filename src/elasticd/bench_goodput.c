/*
 * bench_goodput: the goodput simulator's command (goodsim.h,
 * bench_goodput(1)).  Runs a trace file, or a synthetic trace, under each
 * policy and prints one table: goodput and its share of the oracle's,
 * time to a fixed amount of training, node-hours held, samples done
 * again, cost; optionally the series for a plot.  Figures, not verdicts.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/options.h"
#include "common/parse.h"
#include "goodsim.h"

static const char usage[] =
    "usage: bench_goodput (--trace FILE | --synthetic "
    "NODES:HOURS:MTBF_MIN:MTTR_MIN[:BURST_MIN:BURST_SIZE])\n"
    "         [--nodes N] [--ondemand N] [--groups G] [--min N] [--max N]\n"
    "         [--step N | --sizes S,S,...] [--spares N] [--spares-cold]\n"
    "         [--speed X] [--reclaim-ratio R] [--seed S]\n"
    "         [--grace S] [--scale-delay S] [--fault-timeout S]\n"
    "         [--ondemand-fallback never|below-min|always] [--rate R]\n"
    "         [--rate-curve W:R,...]\n"
    "         [--ckpt S] [--ckpt-every S] [--ckpt-stall S] [--restart S]"
    " [--stop S]\n"
    "         [--resize S] [--inplace S] [--join S] [--start S]\n"
    "         [--detect S] [--lost S] [--requeue S]"
    " [--queue-wait S] [--tick MS] [--exact-passes]\n"
    "         [--unit-queue-wait S] [--schedule]"
    " [--target SAMPLES] [--spot-price P] [--ondemand-price P]\n"
    "         [--policies LIST] [--plot PREFIX] [--period S]\n";

struct series {
	struct goodsim_point *v;
	size_t n, cap;
};

static void collect(void *arg, const struct goodsim_point *pt)
{
	struct series *s = arg;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct goodsim_point *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return; /* the plot gets fewer points */
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = *pt;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int fail(const char *what, const char *value, const char *allowed)
{
	fprintf(stderr, "bench_goodput: %s: '%s': %s\n", what, value, allowed);
	return 2;
}

static int num(const char *opt, const char *v, double lo, double hi,
	       double *ret)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !(d >= lo && d <= hi)) {
		fprintf(stderr,
			"bench_goodput: --%s: '%s': not a number in "
			"%g..%g\n",
			opt, v, lo, hi);
		return -1;
	}
	*ret = d;
	return 0;
}

/* NODES:HOURS:MTBF_MIN:MTTR_MIN[:BURST_MIN:BURST_SIZE] */
static char *synthetic(const char *spec, uint64_t seed, char *name, size_t len)
{
	double v[6] = { 0, 0, 0, 0, 0, 0 };
	const char *p = spec;
	int n = 0;

	while (n < 6) {
		char *end;

		errno = 0;
		v[n] = strtod(p, &end);
		if (errno || end == p || !(v[n] >= 0) || v[n] > 1e7)
			return NULL;
		n++;
		if (*end == '\0')
			break;
		if (*end != ':')
			return NULL;
		p = end + 1;
	}
	if ((n != 4 && n != 6) || v[0] < 1 || v[0] > TRACE_NODES_MAX ||
	    v[1] <= 0 || v[1] > 24 * 30 || v[2] <= 0 || v[3] <= 0)
		return NULL;
	snprintf(name, len, "synthetic %s (seed %" PRIu64 ")", spec, seed);
	return goodsim_synthetic((unsigned)v[0], v[1], v[2] * 60, v[3] * 60,
				 v[4] * 60, (unsigned)v[5], seed);
}

static void print_fault(void *arg, uint64_t ms, unsigned node,
			enum goodsim_fault what)
{
	static const char *const name[] = { "add", "reclaim", "crash" };

	(void)arg;
	printf("%" PRIu64 " %s %u\n", ms, name[what], node + 1);
}

static int write_plot(const char *prefix, const char *title, struct series *ser,
		      const bool *run)
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

static const struct option longopts[] = {
	{ "trace", required_argument, NULL, 't' },
	{ "synthetic", required_argument, NULL, 'y' },
	{ "nodes", required_argument, NULL, 'n' },
	{ "ondemand", required_argument, NULL, 'o' },
	{ "groups", required_argument, NULL, 'g' },
	{ "min", required_argument, NULL, 1 },
	{ "max", required_argument, NULL, 2 },
	{ "step", required_argument, NULL, 3 },
	{ "speed", required_argument, NULL, 4 },
	{ "reclaim-ratio", required_argument, NULL, 5 },
	{ "seed", required_argument, NULL, 6 },
	{ "grace", required_argument, NULL, 7 },
	{ "scale-delay", required_argument, NULL, 8 },
	{ "fault-timeout", required_argument, NULL, 9 },
	{ "rate", required_argument, NULL, 10 },
	{ "ckpt", required_argument, NULL, 11 },
	{ "ckpt-every", required_argument, NULL, 12 },
	{ "restart", required_argument, NULL, 13 },
	{ "resize", required_argument, NULL, 14 },
	{ "start", required_argument, NULL, 15 },
	{ "detect", required_argument, NULL, 16 },
	{ "requeue", required_argument, NULL, 17 },
	{ "tick", required_argument, NULL, 18 },
	{ "target", required_argument, NULL, 19 },
	{ "spot-price", required_argument, NULL, 20 },
	{ "ondemand-price", required_argument, NULL, 21 },
	{ "policies", required_argument, NULL, 22 },
	{ "plot", required_argument, NULL, 23 },
	{ "period", required_argument, NULL, 24 },
	{ "ondemand-fallback", required_argument, NULL, 25 },
	{ "queue-wait", required_argument, NULL, 26 },
	{ "exact-passes", no_argument, NULL, 27 },
	{ "schedule", no_argument, NULL, 28 },
	{ "stop", required_argument, NULL, 29 },
	{ "inplace", required_argument, NULL, 30 },
	{ "join", required_argument, NULL, 31 },
	{ "rate-curve", required_argument, NULL, 32 },
	{ "lost", required_argument, NULL, 33 },
	{ "sizes", required_argument, NULL, 34 },
	{ "spares", required_argument, NULL, 35 },
	{ "spares-cold", no_argument, NULL, 36 },
	{ "unit-queue-wait", required_argument, NULL, 37 },
	{ "ckpt-stall", required_argument, NULL, 38 },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
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

/* The long name of option c, for its messages. */
static const char *opt_name(int c)
{
	const char *o = longopts[0].name;

	for (size_t i = 0; longopts[i].name; i++)
		if (longopts[i].val == c)
			o = longopts[i].name;
	return o;
}

/* --policies LIST: 0, or the exit status. */
static int parse_policies(const char *list, bool *run)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	memset(run, 0, GOODSIM_NPOLICIES * sizeof(*run));
	for (char *w = strtok_r(buf, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		int k;

		for (k = 0; k < GOODSIM_NPOLICIES; k++)
			if (!strcmp(w, goodsim_policy_name(k)))
				break;
		if (k == GOODSIM_NPOLICIES)
			return fail("--policies", w,
				    "not slurm-elastic, in-place, "
				    "native-requeue, "
				    "restart-at-size or oracle");
		run[k] = true;
	}
	return 0;
}

/* --ondemand-fallback: 0, or the exit status. */
static int parse_fallback(const char *v, enum elastic_ondemand *ret)
{
	if (!strcmp(v, "never"))
		*ret = ELASTIC_ONDEMAND_NEVER;
	else if (!strcmp(v, "below-min"))
		*ret = ELASTIC_ONDEMAND_BELOW_MIN;
	else if (!strcmp(v, "always"))
		*ret = ELASTIC_ONDEMAND_ALWAYS;
	else
		return fail("--ondemand-fallback", v,
			    "not never, below-min or always");
	return 0;
}

/* The options that are not numbers: 0 when set, 2 (the exit status)
 * when wrong, -1 when c is a number's. */
static int set_word(struct args *a, int c)
{
	elastic_error_t err;

	switch (c) {
	case 't':
		a->trace_path = optarg;
		return 0;
	case 'y':
		a->synth = optarg;
		return 0;
	case 23:
		a->plot = optarg;
		return 0;
	case 22:
		return parse_policies(optarg, a->run);
	case 25:
		return parse_fallback(optarg, &a->p.ondemand);
	case 27:
		a->p.exact_passes = true;
		return 0;
	case 32:
		if (goodsim_set_curve(&a->p, optarg, &err) < 0) {
			fprintf(stderr, "bench_goodput: --%s\n", err.text);
			return 2;
		}
		return 0;
	case 28:
		a->schedule = true;
		return 0;
	case 34:
		if (goodsim_set_sizes(&a->p, optarg, &err) < 0) {
			fprintf(stderr, "bench_goodput: --%s\n", err.text);
			return 2;
		}
		a->max_given = true;
		return 0;
	case 36:
		a->spares_cold = true;
		return 0;
	}
	return -1;
}

/* The cluster, the groups, the trace's replay and the run's clock: false
 * when c is none of them. */
static bool set_shape(struct args *a, int c, double d)
{
	struct goodsim_params *p = &a->p;

	switch (c) {
	case 'n':
		p->spot_nodes = (unsigned)d, a->nodes_given = true;
		break;
	case 'o':
		p->ondemand_nodes = (unsigned)d, a->od_given = true;
		break;
	case 'g':
		p->groups = (unsigned)d;
		break;
	case 1:
		p->min = (unsigned)d;
		break;
	case 2:
		p->max = (unsigned)d, a->max_given = true;
		break;
	case 3:
		p->step = (unsigned)d;
		break;
	case 4:
		p->speed = d;
		break;
	case 5:
		p->reclaim_ratio = d;
		break;
	case 6:
		p->seed = (uint64_t)d;
		break;
	case 7:
		p->grace_s = (unsigned)d;
		break;
	case 8:
		p->scale_delay_s = (unsigned)d;
		break;
	case 9:
		p->fault_timeout_s = (unsigned)d;
		break;
	case 18:
		p->tick_ms = (unsigned)d;
		break;
	case 24:
		a->period = d;
		break;
	case 35:
		a->spares = d > UINT_MAX ? UINT_MAX : (unsigned)d;
		break;
	default:
		return false;
	}
	return true;
}

/* The client, the costs of each action, the target and the prices. */
static void set_cost(struct goodsim_params *p, int c, double d)
{
	switch (c) {
	case 10:
		p->rate = d;
		break;
	case 11:
		p->ckpt_s = d;
		break;
	case 12:
		p->ckpt_every_s = d;
		break;
	case 13:
		p->restart_s = d;
		break;
	case 29:
		p->stop_s = d;
		break;
	case 14:
		p->resize_s = d;
		break;
	case 30:
		p->inplace_s = d;
		break;
	case 31:
		p->join_s = d;
		break;
	case 15:
		p->start_s = d;
		break;
	case 16:
		p->detect_s = d;
		break;
	case 33:
		p->lost_s = d;
		break;
	case 17:
		p->requeue_s = d;
		break;
	case 19:
		p->target_samples = d;
		break;
	case 20:
		p->spot_price = d;
		break;
	case 21:
		p->ondemand_price = d;
		break;
	case 26:
		p->queue_wait_s = d;
		break;
	case 37:
		p->unit_queue_wait_s = d;
		break;
	case 38:
		p->ckpt_stall_s = d;
		break;
	}
}

/* The command line: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	int c, rc;
	double d;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c == '?') {
			fputs(usage, stderr);
			return 2;
		}
		rc = set_word(a, c);
		if (rc > 0)
			return rc;
		if (rc == 0)
			continue;
		if (num(opt_name(c), optarg, 0, 1e12, &d) < 0)
			return 2;
		if (!set_shape(a, c, d))
			set_cost(&a->p, c, d);
	}
	if (optind < argc || !a->trace_path == !a->synth) {
		fputs(usage, stderr);
		return 2;
	}
	return -1;
}

/* The trace file, or the synthetic trace, and its name in name: NULL with
 * *rc the exit status when it cannot be had. */
static struct trace *load_trace(const struct args *a, char *name, size_t len,
				int *rc)
{
	struct trace *t;
	elastic_error_t err;

	if (a->trace_path) {
		t = trace_load(a->trace_path, &err);
		snprintf(name, len, "%s", a->trace_path);
	} else {
		char *text = synthetic(a->synth, a->p.seed, name, len);

		if (!text) {
			*rc = fail("--synthetic", a->synth,
				   "not NODES:HOURS:MTBF_MIN:MTTR_MIN"
				   "[:BURST_MIN:BURST_SIZE] (NODES 1..65536, "
				   "HOURS 0..720, times > 0)");
			return NULL;
		}
		t = trace_parse(text, "synthetic", &err);
		free(text);
	}
	if (!t) {
		fprintf(stderr, "bench_goodput: %s\n", err.text);
		*rc = 1;
	}
	return t;
}

/* The trace's own scale, and a group that can use all of it, where the
 * command line left them; then the checks: 0, or the exit status. */
static int fit_params(struct args *a, const struct trace *t)
{
	struct goodsim_params *p = &a->p;
	elastic_error_t err;

	if (!a->nodes_given)
		p->spot_nodes =
		    trace_available_max(t) ? trace_available_max(t) : 1;
	if (!a->max_given)
		p->max = p->spot_nodes + p->min;
	if (!a->od_given)
		p->ondemand_nodes = p->groups * p->min;
	a->sp = *p;
	a->sp.spares = a->spares;
	a->sp.spares_cold = a->spares_cold;
	if (goodsim_check(p, &err) < 0 || goodsim_check(&a->sp, &err) < 0) {
		fprintf(stderr, "bench_goodput: %s\n", err.text);
		return 2;
	}
	return 0;
}

/* --schedule: the run's faults, for a replay: "MS add|reclaim|crash NODE",
 * nodes from 1, after a line "# duration MS".  The exit status. */
static int print_schedule(const struct goodsim_params *p, const struct trace *t)
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
static void print_setup(const char *name, const struct trace *t,
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
static const char *row_name(const struct args *a, int k)
{
	static char name[64];

	snprintf(name, sizeof(name), "%s+%u%s spare%s", goodsim_policy_name(k),
		 a->spares, a->spares_cold ? " cold" : "",
		 a->spares == 1 ? "" : "s");
	return name;
}

/* Policy k on p, its series in ser (may be NULL): 0, or the exit status. */
static int run_one(const struct goodsim_params *p, const struct trace *t, int k,
		   const char *name, struct series *ser, double period,
		   struct goodsim_result *r)
{
	elastic_error_t err;
	double t0 = now_s();

	if (goodsim_run(p, t, k, ser ? collect : NULL, ser, period, r, &err) <
	    0) {
		fprintf(stderr, "bench_goodput: %s: %s\n", name, err.text);
		return 1;
	}
	printf("  %s: simulated in %.2f s (%" PRIu64 " reconcile passes)\n",
	       name, now_s() - t0, r->passes);
	return 0;
}

/* Each policy asked for, its series in ser when plotting, then
 * slurm-elastic's with spares (spres), and the oracle (the table's
 * reference) in any case: 0, or the exit status. */
static int run_policies(const struct args *a, const struct trace *t,
			double period, struct series *ser,
			struct goodsim_result *res,
			struct goodsim_result *spres)
{
	elastic_error_t err;

	for (int k = 0; k < GOODSIM_NPOLICIES; k++)
		if (a->run[k] &&
		    run_one(&a->p, t, k, goodsim_policy_name(k),
			    a->plot ? &ser[k] : NULL, period, &res[k]))
			return 1;
	for (int k = GOODSIM_ELASTIC; a->spares && k <= GOODSIM_INPLACE; k++)
		if (a->run[k] &&
		    run_one(&a->sp, t, k, row_name(a, k), NULL, 0, &spres[k]))
			return 1;
	if (!a->run[GOODSIM_ORACLE] &&
	    goodsim_run(&a->p, t, GOODSIM_ORACLE, NULL, NULL, 0,
			&res[GOODSIM_ORACLE], &err) < 0) {
		fprintf(stderr, "bench_goodput: oracle: %s\n", err.text);
		return 1;
	}
	return 0;
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
static void print_table(const struct args *a, const struct goodsim_result *res,
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
			print_row(row_name(a, k), w, &spres[k],
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
		       row_name(a, k), r->spare_node_s / 3600,
		       r->spare_node_s / 3600 * p->spot_price, r->swaps,
		       r->crashes, r->preemptions,
		       res[k].goodput > 0
			   ? 100 * (r->goodput / res[k].goodput - 1)
			   : 0);
	}
}

/* The runs and their report: the exit status. */
static int simulate(const struct args *a, const struct trace *t,
		    const char *name)
{
	struct series ser[GOODSIM_NPOLICIES] = { 0 };
	struct goodsim_result res[GOODSIM_NPOLICIES],
	    spres[GOODSIM_INPLACE + 1];
	double period = a->period;
	int rc;

	if (a->plot && !period)
		period =
		    (double)trace_duration_ms(t) / a->p.speed / 1000 / 2000;
	if (a->plot && period * 1000 < a->p.tick_ms)
		period = a->p.tick_ms / 1000.0;
	print_setup(name, t, a);
	rc = run_policies(a, t, period, ser, res, spres);
	if (rc == 0) {
		print_table(a, res, spres);
		if (a->plot)
			write_plot(a->plot, name, ser, a->run);
	}
	for (int k = 0; k < GOODSIM_NPOLICIES; k++)
		free(ser[k].v);
	return rc;
}

int main(int argc, char **argv)
{
	struct args a = { .run = { true, true, true, true, true } };
	struct trace *t;
	char name[256];
	int rc;

	goodsim_defaults(&a.p);
	rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	t = load_trace(&a, name, sizeof(name), &rc);
	if (!t)
		return rc;
	rc = fit_params(&a, t);
	if (rc == 0)
		rc = a.schedule ? print_schedule(&a.p, t)
				: simulate(&a, t, name);
	trace_destroy(t);
	return rc;
}
