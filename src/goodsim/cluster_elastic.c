/*
 * The cluster simulator's groups and elasticd (cluster_impl.h): each
 * elastic line of the workload is a group; with slurm-elastic, elasticd's
 * own decisions (one reconcile instance for all the groups, as the daemon
 * runs it) are passed over a snapshot of the groups' jobs built as
 * slurmio builds it, and their actions performed at once: units submitted
 * (their nice, time limit and size as the action says), jobs cancelled.
 * It alone writes struct celastic and the groups; the jobs are
 * cluster_slurm.c's.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_impl.h"
#include "common/options.h"
#include "common/unittag.h"

#define GONE_KEEP_MS 300000 /* Slurm's MinJobAge: ended jobs still seen */
#define FIRST_UID    20000

/* The group's node-seconds to now. */
static void ce_account(struct csim *s, struct cl_group *g)
{
	double dt = (double)(s->now - g->held_since);

	g->unit_node_ms += g->unit_held * dt;
	g->world_node_ms += g->world * dt;
	g->held_since = s->now;
}

static void ce_set_below(struct csim *s, struct cl_group *g)
{
	const struct cl_job *b = &s->sl.job[g->base];
	bool below = b->phase == PHASE_RUNNING && g->held < g->max;

	if (below != g->below)
		s->el.nbelow += below ? 1 : (unsigned)-1;
	g->below = below;
}

/* A pass due at t, on the grid of pass_ms, after the last one. */
static void ce_wake(struct csim *s, int64_t t)
{
	struct celastic *el = &s->el;
	int64_t grid = s->p->pass_ms;

	if (!s->p->elastic)
		return;
	if (t < el->last_pass_ms + grid)
		t = el->last_pass_ms + grid;
	t = (t + grid - 1) / grid * grid;
	if (t == el->next_pass_ms || t == el->last_push_ms)
		return;
	if (t < el->next_pass_ms)
		el->next_pass_ms = t;
	el->last_push_ms = t;
	cs_event(s, t, CL_EV_PASS, 0);
}

void ce_job_moved(struct csim *s, struct cl_job *j, bool started, bool ended)
{
	struct cl_group *g = &s->el.group[j->group];
	bool unit = j->role == CL_UNIT;

	ce_account(s, g);
	if (started) {
		g->held += j->nnodes;
		g->unit_held += unit ? j->nnodes : 0;
		g->unit_starts += unit;
		if (unit)
			ce_wake(s, s->now +
				       (int64_t)s->p->scale_delay_s * 1000 + 1);
	} else if (ended && j->start_ms >= 0) {
		g->held -= j->nnodes;
		g->unit_held -= unit ? j->nnodes : 0;
	} else if (!ended && j->preempted && !j->steps_gone)
		g->unit_preemptions++;
	if (!s->p->elastic && g->world != g->held) {
		g->world = g->held;
		ct_world(s, (size_t)j->group, g->world);
	}
	ce_set_below(s, g);
	ce_wake(s, s->now);
}

/* The group's options as a base's tag carries them, parsed as slurmio
 * parses it. */
static int ce_opts(struct csim *s, struct cl_group *g)
{
	const struct cluster_params *p = s->p;
	struct elastic_opts o = { 0 };

	o.min = g->min;
	o.max = g->max;
	o.step = 1;
	o.grace = p->grace_s;
	o.scale_delay = p->scale_delay_s;
	o.fault_timeout = p->fault_timeout_s;
	o.signal = SIGURG;
	o.keep = 3;
	strcpy(o.checkpoint_dir, "%h/elastic-checkpoints/%j");
	o.given = (1u << ELASTIC_OPT_MIN) | (1u << ELASTIC_OPT_MAX) |
		  (1u << ELASTIC_OPT_STEP);
	if (options_format_tag(&o, g->tag, sizeof(g->tag)) >=
	    (int)sizeof(g->tag))
		return elastic_errorf(s->err, "group %s: tag too long",
				      g->user);
	return options_parse_tag(g->tag, &g->opts, s->err);
}

/* The policy: elastic.conf with the example's partitions. */
static void ce_policy(struct csim *s)
{
	struct elastic_policy *pol = &s->el.pol;

	policy_defaults(pol);
	pol->max_nodes = s->p->nodes;
	pol->unit_nice = s->p->unit_nice;
	pol->base_partitions.n = 1;
	strcpy(pol->base_partitions.name[0], "base");
	pol->preemptible_partitions.n = 1;
	strcpy(pol->preemptible_partitions.name[0], "preempt");
}

