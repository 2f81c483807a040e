/*
 * The goodput simulator (goodsim.h): its parameters and their checks, the
 * client's rate curve, a run (the trace's events at their times, then at
 * each tick Slurm's timers and scheduler and each group's policy, the
 * nodes held and the progress accounted), the oracle's integral, the
 * faults of a run for a replay, and synthetic traces.  The model of Slurm
 * is goodsim_slurm.c, the groups and the policies goodsim_policy.c; what
 * they share is goodsim_impl.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goodsim_impl.h"
#include "simrand.h"

const char *goodsim_policy_name(enum goodsim_policy p)
{
	static const char *const name[] = { "slurm-elastic", "in-place",
					    "native-requeue", "restart-at-size",
					    "oracle" };

	return p < GOODSIM_NPOLICIES ? name[p] : "?";
}

void goodsim_defaults(struct goodsim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->spot_nodes = 16;
	p->groups = 1;
	p->min = 2;
	p->max = 18;
	p->step = 1;
	p->ondemand_nodes = p->groups * p->min;
	p->grace_s = 30;
	p->scale_delay_s = 10;
	p->fault_timeout_s = 20;
	p->ondemand = ELASTIC_ONDEMAND_NEVER;
	p->speed = 1;
	p->reclaim_ratio = 1;
	p->seed = 1;
	p->tick_ms = 1000;
	p->rate = 100;
	p->ckpt_s = 2;
	p->ckpt_every_s = 600;
	p->ckpt_stall_s = -1;
	p->restart_s = 8;
	p->resize_s = 1.5;
	p->inplace_s = 0.4;
	p->join_s = 1.5;
	p->start_s = 1;
	p->detect_s = 10;
	/* Heartbeats at the default 5 s timeout: named lost 6 to 7 s after
	 * the crash (3.6 to 4 s at a 3 s timeout, t0122). */
	p->lost_s = 6.5;
	p->requeue_s = 120;
	/* AWS p3.2xlarge, us-east-1: on-demand $3.06/h, spot about $0.92/h */
	p->spot_price = 0.92;
	p->ondemand_price = 3.06;
}

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			return elastic_errorf(err, __VA_ARGS__);               \
	} while (0)

static bool finite_nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

