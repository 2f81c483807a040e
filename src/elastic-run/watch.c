/* One launch watched to its end, and what happened (elastic-run.h). */
#include "config.h"

#include "elastic-run.h"

/* Tell elasticd the ranks run in its world (the resize is over), how
 * long they took to leave the last one, and whether we relay events
 * (while the sentinel hears the base's steps: elasticd then signals the
 * base alone). */
void report_up(const struct config *c, struct source *src,
	       const struct members *ms)
{
	elastic_error_t err;

	if (!src->ed_mode)
		return;
	if (elasticd_report(&src->ed, c->job_id, ms->generation, src->exit_ms,
			    sentinel_hears(), ED_TIMEOUT_MS, &err) < 0)
		elog_warn("report to elasticd: %s", err.text);
	src->exit_ms = -1;
}
/* A node the heartbeats found lost, or where a rank hangs: into w. */
static bool watch_fault(const struct config *c, struct source *src,
			const struct members *ms, unsigned restart,
			struct watch *w)
{
	struct lost_node lost;

	heartbeat_grace(c, restart, ms->nnodes);
	if (heartbeat_lost(restart, ms->nnodes, &lost))
		;
	else if (heartbeat_ring_cut() && heartbeat_split(ms, restart, w))
		return true; /* a split, found at the heartbeats' pace */
	else if (heartbeat_hung(&lost)) {
		/* Ranks stuck in a collective across a split: the split. */
		if (heartbeat_split(ms, restart, w))
			return true;
		heartbeat_hang_named(restart, ms->nnodes, &lost);
	} else if (!heartbeat_slow(c, src, ms, restart, &lost))
		return false;
	w->cause = lost.kind;
	if (!strcmp(lost.kind, "straggler"))
		snprintf(w->detail, sizeof(w->detail), "node=%s job=%u",
			 lost.node, lost.job);
	else
		snprintf(w->detail, sizeof(w->detail),
			 "node=%s job=%u silent=%.1f heard=%s", lost.node,
			 lost.job, lost.silent_s, lost.heard ? "yes" : "no");
	snprintf(w->lost_node, sizeof(w->lost_node), "%s", lost.node);
	w->lost_job = lost.job;
	if (lost.silent_s > 0)
		w->onset = now_s() - lost.silent_s;
	return true;
}
/* Ranks that failed: in a rendezvous or a collective across a split
 * between nodes that all still answer?  The split, if so. */
static bool watch_split(const struct members *ms, const struct launch *l,
			unsigned restart, struct watch *w)
{
	int failed = member_failed(l);

	return failed >= 0 &&
	       member_end_of(l->status[failed]) == MEMBER_FAILED &&
	       heartbeat_split(ms, restart, w);
}

/* A member ended while others run: why, into w, if it matters. */
static bool watch_member_end(struct source *src, const struct members *ms,
			     struct launch *l, unsigned restart,
			     struct watch *w)
{
	int failed;

	/* One that ended well: its node may be gone (srun then ends with
	 * 0). */
	if (l->running > 0 && src->ed_mode &&
	    (failed = member_gone(ms, l, w->detail, sizeof(w->detail))) >= 0) {
		w->cause = "member-exit";
		return true;
	}
	if ((failed = member_failed(l)) < 0)
		return false;
	if (watch_split(ms, l, restart, w))
		return true;
	/* The others may wait on it in a collective. */
	w->cause = member_end_of(l->status[failed]) == MEMBER_EVENT
		       ? "ranks-event"
		       : "member-exit";
	snprintf(w->detail, sizeof(w->detail), "job=%u nodes=%s",
		 l->job[failed], member_nodes(ms, (size_t)failed));
	return true;
}

