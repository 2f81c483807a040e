/*
 * The goodput simulator's groups and policies (goodsim_impl.h): each
 * group's training (the position, periodic checkpoints, pauses, the work
 * a crash loses), the elastic and in-place policies and the native and
 * restart-at-size ones.  elasticd's decisions are its own code: one
 * reconcile instance per group (a pass treats groups one by one, so a
 * group's decisions depend on its jobs alone), each passed when something
 * of its group moved, when its timers can run out (gs_wake()), and every
 * IDLE_PASS_MS besides.  The groups and their training are written here
 * only; of the jobs (goodsim_slurm.c's) only what elasticd and the ranks
 * note on them, and what a restart-at-size job asks for.
 */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "goodsim_impl.h"

/* ---------------------------------------------------------- training */

static double group_rate(const struct sim *s, const struct gtrain *t)
{
	return goodsim_world_rate(s->p, t->world) / 1000.0; /* a ms */
}

/* An async save done by t: the checkpoint to fall back on. */
static void ckpt_durable(struct gtrain *tr, int64_t t)
{
	if (tr->pend_ms && tr->pend_ms <= t) {
		tr->ckpt = tr->pend;
		tr->pend_ms = 0;
	}
}

/* A periodic save at tr->ckpt_ms, the position there: synchronous (the
 * step loop waits for the write) or async (for the copy alone; the next
 * save waits for the write before it). */
static void ckpt_periodic(const struct sim *s, struct gtrain *tr)
{
	int64_t at = tr->ckpt_ms, write = ms_of(s->p->ckpt_s);

	if (s->p->ckpt_stall_s < 0) {
		tr->ckpt = tr->done;
		tr->seg_ms = at + write;
		return;
	}
	if (tr->pend_ms > at)
		at = tr->pend_ms; /* the last one's write first */
	ckpt_durable(tr, at);
	tr->pend = tr->done;
	tr->pend_ms = at + write;
	tr->seg_ms = at + ms_of(s->p->ckpt_stall_s);
}

/* Bring the position to time t: periodic checkpoints on the way. */
void gs_train_to(struct sim *s, struct gtrain *tr, int64_t t)
{
	int64_t every = ms_of(s->p->ckpt_every_s);

	if (tr->state == T_WAIT && tr->wait_ms <= t) {
		tr->state = T_TRAIN;
		tr->seg_ms = tr->wait_ms;
		tr->ckpt_ms = tr->wait_ms + every;
	}
	if (tr->state != T_TRAIN)
		return;
	if (tr->next && tr->switch_ms <= t) {
		/* In place: the old world trained up to the switch. */
		int64_t at = tr->switch_ms, back = at + ms_of(s->p->inplace_s);
		unsigned next = tr->next;

		tr->next = 0;
		gs_train_to(s, tr, at);
		tr->world = next;
		if (tr->seg_ms < back)
			tr->seg_ms = back;
		if (tr->ckpt_ms < tr->seg_ms)
			tr->ckpt_ms = tr->seg_ms; /* due in the pause: after */
	}
	while (tr->ckpt_ms <= t) {
		if (tr->ckpt_ms > tr->seg_ms)
			tr->done += group_rate(s, tr) *
				    (double)(tr->ckpt_ms - tr->seg_ms);
		ckpt_periodic(s, tr);
		tr->ckpt_ms = tr->seg_ms + every;
	}
	ckpt_durable(tr, t);
	if (t > tr->seg_ms) {
		tr->done += group_rate(s, tr) * (double)(t - tr->seg_ms);
		tr->seg_ms = t;
	}
}

/* The ranks are told to stop: they checkpoint (nothing lost); a grow
 * in place that was pending is off. */
static void train_stop(struct sim *s, struct gtrain *tr, int64_t t)
{
	gs_train_to(s, tr, t);
	if (tr->state == T_TRAIN)
		tr->ckpt = tr->done;
	tr->pend_ms = 0; /* a save at the event: it supersedes */
	tr->state = T_IDLE;
	tr->next = 0;
}

/* A rank died: the work since the last checkpoint is done again. */
static void train_crash(struct sim *s, struct gtrain *tr, int64_t t)
{
	gs_train_to(s, tr, t);
	if (tr->state == T_IDLE)
		return;
	s->res.repeated += tr->done - tr->ckpt;
	tr->done = tr->ckpt;
	tr->pend_ms = 0; /* an async save under way dies with the rank */
	tr->state = T_IDLE;
}

