/*
 * Unit tests of reconcile.c: elasticd's decisions on plain data.  A small
 * simulated Slurm (struct sim) holds jobs; each pass builds a snapshot
 * from them, runs reconcile_pass() and applies the actions as slurmctld
 * would: a submission becomes a pending job, a cancel ends it.  The tests
 * then start, preempt or fail jobs and move the clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/options.h"
#include "common/policy.h"
#include "elasticd/reconcile.h"

#define N(a)	 (sizeof(a) / sizeof((a)[0]))
#define MAX_JOBS 512
#define BASE	 100
#define T0	 1700000000LL /* seconds */
#define OWNER	 1001
#define ANY	 0xffffffffu

struct sjob {
	uint32_t id;
	enum job_role role;
	enum job_phase phase;
	enum job_end end;
	bool preempted, steps_gone;
	uint32_t nnodes;
	uid_t uid;
	struct unit_tag unit;
	char partition[32];
	uint32_t time_limit;
	time_t submit, start, end_time;
};

struct sim {
	struct sjob jobs[MAX_JOBS];
	size_t n;
	uint32_t next_id;
	struct elastic_opts opts; /* of every base */
	struct elastic_policy pol;
	const char *user, *account;
	struct reconcile *r;
	struct snapshot *snap;
	struct action_list l;
	int64_t now; /* ms */
	bool refuse; /* slurmctld refuses submissions */
	bool ignore; /* submissions vanish (never answered) */
	bool late;   /* answers held back until deliver() */
	struct {
		uint32_t group, token, job;
	} held[64];
	size_t nheld;
	/* what the last pass did */
	unsigned submits, submits_od, cancels, raises, notes;
	uint32_t submit_nodes[64];
	uint32_t cancelled[64];
	uint32_t raised[64];
	size_t nraised;
	uint32_t last_limit;
	char last_partition[POLICY_NAME_MAX + 1];
};

static struct sjob *job(struct sim *s, uint32_t id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->jobs[i].id == id)
			return &s->jobs[i];
	fail_msg("no job %u", id);
	return NULL;
}

static struct sjob *add(struct sim *s, enum job_role role, enum job_phase phase,
			uint32_t nnodes)
{
	struct sjob *j;

	assert_true(s->n < MAX_JOBS);
	j = &s->jobs[s->n++];
	memset(j, 0, sizeof(*j));
	j->id = s->next_id++;
	j->role = role;
	j->phase = phase;
	j->nnodes = nnodes;
	j->uid = OWNER;
	j->submit = (time_t)(s->now / 1000);
	return j;
}

static void opts_step(struct elastic_opts *o, unsigned min, unsigned max,
		      unsigned step)
{
	memset(o, 0, sizeof(*o));
	o->min = min;
	o->max = max;
	o->step = step;
	o->grace = 30;
	o->scale_delay = 10;
	o->fault_timeout = 20;
	o->ondemand = ELASTIC_ONDEMAND_NEVER;
	o->signal = SIGURG;
	o->keep = 3;
	o->given = (1u << ELASTIC_OPT_MIN) | (1u << ELASTIC_OPT_MAX) |
		   (1u << ELASTIC_OPT_STEP);
}

static void opts_sizes(struct elastic_opts *o, const unsigned *sizes,
		       unsigned n)
{
	opts_step(o, sizes[0], sizes[n - 1], 0);
	o->given = (1u << ELASTIC_OPT_SIZES);
	o->nsizes = n;
	memcpy(o->sizes, sizes, n * sizeof(*sizes));
}

/* A running base of nnodes in partition base, started at T0 for 10 h. */
static struct sjob *add_base(struct sim *s, uint32_t nnodes)
{
	struct sjob *b = add(s, ROLE_BASE, PHASE_RUNNING, nnodes);

	strcpy(b->partition, "base");
	b->start = T0;
	b->time_limit = 600;
	b->end_time = T0 + 600 * 60;
	return b;
}

/* A simulated cluster with one running base of min nodes, started at T0. */
static struct sim *sim_new(const struct elastic_opts *o)
{
	struct sim *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->next_id = BASE;
	s->opts = *o;
	policy_defaults(&s->pol);
	s->pol.preemptible_partitions.n = 1;
	strcpy(s->pol.preemptible_partitions.name[0], "preempt");
	s->pol.ondemand_partitions.n = 1;
	strcpy(s->pol.ondemand_partitions.name[0], "ondemand");
	strcpy(s->pol.preemptible_qos, "spot");
	s->user = "alice";
	s->account = "physics";
	s->r = reconcile_create(NULL);
	assert_non_null(s->r);
	s->now = T0 * 1000 + 1000;
	add_base(s, o->min);
	s->next_id = BASE + 100; /* units from 200 */
	return s;
}

static void pass(struct sim *s);

/* elasticd ran before the base started (its first pass adopts what runs
 * already: see the restart tests). */
static struct sim *sim_start(const struct elastic_opts *o)
{
	struct sim *s = sim_new(o);

	job(s, BASE)->phase = PHASE_PENDING;
	pass(s);
	assert_int_equal(s->l.n, 0);
	job(s, BASE)->phase = PHASE_RUNNING;
	return s;
}

static void sim_free(struct sim *s)
{
	reconcile_destroy(s->r);
	snapshot_destroy(s->snap);
	action_list_free(&s->l);
	free(s);
}

static struct snapshot *snap_of(struct sim *s)
{
	struct snapshot *snap = snapshot_create((time_t)(s->now / 1000));
	elastic_error_t err;

	assert_non_null(snap);
	for (size_t i = 0; i < s->n; i++) {
		const struct sjob *t = &s->jobs[i];
		struct job_view j = { 0 };
		char nodes[32];

		j.id = t->id;
		j.role = t->role;
		j.phase = t->phase;
		j.end = t->end;
		j.preempted = t->preempted;
		j.steps_gone = t->steps_gone;
		j.nnodes = t->nnodes;
		snprintf(nodes, sizeof(nodes), "n[%u-%u]", t->id,
			 t->id + t->nnodes - 1);
		j.nodes = t->phase == PHASE_RUNNING ? nodes : "";
		j.uid = t->uid;
		j.gid = 100;
		j.user = s->user;
		j.account = s->account;
		j.partition = t->partition;
		j.submit_time = t->submit;
		j.start_time = t->start;
		j.end_time = t->end_time;
		j.time_limit = t->time_limit;
		if (t->role == ROLE_BASE)
			j.opts = &s->opts;
		j.unit = t->unit;
		assert_int_equal(snapshot_add(snap, &j, &err), 0);
	}
	snapshot_finish(snap);
	return snap;
}

