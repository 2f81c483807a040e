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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/parse.h"
#include "goodsim.h"

static const char usage[] =
    "usage: bench_goodput (--trace FILE | --synthetic "
    "NODES:HOURS:MTBF_MIN:MTTR_MIN[:BURST_MIN:BURST_SIZE])\n"
    "         [--nodes N] [--ondemand N] [--groups G] [--min N] [--max N]\n"
    "         [--step N] [--speed X] [--reclaim-ratio R] [--seed S]\n"
    "         [--grace S] [--scale-delay S] [--fault-timeout S]\n"
    "         [--ondemand-fallback never|below-min|always] [--rate R]\n"
    "         [--rate-curve W:R,...]\n"
    "         [--ckpt S] [--ckpt-every S] [--restart S] [--stop S]\n"
    "         [--resize S] [--inplace S] [--join S] [--start S]\n"
    "         [--detect S] [--lost S] [--requeue S]"
    " [--queue-wait S] [--tick MS] [--exact-passes]\n"
    "         [--schedule]"
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

int main(int argc, char **argv)
{
	static const struct option lo[] = { { "trace", 1, 0, 't' },
					    { "synthetic", 1, 0, 'y' },
					    { "nodes", 1, 0, 'n' },
					    { "ondemand", 1, 0, 'o' },
					    { "groups", 1, 0, 'g' },
					    { "min", 1, 0, 1 },
					    { "max", 1, 0, 2 },
					    { "step", 1, 0, 3 },
					    { "speed", 1, 0, 4 },
					    { "reclaim-ratio", 1, 0, 5 },
					    { "seed", 1, 0, 6 },
					    { "grace", 1, 0, 7 },
					    { "scale-delay", 1, 0, 8 },
					    { "fault-timeout", 1, 0, 9 },
					    { "rate", 1, 0, 10 },
					    { "ckpt", 1, 0, 11 },
					    { "ckpt-every", 1, 0, 12 },
					    { "restart", 1, 0, 13 },
					    { "resize", 1, 0, 14 },
					    { "start", 1, 0, 15 },
					    { "detect", 1, 0, 16 },
					    { "requeue", 1, 0, 17 },
					    { "tick", 1, 0, 18 },
					    { "target", 1, 0, 19 },
					    { "spot-price", 1, 0, 20 },
					    { "ondemand-price", 1, 0, 21 },
					    { "policies", 1, 0, 22 },
					    { "plot", 1, 0, 23 },
					    { "period", 1, 0, 24 },
					    { "ondemand-fallback", 1, 0, 25 },
					    { "queue-wait", 1, 0, 26 },
					    { "exact-passes", 0, 0, 27 },
					    { "schedule", 0, 0, 28 },
					    { "stop", 1, 0, 29 },
					    { "inplace", 1, 0, 30 },
					    { "join", 1, 0, 31 },
					    { "rate-curve", 1, 0, 32 },
					    { "lost", 1, 0, 33 },
					    { "help", 0, 0, 'h' },
					    { 0, 0, 0, 0 } };
	struct goodsim_params p;
	const char *trace_path = NULL, *synth = NULL, *plot = NULL;
	bool run[GOODSIM_NPOLICIES] = { true, true, true, true, true };
	bool nodes_given = false, od_given = false, max_given = false;
	bool schedule = false;
	struct series ser[GOODSIM_NPOLICIES] = { 0 };
	struct goodsim_result res[GOODSIM_NPOLICIES];
	double period = 0, d;
	char name[256];
	struct trace *t = NULL;
	elastic_error_t err;
	int c;

	goodsim_defaults(&p);
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		const char *o = lo[0].name;

		for (size_t i = 0; lo[i].name; i++)
			if (lo[i].val == c)
				o = lo[i].name;
		switch (c) {
		case 't':
			trace_path = optarg;
			continue;
		case 'y':
			synth = optarg;
			continue;
		case 23:
			plot = optarg;
			continue;
		case 22: {
			char buf[256], *save = NULL;

			snprintf(buf, sizeof(buf), "%s", optarg);
			memset(run, 0, sizeof(run));
			for (char *w = strtok_r(buf, ",", &save); w;
			     w = strtok_r(NULL, ",", &save)) {
				int k;

				for (k = 0; k < GOODSIM_NPOLICIES; k++)
					if (!strcmp(w, goodsim_policy_name(k)))
						break;
				if (k == GOODSIM_NPOLICIES)
					return fail(
					    "--policies", w,
					    "not slurm-elastic, in-place, "
					    "native-requeue, "
					    "restart-at-size or oracle");
				run[k] = true;
			}
			continue;
		}
		case 25:
			if (!strcmp(optarg, "never"))
				p.ondemand = ELASTIC_ONDEMAND_NEVER;
			else if (!strcmp(optarg, "below-min"))
				p.ondemand = ELASTIC_ONDEMAND_BELOW_MIN;
			else if (!strcmp(optarg, "always"))
				p.ondemand = ELASTIC_ONDEMAND_ALWAYS;
			else
				return fail("--ondemand-fallback", optarg,
					    "not never, below-min or always");
			continue;
		case 27:
			p.exact_passes = true;
			continue;
		case 32:
			if (goodsim_set_curve(&p, optarg, &err) < 0) {
				fprintf(stderr, "bench_goodput: --%s\n",
					err.text);
				return 2;
			}
			continue;
		case 28:
			schedule = true;
			continue;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case '?':
			fputs(usage, stderr);
			return 2;
		}
		if (num(o, optarg, 0, 1e12, &d) < 0)
			return 2;
		switch (c) {
		case 'n':
			p.spot_nodes = (unsigned)d, nodes_given = true;
			break;
		case 'o':
			p.ondemand_nodes = (unsigned)d, od_given = true;
			break;
		case 'g':
			p.groups = (unsigned)d;
			break;
		case 1:
			p.min = (unsigned)d;
			break;
		case 2:
			p.max = (unsigned)d, max_given = true;
			break;
		case 3:
			p.step = (unsigned)d;
			break;
		case 4:
			p.speed = d;
			break;
		case 5:
			p.reclaim_ratio = d;
			break;
		case 6:
			p.seed = (uint64_t)d;
			break;
		case 7:
			p.grace_s = (unsigned)d;
			break;
		case 8:
			p.scale_delay_s = (unsigned)d;
			break;
		case 9:
			p.fault_timeout_s = (unsigned)d;
			break;
		case 10:
			p.rate = d;
			break;
		case 11:
			p.ckpt_s = d;
			break;
		case 12:
			p.ckpt_every_s = d;
			break;
		case 13:
			p.restart_s = d;
			break;
		case 29:
			p.stop_s = d;
			break;
		case 14:
			p.resize_s = d;
			break;
		case 30:
			p.inplace_s = d;
			break;
		case 31:
			p.join_s = d;
			break;
		case 15:
			p.start_s = d;
			break;
		case 16:
			p.detect_s = d;
			break;
		case 33:
			p.lost_s = d;
			break;
		case 17:
			p.requeue_s = d;
			break;
		case 18:
			p.tick_ms = (unsigned)d;
			break;
		case 19:
			p.target_samples = d;
			break;
		case 20:
			p.spot_price = d;
			break;
		case 21:
			p.ondemand_price = d;
			break;
		case 24:
			period = d;
			break;
		case 26:
			p.queue_wait_s = d;
			break;
		}
	}
	if (optind < argc || !trace_path == !synth) {
		fputs(usage, stderr);
		return 2;
	}
	if (trace_path) {
		t = trace_load(trace_path, &err);
		snprintf(name, sizeof(name), "%s", trace_path);
	} else {
		char *text = synthetic(synth, p.seed, name, sizeof(name));

		if (!text)
			return fail("--synthetic", synth,
				    "not NODES:HOURS:MTBF_MIN:MTTR_MIN"
				    "[:BURST_MIN:BURST_SIZE] (NODES 1..65536, "
				    "HOURS 0..720, times > 0)");
		t = trace_parse(text, "synthetic", &err);
		free(text);
	}
	if (!t) {
		fprintf(stderr, "bench_goodput: %s\n", err.text);
		return 1;
	}
	/* The trace's own scale, and a group that can use all of it. */
	if (!nodes_given)
		p.spot_nodes =
		    trace_available_max(t) ? trace_available_max(t) : 1;
	if (!max_given)
		p.max = p.spot_nodes + p.min;
	if (!od_given)
		p.ondemand_nodes = p.groups * p.min;
	if (goodsim_check(&p, &err) < 0) {
		fprintf(stderr, "bench_goodput: %s\n", err.text);
		trace_destroy(t);
		return 2;
	}
	if (schedule) {
		/* For a replay: "MS add|reclaim|crash NODE", nodes from 1,
		 * after a line "# duration MS" */
		printf("# duration %" PRIu64 "\n",
		       trace_at_speed_ms(trace_duration_ms(t), p.speed));
		c = goodsim_schedule(&p, t, print_fault, NULL, &err);
		if (c < 0)
			fprintf(stderr, "bench_goodput: %s\n", err.text);
		trace_destroy(t);
		return c < 0 ? 1 : 0;
	}
	if (plot && !period)
		period = (double)trace_duration_ms(t) / p.speed / 1000 / 2000;
	if (plot && period * 1000 < p.tick_ms)
		period = p.tick_ms / 1000.0;

	printf("bench_goodput: %s: %zu events, %zu nodes (available %u..%u, "
	       "mean %.1f), %.2f h\n",
	       name, trace_event_count(t), trace_node_count(t),
	       trace_available_min(t), trace_available_max(t),
	       trace_available_mean(t), (double)trace_duration_ms(t) / 3.6e6);
	printf("  on %u spot nodes%s and %u on-demand; speed %g (%.2f h "
	       "simulated); removes: %.0f%% reclaims (grace %u s), the rest "
	       "crashes (seed %" PRIu64 ")\n",
	       p.spot_nodes,
	       trace_available_max(t) > p.spot_nodes ? " (scaled)" : "",
	       p.ondemand_nodes, p.speed,
	       (double)trace_duration_ms(t) / p.speed / 3.6e6,
	       p.reclaim_ratio * 100, p.grace_s, p.seed);
	printf("  %u group%s of min=%u max=%u step=%u, scale delay %u s, "
	       "fault timeout %u s; ",
	       p.groups, p.groups == 1 ? "" : "s", p.min, p.max, p.step,
	       p.scale_delay_s, p.fault_timeout_s);
	if (p.ncurve)
		printf("client as measured: %.0f samples/s at 1 node, %.0f at "
		       "%u\n",
		       goodsim_world_rate(&p, 1),
		       goodsim_world_rate(&p, p.ncurve), p.ncurve);
	else
		printf("client %.0f samples/s per node, linear\n", p.rate);
	printf("  costs: checkpoint %.1f s every %.0f s, restart %.1f s (the "
	       "world picked after %.1f s), our "
	       "resize %.1f s, in place %.1f s (joiners ready %.1f s), job "
	       "start %.1f s, crash seen %.0f s (by our launchers %.1f s), "
	       "requeue %.0f s, queue wait %.0f s; prices $%.2f spot, $%.2f "
	       "on-demand per node-hour\n",
	       p.ckpt_s, p.ckpt_every_s, p.restart_s, p.stop_s, p.resize_s,
	       p.inplace_s, p.join_s, p.start_s, p.detect_s, p.lost_s,
	       p.requeue_s,
	       p.queue_wait_s, p.spot_price, p.ondemand_price);
	for (int k = 0; k < GOODSIM_NPOLICIES; k++) {
		double t0 = now_s();

		if (!run[k])
			continue;
		if (goodsim_run(&p, t, k, plot ? collect : NULL, &ser[k],
				period, &res[k], &err) < 0) {
			fprintf(stderr, "bench_goodput: %s: %s\n",
				goodsim_policy_name(k), err.text);
			trace_destroy(t);
			return 1;
		}
		printf("  %s: simulated in %.2f s (%" PRIu64
		       " reconcile passes)\n",
		       goodsim_policy_name(k), now_s() - t0, res[k].passes);
	}
	if (!run[GOODSIM_ORACLE] &&
	    goodsim_run(&p, t, GOODSIM_ORACLE, NULL, NULL, 0,
			&res[GOODSIM_ORACLE], &err) < 0) {
		fprintf(stderr, "bench_goodput: oracle: %s\n", err.text);
		trace_destroy(t);
		return 1;
	}
	printf("\n%-16s %12s %9s %12s %10s %10s %12s %10s %12s %8s\n", "policy",
	       "samples/s", "% oracle", "to target s", "spot n-h", "od n-h",
	       "repeated", "cost $", "$/M samples", "resizes");
	for (int k = 0; k < GOODSIM_NPOLICIES; k++) {
		const struct goodsim_result *r = &res[k];
		char ttt[32];

		if (!run[k])
			continue;
		if (r->time_to_target_s < 0)
			snprintf(ttt, sizeof(ttt), "never");
		else
			snprintf(ttt, sizeof(ttt), "%.0f", r->time_to_target_s);
		printf("%-16s %12.1f %9.1f %12s %10.2f %10.2f %12.0f %10.2f "
		       "%12.2f %8u\n",
		       goodsim_policy_name(k), r->goodput,
		       res[GOODSIM_ORACLE].goodput > 0
			   ? 100 * r->goodput / res[GOODSIM_ORACLE].goodput
			   : 0,
		       ttt, r->spot_node_s / 3600, r->ondemand_node_s / 3600,
		       r->repeated, r->cost,
		       r->samples > 0 ? r->cost / (r->samples / 1e6) : 0,
		       r->resizes);
	}
	printf("(target: %.0f samples, half the oracle's unless --target)\n",
	       p.target_samples ? p.target_samples
				: res[GOODSIM_ORACLE].samples / 2);
	if (plot)
		write_plot(plot, name, ser, run);
	for (int k = 0; k < GOODSIM_NPOLICIES; k++)
		free(ser[k].v);
	trace_destroy(t);
	return 0;
}
