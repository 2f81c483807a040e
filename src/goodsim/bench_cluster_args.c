/*
 * bench_cluster's command line (bench_cluster.h): the generator's and the
 * model's settings, the workload file to read or write, what to print.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cluster.h"

static const char usage[] =
    "usage: bench_cluster [--nodes N] [--hours H] [--load X] [--seed S]\n"
    "         [--groups G] [--equal G] [--group-min N] [--group-max N]\n"
    "         [--preempt-share X] [--workload FILE] [--write-workload "
    "FILE]\n"
    "         [--grace S] [--leave S] [--pass-interval S] [--idle-pass S]\n"
    "         [--backfill-interval S] [--scale-delay S] [--unit-nice N]\n"
    "         [--start-jitter S] [--repeat N]\n"
    "         [--run with|without|both] [--json] [--timeline] [--check]\n"
    "         [--max-cpu S]\n";

enum {
	O_NODES = 1,
	O_HOURS,
	O_LOAD,
	O_SEED,
	O_GROUPS,
	O_EQUAL,
	O_GMIN,
	O_GMAX,
	O_PSHARE,
	O_WORKLOAD,
	O_WRITE,
	O_GRACE,
	O_LEAVE,
	O_PASS,
	O_IDLE,
	O_BF,
	O_SCALE,
	O_NICE,
	O_RUN,
	O_JSON,
	O_CHECK,
	O_CPU,
	O_TIMELINE,
	O_JITTER,
	O_REPEAT,
};

static const struct option longopts[] = {
	{ "nodes", required_argument, NULL, O_NODES },
	{ "hours", required_argument, NULL, O_HOURS },
	{ "load", required_argument, NULL, O_LOAD },
	{ "seed", required_argument, NULL, O_SEED },
	{ "groups", required_argument, NULL, O_GROUPS },
	{ "equal", required_argument, NULL, O_EQUAL },
	{ "group-min", required_argument, NULL, O_GMIN },
	{ "group-max", required_argument, NULL, O_GMAX },
	{ "preempt-share", required_argument, NULL, O_PSHARE },
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "write-workload", required_argument, NULL, O_WRITE },
	{ "grace", required_argument, NULL, O_GRACE },
	{ "leave", required_argument, NULL, O_LEAVE },
	{ "pass-interval", required_argument, NULL, O_PASS },
	{ "idle-pass", required_argument, NULL, O_IDLE },
	{ "backfill-interval", required_argument, NULL, O_BF },
	{ "scale-delay", required_argument, NULL, O_SCALE },
	{ "unit-nice", required_argument, NULL, O_NICE },
	{ "run", required_argument, NULL, O_RUN },
	{ "json", no_argument, NULL, O_JSON },
	{ "check", no_argument, NULL, O_CHECK },
	{ "max-cpu", required_argument, NULL, O_CPU },
	{ "timeline", no_argument, NULL, O_TIMELINE },
	{ "start-jitter", required_argument, NULL, O_JITTER },
	{ "repeat", required_argument, NULL, O_REPEAT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *bc_opt_name(int c)
{
	for (size_t i = 0; longopts[i].name; i++)
		if (longopts[i].val == c)
			return longopts[i].name;
	return "?";
}

/* optarg as a number in lo..hi: 0, or -1 with the error printed. */
static int bc_num(int c, double lo, double hi, double *ret)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(optarg, &end);
	if (errno || end == optarg || *end || !(d >= lo && d <= hi)) {
		fprintf(stderr,
			"bench_cluster: --%s=%s: not a number in %g..%g\n",
			bc_opt_name(c), optarg, lo, hi);
		return -1;
	}
	*ret = d;
	return 0;
}

/* --run: 0, or -1 with the error printed. */
static int bc_runs(const char *v, int *ret)
{
	if (!strcmp(v, "with"))
		*ret = BC_WITH;
	else if (!strcmp(v, "without"))
		*ret = BC_WITHOUT;
	else if (!strcmp(v, "both"))
		*ret = BC_WITH | BC_WITHOUT;
	else {
		fprintf(stderr,
			"bench_cluster: --run=%s: not with, without or both\n",
			v);
		return -1;
	}
	return 0;
}

/* The workload generator's options; false when c is none of them. */
static bool bc_set_gen(struct bc_args *a, int c, double d)
{
	struct workload_gen *g = &a->gen;

	switch (c) {
	case O_HOURS:
		g->hours = d;
		break;
	case O_LOAD:
		g->load = d;
		break;
	case O_SEED:
		g->seed = (uint64_t)d;
		break;
	case O_GROUPS:
		g->groups = (unsigned)d;
		break;
	case O_EQUAL:
		g->equal_groups = (unsigned)d;
		break;
	case O_GMIN:
		g->equal_min = (unsigned)d;
		break;
	case O_GMAX:
		g->group_max = (unsigned)d;
		break;
	case O_PSHARE:
		g->preempt_share = d;
		break;
	default:
		return false;
	}
	a->gen_given |= 1u << c;
	return true;
}

