/* One group's pass while its base runs (reconcile.h); a stopped base's is
 * reconcile_stopped.c's. */
#include "config.h"

#include "reconcile_impl.h"

/* Is on-demand allowed for this group's owner by the policy now? */
static bool ondemand_permitted(const struct elastic_policy *p,
			       const struct job_view *base)
{
	struct elastic_submitter who = { base->user, base->account };

	if (!p->ondemand_allowed || !p->ondemand_partitions.n ||
	    base->opts->ondemand == ELASTIC_ONDEMAND_NEVER)
		return false;
	return options_ondemand_listed(p, &who);
}

/* For a slot: a member of the world, then a job Slurm shows (before a
 * submission not seen yet), then the oldest. */
static bool better(const struct cand *c, const struct cand *best)
{
	if (c->in_world != best->in_world)
		return c->in_world;
	if (!c->j != !best->j)
		return c->j != NULL;
	return c->job < best->job;
}

/* Pick the best unassigned candidate for a slot; checked: 1 only spares
 * checked (a world's slot), 0 only spares not, -1 any. */
static int pick_cand(struct reconcile *r, size_t nc, unsigned size,
		     enum unit_kind kind, bool running, int checked)
{
	int best = -1;

	for (size_t i = 0; i < nc; i++) {
		const struct cand *c = &r->cands[i];

		if (c->used || c->kind != kind || c->running != running ||
		    c->nnodes != size ||
		    (checked >= 0 && c->unchecked == checked))
			continue;
		if (best < 0 || better(c, &r->cands[best]))
			best = (int)i;
	}
	if (best >= 0)
		r->cands[best].used = true;
	return best;
}

/* Units are ordered least preferred first (see rec_choose_world()). */
static int item_class(const struct cand *c)
{
	return (c->kind == UNIT_PREEMPTIBLE) * 2 + c->in_world;
}

static int by_preference(const void *a, const void *b, void *arg)
{
	const struct reconcile *r = arg;
	const struct cand *x = &r->cands[*(const int *)a];
	const struct cand *y = &r->cands[*(const int *)b];
	int cx = item_class(x), cy = item_class(y);

	if (cx != cy)
		return cx - cy;
	return (x->job < y->job) - (x->job > y->job); /* older later */
}

/* One running group's pass, shared by its steps (step_running). */
struct run {
	struct reconcile *r;
	struct group *g;
	const struct elastic_policy *p;
	const struct job_view *base;
	const struct elastic_opts *o;
	int64_t now;
	struct action_list *out;
	unsigned b;	 /* the base's nodes */
	unsigned target; /* the size the group aims at */
	bool discrete;	 /* --elastic-sizes */
	size_t nslots;	 /* r->slots: the sizes up to the target */
	size_t nladder;	 /* ... of which the world's; spares' follow */
	size_t nc;	 /* r->cands */
	size_t frontier; /* the first slot no running unit holds */
	bool preempted;	 /* the world lost a preempted member */
	bool failed;	 /* ... or a failed one */
	char lost[DETAIL_MAX];
	size_t lj; /* strlen(lost) */
	bool can_submit;
	enum growth_held held; /* why not, when !can_submit */
	uint32_t time_limit;   /* of new units, minutes (0: the partition's) */
	unsigned nodes;	       /* the best world from what runs (0: none) */
	size_t nn;	       /* its members, in r->nworld */
	bool same;	       /* it is the world already */
	uint32_t newcomer;     /* a running unit it takes in (0: none) */
	/* the spares of the last pass (g->spare before this one's) */
	uint32_t was_spare[ELASTIC_MAX_SPARES];
	size_t nwas_spare;
};

/* Candidates: live units not being released, and submissions not seen
 * yet. */
