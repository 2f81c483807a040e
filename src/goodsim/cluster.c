/*
 * The cluster simulator's run (cluster.h): its parameters, the workload's
 * arrivals and the events in time order (the model of Slurm is
 * cluster_slurm.c, the groups and elasticd cluster_elastic.c; what they
 * share is cluster_impl.h), and the figures of the run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cluster_impl.h"

void cluster_params_defaults(struct cluster_params *p, unsigned nodes)
{
	struct elastic_policy pol;

	policy_defaults(&pol);
	memset(p, 0, sizeof(*p));
	p->nodes = nodes;
	p->elastic = true;
	p->grace_s = 120;
	p->leave_s = 10;
	p->pass_ms = 60000;
	p->idle_pass_ms = 120000;
	p->bf_interval_s = 30;
	p->scale_delay_s = 10;
	p->fault_timeout_s = 60;
	p->unit_nice = pol.unit_nice;
	p->seed = 1;
}

int cluster_params_check(const struct cluster_params *p, elastic_error_t *err)
{
	if (p->nodes < 1 || p->nodes > WORKLOAD_NODES_MAX)
		return elastic_errorf(err, "nodes %u: not in 1..%u", p->nodes,
				      WORKLOAD_NODES_MAX);
	if (p->grace_s < 1 || p->grace_s > 3600)
		return elastic_errorf(err, "grace %u: not in 1..3600 s",
				      p->grace_s);
	if (!(p->leave_s >= 0 && p->leave_s <= 3600))
		return elastic_errorf(err, "leave %g: not in 0..3600 s",
				      p->leave_s);
	if (p->pass_ms < 100 || p->pass_ms > 600000 ||
	    p->idle_pass_ms < p->pass_ms || p->idle_pass_ms > 3600000)
		return elastic_errorf(err,
				      "passes every %u ms, idle %u ms: not "
				      "100..600000 and pass..3600000",
				      p->pass_ms, p->idle_pass_ms);
	if (p->bf_interval_s < 1 || p->bf_interval_s > 3600)
		return elastic_errorf(err, "backfill interval %u: not 1..3600",
				      p->bf_interval_s);
	if (p->start_jitter_ms > 3600000)
		return elastic_errorf(err, "start jitter %u ms: not 0..3600000",
				      p->start_jitter_ms);
	if (p->scale_delay_s > 3600 || p->fault_timeout_s > 3600)
		return elastic_errorf(err,
				      "scale delay %u, fault timeout %u: "
				      "not 0..3600 s",
				      p->scale_delay_s, p->fault_timeout_s);
	return 0;
}

void cluster_result_free(struct cluster_result *r)
{
	free(r->job);
	free(r->group);
	free(r->timeline);
	memset(r, 0, sizeof(*r));
}

/* A run's own state beside the simulation's. */
struct cl_run {
	struct csim s;
	int32_t *line_job; /* workload line -> its job */
	size_t next;	   /* the next line to submit */
	size_t ngroup;	   /* groups submitted */
	int64_t prev;	   /* accounted to then */
};

/* The nodes held to t (from the first submit on). */
static void cl_account(struct cl_run *x, struct cluster_result *r, int64_t t)
{
	double dt = (double)(t - x->prev) / 1000;
	double held = x->s.sl.nodes - x->s.sl.free;

	if (dt <= 0)
		return;
	r->held_node_s += held * dt;
	if (x->s.el.nbelow) {
		r->below_s += dt;
		r->below_held_node_s += held * dt;
	}
	x->prev = t;
}

/* The workload's lines submitted at now. */
static int cl_arrivals(struct cl_run *x)
{
	struct csim *s = &x->s;
	const struct workload *w = s->w;

	while (x->next < w->n && w->job[x->next].submit_ms <= s->now) {
		const struct workload_job *wj = &w->job[x->next];
		int32_t ji;

		if (wj->kind == WORKLOAD_ELASTIC) {
			if (ce_submit_base(s, x->ngroup) < 0)
				return -1;
			ji = s->el.group[x->ngroup++].base;
		} else {
			ji =
			    cs_submit(s,
				      wj->kind == WORKLOAD_RIGID ? CL_RIGID
								 : CL_PREEMPTOR,
				      -1, (int32_t)x->next, wj->nodes,
				      (int64_t)wj->runtime_s * 1000,
				      (int64_t)wj->limit_s * 1000, 0);
			if (ji < 0)
				return -1;
		}
		x->line_job[x->next++] = ji;
	}
	return 0;
}

