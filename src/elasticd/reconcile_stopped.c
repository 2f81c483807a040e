/* A group whose base does not run (reconcile_impl.h): its units go, and a
 * base Slurm held after a failed launch is released a bounded number of
 * times.  Pure: actions out, nothing sent. */
#include "config.h"

#include "reconcile_impl.h"

/*
 * Slurm requeued the base and held it because its launch failed on a node
 * (which it drained): a prolog failed there, or the requeue after a node
 * failure raced the node's return and met the old job still on it.  The
 * job is fine; let it start on other nodes, a bounded number of times, so
 * that a job that fails every node it lands on is left to an admin.  Once
 * per hold: a hold is the base's requeue count.
 */
static int release_launch_hold(struct reconcile *r, struct group *g,
			       int64_t now, struct action_list *out)
{
	const struct job_view *b = g->base;
	unsigned max = r->cfg.release_launch_holds;
	char detail[96];

	if (g->holds_released && g->hold_restarts == b->restarts) {
		/* Sent already: again only if it got lost. */
		if (now - g->hold_sent < (int64_t)r->cfg.cancel_retry_ms)
			return 0;
	} else if (g->holds_released >= max) {
		return rec_note_once(g, NOTE_LAUNCH_HOLD, out,
				     "group %u: base held by Slurm after a "
				     "failed launch, released %u time(s) "
				     "already (ElasticdReleaseLaunchHolds=%u): "
				     "left to an admin",
				     g->id, g->holds_released, max);
	} else {
		g->holds_released++;
		snprintf(detail, sizeof(detail),
			 "base's launch failed, held by Slurm: released "
			 "(%u of %u)",
			 g->holds_released, max);
		rec_add_event(g, now, CAUSE_FAIL, detail);
	}
	g->hold_restarts = b->restarts;
	g->hold_sent = now;
	struct action *a =
	    rec_push(out, ACTION_RELEASE, g->id,
		     "group %u: base held by Slurm after a failed "
		     "launch: release (%u of %u)",
		     g->id, g->holds_released, max);
	if (!a)
		return -1;
	a->job = b->id;
	return 0;
}

/* The base is pending or has ended: its units go. */
int rec_step_stopped(struct reconcile *r, struct group *g, int64_t now,
		     struct action_list *out)
{
	const struct job_view *base = g->base;
	bool ended = !base || !rec_live(base);

	g->nspare = 0; /* every unit goes */
	for (size_t i = 0; i < g->nunits; i++)
		if (rec_live(g->units[i]) &&
		    rec_release_at(g, g->units[i]->id, now) < 0)
			return -1;
	if (ended && !g->end_noted) {
		g->end_noted = true;
		rec_add_event(g, now, CAUSE_END,
			      base ? rec_end_words(base) : "gone");
		r->resizes[CAUSE_END]++;
		if (!rec_push(out, ACTION_NOTE, g->id,
			      "group %u: base %s: releasing its units", g->id,
			      base ? rec_end_words(base) : "gone"))
			return -1;
	}
	if (g->formed) {
		/* Requeued or ended: the world is over; a requeued base
		 * starts a new one above the same generation. */
		g->formed = false;
		g->nworld = 0;
		g->world_nodes = 0;
		r->dirty = true;
	}
	g->change_since = g->loss_since = g->shortfall_since = 0;
	g->state = ended ? GROUP_COMPLETING : GROUP_PENDING;
	if (base && base->launch_held &&
	    release_launch_hold(r, g, now, out) < 0)
		return -1;
	return rec_send_releases(r, g, now, out);
}
