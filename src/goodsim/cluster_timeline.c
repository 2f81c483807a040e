/*
 * The cluster simulator's timeline (cluster.h, cluster_params.timeline):
 * what the model of Slurm did to each job and each group's world, kept
 * in memory in the order it happened for the program to print (the
 * replay's sacct and elasticd's events compared with it event by event).
 * It alone writes struct ctimeline.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cluster_impl.h"

static void ct_push(struct csim *s, const struct cluster_tl_event *e)
{
	struct ctimeline *tl = &s->tl;

	if (!s->p->timeline || tl->oom)
		return;
	if (tl->n == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 1024;
		struct cluster_tl_event *v = realloc(tl->v, cap * sizeof(*v));

		if (!v) {
			tl->oom = true;
			return;
		}
		tl->v = v;
		tl->cap = cap;
	}
	tl->v[tl->n++] = *e;
}

static enum cluster_tl_role ct_role(enum cl_role role)
{
	switch (role) {
	case CL_RIGID:
		return CLUSTER_TL_RIGID;
	case CL_PREEMPTOR:
		return CLUSTER_TL_PREEMPTOR;
	case CL_BASE:
		return CLUSTER_TL_BASE;
	case CL_UNIT:
		break;
	}
	return CLUSTER_TL_UNIT;
}

/* Why job j ended. */
static const char *ct_why(const struct cl_job *j)
{
	switch (j->end) {
	case END_COMPLETE:
		return "completed";
	case END_FAILED:
		return "time limit";
	case END_PREEMPTED:
		return "grace over";
	case END_CANCELLED:
		return j->preempted ? "cancelled after preemption"
				    : "cancelled";
	default:
		return "ended";
	}
}

void ct_job(struct csim *s, const struct cl_job *j, enum cluster_tl_what what,
	    uint32_t by)
{
	struct cluster_tl_event e = {
		.t_ms = s->now,
		.what = what,
		.role = ct_role(j->role),
		.job = j->id,
		.group = j->group,
		.wl = j->wl,
		.nodes = j->nnodes,
		.nice = j->nice,
		.by = by,
		.why = what == CLUSTER_TL_END ? ct_why(j) : NULL,
	};

	ct_push(s, &e);
}

void ct_world(struct csim *s, size_t gi, uint32_t world)
{
	const struct cl_group *g = &s->el.group[gi];
	struct cluster_tl_event e = {
		.t_ms = s->now,
		.what = CLUSTER_TL_WORLD,
		.role = CLUSTER_TL_BASE,
		.job = g->base >= 0 ? s->sl.job[g->base].id : 0,
		.group = (int32_t)gi,
		.wl = g->wl,
		.nodes = world,
	};

	ct_push(s, &e);
}

void ct_take(struct csim *s, struct cluster_result *r)
{
	r->timeline = s->tl.v;
	r->ntimeline = s->tl.n;
	memset(&s->tl, 0, sizeof(s->tl));
}

void ct_free(struct csim *s)
{
	free(s->tl.v);
	memset(&s->tl, 0, sizeof(s->tl));
}
