/* The pass over every group, and what the daemon tells it between passes
 * (reconcile.h).  Its parts: reconcile_group.c, reconcile_world.c,
 * reconcile_run.c, reconcile_view.c, reconcile_state.c. */
#include "config.h"

#include "reconcile_impl.h"

/*
 * A group found running at startup with no saved state: its generation
 * must exceed any an earlier elasticd gave it.  No group changes more
 * than once per pass, passes are 100 ms apart or more, so ms since its
 * base started / 50 + 3 is above them all.
 */
static void adopt_generation(struct group *g, int64_t now)
{
	int64_t start = (int64_t)g->base->start_time * 1000;
	int64_t gen = now > start ? (now - start) / ADOPT_MS_PER_GEN + 3 : 3;

	if ((uint64_t)gen > g->generation)
		g->generation = (uint64_t)gen - 1; /* apply_world adds 1 */
}

static int orphan(struct reconcile *r, const struct job_view *u, int64_t now,
		  const char *why, struct action_list *out)
{
	struct release *rel = NULL;

	for (size_t i = 0; i < r->norphans; i++)
		if (r->orphans[i].job == u->id)
			rel = &r->orphans[i];
	if (rel && now - rel->sent < (int64_t)r->cfg.cancel_retry_ms)
		return 0;
	if (!rel) {
		struct release *o = rec_grow(r->orphans, &r->caporphans,
					     r->norphans + 1, sizeof(*o));

		if (!o)
			return -1;
		r->orphans = o;
		rel = &r->orphans[r->norphans++];
		rel->job = u->id;
		r->units_cancelled++;
	}
	rel->at = rel->sent = now;
	if (!rec_push(out, ACTION_CANCEL, 0, "unit %u of group %u: %s: cancel",
		      u->id, u->unit.group, why))
		return -1;
	out->a[out->n - 1].job = u->id;
	return 0;
}

static int add_unit(struct group *g, const struct job_view *u)
{
	const struct job_view **a =
	    rec_grow(g->units, &g->capunits, g->nunits + 1, sizeof(*a));

	if (!a)
		return -1;
	g->units = a;
	g->units[g->nunits++] = u;
	return 0;
}

/* Bases: a group for each pending or running one. */
static int pass_bases(struct reconcile *r, const struct snapshot *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct job_view *j = snapshot_job(s, i);
		struct group *g;

		if (j->role != ROLE_BASE || !j->opts)
			continue;
		g = rec_find(r, j->id);
		if (!g && !rec_live(j))
			continue;
		if (!g && !(g = rec_add_group(r, j->id)))
			return -1;
		g->pass = r->pass;
		g->base = j;
		g->nunits = 0;
		g->uid = j->uid;
		snprintf(g->user, sizeof(g->user), "%s",
			 j->user ? j->user : "");
		snprintf(g->account, sizeof(g->account), "%s",
			 j->account ? j->account : "");
		g->min = j->opts->min;
		g->max = j->opts->max;
	}
	return 0;
}

/* Units: to their group, or cancelled as orphans. */
static int pass_units(struct reconcile *r, const struct snapshot *s, size_t n,
		      int64_t now, struct action_list *out)
{
	size_t w = 0;

	for (size_t i = 0; i < r->norphans; i++) {
		const struct job_view *j = snapshot_find(s, r->orphans[i].job);

		if (j && rec_live(j))
			r->orphans[w++] = r->orphans[i];
	}
	r->norphans = w;
	for (size_t i = 0; i < n; i++) {
		const struct job_view *u = snapshot_job(s, i);
		struct group *g;

		if (u->role != ROLE_UNIT)
			continue;
		g = rec_find(r, u->unit.group);
		if (g && g->pass != r->pass) {
			g->pass = r->pass; /* base gone from slurmctld */
			g->base = NULL;
			g->nunits = 0;
		}
		if (g && g->base && g->base->uid != u->uid) {
			if (rec_live(u) &&
			    orphan(r, u, now, "owner differs from its base's",
				   out) < 0)
				return -1;
			continue;
		}
		if (g) {
			if (add_unit(g, u) < 0)
				return -1;
		} else if (rec_live(u) &&
			   orphan(r, u, now, "its base is not running", out) <
			       0) {
			return -1;
		}
	}
	return 0;
}

/* Each group, from the first that a bound on the last pass's submissions
 * made wait. */