/* One pass on the current jobs; then Slurm does what was asked. */
static void pass_on(struct sim *s, bool same_snapshot)
{
	elastic_error_t err;

	if (!same_snapshot || !s->snap) {
		snapshot_destroy(s->snap);
		s->snap = snap_of(s);
	}
	if (reconcile_pass(s->r, s->snap, &s->pol, s->now, &s->l, &err) != 0)
		fail_msg("reconcile_pass: %s", err.text);
	s->submits = s->submits_od = s->cancels = s->raises = s->notes = 0;
	s->nraised = 0;
	for (size_t i = 0; i < s->l.n; i++) {
		const struct action *a = &s->l.a[i];

		if (getenv("TEST_RECONCILE_DEBUG"))
			fprintf(stderr, "# %+.1f s: %s\n",
				(double)(s->now - T0 * 1000) / 1000, a->text);

		switch (a->type) {
		case ACTION_SUBMIT: {
			struct sjob *u;

			assert_int_equal(a->unit.uid, OWNER);
			assert_int_equal(a->unit.nice, s->pol.unit_nice);
			assert_string_equal(a->unit.account, s->account);
			if (s->submits < N(s->submit_nodes))
				s->submit_nodes[s->submits] = a->unit.tag.nodes;
			s->submits++;
			s->submits_od += a->unit.tag.kind == UNIT_ONDEMAND;
			s->last_limit = a->unit.time_limit;
			strcpy(s->last_partition, a->unit.partition);
			if (s->refuse) {
				reconcile_submitted(s->r, a->group, a->token, 0,
						    s->now);
				break;
			}
			if (s->ignore)
				break;
			u = add(s, ROLE_UNIT, PHASE_PENDING, a->unit.tag.nodes);
			u->unit = a->unit.tag;
			strcpy(u->partition, a->unit.partition);
			if (s->late) {
				assert_true(s->nheld < N(s->held));
				s->held[s->nheld].group = a->group;
				s->held[s->nheld].token = a->token;
				s->held[s->nheld++].job = u->id;
				break;
			}
			reconcile_submitted(s->r, a->group, a->token, u->id,
					    s->now);
			break;
		}
		case ACTION_CANCEL: {
			struct sjob *j = job(s, a->job);

			if (s->cancels < N(s->cancelled))
				s->cancelled[s->cancels] = a->job;
			s->cancels++;
			j->phase = PHASE_GONE;
			j->end = END_CANCELLED;
			j->preempted = false;
			break;
		}
		case ACTION_RAISE:
			s->raises++;
			assert_int_equal(a->signal, s->opts.signal);
			for (size_t k = 0; k < a->njobs && s->nraised < 64; k++)
				s->raised[s->nraised++] = a->jobs[k];
			break;
		case ACTION_NOTE:
			s->notes++;
			break;
		}
	}
}

static void pass(struct sim *s)
{
	pass_on(s, false);
}

/* The held answers of submissions arrive. */
static void deliver(struct sim *s)
{
	for (size_t i = 0; i < s->nheld; i++)
		reconcile_submitted(s->r, s->held[i].group, s->held[i].token,
				    s->held[i].job, s->now);
	s->nheld = 0;
}

static void advance(struct sim *s, int64_t ms)
{
	s->now += ms;
}

/* Start every pending unit (of kind, or ANY). */
static unsigned start_pending(struct sim *s, unsigned kind)
{
	unsigned n = 0;

	for (size_t i = 0; i < s->n; i++) {
		struct sjob *j = &s->jobs[i];

		if (j->role == ROLE_UNIT && j->phase == PHASE_PENDING &&
		    (kind == ANY || j->unit.kind == kind)) {
			j->phase = PHASE_RUNNING;
			j->start = (time_t)(s->now / 1000);
			n++;
		}
	}
	return n;
}

static void start_one(struct sim *s, uint32_t id)
{
	struct sjob *j = job(s, id);

	assert_int_equal(j->phase, PHASE_PENDING);
	j->phase = PHASE_RUNNING;
	j->start = (time_t)(s->now / 1000);
}

static void preempt(struct sim *s, uint32_t id)
{
	struct sjob *j = job(s, id);

	assert_int_equal(j->phase, PHASE_RUNNING);
	j->preempted = true;
}

static void end_job(struct sim *s, uint32_t id, enum job_end end)
{
	struct sjob *j = job(s, id);

	j->phase = PHASE_GONE;
	j->end = end;
	j->preempted = end == END_PREEMPTED;
}

/* Unit ids of the group in a phase (and kind unless ANY), ascending. */
static size_t units(struct sim *s, enum job_phase phase, unsigned kind,
		    uint32_t *ids, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct sjob *j = &s->jobs[i];

		if (j->role == ROLE_UNIT && j->phase == phase &&
		    (kind == ANY || j->unit.kind == kind) && n < max)
			ids[n++] = j->id;
	}
	return n;
}

static size_t count(struct sim *s, enum job_phase phase, unsigned kind)
{
	uint32_t ids[MAX_JOBS];

	return units(s, phase, kind, ids, MAX_JOBS);
}

static struct reconcile_group_status status(struct sim *s, uint32_t *world,
					    size_t max)
{
	struct reconcile_group_status st;
	uint32_t dummy[1];

	assert_int_equal(reconcile_group_status(s->r, BASE, &st,
						world ? world : dummy,
						world ? max : 0),
			 0);
	return st;
}

static bool raised(struct sim *s, uint32_t id)
{
	for (size_t i = 0; i < s->nraised; i++)
		if (s->raised[i] == id)
			return true;
	return false;
}

/* Form the first world and bring the group to its target. */
static void grow_to_target(struct sim *s)
{
	for (int i = 0; i < 20; i++) {
		pass(s);
		start_pending(s, UNIT_PREEMPTIBLE);
		advance(s, 11000);
	}
	pass(s);
}

/* ------------------------------------------------------------ sizes */

/* Step: every unit to max at once, step nodes each. */
static void step_all_at_once(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct reconcile_group_status st;

	opts_step(&o, 2, 8, 2);
	s = sim_start(&o);
	pass(s);
	assert_int_equal(s->submits, 3);
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(s->submit_nodes[i], 2);
	assert_string_equal(s->last_partition, "preempt");
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_STARTING);
	assert_int_equal(st.generation, 0);
	/* Nothing more while they are pending. */
	pass(s);
	assert_int_equal(s->submits, 0);
	/* All start at once: the world is complete, it forms at once. */
	start_pending(s, ANY);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 1);
	assert_int_equal(st.world_nodes, 8);
	assert_int_equal(s->raises, 0); /* no ranks yet */
	sim_free(s);
}