static int run_candidates(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	int64_t now = x->now;

	{
		struct cand *c =
		    rec_grow(r->cands, &r->capcands, g->nunits + g->nexpect + 1,
			     sizeof(*c));

		if (!c)
			return -1;
		r->cands = c;
	}
	for (size_t i = 0; i < g->nunits; i++) {
		const struct job_view *u = g->units[i];

		if (!rec_live(u) || rec_in_grace(u) || rec_released(g, u->id))
			continue;
		r->cands[x->nc++] = (struct cand){
			u->id,
			u->unit.nodes,
			u->unit.kind,
			rec_usable(u),
			rec_in_world(g, u->id),
			false,
			u,
			rec_unchecked(g, u->id),
		};
		if (rec_usable(u))
			r->cands[x->nc - 1].nnodes = u->nnodes;
	}
	{
		size_t w = 0;

		for (size_t i = 0; i < g->nexpect; i++) {
			struct expect *e = &g->expect[i];
			const struct job_view *j;

			if (!e->job && (e->job = rec_submitted_unit(g, e))) {
				g->submit_failures = 0;
				r->units_submitted++;
			}
			j = e->job ? snapshot_find(r->snap, e->job) : NULL;

			if (j ||
			    now - e->at > (int64_t)r->cfg.expect_timeout_ms)
				continue; /* seen (a unit now) or lost */
			g->expect[w++] = *e;
			r->cands[x->nc++] = (struct cand){
				.job = e->job,
				.nnodes = e->nnodes,
				.kind = e->kind,
			};
		}
		g->nexpect = w;
	}

	r->ncands = x->nc;
	return 0;
}

/* Match units to slots: preemptible first, running before pending; then
 * on-demand units where no preemptible one runs. */
static void run_match(struct run *x)
{
	struct reconcile *r = x->r;

	for (size_t i = 0; i < x->nslots; i++) {
		struct slot *s = &r->slots[i];
		bool world = i < x->nladder;

		s->p_run = pick_cand(r, x->nc, s->size, UNIT_PREEMPTIBLE, true,
				     world ? 1 : -1);
		/* A spare its launcher has not checked: on its way, as a
		 * pending unit is (still a spare: spares_kept()). */
		if (s->p_run < 0 && world)
			s->p_pend = pick_cand(r, x->nc, s->size,
					      UNIT_PREEMPTIBLE, true, 0);
		if (s->p_run < 0 && s->p_pend < 0)
			s->p_pend = pick_cand(r, x->nc, s->size,
					      UNIT_PREEMPTIBLE, false, -1);
	}
	for (size_t i = 0; i < x->nladder; i++) {
		struct slot *s = &r->slots[i];

		if (s->p_run >= 0)
			continue;
		s->od_run =
		    pick_cand(r, x->nc, s->size, UNIT_ONDEMAND, true, -1);
		if (s->od_run < 0)
			s->od_pend = pick_cand(r, x->nc, s->size, UNIT_ONDEMAND,
					       false, -1);
	}
	for (x->frontier = 0; x->frontier < x->nslots; x->frontier++)
		if (r->slots[x->frontier].p_run < 0 &&
		    r->slots[x->frontier].od_run < 0)
			break;
}

/* The spares of this pass: the units of the spare slots, and those not
 * checked yet on their way to the world's. */
static void spares_kept(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;

	memcpy(x->was_spare, g->spare, g->nspare * sizeof(*g->spare));
	x->nwas_spare = g->nspare;
	g->nspare = 0;
	for (size_t i = 0; i < x->nslots; i++) {
		int c = i < x->nladder ? r->slots[i].p_pend : r->slots[i].p_run;

		if (c >= 0 && (i >= x->nladder || r->cands[c].unchecked) &&
		    g->nspare < ELASTIC_MAX_SPARES)
			g->spare[g->nspare++] = r->cands[c].job;
	}
}

/* Units that fit no slot, and preempted units, are released. */
static int run_releases(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;

	/* Units that fit no slot: released, now unless they are in the
	 * world (then at its next change). */
	for (size_t i = 0; i < x->nc; i++) {
		const struct cand *c = &r->cands[i];

		if (c->used || !c->j || c->in_world)
			continue;
		if (rec_release_at(g, c->job, now) < 0)
			return -1;
	}

	/*
	 * Preempted units: Slurm ends them at the end of its GraceTime (and
	 * KillWait), but their ranks need only --elastic-grace to
	 * checkpoint; cancelling them then lets the preemptor start sooner.
	 * One that was in no world, or whose ranks have all left (no step
	 * of its own runs), holds nothing of the group's: at once.  The
	 * time is set when the preemption is first seen (the world drops
	 * the unit in the same pass); later, its steps ending bring it
	 * forward.
	 */
	for (size_t i = 0; i < g->nunits; i++) {
		const struct job_view *u = g->units[i];
		bool seen;

		if (!rec_in_grace(u))
			continue;
		seen = rec_released(g, u->id) != NULL;
		if (seen && !u->steps_gone)
			continue;
		if (rec_release_at(g, u->id,
				   u->steps_gone || !rec_in_world(g, u->id)
				       ? now
				       : now + (int64_t)o->grace * 1000) < 0)
			return -1;
	}
	return 0;
}