int goodsim_check(const struct goodsim_params *p, elastic_error_t *err)
{
	CHECK(p->spot_nodes >= 1 && p->spot_nodes <= TRACE_NODES_MAX,
	      "spot nodes: %u: not 1..%u", p->spot_nodes, TRACE_NODES_MAX);
	CHECK((uint64_t)p->spot_nodes + p->ondemand_nodes <= GOODSIM_NODES_MAX,
	      "nodes: %u spot and %u on-demand: more than %u", p->spot_nodes,
	      p->ondemand_nodes, GOODSIM_NODES_MAX);
	CHECK(p->groups >= 1 && p->groups <= GOODSIM_GROUPS_MAX,
	      "groups: %u: not 1..%u", p->groups, GOODSIM_GROUPS_MAX);
	CHECK(p->min >= 1 && p->min <= p->max && p->max <= GROUP_MAX_SLOTS &&
		  p->step >= 1 && p->step <= p->max,
	      "min/max/step: %u/%u/%u: need 1 <= min <= max <= %u, 1 <= step "
	      "<= max",
	      p->min, p->max, p->step, GROUP_MAX_SLOTS);
	CHECK(p->nsizes <= GOODSIM_SIZES_MAX, "sizes: %u: more than %u",
	      p->nsizes, GOODSIM_SIZES_MAX);
	for (unsigned i = 0; i < p->nsizes; i++)
		CHECK(p->sizes[i] >= 1 && (!i || p->sizes[i] > p->sizes[i - 1]),
		      "sizes: %u: not increasing from 1", p->sizes[i]);
	CHECK(!p->nsizes ||
		  (p->min == p->sizes[0] && p->max == p->sizes[p->nsizes - 1]),
	      "sizes: min/max %u/%u: not the first and last sizes", p->min,
	      p->max);
	CHECK(p->spares <= GOODSIM_SPARES_MAX, "spares: %u: more than %u",
	      p->spares, GOODSIM_SPARES_MAX);
	CHECK(p->grace_s <= 86400 && p->scale_delay_s <= 86400 &&
		  p->fault_timeout_s <= 86400,
	      "grace, scale delay, fault timeout: at most 86400 s");
	CHECK(p->speed >= TRACE_SPEED_MIN && p->speed <= TRACE_SPEED_MAX,
	      "speed: %g: not %g..%g", p->speed, TRACE_SPEED_MIN,
	      TRACE_SPEED_MAX);
	CHECK(p->reclaim_ratio >= 0 && p->reclaim_ratio <= 1,
	      "reclaim ratio: %g: not 0..1", p->reclaim_ratio);
	CHECK(p->tick_ms >= 10 && p->tick_ms <= 60000,
	      "tick: %u ms: not 10..60000", p->tick_ms);
	CHECK(isfinite(p->rate) && p->rate > 0, "rate: %g: not > 0", p->rate);
	CHECK(p->ncurve <= GOODSIM_CURVE_MAX,
	      "rate-curve: %u points: more than %u", p->ncurve,
	      GOODSIM_CURVE_MAX);
	for (unsigned w = 1; w <= p->ncurve; w++)
		CHECK(isfinite(p->curve[w]) && p->curve[w] > 0,
		      "rate-curve: at %u nodes: %g: not > 0", w, p->curve[w]);
	CHECK(finite_nonneg(p->stop_s) && p->stop_s <= p->restart_s,
	      "stop: %g s: not 0..restart (%g s)", p->stop_s, p->restart_s);
	CHECK(finite_nonneg(p->ckpt_s) && finite_nonneg(p->restart_s) &&
		  finite_nonneg(p->resize_s) && finite_nonneg(p->start_s) &&
		  finite_nonneg(p->inplace_s) && finite_nonneg(p->join_s) &&
		  p->inplace_s <= 86400 && p->join_s <= 86400 &&
		  finite_nonneg(p->detect_s) && finite_nonneg(p->requeue_s) &&
		  p->ckpt_s <= 86400 && p->restart_s <= 86400 &&
		  p->resize_s <= 86400 && p->start_s <= 86400 &&
		  p->detect_s <= 86400 && p->requeue_s <= 86400 &&
		  finite_nonneg(p->lost_s) && p->lost_s <= 86400 &&
		  finite_nonneg(p->queue_wait_s) && p->queue_wait_s <= 86400 &&
		  finite_nonneg(p->unit_queue_wait_s) &&
		  p->unit_queue_wait_s <= 86400,
	      "costs: each 0..86400 s");
	CHECK(isfinite(p->ckpt_stall_s) && p->ckpt_stall_s <= p->ckpt_s,
	      "checkpoint stall: %g s: not up to the write (%g s)",
	      p->ckpt_stall_s, p->ckpt_s);
	CHECK(isfinite(p->ckpt_every_s) && p->ckpt_every_s >= 1 &&
		  p->ckpt_every_s <= 86400 * 7,
	      "checkpoint period: %g s: not 1..604800", p->ckpt_every_s);
	CHECK(finite_nonneg(p->target_samples), "target samples: not >= 0");
	CHECK(finite_nonneg(p->spot_price) && finite_nonneg(p->ondemand_price),
	      "prices: not >= 0");
	return 0;
}

/* ------------------------------------------------------------ client */

double goodsim_world_rate(const struct goodsim_params *p, unsigned w)
{
	if (!p->ncurve)
		return p->rate * w;
	if (w <= p->ncurve)
		return p->curve[w];
	return p->curve[p->ncurve] / p->ncurve * w;
}