/* Group gi from workload line wl; users numbered in order of appearance. */
static int ce_group(struct csim *s, size_t gi, size_t wl)
{
	struct cl_group *g = &s->el.group[gi];
	const struct workload_job *wj = &s->w->job[wl];

	g->wl = (int32_t)wl;
	g->base = -1;
	g->min = wj->nodes;
	g->max = wj->max;
	snprintf(g->user, sizeof(g->user), "%s", wj->user);
	g->uid = FIRST_UID + (uid_t)gi;
	for (size_t k = 0; k < gi; k++)
		if (!strcmp(s->el.group[k].user, g->user)) {
			g->uid = s->el.group[k].uid;
			break;
		}
	if (g->max - g->min > GROUP_MAX_SLOTS)
		return elastic_errorf(s->err,
				      "line %zu: max %u - min %u: more than "
				      "%d units",
				      wl + 1, g->max, g->min, GROUP_MAX_SLOTS);
	return s->p->elastic ? ce_opts(s, g) : 0;
}

int ce_init(struct csim *s)
{
	struct celastic *el = &s->el;
	size_t n = 0;

	memset(el, 0, sizeof(*el));
	el->next_pass_ms = CL_FOREVER;
	el->last_pass_ms = el->last_push_ms = -(int64_t)s->p->pass_ms;
	for (size_t i = 0; i < s->w->n; i++)
		n += s->w->job[i].kind == WORKLOAD_ELASTIC;
	el->group = calloc(n ? n : 1, sizeof(*el->group));
	if (!el->group)
		return elastic_errorf(s->err, "groups: out of memory");
	for (size_t i = 0; i < s->w->n; i++)
		if (s->w->job[i].kind == WORKLOAD_ELASTIC &&
		    ce_group(s, el->ngroup++, i) < 0)
			return -1;
	if (!s->p->elastic)
		return 0;
	ce_policy(s);
	el->r = reconcile_create(NULL);
	if (!el->r)
		return elastic_errorf(s->err, "reconcile: out of memory");
	ce_wake(s, 0);
	return 0;
}

void ce_free(struct csim *s)
{
	struct celastic *el = &s->el;

	for (size_t i = 0; i < el->ngroup; i++)
		free(el->group[i].jobs.v);
	free(el->group);
	reconcile_destroy(el->r);
	action_list_free(&el->actions);
	memset(el, 0, sizeof(*el));
}

int ce_submit_base(struct csim *s, size_t gi)
{
	struct cl_group *g = &s->el.group[gi];
	const struct workload_job *wj = &s->w->job[g->wl];
	int32_t ji = cs_submit(s, CL_BASE, (int32_t)gi, g->wl, wj->nodes,
			       (int64_t)wj->runtime_s * 1000,
			       (int64_t)wj->limit_s * 1000, 0);

	if (ji < 0)
		return -1;
	g->base = ji;
	g->held_since = s->now;
	if (cs_vec_push(&g->jobs, ji) < 0)
		return elastic_errorf(s->err, "groups: out of memory");
	ce_wake(s, s->now);
	return 0;
}

static time_t ce_secs(int64_t ms)
{
	return (time_t)((CL_T0_MS + ms) / 1000);
}

/* Job j as slurmio shows it to the pass. */
static void ce_view(const struct cl_group *g, const struct cl_job *j,
		    struct job_view *v)
{
	memset(v, 0, sizeof(*v));
	v->id = j->id;
	v->phase = j->phase;
	v->end = j->end;
	v->preempted = j->preempted;
	v->steps_gone = j->steps_gone;
	v->nnodes = j->nnodes;
	v->nice = j->nice;
	v->nodes = NULL; /* "" in the snapshot */
	v->uid = g->uid;
	v->gid = 1000;
	v->submit_time = ce_secs(j->submit_ms);
	v->start_time = j->start_ms >= 0 ? ce_secs(j->start_ms) : 0;
	v->end_time = j->end_ms >= 0	 ? ce_secs(j->end_ms)
		      : j->start_ms >= 0 ? ce_secs(j->start_ms + j->limit_ms)
					 : 0;
	v->time_limit = (uint32_t)((j->limit_ms + 59999) / 60000);
	/* a unit's strings are none of the pass's business: not copied */
	if (j->role == CL_UNIT) {
		v->role = ROLE_UNIT;
		v->unit = j->tag;
	} else {
		v->role = ROLE_BASE;
		v->user = g->user;
		v->account = g->user;
		v->partition = "base";
		v->opts = &g->opts;
		v->tag = g->tag;
	}
}

/* Group g's jobs into the snapshot; those gone long ago forgotten. */
static int ce_snap_group(struct csim *s, struct cl_group *g,
			 struct snapshot *snap)
{
	size_t k = 0;