/* Losses: members of the world that are no longer usable. */
static void run_losses(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;

	if (g->formed) {
		if (x->b < g->world[0].nnodes) {
			x->failed = true;
			x->lj += snprintf(
			    x->lost + x->lj, sizeof(x->lost) - x->lj,
			    "base lost %u node%s", g->world[0].nnodes - x->b,
			    g->world[0].nnodes - x->b == 1 ? "" : "s");
		}
		for (size_t i = 1; i < g->nworld; i++) {
			const struct job_view *j =
			    snapshot_find(r->snap, g->world[i].job);

			if (j && rec_usable(j))
				continue;
			if (j && (j->preempted || j->end == END_PREEMPTED))
				x->preempted = true;
			else
				x->failed = true;
			if (x->lj + 40 < sizeof(x->lost))
				x->lj += snprintf(
				    x->lost + x->lj, sizeof(x->lost) - x->lj,
				    "%sunit %u %s", x->lj ? ", " : "",
				    g->world[i].job, rec_end_words(j));
		}
	}
}

/* May units be asked for now (time left, partitions, back-off)? */
static int run_can_submit(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_policy *p = x->p;
	const struct job_view *base = x->base;
	int64_t now = x->now;
	struct action_list *out = x->out;

	if (base->time_limit) {
		int64_t left = (int64_t)base->end_time - now / 1000;

		x->time_limit = left > 0 ? (uint32_t)(left / 60) : 0;
		x->can_submit = left >= (int64_t)r->cfg.min_unit_seconds;
		x->held = HELD_TIME;
		if (!x->can_submit &&
		    rec_note_once(g, NOTE_NO_TIME, out,
				  "group %u: base has less than %u s left: "
				  "no more units",
				  g->id, r->cfg.min_unit_seconds) < 0)
			return -1;
	} else {
		x->can_submit = true;
	}
	if (x->nslots && !p->preemptible_partitions.n) {
		x->can_submit = false;
		x->held = HELD_PARTITION;
		if (rec_note_once(g, NOTE_NO_PARTITION, out,
				  "group %u: no PreemptiblePartitions in "
				  "elastic.conf: no units",
				  g->id) < 0)
			return -1;
	}
	/* A base its owner moved out of BasePartitions (while it was
	 * pending: job_submit checked the partition only at submission)
	 * gets no units: the policy applies where it is known. */
	if (x->nslots && p->base_partitions.n &&
	    !(base->partition &&
	      policy_list_has(&p->base_partitions, base->partition))) {
		x->can_submit = false;
		x->held = HELD_PARTITION;
		if (rec_note_once(g, NOTE_BASE_PARTITION, out,
				  "group %u: base in partition %s, not one of "
				  "BasePartitions in elastic.conf: no units",
				  g->id,
				  base->partition ? base->partition : "?") < 0)
			return -1;
	}
	if (now < g->submit_after) {
		x->can_submit = false;
		x->held = HELD_BACKOFF;
	}
	return 0;
}

/* Preemptible units for every slot lacking one (with --elastic-sizes only
 * up to the first slot not held; spares once every slot of the world is
 * held: a growth first).  None while a preemption's grace runs:
 * a replacement pending then could be started on a node another unit
 * left, before the preemptor has all it needs, and be preempted in turn
 * (another grace for the preemptor to wait). */
static int run_submit_preemptible(struct run *x)
{
	struct reconcile *r = x->r;
	unsigned after = x->b; /* the group's size with slots 0..i */
	int rc;

	if (rec_group_in_grace(x->g))
		return 0;
	for (size_t i = 0; i < x->nslots; i++) {
		struct slot *s = &r->slots[i];

		after += s->size;
		if ((x->discrete && i > x->frontier) ||
		    (i >= x->nladder && x->frontier < x->nladder))
			break;
		if (s->p_run >= 0 || s->p_pend >= 0)
			continue;
		rc = rec_submit_unit(r, x->g, x->p, x->now, UNIT_PREEMPTIBLE,
				     s->size, after, x->time_limit,
				     i >= x->nladder, x->out);
		if (rc < 0)
			return -1;
		if (rc)
			break;
		s->p_pend = (int)x->nc; /* a placeholder: not a cand */
	}
	return 0;
}

/* On-demand when the preemptible units did not bring the group to the
 * threshold within the scale delay. */