/* Step: a max off the step is never reached; the target is the largest
 * allowed size; the cap (MaxNodes) too. */
static void step_target(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 6, 2); /* 1, 3, 5 */
	s = sim_start(&o);
	pass(s);
	assert_int_equal(s->submits, 2);
	grow_to_target(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 5);
	sim_free(s);
}

/* --elastic-sizes: increments one at a time, the world never takes a size
 * outside the list. */
static void discrete_one_at_a_time(void **state)
{
	static const unsigned sizes[] = { 1, 2, 4, 8 };
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };

	opts_sizes(&o, sizes, N(sizes));
	s = sim_start(&o);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 1);
	pass(s);
	assert_int_equal(s->submits, 0); /* not before it started */
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 2);
	start_pending(s, ANY);
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 4);
	start_pending(s, ANY);
	advance(s, 11000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(status(s, NULL, 0).world_nodes, 8);

	/* The 1-node unit is preempted: 1+2+4 = 7 is not a size; the
	 * world falls to 1 (base), keeping the others for the refill. */
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);
	preempt(s, ids[0]);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 1);
	assert_int_equal(s->raises, 1);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 1);
	assert_int_equal(s->cancels, 0); /* 2 and 4 kept */
	end_job(s, ids[0], END_PREEMPTED);
	start_pending(s, ANY);
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 8);
	sim_free(s);
}

/* Property: whatever happens, a world is always an allowed size within
 * the cap, and made of running units. */
static void random_worlds_allowed(void **state)
{
	static const unsigned sizes[] = { 2, 3, 5, 8, 9 };
	unsigned seed = 12345;

	for (int round = 0; round < 40; round++) {
		struct elastic_opts o;
		struct sim *s;

		if (round % 2)
			opts_sizes(&o, sizes, N(sizes));
		else
			opts_step(&o, 1 + round % 3, 12, 1 + round % 4);
		o.ondemand = round % 3 ? ELASTIC_ONDEMAND_ALWAYS
				       : ELASTIC_ONDEMAND_NEVER;
		s = sim_start(&o);
		s->pol.ondemand_allowed = true;
		if (round % 5 == 0)
			s->pol.max_nodes = 7;
		for (int step = 0; step < 200; step++) {
			uint32_t ids[MAX_JOBS] = { 0 },
				 world[GROUP_MAX_SLOTS + 1] = { 0 };
			struct reconcile_group_status st;
			size_t n;
			unsigned total = 0;

			seed = seed * 1103515245 + 12345;
			switch ((seed >> 16) % 6) {
			case 0:
			case 1:
				n = units(s, PHASE_PENDING, ANY, ids, MAX_JOBS);
				if (n)
					start_one(s, ids[(seed >> 8) % n]);
				break;
			case 2:
				n = units(s, PHASE_RUNNING, ANY, ids, MAX_JOBS);
				if (n &&
				    !job(s, ids[(seed >> 8) % n])->preempted)
					preempt(s, ids[(seed >> 8) % n]);
				break;
			case 3:
				n = units(s, PHASE_RUNNING, ANY, ids, MAX_JOBS);
				if (n)
					end_job(s, ids[(seed >> 8) % n],
						(seed >> 4) % 2
						    ? END_FAILED
						    : END_PREEMPTED);
				break;
			default:
				advance(s, (int64_t)((seed >> 10) % 15000));
				break;
			}
			pass(s);
			st = status(s, world, N(world));
			if (!st.nworld)
				continue;
			for (size_t i = 0; i < st.nworld; i++) {
				struct sjob *j = job(s, world[i]);

				total += j->nnodes;
			}
			assert_int_equal(total, st.world_nodes);
			if (!options_size_allowed(&o, st.world_nodes))
				fail_msg("round %d step %d: world of %u nodes",
					 round, step, st.world_nodes);
			if (round % 5 == 0 && st.world_nodes > 7)
				fail_msg("world %u above MaxNodes=7",
					 st.world_nodes);
			/* Nothing is ever asked beyond the ladder: at most
			 * a preemptible and an on-demand unit per slot. */
			n = 0;
			for (size_t i = 0; i < s->n; i++)
				n += s->jobs[i].role == ROLE_UNIT &&
				     !s->jobs[i].preempted &&
				     (s->jobs[i].phase == PHASE_PENDING ||
				      s->jobs[i].phase == PHASE_RUNNING);
			if (n > 2 * 12)
				fail_msg("%zu live units", n);
		}
		sim_free(s);
	}
}

/* ------------------------------------------------------------ debounce */

static void debounce(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;

	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	pass(s); /* 3 units pending */
	advance(s, 10000);
	pass(s); /* scale delay after the base started: world = base */
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 1);
	assert_int_equal(st.world_nodes, 1);
	assert_int_equal(st.state, GROUP_RUNNING);

	units(s, PHASE_PENDING, ANY, ids, 8);
	start_one(s, ids[0]);
	pass(s); /* the delay starts */
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 1);
	assert_int_equal(st.state, GROUP_RESIZING);
	advance(s, 5000);
	start_one(s, ids[1]);
	pass(s); /* batched */
	assert_int_equal(status(s, NULL, 0).generation, 1);
	advance(s, 4900);
	pass(s);
	assert_int_equal(status(s, NULL, 0).generation, 1);
	advance(s, 100);
	pass(s); /* 10 s after the first start: one change for both */
	st = status(s, NULL, 0);
	assert_int_equal(st.generation, 2);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(s->raises, 1);
	assert_true(raised(s, BASE));
	assert_int_equal(s->nraised, 1); /* the old world was the base */
	pass(s);
	assert_int_equal(s->raises, 0);
	sim_free(s);
}

/* ------------------------------------------------------------ preempt */

static void preempt_at_once(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;

	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	grow_to_target(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 4);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);

	preempt(s, ids[1]);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(s->raises, 1);
	/* Every job of the old world, the preempted one too. */
	assert_int_equal(s->nraised, 4);
	assert_true(raised(s, ids[1]));
	/* Its replacement, pending; nobody cancelled (Slurm ends it). */
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->cancels, 0);
	assert_int_equal(st.state, GROUP_RESIZING);
	/* The other units and the base run on. */
	assert_int_equal(job(s, ids[0])->phase, PHASE_RUNNING);
	assert_int_equal(job(s, ids[2])->phase, PHASE_RUNNING);

	/* Its ranks had --elastic-grace to checkpoint: elasticd cancels it
	 * then, before Slurm's GraceTime ends, for the preemptor. */
	advance(s, 29900);
	pass(s);
	assert_int_equal(s->raises + s->submits + s->cancels, 0);
	advance(s, 100);
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], ids[1]);
	assert_int_equal(s->raises + s->submits, 0);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->raises + s->submits + s->cancels, 0);
	/* The replacement starts: a grow after the delay. */
	start_pending(s, ANY);
	pass(s);
	advance(s, 10000);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 4);
	assert_int_equal(s->raises, 1);
	sim_free(s);
}