/* Training again at world nodes from time t. */
static void train_resume(struct gtrain *tr, unsigned world, int64_t t)
{
	tr->state = world ? T_WAIT : T_IDLE;
	tr->world = world;
	tr->wait_ms = t;
}

/* ------------------------------------------------------------ passes */

static void due_at(struct ggroup *g, int64_t t)
{
	unsigned i, last = 0;

	for (i = 0; i < g->ndue; i++) {
		if (g->due[i] == t)
			return;
		if (g->due[i] > g->due[last])
			last = i;
	}
	if (g->ndue < WAKE_MAX)
		g->due[g->ndue++] = t;
	else if (t < g->due[last])
		g->due[last] = t; /* the latest is left to the idle pass */
}

/*
 * Something of g moved: pass it at the next tick, and again when the
 * timers the pass keeps can run out (a scale delay, a fault timeout, a
 * grace, a crash seen by Slurm), a tick after each.  With exact_passes,
 * at every tick for as long as the longest of them (elasticd's own
 * rhythm; the figures of both are compared by the tests).
 */
void gs_wake(struct sim *s, struct ggroup *g)
{
	const struct goodsim_params *p = s->p;
	int64_t tick = p->tick_ms, t[5] = { 0, p->scale_delay_s * 1000LL,
					    p->fault_timeout_s * 1000LL,
					    p->grace_s * 1000LL, seen_ms(s) };

	if (p->exact_passes) {
		int64_t w = 0;

		for (int i = 0; i < 5; i++)
			w = t[i] > w ? t[i] : w;
		w += s->now + 3 * tick + seen_ms(s);
		if (g->awake_ms < w)
			g->awake_ms = w;
		return;
	}
	for (int i = 0; i < 5; i++)
		due_at(g, (s->now + t[i]) / tick * tick + tick);
}

/* Is a pass of g due now?  The dues it meets are spent. */
static bool pass_due(struct sim *s, struct ggroup *g)
{
	bool due = s->now <= g->awake_ms || s->now >= g->next_pass_ms;
	unsigned k = 0;

	for (unsigned i = 0; i < g->ndue; i++)
		if (g->due[i] <= s->now)
			due = true;
		else
			g->due[k++] = g->due[i];
	g->ndue = k;
	return due;
}

/* ----------------------------------------------------------- elastic */

static int group_add_job(struct ggroup *g, int32_t j)
{
	return gs_push_index(&g->jobs, &g->njobs, &g->cap, j);
}

static struct snapshot *group_snapshot(struct sim *s, struct ggroup *g)
{
	struct snapshot *snap =
	    snapshot_create((time_t)((T0_MS + s->now) / 1000));
	size_t k = 0;

	if (!snap)
		return NULL;
	for (size_t i = 0; i < g->njobs; i++) {
		struct gjob *t = &s->job[g->jobs[i]];
		struct job_view v = { 0 };

		if (t->phase == PHASE_GONE &&
		    s->now - t->gone_ms > GONE_KEEP_MS)
			continue; /* slurmctld forgot it */
		g->jobs[k++] = g->jobs[i];
		v.id = t->id;
		v.role = t->role;
		v.phase = t->phase;
		v.end = t->end;
		v.preempted = t->preempted;
		v.steps_gone = t->steps_gone;
		v.nnodes = t->nnodes;
		v.nodes = t->phase == PHASE_RUNNING ? "n1" : "";
		v.uid = 1000 + g->id % 1000;
		v.gid = 1000;
		v.user = "user";
		v.account = "acct";
		v.partition = t->role == ROLE_BASE	 ? "base"
			      : t->kind == UNIT_ONDEMAND ? "ondemand"
							 : "spot";
		v.submit_time = (time_t)((T0_MS + t->submit_ms) / 1000);
		if (t->phase != PHASE_PENDING)
			v.start_time = (time_t)((T0_MS + t->start_ms) / 1000);
		if (t->role == ROLE_BASE)
			v.opts = &s->opts;
		else {
			v.unit.group = g->id;
			v.unit.kind = t->kind;
			v.unit.nodes = t->nnodes;
		}
		if (snapshot_add(snap, &v, s->err) < 0) {
			snapshot_destroy(snap);
			return NULL;
		}
	}
	g->njobs = k;
	snapshot_finish(snap);
	return snap;
}