static int run_submit_ondemand(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_policy *p = x->p;
	const struct job_view *base = x->base;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;
	int rc;

	if (ondemand_permitted(p, base)) {
		unsigned threshold =
		    base->opts->ondemand == ELASTIC_ONDEMAND_ALWAYS ? x->target
								    : o->min;
		unsigned have = x->b;

		for (size_t i = 0; i < x->nladder; i++) {
			const struct slot *s = &r->slots[i];

			if (s->p_run >= 0 || s->od_run >= 0 || s->od_pend >= 0)
				have += s->size;
		}
		if (have >= threshold) {
			g->shortfall_since = 0;
		} else if (!g->shortfall_since) {
			g->shortfall_since = now;
		}
		if (g->shortfall_since && x->can_submit &&
		    now - g->shortfall_since >=
			(int64_t)o->scale_delay * 1000) {
			unsigned after = x->b;

			for (size_t i = 0; i < x->nladder && have < threshold;
			     i++) {
				struct slot *s = &r->slots[i];

				after += s->size;
				if (x->discrete && i > x->frontier)
					break;
				if (s->p_run >= 0 || s->od_run >= 0 ||
				    s->od_pend >= 0)
					continue;
				rc = rec_submit_unit(
				    r, g, p, now, UNIT_ONDEMAND, s->size, after,
				    x->time_limit, false, out);
				if (rc < 0)
					return -1;
				if (rc)
					break;
				have += s->size;
			}
			g->shortfall_since = 0;
		}
	} else {
		g->shortfall_since = 0;
	}
	return 0;
}

/* The best world from what runs now, into r->nworld. */
static void run_best_world(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	size_t nitems = 0;
	unsigned limit;

	for (size_t i = 0; i < x->nladder; i++) {
		const struct slot *s = &r->slots[i];
		int c = s->p_run >= 0 ? s->p_run : s->od_run;

		if (c >= 0)
			r->items[nitems++] = c;
	}
	qsort_r(r->items, nitems, sizeof(*r->items), by_preference, r);
	limit = x->target > g->world_nodes ? x->target : g->world_nodes;
	x->nodes = rec_choose_world(r, o, x->b, limit, nitems);
	if (x->nodes) {
		r->nworld[x->nn++] =
		    (struct world_member){ g->id, x->b, MEMBER_BASE };
		for (size_t i = 0; i < nitems; i++) {
			const struct cand *c = &r->cands[r->items[i]];

			if (!r->chosen[i])
				continue;
			if (!c->in_world && !x->newcomer)
				x->newcomer = c->job;
			r->nworld[x->nn++] = (struct world_member){
				c->job,
				c->nnodes,
				c->kind == UNIT_ONDEMAND ? MEMBER_ONDEMAND
							 : MEMBER_PREEMPTIBLE,
			};
		}
		x->same = g->formed && x->nn == g->nworld &&
			  g->world[0].nnodes == x->b;
		for (size_t i = 1; x->same && i < x->nn; i++)
			x->same = rec_in_world(g, r->nworld[i].job);
	}
}

/* A group without a world yet: form it. */
static int run_first_world(struct run *x, bool adopt)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct job_view *base = x->base;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;

	/* Nothing to wait for when no unit runs or can come (no
	 * PreemptiblePartitions, no time left for one): the base at
	 * min is the world, at once. */
	bool complete = x->nodes && (x->nodes >= x->target ||
				     (!x->can_submit && x->nc == 0));

	if (x->nodes && adopt) {
		/* elasticd restarted: what runs is the world. */
		if (rec_apply_world(
			r, g, now, r->nworld, x->nn, x->nodes, CAUSE_START,
			"rebuilt after elasticd restarted", false, out) < 0)
			return -1;
	} else if (x->nodes &&
		   (complete || now - (int64_t)base->start_time * 1000 >=
				    (int64_t)o->scale_delay * 1000)) {
		if (rec_apply_world(
			r, g, now, r->nworld, x->nn, x->nodes, CAUSE_START,
			g->generation ? "world formed" : "first world", false,
			out) < 0)
			return -1;
	}
	return 0;
}

/* A loss answered at once at the same size: a unit that ran beside the
 * world (a spare, or one not taken in yet) takes the lost one's place.
 * The event says so; a spare's is a swap. */
