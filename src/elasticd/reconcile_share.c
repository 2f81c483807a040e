/* Sharing in the pass (reconcile_impl.h, share.h): Rebalance=yes's
 * choice of the unit this pass moves, and pending units asked for again
 * at the rank their slot has now.  Pure. */
#include "config.h"

#include "reconcile_impl.h"

/* The unit a group could give: its youngest preemptible member whose
 * leaving keeps an allowed size (0: none). */
static uint32_t sheddable(const struct group *g, unsigned *nodes)
{
	const struct elastic_opts *o = g->base->opts;
	uint32_t best = 0;

	*nodes = 0;
	for (size_t i = 1; i < g->nworld; i++) {
		const struct world_member *m = &g->world[i];

		if (m->kind != MEMBER_PREEMPTIBLE || m->job < best ||
		    !options_size_allowed(o, g->world_nodes - m->nnodes))
			continue;
		best = m->job;
		*nodes = m->nnodes;
	}
	return best;
}

/* A running, formed group of this pass, not resizing. */
static bool steady(const struct reconcile *r, const struct group *g,
		   int64_t now)
{
	return g->pass == r->pass && g->base &&
	       g->base->phase == PHASE_RUNNING && g->formed && !g->loss_since &&
	       now >= g->resizing_until;
}

int rec_plan_rebalance(struct reconcile *r, const struct elastic_policy *p,
		       int64_t now)
{
	size_t n = 0, from, to;

	r->shed_group = r->shed_job = r->shed_taker = 0;
	if (!p->rebalance ||
	    (r->last_rebalance &&
	     now - r->last_rebalance < (int64_t)p->rebalance_interval * 1000))
		return 0;
	if (r->capshares < r->ngroups) {
		struct share_group *s =
		    realloc(r->shares, r->ngroups * sizeof(*s));
		uint32_t *j =
		    s ? realloc(r->shed_jobs, r->ngroups * sizeof(*j)) : NULL;

		if (s)
			r->shares = s;
		if (!j)
			return -1;
		r->shed_jobs = j;
		r->capshares = r->ngroups;
	}
	for (size_t bi = 0; bi < r->nbuckets; bi++)
		for (const struct group *g = r->buckets[bi]; g; g = g->next) {
			if (!steady(r, g, now) || n == r->capshares)
				continue;
			r->shares[n] = (struct share_group){
				.id = g->id,
				.weight = g->weight,
				.min = g->min,
				.nodes = g->world_nodes,
				.wait_since = g->grow_since,
			};
			r->shed_jobs[n] = sheddable(g, &r->shares[n].shed);
			n++;
		}
	if (!share_rebalance(r->shares, n, now, p->rebalance_interval, &from,
			     &to))
		return 0;
	r->shed_group = r->shares[from].id;
	r->shed_job = r->shed_jobs[from];
	r->shed_taker = r->shares[to].id;
	return 0;
}

int rec_rerank_pending(struct reconcile *r, struct group *g,
		       const struct elastic_policy *p, unsigned b,
		       size_t nslots, int64_t now)
{
	unsigned after = b;

	if (!p->share_nice_step)
		return 0;
	for (size_t i = 0; i < nslots; i++) {
		struct slot *s = &r->slots[i];
		const struct cand *c;

		after += s->size;
		if (s->p_pend < 0)
			continue;
		c = &r->cands[s->p_pend];
		if (!c->j || c->running ||
		    c->j->nice <=
			share_nice(p, g->base->opts->min, after, g->weight))
			continue;
		if (rec_release_at(g, c->job, now) < 0)
			return -1;
		s->p_pend = -1;
	}
	return 0;
}