/* A preempted unit whose ranks have left (no step of its own runs) is
 * cancelled at once: the preemptor need not wait for the grace. */
static void preempt_ranks_gone(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };

	(void)state;
	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	grow_to_target(s);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);
	preempt(s, ids[1]);
	pass(s);
	assert_int_equal(s->cancels, 0);
	/* Its ranks checkpoint and exit: 0.3 s later, no step of its own. */
	advance(s, 300);
	pass(s);
	assert_int_equal(s->cancels, 0);
	job(s, ids[1])->steps_gone = true;
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], ids[1]);
	/* Not again, and no other unit with it. */
	advance(s, 30000);
	pass(s);
	assert_int_equal(s->cancels, 0);
	sim_free(s);
}

/* The launcher's report: its ranks run in the new world, so the group is
 * RUNNING again before the grace ends; slow ranks are a grace warning. */
static void launcher_report(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;
	struct launch_report rep = { .group = BASE };
	struct elasticd_view *v;

	(void)state;
	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	preempt(s, ids[1]);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_RESIZING);
	/* An old world's report changes nothing. */
	rep.generation = st.generation - 1;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	advance(s, 500);
	pass(s);
	assert_int_equal(status(s, NULL, 0).state, GROUP_RESIZING);
	/* The new one's: RUNNING, 29 s before the grace would end. */
	rep.generation = st.generation;
	rep.exit_ms = 2000;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	pass(s);
	assert_int_equal(status(s, NULL, 0).state, GROUP_RUNNING);
	v = reconcile_view(s->r, s->snap, s->now);
	assert_non_null(v);
	assert_int_equal(v->groups[0].last_exit_ms, 2000);
	assert_false(v->groups[0].grace_warning);
	assert_int_equal(v->groups[0].grace, 30);
	view_free(v);
	/* 15 s of a 30 s grace: a warning, and an event saying so. */
	rep.exit_ms = 15000;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), 0);
	v = reconcile_view(s->r, s->snap, s->now);
	assert_non_null(v);
	assert_true(v->groups[0].grace_warning);
	assert_int_equal(v->groups[0].events[v->groups[0].nevents - 1].cause,
			 CAUSE_GRACE_WARNING);
	assert_string_equal(
	    v->groups[0].events[v->groups[0].nevents - 1].detail,
	    "ranks took 15.0 s of the 30 s grace to checkpoint and exit");
	view_free(v);
	/* No group, no world: refused. */
	rep.group = 4242;
	assert_int_equal(reconcile_report(s->r, &rep, s->now), -1);
	sim_free(s);
}

/* A preempted unit that ends before a pass saw its grace. */
static void preempt_missed_grace(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };

	opts_step(&o, 1, 3, 1);
	s = sim_start(&o);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	end_job(s, ids[0], END_PREEMPTED);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 2);
	assert_int_equal(s->raises, 1);
	assert_int_equal(s->submits, 1);
	sim_free(s);
}

/* ------------------------------------------------------------ faults */

static void fault_replaced_in_time(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 }, world[8] = { 0 };
	struct reconcile_group_status st;

	opts_step(&o, 1, 3, 1);
	s = sim_start(&o);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	end_job(s, ids[0], END_FAILED);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_DEGRADED);
	assert_int_equal(st.world_nodes, 3); /* waiting, no new world */
	assert_int_equal(s->submits, 1);     /* replacement at once */
	assert_int_equal(s->raises, 0);
	advance(s, 15000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).state, GROUP_DEGRADED);
	/* It starts within the fault timeout: the size is kept, at once. */
	start_pending(s, ANY);
	pass(s);
	st = status(s, world, 8);
	assert_int_equal(st.world_nodes, 3);
	assert_int_equal(st.state, GROUP_RESIZING);
	assert_int_equal(s->raises, 1);
	for (size_t i = 0; i < st.nworld; i++)
		assert_int_not_equal(world[i], ids[0]);
	sim_free(s);
}

static void fault_timeout_shrinks(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };
	struct reconcile_group_status st;

	opts_step(&o, 2, 6, 2);
	s = sim_start(&o);
	grow_to_target(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 6);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	end_job(s, ids[0], END_FAILED);
	pass(s);
	advance(s, 19900);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_DEGRADED);
	assert_int_equal(st.world_nodes, 6);
	advance(s, 100);
	pass(s); /* fault timeout: on at the smaller size */
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 4);
	assert_int_equal(s->raises, 1);
	assert_int_not_equal(st.state, GROUP_DEGRADED);
	/* The replacement is still wanted: a grow when it starts. */
	assert_int_equal(count(s, PHASE_PENDING, ANY), 1);
	start_pending(s, ANY);
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 6);
	sim_free(s);
}

/* The base loses a node (--no-kill): a refill unit of that size; never
 * below min: until it starts, the group waits. */
static void base_loses_nodes(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct reconcile_group_status st;

	opts_step(&o, 2, 2, 1);
	s = sim_start(&o);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 2);
	job(s, BASE)->nnodes = 1;
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 1);
	assert_int_equal(status(s, NULL, 0).state, GROUP_DEGRADED);
	advance(s, 25000); /* past the fault timeout: still no world */
	pass(s);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_DEGRADED);
	assert_int_equal(st.world_nodes, 2); /* the old one, unchanged */
	assert_int_equal(s->raises, 0);
	start_pending(s, ANY);
	pass(s);
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 2);
	assert_int_equal(st.nworld, 2);
	assert_int_equal(s->raises, 1);
	sim_free(s);
}

/* ------------------------------------------------------------ on-demand */