static const char *swap_words(struct run *x, char *buf, size_t len)
{
	bool spare = false;

	if (!x->newcomer || x->nodes != x->g->world_nodes)
		return x->lost;
	for (size_t i = 0; i < x->nwas_spare; i++)
		spare |= x->was_spare[i] == x->newcomer;
	snprintf(buf, len, "%s; %sunit %u in its place", x->lost,
		 spare ? "spare " : "", x->newcomer);
	x->r->swaps += spare;
	return buf;
}

/* Members preempted: on at once without them (with a spare, at the same
 * size). */
static int run_preempted(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	int64_t now = x->now;
	struct action_list *out = x->out;
	char why[DETAIL_MAX + 48];

	if (x->nodes ? rec_apply_world(
			   r, g, now, r->nworld, x->nn, x->nodes, CAUSE_PREEMPT,
			   swap_words(x, why, sizeof(why)), true, out)
		     : rec_lose_world(r, g, now, CAUSE_PREEMPT, x->lost, out))
		return -1;
	return 0;
}

/* Members failed: wait the fault timeout for a replacement, unless a
 * spare is there. */
static int run_failed(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;
	char why[DETAIL_MAX + 48];

	if (!g->loss_since && x->nodes && x->nodes >= g->world_nodes)
		return rec_apply_world(
			   r, g, now, r->nworld, x->nn, x->nodes, CAUSE_FAIL,
			   swap_words(x, why, sizeof(why)), true, out) < 0
			   ? -1
			   : 0;
	if (!g->loss_since) {
		g->loss_since = now;
		if (!rec_push(out, ACTION_NOTE, g->id,
			      "group %u: %s: waiting up to %u s for a "
			      "replacement",
			      g->id, x->lost, o->fault_timeout))
			return -1;
	}
	if (x->nodes && x->nodes >= g->world_nodes) {
		if (rec_apply_world(r, g, now, r->nworld, x->nn, x->nodes,
				    CAUSE_FAIL, "replaced", true, out) < 0)
			return -1;
	} else if (now - g->loss_since >= (int64_t)o->fault_timeout * 1000) {
		if (x->nodes) {
			/* Room for all of it: the event keeps what fits. */
			snprintf(why, sizeof(why),
				 "%s; no replacement within %u s", x->lost,
				 o->fault_timeout);
			if (rec_apply_world(r, g, now, r->nworld, x->nn,
					    x->nodes, CAUSE_FAIL, why, true,
					    out) < 0)
				return -1;
		} else if (!x->nodes &&
			   rec_note_once(g, NOTE_BELOW_MIN, out,
					 "group %u: below --elastic-min=%u: "
					 "waiting for units",
					 g->id, o->min) < 0) {
			return -1;
		}
	}
	return 0;
}

/* A better world runs (growth, a cap, on-demand in or out): after the
 * scale delay. */
static int run_change(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;

	bool od_in = false, od_out = false;

	for (size_t i = 1; i < x->nn; i++)
		od_in |= r->nworld[i].kind == MEMBER_ONDEMAND &&
			 !rec_in_world(g, r->nworld[i].job);
	for (size_t i = 1; i < g->nworld; i++) {
		bool kept = false;

		for (size_t k = 1; k < x->nn; k++)
			kept |= r->nworld[k].job == g->world[i].job;
		od_out |= !kept && g->world[i].kind == MEMBER_ONDEMAND;
	}
	if (!g->change_since)
		g->change_since = now;
	if (now - g->change_since >= (int64_t)o->scale_delay * 1000) {
		enum event_cause cause =
		    x->nodes > g->world_nodes
			? (od_in ? CAUSE_ONDEMAND : CAUSE_GROW)
		    : od_out ? CAUSE_RETURN
			     : CAUSE_GROW;
		const char *why =
		    x->nodes < g->world_nodes ? "policy lowered the cap"
		    : cause == CAUSE_ONDEMAND ? "on-demand units started"
		    : cause == CAUSE_RETURN   ? "back to preemptible units"
					      : "units started";

		if (rec_apply_world(r, g, now, r->nworld, x->nn, x->nodes,
				    cause, why, true, out) < 0)
			return -1;
	}
	return 0;
}

/* Rebalance=yes chose a unit of this group for a group below its share
 * (rec_plan_rebalance): the world goes on without it, whose ranks are
 * told and have the grace, as at a preemption.  Not when the world
 * changes anyway this pass, nor when the unit is no longer what it was. */