static struct gjob *group_job(struct sim *s, struct ggroup *g, uint32_t id)
{
	for (size_t i = 0; i < g->njobs; i++)
		if (s->job[g->jobs[i]].id == id)
			return &s->job[g->jobs[i]];
	return NULL;
}

static int apply(struct sim *s, struct ggroup *g, const struct action *a)
{
	struct gjob *j;
	int32_t k;

	switch (a->type) {
	case ACTION_SUBMIT:
		k = gs_job_new(s, (uint32_t)(g - s->group), ROLE_UNIT,
			       a->unit.tag.kind == UNIT_ONDEMAND ? POOL_ONDEMAND
								 : POOL_SPOT,
			       a->unit.tag.nodes);
		if (k < 0 || group_add_job(g, k) < 0)
			return elastic_errorf(s->err, "out of memory");
		s->job[k].kind = a->unit.tag.kind;
		reconcile_submitted(g->r, a->group, a->token, s->job[k].id,
				    T0_MS + s->now);
		break;
	case ACTION_CANCEL:
		j = group_job(s, g, a->job);
		if (j && j->phase != PHASE_GONE)
			gs_job_end(s, j, END_CANCELLED);
		break;
	default: /* raises: the world's change, below; notes */
		break;
	}
	return 0;
}

/*
 * In place, a world after the first: a grow keeps the world training
 * until the joiners are ready; a shrink, or a world after a crash,
 * re-forms at once.  World 0: the ranks stop.
 */
static void inplace_world(struct sim *s, struct gtrain *tr, unsigned w)
{
	int64_t pause = ms_of(s->p->inplace_s), join = ms_of(s->p->join_s);
	int64_t at;

	/* elasticd's world after the launcher's own of that size. */
	if (w && w == tr->world && tr->state != T_IDLE && !tr->next)
		return;
	s->res.resizes++;
	gs_train_to(s, tr, s->now);
	if (!w) {
		train_stop(s, tr, s->now);
		tr->world = 0;
		return;
	}
	if (tr->state == T_TRAIN && w > tr->world) {
		if (w > tr->next) /* new joiners: ready join_s from now */
			tr->switch_ms = s->now + join;
		tr->next = w;
		return;
	}
	/* A shrink, or no training to keep (a crash, a pause): joiners,
	 * if any, start now too. */
	at = s->now + pause + (w > tr->world ? join : 0);
	if (tr->state == T_WAIT && tr->wait_ms > at)
		at = tr->wait_ms;
	tr->next = 0;
	tr->state = T_WAIT;
	tr->world = w;
	tr->wait_ms = at;
}

/*
 * In place, a spare in a lost member's place, the world at its size: the
 * survivors re-form with the spare's ranks (inplace_s) once those are
 * ready (ready_ms: warm ones at once, cold ones after join_s).
 */
static void inplace_swap(struct sim *s, struct gtrain *tr, int64_t ready_ms)
{
	int64_t at =
	    (ready_ms > s->now ? ready_ms : s->now) + ms_of(s->p->inplace_s);

	s->res.resizes++;
	gs_train_to(s, tr, s->now);
	if (tr->state == T_WAIT && tr->wait_ms > at)
		at = tr->wait_ms;
	tr->next = 0;
	tr->state = T_WAIT;
	tr->wait_ms = at;
}

/* The members of elasticd's new world (ids world[0..n)) noted; of those
 * new to it, when the latest spare among them is ready (0: no spare
 * joins) and whether any other unit joins. */
static int64_t note_world(struct sim *s, struct ggroup *g,
			  const uint32_t *world, size_t n, bool *others)
{
	int64_t ready = 0;

	*others = false;
	for (size_t i = 0; i < n; i++) {
		struct gjob *j = group_job(s, g, world[i]);

		if (!j || j->in_world)
			continue;
		if (j->spare) {
			int64_t r = gs_spare_ready_ms(s, j);

			ready = r > ready ? r : ready;
			s->res.swaps++;
		} else
			*others = true;
	}
	for (size_t i = 0; i < g->njobs; i++)
		s->job[g->jobs[i]].in_world = false;
	for (size_t i = 0; i < n; i++) {
		struct gjob *j = group_job(s, g, world[i]);

		if (j)
			j->in_world = true;
	}
	return ready;
}

