/*
 * The goodput simulator's spares (goodsim_impl.h, --elastic-spares): which
 * units elasticd keeps as spares, taken from its own view after each pass
 * (the running units it marks "spare", which is what elastic-run reads),
 * the nodes they hold, and the spare a lost member's place goes to.  What
 * a swap costs the ranks is goodsim_policy.c's.
 */
#include "config.h"

#include "goodsim_impl.h"
#include "elasticd/groupinfo.h"

void gs_spare_set(struct sim *s, struct gjob *j, bool spare)
{
	if (j->spare == spare)
		return;
	j->spare = spare;
	if (spare)
		s->spare_held += j->nnodes;
	else
		s->spare_held -= j->nnodes;
}

int gs_spares_note(struct sim *s, struct ggroup *g, const struct snapshot *snap)
{
	struct elasticd_view *v;

	for (size_t i = 0; i < g->njobs; i++)
		gs_spare_set(s, &s->job[g->jobs[i]], false);
	if (!s->p->spares)
		return 0;
	v = reconcile_view(g->r, snap, T0_MS + s->now);
	if (!v)
		return elastic_errorf(s->err, "out of memory");
	for (size_t k = 0; k < v->ngroups; k++)
		for (size_t i = 0; i < v->groups[k].nmembers; i++) {
			const struct member_info *m = &v->groups[k].members[i];

			if (!m->spare)
				continue;
			for (size_t n = 0; n < g->njobs; n++) {
				struct gjob *j = &s->job[g->jobs[n]];

				if (j->id == m->job_id &&
				    j->phase == PHASE_RUNNING)
					gs_spare_set(s, j, true);
			}
		}
	view_free(v);
	return 0;
}

struct gjob *gs_spare_for(struct sim *s, struct ggroup *g,
			  const struct gjob *lost)
{
	for (size_t i = 0; i < g->njobs; i++) {
		struct gjob *j = &s->job[g->jobs[i]];

		if (j->spare && !j->in_world && !j->preempted && !j->crashed &&
		    j->phase == PHASE_RUNNING && j->nnodes == lost->nnodes)
			return j;
	}
	return NULL;
}

int64_t gs_spare_ready_ms(const struct sim *s, const struct gjob *j)
{
	int64_t warm = j->start_ms + ms_of(s->p->start_s + s->p->join_s);

	if (s->p->spares_cold)
		return s->now + ms_of(s->p->join_s);
	return warm > s->now ? warm : s->now;
}