static int run_shed(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct job_view *j = snapshot_find(r->snap, r->shed_job);
	char why[DETAIL_MAX];
	size_t nn = 0;
	unsigned nodes = 0;

	for (size_t i = 0; i < g->nworld; i++) {
		if (g->world[i].job == r->shed_job) {
			if (g->world[i].kind != MEMBER_PREEMPTIBLE)
				return 0;
			continue;
		}
		r->nworld[nn++] = g->world[i];
		nodes += g->world[i].nnodes;
	}
	if (nn == g->nworld || !j || !rec_usable(j) ||
	    !options_size_allowed(x->o, nodes))
		return 0;
	r->last_rebalance = x->now;
	snprintf(why, sizeof(why), "unit %u to group %u, below its share",
		 r->shed_job, r->shed_taker);
	if (rec_release_at(g, r->shed_job,
			   x->now + (int64_t)x->o->grace * 1000) < 0)
		return -1;
	return rec_apply_world(r, g, x->now, r->nworld, nn, nodes,
			       CAUSE_REBALANCE, why, true, x->out);
}

/* Since when the group waits to grow: below its target with a
 * preemptible unit pending (what sharing and rebalancing weigh). */
static void run_wait(struct run *x)
{
	struct group *g = x->g;
	bool pending = false;

	for (size_t i = 0; i < x->nladder; i++)
		pending |= x->r->slots[i].p_run < 0 &&
			   x->r->slots[i].od_run < 0 &&
			   x->r->slots[i].p_pend >= 0;
	if (!g->formed || g->world_nodes >= x->target || !pending)
		g->grow_since = 0;
	else if (!g->grow_since)
		g->grow_since = x->now;
	/* What holds it below its max, if anything. */
	if (!g->formed || g->world_nodes >= x->o->max)
		g->held = HELD_NONE;
	else if (x->target <= g->world_nodes)
		g->held = HELD_CAP;
	else if (pending)
		g->held = HELD_NODES;
	else
		g->held = x->can_submit ? HELD_NONE : x->held;
}

/* The base runs: keep its group between min and its target. */
int rec_step_running(struct reconcile *r, struct group *g,
		     const struct elastic_policy *p, int64_t now, bool adopt,
		     struct action_list *out)
{
	const struct job_view *base = g->base;
	struct elastic_submitter who = { base->user, base->account };
	const char *cap_key;
	unsigned cap = options_node_cap(p, &who, &cap_key);
	struct run run = {
		.r = r, .g = g, .p = p, .base = base, .o = base->opts,
		.now = now, .out = out, .b = base->nnodes,
		.discrete = base->opts->nsizes > 0, .same = true,
	}, *x = &run;
	int rc;

	g->weight = share_weight(p, base->account, base->qos);
	x->nladder = rec_ladder(x->o, cap, x->b, r->slots, &x->target);
	x->nslots = rec_spare_slots(x->o, cap, x->target, r->slots, x->nladder);
	for (size_t i = 0; i < x->nslots; i++)
		r->slots[i].p_run = r->slots[i].p_pend = r->slots[i].od_run =
		    r->slots[i].od_pend = -1;
	if (rec_trim_pending(r, g, now) < 0 || run_candidates(x) < 0)
		return -1;
	run_match(x);
	spares_kept(x);
	if (run_releases(x) < 0)
		return -1;
	run_losses(x);
	if (run_can_submit(x) < 0)
		return -1;
	if (x->can_submit &&
	    (rec_rerank_pending(r, g, p, x->b, x->nslots, now) < 0 ||
	     run_submit_preemptible(x) < 0))
		return -1;
	if (run_submit_ondemand(x) < 0)
		return -1;
	run_best_world(x);
	if (!g->formed)
		rc = run_first_world(x, adopt);
	else if (x->preempted)
		rc = run_preempted(x);
	else if (x->failed)
		rc = run_failed(x);
	else if (x->nodes && !x->same)
		rc = run_change(x);
	else if (g->id == r->shed_group)
		g->change_since = 0, rc = run_shed(x);
	else
		g->change_since = 0, rc = 0;
	if (rc < 0)
		return -1;
	run_wait(x);

	if (!g->formed)
		g->state = x->b < x->o->min && !x->nodes ? GROUP_DEGRADED
							 : GROUP_STARTING;
	else if (g->loss_since)
		g->state = GROUP_DEGRADED;
	else if (g->change_since || now < g->resizing_until)
		g->state = GROUP_RESIZING;
	else
		g->state = GROUP_RUNNING;
	return rec_send_releases(r, g, now, out);
}