/* After a pass: a new generation is a new world for the ranks. */
static int follow_world(struct sim *s, struct ggroup *g)
{
	struct reconcile_group_status st;
	uint32_t world[GROUP_MAX_SLOTS + 1];
	bool training, others;
	int64_t spare;

	if (reconcile_group_status(g->r, g->id, &st, world,
				   GROUP_MAX_SLOTS + 1) < 0 ||
	    st.generation == g->generation)
		return 0;
	g->generation = st.generation;
	if (getenv("GOODSIM_DEBUG"))
		fprintf(stderr,
			"goodsim: %.3f s: group %u: generation %" PRIu64
			": %u nodes\n",
			(double)s->now / 1000, g->id, st.generation,
			st.world_nodes);
	spare = note_world(
	    s, g, world,
	    st.nworld < GROUP_MAX_SLOTS + 1 ? st.nworld : GROUP_MAX_SLOTS + 1,
	    &others);
	if (s->policy == GOODSIM_INPLACE && g->tr.world) {
		/* spares alone in lost members' places: a swap */
		if (spare && !others && st.world_nodes == g->tr.world)
			inplace_swap(s, &g->tr, spare);
		else
			inplace_world(s, &g->tr, st.world_nodes);
		return 0;
	}
	/* Before the old ranks are down the relaunch has not picked its
	 * world yet: it starts the newest, at no more cost. */
	if (g->tr.state == T_WAIT && s->now < g->pick_ms && st.world_nodes) {
		g->tr.world = st.world_nodes;
		return 0;
	}
	s->res.resizes += g->tr.state != T_IDLE || g->tr.world;
	/* Only ranks that train have a checkpoint to write. */
	gs_train_to(s, &g->tr, s->now);
	training = g->tr.state == T_TRAIN;
	train_stop(s, &g->tr, s->now);
	g->pick_ms =
	    s->now + ms_of((training ? s->p->ckpt_s : 0) + s->p->stop_s);
	train_resume(&g->tr, st.world_nodes,
		     s->now + ms_of((training ? s->p->ckpt_s : 0) +
				    s->p->restart_s + s->p->resize_s));
	return 0;
}

static int elastic_pass(struct sim *s, struct ggroup *g)
{
	struct snapshot *snap;
	int rc = 0;

	/* A preempted unit out of the world: its ranks left once the
	 * others checkpointed (elastic-run's steps end). */
	for (size_t i = 0; i < g->njobs; i++) {
		struct gjob *j = &s->job[g->jobs[i]];

		j->steps_gone = j->phase == PHASE_RUNNING && j->preempted &&
				!j->in_world &&
				(g->tr.state != T_IDLE || !g->tr.world);
	}
	snap = group_snapshot(s, g);
	if (!snap)
		return -1;
	s->res.passes++;
	if (reconcile_pass(g->r, snap, &s->pol, T0_MS + s->now, &s->actions,
			   s->err) < 0)
		rc = -1;
	for (size_t i = 0; rc == 0 && i < s->actions.n; i++)
		rc = apply(s, g, &s->actions.a[i]);
	if (rc == 0)
		rc = follow_world(s, g);
	/* after the world: a spare it took in joined as a spare */
	if (rc == 0)
		rc = gs_spares_note(s, g, snap);
	snapshot_destroy(snap);
	g->next_pass_ms = s->now + IDLE_PASS_MS;
	return rc;
}

/* ----------------------------------------------- native and restart */

/* Restart-at-size: how long the old job takes to end once told (its
 * ranks' checkpoint and end, stop_s; ranks still starting have nothing
 * to write: at once). */
static int64_t restart_end(struct sim *s, struct gtrain *tr)
{
	gs_train_to(s, tr, s->now);
	return tr->state == T_TRAIN ? ms_of(s->p->ckpt_s + s->p->stop_s) : 0;
}