	for (size_t i = 0; i < g->jobs.n; i++) {
		const struct cl_job *j = &s->sl.job[g->jobs.v[i]];
		struct job_view v;

		if (j->phase == PHASE_GONE &&
		    s->now - j->end_ms > GONE_KEEP_MS &&
		    g->jobs.v[i] != g->base)
			continue;
		g->jobs.v[k++] = g->jobs.v[i];
		if (j->phase == PHASE_GONE && s->now - j->end_ms > GONE_KEEP_MS)
			continue;
		ce_view(g, j, &v);
		if (snapshot_add(snap, &v, s->err) < 0)
			return -1;
	}
	g->jobs.n = k;
	return 0;
}

/* One action of the pass, performed. */
static int ce_act(struct csim *s, const struct action *a)
{
	struct cl_job *j;
	int32_t ji, gi;

	if (a->type == ACTION_CANCEL) {
		j = cs_find(s, a->job);
		if (j && j->phase != PHASE_GONE)
			cs_end(s, (int32_t)(j->id - CL_FIRST_ID),
			       END_CANCELLED);
		return 0;
	}
	if (a->type != ACTION_SUBMIT)
		return 0;
	j = cs_find(s, a->group);
	if (!j || j->group < 0)
		return elastic_errorf(s->err, "a unit for no group (%u)",
				      a->group);
	gi = j->group; /* j moves when the jobs grow */
	ji = cs_submit(s, CL_UNIT, gi, -1, a->unit.tag.nodes, CL_FOREVER,
		       (int64_t)a->unit.time_limit * 60000, a->unit.nice);
	if (ji < 0 || cs_vec_push(&s->el.group[gi].jobs, ji) < 0)
		return elastic_errorf(s->err, "units: out of memory");
	s->sl.job[ji].tag = a->unit.tag;
	reconcile_submitted(s->el.r, a->group, a->token, s->sl.job[ji].id,
			    s->now + CL_T0_MS);
	return 0;
}

/* Each group's world after the pass. */
static void ce_worlds(struct csim *s)
{
	for (size_t i = 0; i < s->el.ngroup; i++) {
		struct cl_group *g = &s->el.group[i];
		struct reconcile_group_status st;
		uint32_t w = 0;

		if (g->base < 0)
			continue;
		if (reconcile_group_status(s->el.r, s->sl.job[g->base].id, &st,
					   NULL, 0) == 0)
			w = st.world_nodes;
		if (w != g->world) {
			ce_account(s, g);
			g->world = w;
			ct_world(s, i, w);
		}
	}
}

int ce_pass(struct csim *s, const struct cl_ev *ev)
{
	struct celastic *el = &s->el;
	struct snapshot *snap;
	int rc = -1;

	/* an idle pass (job 1) only if none ran since the one that asked */
	if (ev->t <= el->last_pass_ms ||
	    (ev->job == 1 && ev->t < el->last_pass_ms + s->p->idle_pass_ms))
		return 0;
	if (ev->t == el->next_pass_ms)
		el->next_pass_ms = CL_FOREVER;
	el->last_pass_ms = ev->t;
	snap = snapshot_create(ce_secs(s->now));
	if (!snap)
		return elastic_errorf(s->err, "snapshot: out of memory");
	for (size_t i = 0; i < el->ngroup; i++)
		if (el->group[i].base >= 0 &&
		    ce_snap_group(s, &el->group[i], snap) < 0)
			goto out;
	snapshot_finish(snap);
	if (reconcile_pass(el->r, snap, &el->pol, s->now + CL_T0_MS,
			   &el->actions, s->err) < 0)
		goto out;
	el->passes++;
	for (size_t i = 0; i < el->actions.n; i++)
		if (ce_act(s, &el->actions.a[i]) < 0)
			goto out;
	ce_worlds(s);
	if (cs_event(s, s->now + s->p->idle_pass_ms, CL_EV_PASS, 1) < 0)
		goto out;
	rc = 0;
out:
	snapshot_destroy(snap);
	return rc;
}

void ce_figures(struct csim *s, struct cluster_result *r)
{
	for (size_t i = 0; i < s->el.ngroup && i < r->ngroups; i++) {
		struct cl_group *g = &s->el.group[i];

		ce_account(s, g);
		r->group[i].world_node_s = g->world_node_ms / 1000;
		r->group[i].unit_node_s = g->unit_node_ms / 1000;
		r->group[i].unit_starts = g->unit_starts;
		r->group[i].unit_preemptions = g->unit_preemptions;
	}
	r->passes = s->el.passes;
}