/* Watch the ranks until they all exit or something happens. */
void watch_launch(const struct config *c, struct source *src,
		  struct members *ms, struct launch *l, struct sentinel *sen,
		  unsigned restart, struct watch *w)
{
	double next_poll = now_s() + ALLOC_POLL_MS / 1000.0;
	double next_ckpt = now_s() + CKPT_TICK_S, settle;
	double next_stale = now_s() + STALE_CHECK_S;
	bool up = false;

	memset(w, 0, sizeof(*w));
	while (reap(l) > 0) {
		if (got_stop) {
			w->cause = "stop";
			snprintf(w->detail, sizeof(w->detail), "signal=%s",
				 signame((int)got_stop));
			w->stopping = true;
			return;
		}
		if (got_event) {
			w->cause = "signal";
			snprintf(w->detail, sizeof(w->detail), "signal=%s",
				 signame((int)got_event));
			return;
		}
		if (sentinel_event(c, sen, &w->cause, &w->stopping, w->detail,
				   sizeof(w->detail)))
			return;
		if (watch_fault(c, src, ms, restart, w))
			return;
		if (l->running < l->n &&
		    watch_member_end(src, ms, l, restart, w))
			return;
		if (!up && launch_up(l) >= l->n) {
			up = true;
			timeline("ranks-up", restart, ms->nnodes, "ranks=%u",
				 ms->nnodes * c->nproc_per_node);
			report_up(c, src, ms);
			ledger_up();
		}
		/* slurmctld restarted during the launch may have brought
		 * ghosts back: a launch waiting on them starts again. */
		if (!up && !l->overlap && now_s() >= next_stale) {
			size_t was = l->stale;

			l->stale = launch_stale(c, l, true);
			if (was && l->stale) {
				w->cause = "stale-steps";
				snprintf(w->detail, sizeof(w->detail),
					 "ghosts=%zu", l->stale);
				return;
			}
			next_stale = now_s() + STALE_CHECK_S;
		}
		if (now_s() >= next_ckpt) {
			ckpt_pass(c, restart, ms->nnodes);
			next_ckpt = now_s() + CKPT_TICK_S;
		}
		if (world_changed(c, src, ms, &next_poll, w->detail,
				  sizeof(w->detail))) {
			w->cause = "membership";
			return;
		}
		inplace_serve(c, sen->fd, POLL_MS);
		inplace_reap();
		/* Noted while all the ranks live. */
		inplace_capable(c, ms);
		sparecheck_tend(c, src, ms, restart);
		spares_tend(c, ms, restart);
		ledger_tick(src, ms);
	}

	if (watch_split(ms, l, restart, w))
		return;
	/* The ranks all exited: was it an event whose signal reaches us
	 * after the ranks (slurmd tells the batch step last)? */
	settle = now_s() + SETTLE_MS / 1000.0;
	while (!got_event && !got_stop && now_s() < settle) {
		if (sentinel_event(c, sen, &w->cause, &w->stopping, w->detail,
				   sizeof(w->detail)))
			return;
		sleep_ms(20);
	}
	if (got_event || got_stop) {
		w->cause = got_stop ? "stop" : "signal";
		w->stopping = got_stop != 0;
		snprintf(w->detail, sizeof(w->detail), "signal=%s",
			 signame(got_stop ? (int)got_stop : (int)got_event));
	}
}
/*
 * The grace checked against reality: the ranks took exit_s from being
 * told to exiting.  Within half the grace of being killed, a larger
 * checkpoint will not make it: say so while there is time to act.  When
 * no member exited at all, the ranks most likely never watched the event
 * (a plain torchrun script): a longer grace would only cost more.
 */
static void grace_check(const struct config *c, unsigned restart,
			unsigned nnodes, double exit_s, size_t killed,
			size_t members)
{
	if (!c->grace || exit_s * 2 < c->grace)
		return;
	timeline("grace-warning", restart, nnodes,
		 "exit_seconds=%.3f grace=%u killed=%s", exit_s, c->grace,
		 killed ? "yes" : "no");
	if (killed && killed == members)
		elog_warn("no rank exited in the %u s grace after the event "
			  "(SIG%s): ranks that do not watch it "
			  "(elastic_event_detected(), libelastic(3); "
			  "slurm_elastic in Python) run until killed, so each "
			  "resize costs the whole grace; watch the event, or "
			  "shorten --elastic-grace if the script resumes from "
			  "checkpoints of its own",
			  c->grace, signame(c->sig));
	else
		elog_warn("the ranks took %.1f s of the %u s grace to "
			  "checkpoint and exit%s: raise --elastic-grace (or "
			  "checkpoint faster) before Slurm kills a checkpoint "
			  "half-written",
			  exit_s, c->grace, killed ? " and were killed" : "");
}
/* The launcher saw an event: tell the ranks, give them the grace, kill
 * what is left.  The ranks' time to exit is checked against the grace. */