/* The next thing at its time: arrivals first, then one event. */
static int cl_step(struct cl_run *x, struct cluster_result *r)
{
	struct csim *s = &x->s;
	int64_t ta =
	    x->next < s->w->n ? s->w->job[x->next].submit_ms : CL_FOREVER;
	int64_t te = cs_next_time(s);
	struct cl_ev ev;

	cl_account(x, r, ta < te ? ta : te);
	if (ta <= te) {
		s->now = ta;
		return cl_arrivals(x);
	}
	cs_pop(s, &ev);
	s->now = ev.t;
	if (ev.type == CL_EV_PASS)
		return ce_pass(s, &ev);
	return cs_handle(s, &ev);
}

/* The workload jobs' times and the run's counts into r. */
static void cl_figures(struct cl_run *x, struct cluster_result *r)
{
	const struct cslurm *sl = &x->s.sl;

	for (size_t i = 0; i < r->njobs; i++) {
		const struct cl_job *j = &sl->job[x->line_job[i]];

		r->job[i] = (struct cluster_times){ j->submit_ms, j->start_ms,
						    j->end_ms };
	}
	r->first_ms = r->njobs ? x->s.w->job[0].submit_ms : 0;
	r->last_ms = x->s.now;
	r->unit_starts = sl->unit_starts;
	r->unit_preemptions = sl->unit_preemptions;
	r->sched_passes = sl->passes;
	r->backfill_passes = sl->backfills;
	ce_figures(&x->s, r);
	ct_take(&x->s, r);
}

static int cl_loop(struct cl_run *x, struct cluster_result *r)
{
	struct csim *s = &x->s;

	if (cs_event(s, (int64_t)s->p->bf_interval_s * 1000, CL_EV_BACKFILL,
		     -1) < 0)
		return -1;
	x->prev = s->w->n ? s->w->job[0].submit_ms : 0;
	while (s->sl.wl_done < s->w->n) {
		int64_t next;

		if (cl_step(x, r) < 0)
			return -1;
		if (s->sl.oom || s->tl.oom)
			return elastic_errorf(s->err, "out of memory");
		next = x->next < s->w->n ? s->w->job[x->next].submit_ms
					 : CL_FOREVER;
		if (cs_next_time(s) < next)
			next = cs_next_time(s);
		/* the main scheduler once all of this moment is done */
		if (next > s->now)
			cs_schedule_if_dirty(s);
		if (next == CL_FOREVER && s->sl.wl_done < s->w->n)
			return elastic_errorf(s->err,
					      "%zu jobs never end (larger "
					      "than the cluster?)",
					      s->w->n - s->sl.wl_done);
	}
	return 0;
}

int cluster_run(const struct cluster_params *p, const struct workload *w,
		struct cluster_result *ret, elastic_error_t *err)
{
	struct cl_run x = { .s = { .p = p, .w = w, .err = err } };
	struct cluster_result r = { 0 };
	int rc = -1;

	if (cluster_params_check(p, err) < 0)
		return -1;
	x.line_job = calloc(w->n ? w->n : 1, sizeof(*x.line_job));
	r.njobs = w->n;
	r.job = calloc(w->n ? w->n : 1, sizeof(*r.job));
	if (!x.line_job || !r.job) {
		elastic_errorf(err, "out of memory (%zu jobs)", w->n);
		goto out;
	}
	if (cs_init(&x.s) < 0 || ce_init(&x.s) < 0)
		goto out;
	r.ngroups = x.s.el.ngroup;
	r.group = calloc(r.ngroups ? r.ngroups : 1, sizeof(*r.group));
	if (!r.group) {
		elastic_errorf(err, "out of memory (%zu groups)", r.ngroups);
		goto out;
	}
	if (cl_loop(&x, &r) < 0)
		goto out;
	cl_figures(&x, &r);
	*ret = r;
	r = (struct cluster_result){ 0 };
	rc = 0;
out:
	cluster_result_free(&r);
	ce_free(&x.s);
	cs_free(&x.s);
	ct_free(&x.s);
	free(x.line_job);
	return rc;
}