static int pass_groups(struct reconcile *r, const struct elastic_policy *p,
		       int64_t now, bool first, struct action_list *out)
{
	size_t ended = 0;

	r->submitted = 0;
	r->capped = false;
	r->npending = 0;
	if (rec_plan_rebalance(r, p, now) < 0)
		return -1;
	for (size_t k = 0, n0 = r->nbuckets; k < n0; k++) {
		size_t bi = (r->start_bucket + k) % n0;
		struct group *g = r->buckets[bi], *next;

		for (; g; g = next) {
			bool any_live = false;

			next = g->next;
			g->submitted = 0;
			if (g->pass != r->pass) {
				g->base = NULL;
				g->nunits = 0;
			}
			if (g->base && g->base->phase == PHASE_RUNNING) {
				bool adopt = first && !g->formed;

				g->ended_at = 0;
				if (adopt && !g->restored)
					adopt_generation(g, now);
				if (rec_step_running(r, g, p, now, adopt, out) <
				    0)
					return -1;
				continue;
			}
			if (rec_step_stopped(r, g, now, out) < 0)
				return -1;
			for (size_t i = 0; i < g->nunits; i++)
				any_live |= rec_live(g->units[i]);
			if (any_live || (g->base && rec_live(g->base))) {
				g->ended_at = 0;
				continue;
			}
			/* Ended: kept a while for its status and events. */
			if (!g->ended_at)
				g->ended_at = now;
			g->state = GROUP_ENDED;
			if (now - g->ended_at >=
				(int64_t)RECONCILE_ENDED_KEEP_S * 1000 ||
			    ++ended > RECONCILE_ENDED_MAX)
				rec_drop_group(r, g);
		}
	}
	return 0;
}

int reconcile_pass(struct reconcile *r, const struct snapshot *s,
		   const struct elastic_policy *p, int64_t now,
		   struct action_list *out, elastic_error_t *err)
{
	size_t n = snapshot_count(s);
	bool first = r->pass == 0;

	action_list_clear(out);
	r->pass++;
	r->snap = s;
	if (pass_bases(r, s, n) < 0 || pass_units(r, s, n, now, out) < 0 ||
	    pass_groups(r, p, now, first, out) < 0)
		return elastic_errorf(err, "reconcile: out of memory");
	if (r->capped)
		r->start_bucket = r->next_start;
	return 0;
}

void reconcile_submitted(struct reconcile *r, uint32_t group, uint32_t token,
			 uint32_t job_id, int64_t now)
{
	struct group *g = rec_find(r, group);

	if (!g)
		return;
	for (size_t i = 0; i < g->nexpect; i++) {
		if (g->expect[i].token != token)
			continue;
		if (job_id) {
			g->expect[i].job = job_id;
			g->submit_failures = 0;
			r->units_submitted++;
		} else {
			unsigned f =
			    g->submit_failures < 16 ? g->submit_failures : 16;
			int64_t wait = (int64_t)SUBMIT_BACKOFF_MS << f;

			g->expect[i] = g->expect[--g->nexpect];
			g->submit_failures++;
			g->submit_after = now + (wait < SUBMIT_BACKOFF_MAX
						     ? wait
						     : SUBMIT_BACKOFF_MAX);
		}
		return;
	}
}

int reconcile_raise_request(struct reconcile *r, uint32_t group,
			    struct action_list *out)
{
	struct group *g = rec_find(r, group);

	if (!g || !g->formed || !g->base || g->base->phase != PHASE_RUNNING)
		return -1;
	return rec_raise_world(r, g, " (asked through the API)", out);
}

int reconcile_report(struct reconcile *r, const struct launch_report *rep,
		     int64_t now)
{
	struct group *g = rec_find(r, rep->group);
	unsigned grace;
	char why[128];

	if (!g || !g->formed || !g->base || !g->base->opts)
		return -1;
	g->relays = rep->relay;
	/* Its ranks run in the current world: the resize is over, whatever
	 * is left of the grace. */
	if (rep->generation == g->generation)
		g->resizing_until = 0;
	if (rep->exit_ms < 0)
		return 0;
	grace = g->base->opts->grace;
	g->last_exit_ms = rep->exit_ms;
	g->grace_warning = grace && rep->exit_ms * 2 >= (int64_t)grace * 1000;
	if (g->grace_warning) {
		snprintf(why, sizeof(why),
			 "ranks took %.1f s of the %u s grace to checkpoint "
			 "and exit",
			 (double)rep->exit_ms / 1000.0, grace);
		rec_add_event(g, now, CAUSE_GRACE_WARNING, why);
	}
	return 0;
}