static void ondemand_below_min(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t od[4] = { 0 }, pe[4] = { 0 };
	struct reconcile_group_status st;

	opts_step(&o, 2, 2, 1);
	o.ondemand = ELASTIC_ONDEMAND_BELOW_MIN;
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	strcpy(s->pol.ondemand_qos, "od");
	advance(s, 10000);
	pass(s);
	job(s, BASE)->nnodes = 1; /* below min */
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submits_od, 0);
	advance(s, 9900);
	pass(s);
	assert_int_equal(s->submits, 0);
	advance(s, 100);
	pass(s); /* the scale delay: on-demand */
	assert_int_equal(s->submits_od, 1);
	assert_string_equal(s->last_partition, "ondemand");
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(units(s, PHASE_PENDING, UNIT_ONDEMAND, od, 4), 1);
	start_one(s, od[0]);
	pass(s); /* replaces the lost node at once */
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 2);
	assert_int_equal(s->raises, 1);

	/* Preemptible capacity returns: make-before-break. */
	assert_int_equal(units(s, PHASE_PENDING, UNIT_PREEMPTIBLE, pe, 4), 1);
	start_one(s, pe[0]);
	pass(s);
	assert_int_equal(s->cancels, 0);
	advance(s, 10000);
	pass(s); /* after the delay: the world swaps */
	st = status(s, NULL, 0);
	assert_int_equal(st.world_nodes, 2);
	assert_int_equal(s->raises, 1);
	assert_true(raised(s, od[0]));
	assert_int_equal(s->cancels, 0); /* not before the grace */
	advance(s, 29000);
	pass(s);
	assert_int_equal(s->cancels, 0);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], od[0]);
	assert_int_equal(s->submits, 0);
	sim_free(s);
}

static void ondemand_always_and_never(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 3, 1);
	o.ondemand = ELASTIC_ONDEMAND_ALWAYS;
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	pass(s);
	assert_int_equal(s->submits, 2);
	advance(s, 10000);
	pass(s);
	assert_int_equal(s->submits_od, 2); /* up to the target */
	start_pending(s, UNIT_ONDEMAND);
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 3);
	sim_free(s);

	/* below-min on a group at min: no on-demand. */
	o.ondemand = ELASTIC_ONDEMAND_BELOW_MIN;
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	pass(s);
	advance(s, 60000);
	pass(s);
	pass(s);
	assert_int_equal(count(s, PHASE_PENDING, UNIT_ONDEMAND), 0);
	sim_free(s);

	/* The policy forbids it (now), or the user is not listed. */
	o.ondemand = ELASTIC_ONDEMAND_ALWAYS;
	for (int k = 0; k < 3; k++) {
		s = sim_start(&o);
		s->pol.ondemand_allowed = k != 0;
		if (k == 1)
			s->pol.ondemand_partitions.n = 0;
		if (k == 2) {
			s->pol.ondemand_users.n = 1;
			strcpy(s->pol.ondemand_users.name[0], "bob");
		}
		pass(s);
		advance(s, 60000);
		pass(s);
		pass(s);
		assert_int_equal(count(s, PHASE_PENDING, UNIT_ONDEMAND), 0);
		sim_free(s);
	}
	/* Listed by account: allowed. */
	s = sim_start(&o);
	s->pol.ondemand_allowed = true;
	s->pol.ondemand_accounts.n = 1;
	strcpy(s->pol.ondemand_accounts.name[0], "physics");
	pass(s);
	advance(s, 10000);
	pass(s);
	assert_int_equal(count(s, PHASE_PENDING, UNIT_ONDEMAND), 2);
	sim_free(s);
}

/* ------------------------------------------------------------ caps */

static void caps(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 8, 1);
	s = sim_start(&o);
	s->pol.user_caps.n = 1;
	strcpy(s->pol.user_caps.cap[0].name, "alice");
	s->pol.user_caps.cap[0].nodes = 4;
	pass(s);
	assert_int_equal(s->submits, 3); /* to 4, the user's cap */
	grow_to_target(s);
	assert_int_equal(status(s, NULL, 0).world_nodes, 4);
	sim_free(s);

	s = sim_start(&o);
	s->pol.account_caps.n = 1;
	strcpy(s->pol.account_caps.cap[0].name, "physics");
	s->pol.account_caps.cap[0].nodes = 3;
	pass(s);
	assert_int_equal(s->submits, 2);
	sim_free(s);

	/* A cap off the step: the largest allowed size below it. */
	opts_step(&o, 2, 8, 3); /* 2, 5, 8 */
	s = sim_start(&o);
	s->pol.max_nodes = 7;
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->submit_nodes[0], 3);
	sim_free(s);
}

/* Bounds on submissions: a group that wants 99 units gets a few per
 * pass, a user only so many pending at once. */
static void submit_bounds_group_user(void **state)
{
	struct reconcile_config cfg;
	struct elastic_opts o;
	struct sim *s;

	(void)state;
	opts_step(&o, 1, 100, 1);
	s = sim_start(&o);
	s->pol.max_nodes = 100;
	reconcile_config_defaults(&cfg);
	pass(s);
	assert_int_equal(s->submits, cfg.max_submit_group);
	assert_true(s->notes >= 1); /* said once why the rest waits */
	for (unsigned k = 1; k * cfg.max_submit_group < cfg.max_pending_user;
	     k++) {
		advance(s, 1000);
		pass(s);
		assert_int_equal(s->submits, cfg.max_submit_group);
	}
	assert_int_equal(count(s, PHASE_PENDING, ANY), cfg.max_pending_user);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 0); /* the user's pending bound */
	/* As units start, more are asked for. */
	start_pending(s, ANY);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, cfg.max_submit_group);
	sim_free(s);
}

static size_t group_units(struct sim *s, uint32_t group)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		n += s->jobs[i].role == ROLE_UNIT &&
		     s->jobs[i].unit.group == group;
	return n;
}

/* The bound per pass: the groups it made wait go first next time, so
 * that no group starves behind one that always wants more. */
static void submit_bounds_pass_fair(void **state)
{
	struct reconcile_config cfg;
	struct elastic_opts o;
	uint32_t bases[4] = { BASE };
	struct sim *s;

	(void)state;
	opts_step(&o, 1, 100, 1);
	s = sim_new(&o);
	s->pol.max_nodes = 100;
	reconcile_config_defaults(&cfg);
	cfg.max_submit_group = 8;
	cfg.max_submit_pass = 10;
	cfg.max_pending_user = 1000;
	reconcile_destroy(s->r);
	s->r = reconcile_create(&cfg);
	assert_non_null(s->r);
	s->next_id = BASE + 1;
	for (size_t i = 1; i < N(bases); i++)
		bases[i] = add_base(s, 1)->id;
	s->next_id = BASE + 100;
	for (int k = 0; k < 3; k++) {
		pass(s);
		assert_int_equal(s->submits, cfg.max_submit_pass);
		advance(s, 1000);
	}
	for (size_t i = 0; i < N(bases); i++)
		assert_true(group_units(s, bases[i]) > 0);
	sim_free(s);
}

/* Did the last pass note text? */
static bool noted(struct sim *s, const char *text)
{
	for (size_t i = 0; i < s->l.n; i++)
		if (s->l.a[i].type == ACTION_NOTE &&
		    strstr(s->l.a[i].text, text))
			return true;
	return false;
}