int goodsim_set_curve(struct goodsim_params *p, const char *spec,
		      elastic_error_t *err)
{
	unsigned last = 0;
	const char *c = spec;

	p->ncurve = 0;
	p->curve[0] = 0;
	while (*c) {
		char *end;
		unsigned long w;
		double r;

		errno = 0;
		w = strtoul(c, &end, 10);
		if (errno || end == c || *end != ':' || w <= last ||
		    w > GOODSIM_CURVE_MAX || !isdigit((unsigned char)*c))
			return elastic_errorf(
			    err,
			    "rate-curve: '%.32s': not W:R with W %u..%u, "
			    "increasing",
			    c, last + 1, GOODSIM_CURVE_MAX);
		c = end + 1;
		r = strtod(c, &end);
		if (errno || end == c || !isfinite(r) || r <= 0 || r > 1e12 ||
		    (*end && *end != ','))
			return elastic_errorf(err,
					      "rate-curve: '%.32s': the rate "
					      "at %lu nodes: not a number > 0",
					      c, w);
		/* the points between: a straight line from the last */
		for (unsigned k = last + 1; k <= w; k++)
			p->curve[k] =
			    last ? p->curve[last] + (r - p->curve[last]) *
							(k - last) / (w - last)
				 : r * k / w;
		last = (unsigned)w;
		c = *end ? end + 1 : end;
		if (*end && !*c)
			return elastic_errorf(err, "rate-curve: a ',' at the "
						   "end");
	}
	if (!last)
		return elastic_errorf(err, "rate-curve: empty");
	p->ncurve = last;
	return 0;
}

int goodsim_set_sizes(struct goodsim_params *p, const char *spec,
		      elastic_error_t *err)
{
	unsigned v[GOODSIM_SIZES_MAX], n = 0;
	const char *c = spec;

	while (*c) {
		char *end;
		unsigned long w;

		errno = 0;
		w = strtoul(c, &end, 10);
		if (errno || end == c || !isdigit((unsigned char)*c) ||
		    (*end && *end != ',') || w < 1 || w > GROUP_MAX_SLOTS ||
		    (n && w <= v[n - 1]) || n == GOODSIM_SIZES_MAX)
			return elastic_errorf(
			    err,
			    "sizes: '%.32s': not S,S,... with S 1..%u, "
			    "increasing, at most %u",
			    c, GROUP_MAX_SLOTS, GOODSIM_SIZES_MAX);
		v[n++] = (unsigned)w;
		c = *end ? end + 1 : end;
		if (*end && !*c)
			return elastic_errorf(err, "sizes: a ',' at the end");
	}
	if (!n)
		return elastic_errorf(err, "sizes: empty");
	memcpy(p->sizes, v, n * sizeof(*v));
	p->nsizes = n;
	p->min = v[0];
	p->max = v[n - 1];
	return 0;
}

/* ------------------------------------------------------------- oracle */

/* Nodes the oracle trains on with a spot nodes present: spot first, then
 * on-demand, up to the groups' max. */
static void oracle_use(const struct goodsim_params *p, unsigned a, double *spot,
		       double *od)
{
	double cap = (double)p->groups * p->max;

	*spot = a < cap ? a : cap;
	*od = p->ondemand_nodes < cap - *spot ? p->ondemand_nodes : cap - *spot;
}

/* n nodes spread evenly over the groups (the most a concave curve
 * gives), each group's world at the client's rate. */
static double oracle_rate(const struct goodsim_params *p, double n)
{
	unsigned each = (unsigned)(n / p->groups),
		 more = (unsigned)n - each * p->groups;

	return more * goodsim_world_rate(p, each + 1) +
	       (p->groups - more) * goodsim_world_rate(p, each);
}