/* Nodes of j that are there, while it runs. */
static size_t job_present(const struct sim *s, int32_t ji)
{
	const struct gjob *j = ji >= 0 ? &s->job[ji] : NULL;
	size_t n = 0;

	if (j && j->phase == PHASE_RUNNING && j->nodes)
		for (uint32_t i = 0; i < j->nnodes; i++)
			n += s->node[j->nodes[i]].present;
	return n;
}

/* What a restart-at-size job would ask for now: the nodes there are (the
 * free ones, its own and its ending predecessor's), up to max; 0 below
 * min. */
static unsigned restart_size(const struct sim *s, const struct ggroup *g)
{
	size_t n = gs_pool_free(s, POOL_ANY) + job_present(s, g->job) +
		   job_present(s, g->old);

	if (n > s->p->max)
		n = s->p->max;
	/* a sizes group: the largest of its sizes that fits */
	while (s->p->nsizes && n >= s->p->min &&
	       !options_size_allowed(&s->opts, (unsigned)n))
		n--;
	return n >= s->p->min ? (unsigned)n : 0;
}

/* A new job for the group, eligible after delay_ms (its ranks'
 * checkpoint) and the queue's wait. */
static int group_submit_job(struct sim *s, struct ggroup *g, uint32_t n,
			    int64_t delay_ms)
{
	int32_t k =
	    gs_job_new(s, (uint32_t)(g - s->group), ROLE_OTHER, POOL_ANY, n);

	if (k < 0)
		return elastic_errorf(s->err, "out of memory");
	s->job[k].eligible_ms = s->now + delay_ms + ms_of(s->p->queue_wait_s);
	g->job = k;
	return 0;
}

int64_t gs_ranks_leave(struct sim *s, struct ggroup *g, int32_t ji)
{
	int64_t end = restart_end(s, &g->tr);

	train_stop(s, &g->tr, s->now);
	g->tr.world = 0;
	if (s->policy == GOODSIM_RESTART)
		gs_job_term(s, ji, end);
	return end;
}

static int plain_step(struct sim *s, struct ggroup *g)
{
	struct gjob *j = g->job >= 0 ? &s->job[g->job] : NULL;
	unsigned want;
	int64_t end;

	if (j && j->phase == PHASE_RUNNING && !j->launched) {
		/* started: ranks up after the launch (restart-at-size: the
		 * old job's end, stop_s, came before the start) */
		j->launched = true;
		train_resume(
		    &g->tr, j->nnodes,
		    j->start_ms +
			ms_of(
			    s->p->start_s + s->p->restart_s -
			    (s->policy == GOODSIM_RESTART ? s->p->stop_s : 0)));
		s->res.resizes++;
		return 0;
	}
	if (s->policy != GOODSIM_RESTART ||
	    (j && j->phase == PHASE_RUNNING && (j->preempted || j->crashed)))
		return 0;
	want = restart_size(s, g);
	if (!j || j->phase == PHASE_GONE)
		return want ? group_submit_job(s, g, want, 0) : 0;
	if (j->phase == PHASE_PENDING) {
		if (want && want != j->nnodes)
			j->nnodes = want; /* asks for what there is */
		return 0;
	}
	if (want == j->nnodes || !want)
		return 0;
	/* a change: stop, and start again at the new size once the old
	 * job is gone */
	end = gs_ranks_leave(s, g, g->job);
	g->old = g->job;
	return group_submit_job(s, g, want, end);
}

/* ------------------------------------------------------------- faults */

void gs_ranks_crash(struct sim *s, const struct gjob *j)
{
	struct gtrain *tr = &s->group[j->group].tr;

	/* its ranks die; the others fail in the next collective: in
	 * place they stop there, each with the last completed step */
	if (s->policy == GOODSIM_INPLACE) {
		if (j->in_world)
			train_stop(s, tr, s->now);
	} else if (!elastic(s) || j->in_world)
		train_crash(s, tr, s->now);
}

/* In place, a unit's crash found by the launcher: a spare of as many
 * nodes takes its place (elastic-run's swap), else the survivors re-form
 * at once without it, when min or more are left (elastic-run's world of
 * its own); elasticd's next world follows. */