/* A base moved out of BasePartitions gets no units. */
static void base_partition_checked(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	(void)state;
	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	s->pol.base_partitions.n = 1;
	strcpy(s->pol.base_partitions.name[0], "base");
	strcpy(job(s, BASE)->partition, "high");
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_true(noted(s, "not one of BasePartitions"));
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_false(noted(s, "BasePartitions")); /* said once */
	strcpy(job(s, BASE)->partition, "base");
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 3);
	sim_free(s);
}

/* ------------------------------------------------------------ ends */

static void base_ends_units_cancelled(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	grow_to_target(s);
	pass(s);
	assert_int_equal(count(s, PHASE_RUNNING, ANY), 3);
	end_job(s, BASE, END_COMPLETE);
	pass(s);
	assert_int_equal(s->cancels, 3);
	assert_int_equal(status(s, NULL, 0).state, GROUP_COMPLETING);
	pass(s); /* all gone: ENDED, its status and events still read */
	assert_int_equal(reconcile_ngroups(s->r), 1);
	assert_int_equal(status(s, NULL, 0).state, GROUP_ENDED);
	assert_int_equal(s->cancels + s->submits + s->raises, 0);
	{
		struct elasticd_view *v = reconcile_view(s->r, s->snap, s->now);

		assert_non_null(v);
		assert_int_equal(v->ngroups, 1);
		assert_int_equal(v->groups[0].state, GROUP_ENDED);
		assert_int_equal(
		    v->groups[0].events[v->groups[0].nevents - 1].cause,
		    CAUSE_END);
		view_free(v);
	}
	/* An hour later it is gone. */
	advance(s, (int64_t)RECONCILE_ENDED_KEEP_S * 1000 - 1000);
	pass(s);
	assert_int_equal(reconcile_ngroups(s->r), 1);
	advance(s, 1000);
	pass(s);
	assert_int_equal(reconcile_ngroups(s->r), 0);
	assert_int_equal(s->cancels + s->submits + s->raises, 0);
	sim_free(s);
}

/* A requeued base: units go, the group waits (PENDING) and starts a new
 * world above the old generation. */
static void base_requeued(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct reconcile_group_status st;
	uint64_t gen;

	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	grow_to_target(s);
	gen = status(s, NULL, 0).generation;
	job(s, BASE)->phase = PHASE_PENDING;
	pass(s);
	assert_int_equal(s->cancels, 1);
	st = status(s, NULL, 0);
	assert_int_equal(st.state, GROUP_PENDING);
	assert_int_equal(st.nworld, 0);
	pass(s);
	assert_int_equal(s->submits, 0);
	job(s, BASE)->phase = PHASE_RUNNING;
	job(s, BASE)->start = (time_t)(s->now / 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	start_pending(s, ANY);
	pass(s);
	st = status(s, NULL, 0);
	assert_true(st.generation > gen);
	assert_int_equal(st.world_nodes, 2);
	sim_free(s);
}

static void orphans(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct sjob *u, *v, *w;

	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	/* A unit of a group whose base is gone from slurmctld. */
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 1);
	u->unit = (struct unit_tag){ 99, UNIT_PREEMPTIBLE, 1, 0 };
	/* A unit of a base that ended before elasticd saw it. */
	v = add(s, ROLE_BASE, PHASE_GONE, 1);
	v->end = END_COMPLETE;
	w = add(s, ROLE_UNIT, PHASE_PENDING, 1);
	w->unit = (struct unit_tag){ v->id, UNIT_PREEMPTIBLE, 1, 0 };
	pass(s);
	assert_int_equal(s->cancels, 2);
	assert_int_equal(job(s, u->id)->phase, PHASE_GONE);
	assert_int_equal(job(s, w->id)->phase, PHASE_GONE);
	/* A unit of our group with another owner: never used. */
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 1);
	u->unit = (struct unit_tag){ BASE, UNIT_PREEMPTIBLE, 1, 0 };
	u->uid = 4242;
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], u->id);
	sim_free(s);
}

/* A cancel not yet effective is not sent again at once, but again after
 * the retry time. */
static void orphan_cancel_retried(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct sjob *u;
	uint32_t id;

	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 1);
	u->unit = (struct unit_tag){ 99, UNIT_PREEMPTIBLE, 1, 0 };
	id = u->id;
	pass(s);
	assert_int_equal(s->cancels, 1);
	job(s, id)->phase = PHASE_RUNNING; /* slurmctld lost it */
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->cancels, 0);
	job(s, id)->phase = PHASE_RUNNING;
	advance(s, 30000);
	pass(s);
	assert_int_equal(s->cancels, 1);
	sim_free(s);
}

/* ------------------------------------------------------------ idempotence */

/* Submissions run beside the loop: a pass may see a unit in Slurm before
 * its submission's answer arrives.  It is that submission's unit (its tag
 * says which), not one more: none is cancelled, none submitted again. */
static void answers_late(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };

	(void)state;
	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	s->late = true;
	pass(s);
	assert_int_equal(s->submits, 3);
	assert_int_equal(s->nheld, 3);
	for (int i = 0; i < 3; i++) {
		advance(s, 1000);
		pass(s);
		assert_int_equal(s->submits, 0);
		assert_int_equal(s->cancels, 0);
		if (i == 1)
			start_pending(s, ANY);
	}
	/* Past the time a submission may take: still those units. */
	advance(s, 61000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(s->cancels, 0);
	deliver(s);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_int_equal(s->cancels, 0);
	assert_int_equal(units(s, PHASE_RUNNING, ANY, ids, 8), 3);
	s->late = false;
	sim_free(s);
}

static void idempotent(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	uint32_t ids[8] = { 0 };

	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	/* Submissions not answered yet (ignored): not made again on the
	 * same snapshot, nor on a later one within the timeout. */
	s->ignore = true;
	pass(s);
	assert_int_equal(s->submits, 3);
	pass_on(s, true);
	assert_int_equal(s->l.n, 0);
	advance(s, 30000);
	pass(s);
	assert_int_equal(s->submits, 0);
	/* Forgotten after the timeout: asked again. */
	advance(s, 31000);
	pass(s);
	assert_int_equal(s->submits, 3);
	s->ignore = false;
	sim_free(s);

	/* Every state of a group: a second pass on the same snapshot at the
	 * same time decides nothing. */
	s = sim_start(&o);
	for (int i = 0; i < 12; i++) {
		pass(s);
		pass_on(s, true);
		assert_int_equal(s->l.n, 0);
		switch (i) {
		case 2:
			start_pending(s, ANY);
			break;
		case 5:
			units(s, PHASE_RUNNING, ANY, ids, 8);
			preempt(s, ids[0]);
			break;
		case 7:
			units(s, PHASE_RUNNING, ANY, ids, 8);
			end_job(s, ids[1], END_FAILED);
			break;
		case 9:
			end_job(s, BASE, END_CANCELLED);
			break;
		}
		advance(s, 6000);
	}
	sim_free(s);
}