static void oracle_run(const struct goodsim_params *p, const struct trace *t,
		       double target, goodsim_sample_fn sample, void *arg,
		       uint64_t period, struct goodsim_result *r)
{
	uint64_t end = trace_at_speed_ms(trace_duration_ms(t), p->speed);
	uint64_t from = 0, next = 0;
	unsigned a = 0;
	size_t n = trace_event_count(t);

	r->seconds = (double)end / 1000;
	r->time_to_target_s = target <= 0 ? 0 : -1;
	for (size_t i = 0; i <= n; i++) {
		uint64_t to =
		    i < n ? trace_at_speed_ms(trace_event(t, i)->ms, p->speed)
			  : end;
		double spot, od, dt = (double)(to - from) / 1000, rate;

		oracle_use(p, a, &spot, &od);
		rate = oracle_rate(p, spot + od);
		for (; sample && (next < to || (i == n && next <= end));
		     next += period)
			sample(arg,
			       &(struct goodsim_point){
				   (double)next / 1000, a + p->ondemand_nodes,
				   spot + od,
				   r->samples +
				       rate * (double)(next - from) / 1000 });
		if (r->time_to_target_s < 0 && rate > 0 &&
		    r->samples + rate * dt >= target)
			r->time_to_target_s =
			    (double)from / 1000 + (target - r->samples) / rate;
		r->samples += rate * dt;
		r->spot_node_s += spot * dt;
		r->ondemand_node_s += od * dt;
		if (i < n)
			a = trace_event(t, i)->available;
		from = to;
	}
}

/* -------------------------------------------------------------- a run */

static int sim_init(struct sim *s, const struct goodsim_params *p,
		    const struct trace *t)
{
	s->trace = trace_map(t, p->spot_nodes, s->err);
	if (!s->trace)
		return -1;
	s->rng = p->seed;
	if (gs_cluster_init(s) < 0)
		return -1;
	return gs_groups_init(s);
}

static void sim_free(struct sim *s)
{
	gs_groups_free(s);
	gs_cluster_free(s);
	trace_destroy(s->trace);
}

/* The trace's events up to now, each at its own time. */
static void trace_step(struct sim *s, int64_t now)
{
	size_t n = trace_event_count(s->trace);

	for (; s->next_ev < n; s->next_ev++) {
		const struct trace_event *e = trace_event(s->trace, s->next_ev);
		int64_t at = (int64_t)trace_at_speed_ms(e->ms, s->p->speed);

		if (at > now || at >= s->end)
			break;
		s->now = at;
		if (e->add)
			gs_node_add(s, e->node);
		else
			gs_node_remove(s, e->node,
				       simrand_uniform(&s->rng) >=
					   s->p->reclaim_ratio);
	}
	s->now = now;
}

struct progress {
	double samples, training;
};

static struct progress progress_at(struct sim *s, int64_t t)
{
	struct progress pr = { 0, 0 };

	for (uint32_t i = 0; i < s->p->groups; i++) {
		struct gtrain *tr = &s->group[i].tr;

		gs_train_to(s, tr, t);
		pr.samples += tr->done;
		if (tr->state == T_TRAIN && tr->seg_ms <= t)
			pr.training += tr->world;
	}
	return pr;
}