void gs_own_world(struct sim *s, struct gjob *j)
{
	struct ggroup *g = &s->group[j->group];
	struct gtrain *tr = &g->tr;
	struct gjob *sp;

	if (s->policy != GOODSIM_INPLACE || j->role == ROLE_BASE ||
	    !j->in_world)
		return;
	sp = tr->world ? gs_spare_for(s, g, j) : NULL;
	if (sp) {
		j->in_world = false;
		sp->in_world = true;
		s->res.swaps++;
		inplace_swap(s, tr, gs_spare_ready_ms(s, sp));
		gs_spare_set(s, sp, false);
		return;
	}
	if (tr->world <= j->nnodes ||
	    !options_size_allowed(&s->opts, tr->world - j->nnodes))
		return;
	j->in_world = false;
	inplace_world(s, tr, tr->world - j->nnodes);
}

/* ------------------------------------------------------------ a step */

int gs_policy_step(struct sim *s)
{
	for (uint32_t i = 0; i < s->p->groups; i++) {
		struct ggroup *g = &s->group[i];
		int rc;

		if (!elastic(s))
			rc = plain_step(s, g);
		else if (pass_due(s, g))
			rc = elastic_pass(s, g);
		else
			continue;
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ groups */

/* elasticd's configuration: the partitions, and each group's options. */
static void elastic_config(struct sim *s)
{
	const struct goodsim_params *p = s->p;
	unsigned held;

	_Static_assert(GOODSIM_SIZES_MAX <= ELASTIC_MAX_SIZES,
		       "a sizes group's sizes fit its options");

	policy_defaults(&s->pol);
	s->pol.preemptible_partitions.n = 1;
	strcpy(s->pol.preemptible_partitions.name[0], "spot");
	s->pol.ondemand_partitions.n = 1;
	strcpy(s->pol.ondemand_partitions.name[0], "ondemand");
	s->pol.ondemand_allowed = p->ondemand != ELASTIC_ONDEMAND_NEVER;
	s->opts.min = p->min;
	s->opts.max = p->max;
	s->opts.step = p->nsizes ? 0 : p->step;
	s->opts.nsizes = p->nsizes;
	memcpy(s->opts.sizes, p->sizes, p->nsizes * sizeof(*p->sizes));
	s->opts.spares = elastic(s) ? p->spares : 0;
	s->opts.grace = p->grace_s;
	s->opts.scale_delay = p->scale_delay_s;
	s->opts.fault_timeout = p->fault_timeout_s;
	s->opts.ondemand = p->ondemand;
	s->opts.signal = SIGURG;
	s->opts.keep = 3;
	s->opts.given =
	    (1u << ELASTIC_OPT_MIN) | (1u << ELASTIC_OPT_MAX) |
	    (1u << (p->nsizes ? ELASTIC_OPT_SIZES : ELASTIC_OPT_STEP)) |
	    (s->opts.spares ? 1u << ELASTIC_OPT_SPARES : 0);
	/* The spares' nodes count in the cap, beside max: room for them. */
	held = p->max + s->opts.spares * options_spare_nodes(&s->opts);
	if (s->pol.max_nodes < held)
		s->pol.max_nodes = held;
}

int gs_groups_init(struct sim *s)
{
	const struct goodsim_params *p = s->p;

	s->group = calloc(p->groups, sizeof(*s->group));
	if (!s->group)
		return elastic_errorf(s->err, "out of memory");
	elastic_config(s);
	for (uint32_t i = 0; i < p->groups; i++) {
		struct ggroup *g = &s->group[i];
		int32_t k;

		g->job = g->old = NOBODY;
		if (s->policy == GOODSIM_RESTART)
			continue; /* submitted when it can start */
		k = gs_job_new(s, i, elastic(s) ? ROLE_BASE : ROLE_OTHER,
			       elastic(s) ? POOL_ONDEMAND : POOL_ANY,
			       elastic(s) ? p->min : p->max);
		if (k < 0)
			return elastic_errorf(s->err, "out of memory");
		g->job = k;
		g->id = s->job[k].id;
		if (!elastic(s))
			continue;
		g->r = reconcile_create(NULL);
		if (!g->r || group_add_job(g, k) < 0)
			return elastic_errorf(s->err, "out of memory");
	}
	return 0;
}

void gs_groups_free(struct sim *s)
{
	for (uint32_t i = 0; s->group && i < s->p->groups; i++) {
		reconcile_destroy(s->group[i].r);
		free(s->group[i].jobs);
	}
	free(s->group);
	action_list_free(&s->actions);
}