/* The generator's settings not given: the defaults for the cluster's
 * size (the equal groups and their users from the groups given). */
static void bc_fill_gen(struct bc_args *a)
{
	struct workload_gen d, *g = &a->gen;
	unsigned given = a->gen_given;

	workload_gen_defaults(&d, a->params.nodes);
	if (given & (1u << O_GROUPS)) {
		d.groups = g->groups;
		d.equal_groups = g->groups * 3 / 4;
		d.group_users = g->groups / 4 ? g->groups / 4 : 1;
	}
#define BC_KEEP(opt, field)                                                    \
	if (given & (1u << (opt)))                                             \
		d.field = g->field;
	BC_KEEP(O_HOURS, hours)
	BC_KEEP(O_LOAD, load)
	BC_KEEP(O_SEED, seed)
	BC_KEEP(O_EQUAL, equal_groups)
	BC_KEEP(O_GMIN, equal_min)
	BC_KEEP(O_GMAX, group_max)
	BC_KEEP(O_PSHARE, preempt_share)
#undef BC_KEEP
	*g = d;
}

/* The model's options. */
static void bc_set_model(struct cluster_params *p, int c, double d)
{
	switch (c) {
	case O_GRACE:
		p->grace_s = (unsigned)d;
		break;
	case O_LEAVE:
		p->leave_s = d;
		break;
	case O_PASS:
		p->pass_ms = (unsigned)(d * 1000);
		break;
	case O_IDLE:
		p->idle_pass_ms = (unsigned)(d * 1000);
		break;
	case O_BF:
		p->bf_interval_s = (unsigned)d;
		break;
	case O_SCALE:
		p->scale_delay_s = (unsigned)d;
		break;
	case O_NICE:
		p->unit_nice = (unsigned)d;
		break;
	case O_JITTER: /* past 3600 s: refused by cluster_params_check() */
		p->start_jitter_ms = d > 3600 ? 3600001 : (unsigned)(d * 1000);
		break;
	}
}

/* Options without a number: 0 when set, 2 when wrong, -1 when c is a
 * number's. */
static int bc_set_word(struct bc_args *a, int c)
{
	switch (c) {
	case O_WORKLOAD:
		a->in = optarg;
		return 0;
	case O_WRITE:
		a->out = optarg;
		return 0;
	case O_RUN:
		return bc_runs(optarg, &a->runs) < 0 ? 2 : 0;
	case O_JSON:
		a->json = true;
		return 0;
	case O_CHECK:
		a->check = true;
		return 0;
	case O_TIMELINE:
		a->params.timeline = true;
		return 0;
	}
	return -1;
}

/* One option: 0, or the exit status. */
static int bc_option(struct bc_args *a, int c)
{
	double d;
	int rc = bc_set_word(a, c);

	if (rc >= 0)
		return rc;
	if (bc_num(c, 0, 1e9, &d) < 0)
		return 2;
	if (c == O_NODES)
		a->params.nodes = (unsigned)d;
	else if (c == O_CPU)
		a->max_cpu = d;
	else if (c == O_REPEAT) {
		if (d < 1 || d > 10000 || d != (unsigned)d) {
			fprintf(stderr,
				"bench_cluster: --repeat=%s: not a whole "
				"number in 1..10000\n",
				optarg);
			return 2;
		}
		a->repeat = (unsigned)d;
	} else if (!bc_set_gen(a, c, d))
		bc_set_model(&a->params, c, d);
	return 0;
}

int bc_args_parse(int argc, char **argv, struct bc_args *a)
{
	elastic_error_t err;
	int c, rc;

	workload_gen_defaults(&a->gen, 1000);
	cluster_params_defaults(&a->params, 1000);
	a->runs = BC_WITH | BC_WITHOUT;
	a->repeat = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage, stdout);
			return 0;
		}
		if (c == '?') {
			fputs(usage, stderr);
			return 2;
		}
		rc = bc_option(a, c);
		if (rc)
			return rc;
	}
	if (optind < argc) {
		fputs(usage, stderr);
		return 2;
	}
	bc_fill_gen(a);
	if ((!a->in && workload_gen_check(&a->gen, &err) < 0) ||
	    cluster_params_check(&a->params, &err) < 0) {
		fprintf(stderr, "bench_cluster: %s\n", err.text);
		return 2;
	}
	return -1;
}