int goodsim_run(const struct goodsim_params *p, const struct trace *t,
		enum goodsim_policy policy, goodsim_sample_fn sample, void *arg,
		double period_s, struct goodsim_result *ret,
		elastic_error_t *err)
{
	struct sim s = { .p = p, .policy = policy, .err = err };
	struct goodsim_result oracle = { 0 };
	int64_t end, tick = p->tick_ms, period, next_sample = 0;
	double target, last_samples = 0;
	int rc = -1;

	if (goodsim_check(p, err) < 0)
		return -1;
	if (policy >= GOODSIM_NPOLICIES)
		return elastic_errorf(err, "policy %d: unknown", (int)policy);
	if (sample && !(isfinite(period_s) && period_s >= 0.001))
		return elastic_errorf(err, "sample period: %g s: not >= 0.001",
				      period_s);
	if (sim_init(&s, p, t) < 0)
		goto out;
	period = sample ? ms_of(period_s) : 0;
	oracle_run(p, s.trace, 0, NULL, NULL, 0, &oracle);
	target = p->target_samples ? p->target_samples : oracle.samples / 2;
	s.res.policy = policy;
	if (policy == GOODSIM_ORACLE) {
		oracle_run(p, s.trace, target, sample, arg, (uint64_t)period,
			   &s.res);
		rc = 0;
		goto out;
	}
	s.res.time_to_target_s = -1;
	end = (int64_t)trace_at_speed_ms(trace_duration_ms(s.trace), p->speed);
	s.end = end;
	for (int64_t now = 0; now <= end; now += tick) {
		trace_step(&s, now);
		if (gs_job_timers(&s) < 0)
			goto out;
		gs_schedule(&s);
		if (gs_policy_step(&s) < 0)
			goto out;
		gs_schedule(&s); /* what the pass submitted, at once */
		s.res.spot_node_s += (double)s.held[0] * (double)tick / 1000;
		s.res.ondemand_node_s +=
		    (double)s.held[1] * (double)tick / 1000;
		s.res.spare_node_s +=
		    (double)s.spare_held * (double)tick / 1000;
		if (s.res.time_to_target_s < 0 ||
		    (period && now >= next_sample)) {
			struct progress pr = progress_at(&s, now);

			if (s.res.time_to_target_s < 0 &&
			    pr.samples >= target) {
				double rate =
				    (pr.samples - last_samples) / (double)tick;

				s.res.time_to_target_s =
				    (double)now / 1000 -
				    (rate > 0
					 ? (pr.samples - target) / rate / 1000
					 : 0);
			}
			last_samples = pr.samples;
			if (period && now >= next_sample) {
				sample(arg,
				       &(struct goodsim_point){
					   (double)now / 1000,
					   trace_available_at(
					       s.trace, (uint64_t)((double)now *
								   p->speed)) +
					       p->ondemand_nodes,
					   pr.training, pr.samples });
				next_sample += period;
			}
		}
	}
	s.res.seconds = (double)end / 1000;
	s.res.samples = progress_at(&s, end).samples;
	rc = 0;
out:
	if (rc == 0) {
		s.res.goodput =
		    s.res.seconds > 0 ? s.res.samples / s.res.seconds : 0;
		s.res.cost = s.res.spot_node_s / 3600 * p->spot_price +
			     s.res.ondemand_node_s / 3600 * p->ondemand_price;
		*ret = s.res;
	}
	sim_free(&s);
	return rc;
}

int goodsim_schedule(const struct goodsim_params *p, const struct trace *t,
		     goodsim_fault_fn fn, void *arg, elastic_error_t *err)
{
	struct trace *m;
	uint64_t rng = p->seed, end;

	if (goodsim_check(p, err) < 0)
		return -1;
	m = trace_map(t, p->spot_nodes, err);
	if (!m)
		return -1;
	end = trace_at_speed_ms(trace_duration_ms(m), p->speed);
	for (size_t i = 0; i < trace_event_count(m); i++) {
		const struct trace_event *e = trace_event(m, i);
		uint64_t at = trace_at_speed_ms(e->ms, p->speed);

		if (at >= end)
			break;
		fn(arg, at, e->node,
		   e->add ? GOODSIM_ADD
		   : simrand_uniform(&rng) >= p->reclaim_ratio
		       ? GOODSIM_CRASH
		       : GOODSIM_RECLAIM);
	}
	trace_destroy(m);
	return 0;
}

/* ---------------------------------------------------------- synthetic */

struct down {
	uint32_t node;
	uint64_t from, to; /* ms */
};

static int down_cmp(const void *a, const void *b)
{
	const struct down *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->from > y->from) - (x->from < y->from);
}

struct sev {
	uint64_t ms;
	uint32_t node;
	bool add;
};

