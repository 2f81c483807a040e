/*
 * bench_goodput's command line (bench_goodput.h): the options into struct
 * args, the trace they name (a file, or a synthetic one), and the
 * parameters fitted to the trace and checked.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_goodput.h"

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
int goodput_args_parse(int argc, char **argv, struct args *a)
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
struct trace *goodput_args_trace(const struct args *a, char *name, size_t len,
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
int goodput_args_fit(struct args *a, const struct trace *t)
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