/* Submissions refused: asked again only after a growing wait. */
static void refused_backoff(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	s->refuse = true;
	pass(s);
	assert_int_equal(s->submits, 1);
	advance(s, 4000);
	pass(s);
	assert_int_equal(s->submits, 0);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	advance(s, 9000);
	pass(s);
	assert_int_equal(s->submits, 0);
	advance(s, 1000);
	pass(s);
	assert_int_equal(s->submits, 1);
	s->refuse = false;
	advance(s, 20000);
	pass(s);
	assert_int_equal(s->submits, 1);
	sim_free(s);
}

/* Units never outlive the base's time limit; none near its end. */
static void time_limit(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	advance(s, 600000); /* 10 min of the base's 600 */
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_true(s->last_limit <= 590);
	assert_true(s->last_limit >= 589);
	sim_free(s);

	s = sim_start(&o);
	s->now = (int64_t)(T0 + 600 * 60 - 100) * 1000;
	pass(s);
	assert_int_equal(s->submits, 0);
	assert_true(s->notes >= 1);
	sim_free(s);

	s = sim_start(&o);
	job(s, BASE)->time_limit = 0; /* no limit: the partition's */
	pass(s);
	assert_int_equal(s->submits, 1);
	assert_int_equal(s->last_limit, 0);
	sim_free(s);
}

/* No preemptible partition configured: no units, one note. */
static void no_partition(void **state)
{
	struct elastic_opts o;
	struct sim *s;

	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	s->pol.preemptible_partitions.n = 0;
	pass(s);
	assert_int_equal(s->submits, 0);
	/* "no PreemptiblePartitions", and the first world's line. */
	assert_int_equal(s->notes, 2);
	pass(s);
	assert_int_equal(s->notes, 0);
	/* A group that cannot grow still forms its first world, at once:
	 * the base at min, so that the launcher starts on it. */
	{
		struct reconcile_group_status st = status(s, NULL, 0);

		assert_int_equal(st.generation, 1);
		assert_int_equal(st.world_nodes, 1);
		assert_int_equal(st.state, GROUP_RUNNING);
	}
	assert_int_equal(s->submits, 0);
	sim_free(s);
}

/* A unit that fits no increment (the policy's cap fell): released. */
static void surplus_released(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct sjob *u;

	opts_step(&o, 1, 3, 1);
	s = sim_start(&o);
	pass(s);
	s->pol.max_nodes = 2;
	pass(s);
	assert_int_equal(s->cancels, 1); /* one pending unit too many */
	/* A running 2-node unit in a step-1 group: no slot fits it. */
	u = add(s, ROLE_UNIT, PHASE_RUNNING, 2);
	u->unit = (struct unit_tag){ BASE, UNIT_PREEMPTIBLE, 2, 0 };
	pass(s);
	assert_int_equal(s->cancels, 1);
	assert_int_equal(s->cancelled[0], u->id);
	sim_free(s);
}

/* ------------------------------------------------------------ restart */

/* A restarted elasticd with no saved state adopts what runs, raises
 * nothing and takes a generation above the old one. */
static void restart_adopts(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct reconcile_group_status before, after;
	uint32_t world[8];

	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	grow_to_target(s);
	for (int i = 0; i < 5; i++) { /* churn the generation up */
		uint32_t ids[8] = { 0 };

		units(s, PHASE_RUNNING, ANY, ids, 8);
		preempt(s, ids[0]);
		advance(s, 200);
		pass(s);
		end_job(s, ids[0], END_PREEMPTED);
		start_pending(s, ANY);
		pass(s);
		advance(s, 10000);
		pass(s);
	}
	before = status(s, NULL, 0);
	assert_true(before.generation >= 7);

	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	advance(s, 500);
	pass(s);
	after = status(s, world, 8);
	assert_true(after.generation > before.generation);
	assert_int_equal(after.world_nodes, 4);
	assert_int_equal(s->raises, 0);
	assert_int_equal(s->submits + s->cancels, 0);
	assert_int_equal(after.state, GROUP_RUNNING);
	sim_free(s);
}

/* With saved state: the same world and generation, nothing raised; a
 * member lost while elasticd was down is handled as usual. */
static void restart_with_state(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct reconcile_group_status before, after;
	elastic_error_t err;
	char *text;
	uint32_t ids[8] = { 0 };

	opts_step(&o, 1, 4, 1);
	s = sim_start(&o);
	grow_to_target(s);
	before = status(s, NULL, 0);
	assert_true(reconcile_dirty(s->r));
	assert_int_equal(reconcile_state_format(s->r, &text, &err), 0);
	assert_false(reconcile_dirty(s->r));

	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	assert_int_equal(reconcile_state_load(s->r, text, &err), 0);
	pass(s);
	after = status(s, NULL, 0);
	assert_int_equal(after.generation, before.generation);
	assert_int_equal(after.world_nodes, 4);
	assert_int_equal(s->l.n, 0);

	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	assert_int_equal(reconcile_state_load(s->r, text, &err), 0);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	preempt(s, ids[2]);
	pass(s);
	after = status(s, NULL, 0);
	assert_int_equal(after.generation, before.generation + 1);
	assert_int_equal(after.world_nodes, 3);
	assert_int_equal(s->raises, 1);
	free(text);
	sim_free(s);
}

/* A state file whose world names a job that is not the group's (another
 * user's, running): elasticd never signals it. */
static void restored_world_checked(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	elastic_error_t err;
	struct sjob *foreign;
	char text[256];

	(void)state;
	opts_step(&o, 1, 2, 1);
	s = sim_start(&o);
	grow_to_target(s);
	foreign = add(s, ROLE_OTHER, PHASE_RUNNING, 1);
	foreign->uid = OWNER + 1;
	foreign->start = T0;
	snprintf(text, sizeof(text),
		 "elasticd-state v1\ngroup %u gen 9 world %u:1:b,%u:1:p\n",
		 BASE, BASE, foreign->id);
	reconcile_destroy(s->r);
	s->r = reconcile_create(NULL);
	assert_int_equal(reconcile_state_load(s->r, text, &err), 0);
	pass(s);
	for (size_t i = 0; i < s->nraised; i++)
		assert_int_not_equal(s->raised[i], foreign->id);
	action_list_clear(&s->l);
	if (reconcile_raise_request(s->r, BASE, &s->l) == 0)
		for (size_t i = 0; i < s->l.n; i++)
			for (size_t k = 0; k < s->l.a[i].njobs; k++)
				assert_int_not_equal(s->l.a[i].jobs[k],
						     foreign->id);
	sim_free(s);
}