static int sev_cmp(const void *a, const void *b)
{
	const struct sev *x = a, *y = b;

	if (x->ms != y->ms)
		return x->ms < y->ms ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

static uint64_t expo_ms(uint64_t *rng, double mean_s)
{
	double v = -mean_s * log(1 - simrand_uniform(rng)) * 1000;

	return v < 1 ? 1 : v > 1e12 ? (uint64_t)1e12 : (uint64_t)v;
}

static int downs_add(struct down **v, size_t *n, size_t *cap, uint32_t node,
		     uint64_t from, uint64_t to)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		struct down *w = realloc(*v, c * sizeof(*w));

		if (!w)
			return -1;
		*v = w;
		*cap = c;
	}
	(*v)[(*n)++] = (struct down){ node, from, to };
	return 0;
}

char *goodsim_synthetic(unsigned nodes, double hours, double mtbf_s,
			double mttr_s, double burst_every_s,
			unsigned burst_size, uint64_t seed)
{
	uint64_t horizon = (uint64_t)(hours * 3.6e6), rng = seed;
	struct down *d = NULL;
	struct sev *ev = NULL;
	size_t nd = 0, capd = 0, nev = 0, len = 0;
	char *text = NULL;
	uint32_t last = 0; /* a node, and whether it is down at the end */
	bool last_down = false;

	if (!nodes || nodes > TRACE_NODES_MAX || !(hours > 0) ||
	    !(mtbf_s > 0) || !(mttr_s > 0))
		return NULL;
	for (uint32_t n = 0; n < nodes; n++)
		for (uint64_t t = expo_ms(&rng, mtbf_s); t < horizon;) {
			uint64_t back = t + expo_ms(&rng, mttr_s);

			if (downs_add(&d, &nd, &capd, n, t, back) < 0)
				goto fail;
			t = back + expo_ms(&rng, mtbf_s);
		}
	if (burst_every_s > 0 && burst_size)
		for (uint64_t t = expo_ms(&rng, burst_every_s); t < horizon;
		     t += expo_ms(&rng, burst_every_s)) {
			uint64_t back = t + expo_ms(&rng, mttr_s);

			for (unsigned k = 0; k < burst_size; k++)
				if (downs_add(
					&d, &nd, &capd,
					(uint32_t)(simrand_next(&rng) % nodes),
					t, back) < 0)
					goto fail;
		}
	qsort(d, nd, sizeof(*d), down_cmp);
	ev = malloc((nodes + 2 * nd) * sizeof(*ev));
	if (!ev)
		goto fail;
	for (uint32_t n = 0; n < nodes; n++)
		ev[nev++] = (struct sev){ 0, n, true };
	for (size_t i = 0; i < nd;) {
		/* one node's intervals, overlapping ones merged */
		uint32_t node = d[i].node;
		uint64_t from = d[i].from, to = d[i].to;

		for (i++; i < nd && d[i].node == node && d[i].from <= to; i++)
			if (d[i].to > to)
				to = d[i].to;
		ev[nev++] = (struct sev){ from, node, false };
		if (to < horizon)
			ev[nev++] = (struct sev){ to, node, true };
		last = node;
		last_down = to >= horizon;
	}
	qsort(ev, nev, sizeof(*ev), sev_cmp);
	text = malloc((nev + 2) * 40 + 1);
	if (!text)
		goto fail;
	for (size_t i = 0; i < nev; i++)
		len += (size_t)sprintf(text + len, "%" PRIu64 ",%s,n%u\n",
				       ev[i].ms, ev[i].add ? "add" : "remove",
				       ev[i].node);
	/* The trace lasts to the horizon: a node goes and comes back (or
	 * comes and goes) at its very end. */
	if (ev[nev - 1].ms < horizon - 1)
		sprintf(text + len, "%" PRIu64 ",%s,n%u\n%" PRIu64 ",%s,n%u\n",
			horizon - 1, last_down ? "add" : "remove", last,
			horizon, last_down ? "remove" : "add", last);
	free(d);
	free(ev);
	return text;
fail:
	free(d);
	free(ev);
	free(text);
	return NULL;
}