void end_launch(const struct config *c, struct source *src, struct launch *l,
		const struct members *ms, unsigned restart, struct watch *w)
{
	/* Ranks in a collective with a dead peer cannot act on the event:
	 * the grace would only be waited out. */
	bool lost = w->lost_job != 0;
	unsigned grace =
	    lost && c->grace > LOST_EXIT_S ? LOST_EXIT_S : c->grace;
	double t_event = now_s(), deadline = t_event + grace, waited;
	bool told = false, running = l->running > 0;
	/* Heard by the sentinel: the base's steps have the event. */
	uint32_t had = !strcmp(w->cause, "raised") ? c->job_id : 0;
	size_t left, relayed = 0;
	char st[256];

	timeline("event", restart, ms->nnodes, "cause=%s %s", w->cause,
		 w->detail);
	ledger_event(w);
	if (lost)
		release_lost(c, src, ms, l, w, restart);
	if (running)
		told = raise_launch(c, l, had, &relayed) > 0;
	timeline("told", restart, ms->nnodes,
		 "signal=%s ok=%s relayed=%zu had=%u", signame(c->sig),
		 told || !running ? "yes" : "no", relayed, had);
	last_raise = now_s();
	while (reap(l) > 0 && now_s() < deadline) {
		/* A rank still starting (importing its framework) has no
		 * handler yet and ignores the signal: tell them again. */
		if (now_s() >= last_raise + RERAISE_S) {
			raise_launch(c, l, 0, &relayed);
			last_raise = now_s();
		}
		ledger_tick(src, NULL);
		sleep_ms(POLL_MS);
	}
	waited = now_s() - t_event;
	left = l->running;
	if (left > 0) {
		kill_launch(l);
		timeline("exited", restart, ms->nnodes,
			 "killed_members=%zu grace=%u waited=%.3f", left, grace,
			 waited);
	} else {
		describe_status(l, st, sizeof(st));
		timeline("exited", restart, ms->nnodes,
			 "killed_members=0 waited=%.3f status=%s", waited, st);
	}
	if (running && !w->stopping && !lost) {
		grace_check(c, restart, ms->nnodes, waited, left, l->n);
		src->exit_ms = (long)(waited * 1000);
	}
	ckpt_pass(c, restart, ms->nnodes);
	ledger_tick(src, NULL);
}
/* What the decision needs to know of a launch that is over. */
void observe(const struct config *c, struct source *src, struct members *ms,
	     const struct launch *l, struct watch *w, struct launch_obs *o)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->stopping = w->stopping;
	o->finished = w->finished;
	o->fault = w->lost_job ? w->cause : NULL;
	o->event = w->cause && strcmp(w->cause, "member-exit") != 0 &&
		   strcmp(w->cause, "ranks-event") != 0;
	for (i = 0; i < l->n; i++) {
		switch (member_end_of(l->status[i])) {
		case MEMBER_OK:
			o->ok++;
			break;
		case MEMBER_EVENT:
			o->event_exits++;
			break;
		case MEMBER_FAILED:
			o->failed++;
			break;
		}
	}
	if (o->stopping || o->event || o->finished)
		return;
	/* Nothing reached the launcher: ask at once whether the world is
	 * still the one the ranks were launched on; after a failure, give
	 * slurmctld and elasticd a moment to show a lost member. */
	if (!world_intact(c, src, ms, w->world, sizeof(w->world)))
		o->world_changed = true;
	else if (o->failed && !o->event_exits)
		o->world_changed =
		    world_moved(c, src, ms, w->world, sizeof(w->world));
}