/*
 * bench_goodput: the goodput simulator's command (goodsim.h,
 * bench_goodput(1)).  Runs a trace file, or a synthetic trace, under each
 * policy and prints one table: goodput and its share of the oracle's,
 * time to a fixed amount of training, node-hours held, samples done
 * again, cost; optionally the series for a plot.  Figures, not verdicts.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_goodput.h"

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
		    run_one(&a->sp, t, k, goodput_report_row_name(a, k), NULL,
			    0, &spres[k]))
			return 1;
	if (!a->run[GOODSIM_ORACLE] &&
	    goodsim_run(&a->p, t, GOODSIM_ORACLE, NULL, NULL, 0,
			&res[GOODSIM_ORACLE], &err) < 0) {
		fprintf(stderr, "bench_goodput: oracle: %s\n", err.text);
		return 1;
	}
	return 0;
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
	goodput_report_setup(name, t, a);
	rc = run_policies(a, t, period, ser, res, spres);
	if (rc == 0) {
		goodput_report_table(a, res, spres);
		if (a->plot)
			goodput_report_plot(a->plot, name, ser, a->run);
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
	rc = goodput_args_parse(argc, argv, &a);
	if (rc >= 0)
		return rc;
	t = goodput_args_trace(&a, name, sizeof(name), &rc);
	if (!t)
		return rc;
	rc = goodput_args_fit(&a, t);
	if (rc == 0)
		rc = a.schedule ? goodput_report_schedule(&a.p, t)
				: simulate(&a, t, name);
	trace_destroy(t);
	return rc;
}