static void state_text(void **state)
{
	static const char *bad[] = {
		"nonsense\n",
		"elasticd-state v1\ngroup x gen 1\n",
		"elasticd-state v1\ngroup 5 gen -1\n",
		"elasticd-state v1\ngroup 5 gen 1 world\n",
		"elasticd-state v1\ngroup 5 gen 1 world 6:1:b\n",
		"elasticd-state v1\ngroup 5 gen 1 world 5:1:b,7:0:p\n",
		"elasticd-state v1\ngroup 5 gen 1 world 5:1:b,7:1:x\n",
		"elasticd-state v1\ngroup 5 gen 1\ngroup 5 gen 2\n",
		"elasticd-state v1\ngroup 5 gen 1 world 5:1:b extra\n",
	};
	struct reconcile *r;
	elastic_error_t err;
	char *text;

	for (size_t i = 0; i < N(bad); i++) {
		r = reconcile_create(NULL);
		if (reconcile_state_load(r, bad[i], &err) != -1)
			fail_msg("accepted: %s", bad[i]);
		reconcile_destroy(r);
	}
	r = reconcile_create(NULL);
	assert_int_equal(
	    reconcile_state_load(r,
				 "elasticd-state v1\n"
				 "group 5 gen 9 world 5:2:b,7:1:p,8:1:o\n"
				 "group 6 gen 3\n"
				 "\n",
				 &err),
	    0);
	assert_int_equal(reconcile_ngroups(r), 2);
	assert_int_equal(reconcile_state_format(r, &text, &err), 0);
	assert_non_null(
	    strstr(text, "group 5 gen 9 world 5:2:b,7:1:p,8:1:o\n"));
	assert_non_null(strstr(text, "group 6 gen 3\n"));
	free(text);
	reconcile_destroy(r);
}

/* ------------------------------------------------------------ view */

static void view(void **state)
{
	struct elastic_opts o;
	struct sim *s;
	struct elasticd_view *v;
	const struct group_info *g;
	uint32_t ids[8] = { 0 };
	size_t base = 0, pre = 0;

	opts_step(&o, 2, 4, 1);
	s = sim_start(&o);
	grow_to_target(s);
	units(s, PHASE_RUNNING, ANY, ids, 8);
	preempt(s, ids[0]);
	pass(s);
	v = reconcile_view(s->r, s->snap, s->now);
	assert_non_null(v);
	assert_int_equal(v->ngroups, 1);
	g = &v->groups[0];
	assert_int_equal(g->base_job_id, BASE);
	assert_int_equal(g->user_id, OWNER);
	assert_string_equal(g->user, "alice");
	assert_string_equal(g->account, "physics");
	assert_int_equal(g->min, 2);
	assert_int_equal(g->max, 4);
	assert_int_equal(g->world_nodes, 3);
	assert_string_equal(g->master_addr, "n100");
	assert_int_equal(g->state, GROUP_RESIZING);
	for (size_t i = 0; i < g->nmembers; i++) {
		const struct member_info *m = &g->members[i];

		if (m->kind == MEMBER_BASE) {
			base++;
			assert_int_equal(m->job_id, BASE);
			assert_true(m->in_world);
			assert_string_equal(m->nodes, "n[100-101]");
		}
		if (m->job_id == ids[0]) {
			pre++;
			assert_int_equal(m->state, MEMBER_PREEMPTED);
			assert_false(m->in_world);
		}
	}
	assert_int_equal(base, 1);
	assert_int_equal(pre, 1);
	assert_int_equal(g->nevents, 2);
	assert_int_equal(g->events[g->nevents - 1].cause, CAUSE_PREEMPT);
	assert_int_equal(g->events[0].cause, CAUSE_START);
	assert_int_equal(v->nodes_base, 2);
	assert_int_equal(v->nodes_preemptible, 2);
	assert_int_equal(v->metrics.resizes[CAUSE_PREEMPT], 1);
	assert_int_equal(v->metrics.units_submitted, 3);
	view_free(v);
	view_free(NULL);
	sim_free(s);
}

static void names(void **state)
{
	assert_string_equal(group_state_name(GROUP_DEGRADED), "DEGRADED");
	assert_string_equal(group_state_name(GROUP_COMPLETING), "COMPLETING");
	assert_string_equal(member_kind_name(MEMBER_ONDEMAND), "ondemand");
	assert_string_equal(member_state_name(MEMBER_RELEASING), "releasing");
	assert_string_equal(event_cause_name(CAUSE_RETURN), "return");
	assert_string_equal(event_cause_name(CAUSE_GRACE_WARNING),
			    "grace-warning");
	assert_string_equal(group_state_name((enum group_state)99), "UNKNOWN");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(step_all_at_once),
		cmocka_unit_test(step_target),
		cmocka_unit_test(discrete_one_at_a_time),
		cmocka_unit_test(random_worlds_allowed),
		cmocka_unit_test(debounce),
		cmocka_unit_test(preempt_at_once),
		cmocka_unit_test(preempt_ranks_gone),
		cmocka_unit_test(preempt_missed_grace),
		cmocka_unit_test(launcher_report),
		cmocka_unit_test(fault_replaced_in_time),
		cmocka_unit_test(fault_timeout_shrinks),
		cmocka_unit_test(base_loses_nodes),
		cmocka_unit_test(ondemand_below_min),
		cmocka_unit_test(ondemand_always_and_never),
		cmocka_unit_test(caps),
		cmocka_unit_test(submit_bounds_group_user),
		cmocka_unit_test(submit_bounds_pass_fair),
		cmocka_unit_test(base_partition_checked),
		cmocka_unit_test(base_ends_units_cancelled),
		cmocka_unit_test(base_requeued),
		cmocka_unit_test(orphans),
		cmocka_unit_test(orphan_cancel_retried),
		cmocka_unit_test(idempotent),
		cmocka_unit_test(refused_backoff),
		cmocka_unit_test(time_limit),
		cmocka_unit_test(no_partition),
		cmocka_unit_test(surplus_released),
		cmocka_unit_test(restart_adopts),
		cmocka_unit_test(answers_late),
		cmocka_unit_test(restart_with_state),
		cmocka_unit_test(restored_world_checked),
		cmocka_unit_test(state_text),
		cmocka_unit_test(view),
		cmocka_unit_test(names),
	};

	if (argc > 1) /* one test, by name (a pattern) */
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
