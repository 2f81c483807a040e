/*
 * The simulated Slurm of the reconcile tests (sim.h): its jobs, a pass of
 * reconcile.c on their snapshot with the actions applied as slurmctld
 * would (a submission becomes a pending job, a cancel ends it), and the
 * moves the tests make between passes.
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

#include "sim.h"

struct sjob *job(struct sim *s, uint32_t id)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->jobs[i].id == id)
			return &s->jobs[i];
	fail_msg("no job %u", id);
	return NULL;
}

struct sjob *add(struct sim *s, enum job_role role, enum job_phase phase,
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

void opts_step(struct elastic_opts *o, unsigned min, unsigned max,
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

void opts_sizes(struct elastic_opts *o, const unsigned *sizes, unsigned n)
{
	opts_step(o, sizes[0], sizes[n - 1], 0);
	o->given = (1u << ELASTIC_OPT_SIZES);
	o->nsizes = n;
	memcpy(o->sizes, sizes, n * sizeof(*sizes));
}

/* A running base of nnodes in partition base, started at T0 for 10 h. */
struct sjob *add_base(struct sim *s, uint32_t nnodes)
{
	struct sjob *b = add(s, ROLE_BASE, PHASE_RUNNING, nnodes);

	strcpy(b->partition, "base");
	b->start = T0;
	b->time_limit = 600;
	b->end_time = T0 + 600 * 60;
	return b;
}

/* A simulated cluster with one running base of min nodes, started at T0. */
struct sim *sim_new(const struct elastic_opts *o)
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

/* elasticd ran before the base started (its first pass adopts what runs
 * already: see the restart tests). */
struct sim *sim_start(const struct elastic_opts *o)
{
	struct sim *s = sim_new(o);

	job(s, BASE)->phase = PHASE_PENDING;
	pass(s);
	assert_int_equal(s->l.n, 0);
	job(s, BASE)->phase = PHASE_RUNNING;
	return s;
}

struct sim *sim_start_step(unsigned min, unsigned max, unsigned step)
{
	struct elastic_opts o;

	opts_step(&o, min, max, step);
	return sim_start(&o);
}

void sim_free(struct sim *s)
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
		j.launch_held = t->launch_held;
		j.restarts = t->restarts;
		j.nice = t->nice;
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
void pass_on(struct sim *s, bool same_snapshot)
{
	elastic_error_t err;

	if (!same_snapshot || !s->snap) {
		snapshot_destroy(s->snap);
		s->snap = snap_of(s);
	}
	if (reconcile_pass(s->r, s->snap, &s->pol, s->now, &s->l, &err) != 0)
		fail_msg("reconcile_pass: %s", err.text);
	s->submits = s->submits_od = s->cancels = s->raises = s->notes = 0;
	s->releases = 0;
	s->nraised = s->nrelayed = 0;
	for (size_t i = 0; i < s->l.n; i++) {
		const struct action *a = &s->l.a[i];

		if (getenv("TEST_RECONCILE_DEBUG"))
			fprintf(stderr, "# %+.1f s: %s\n",
				(double)(s->now - T0 * 1000) / 1000, a->text);

		switch (a->type) {
		case ACTION_SUBMIT: {
			struct sjob *u;

			assert_int_equal(a->unit.uid, OWNER);
			/* UnitNice, or above it by the group's share */
			assert_true(a->unit.nice >= s->pol.unit_nice);
			assert_string_equal(a->unit.account, s->account);
			if (s->submits < N(s->submit_nodes))
				s->submit_nodes[s->submits] = a->unit.tag.nodes;
			s->submits++;
			s->submits_od += a->unit.tag.kind == UNIT_ONDEMAND;
			s->last_limit = a->unit.time_limit;
			strcpy(s->last_partition, a->unit.partition);
			strcpy(s->last_qos, a->unit.qos);
			if (s->refuse) {
				reconcile_submitted(s->r, a->group, a->token, 0,
						    s->now);
				break;
			}
			if (s->ignore)
				break;
			u = add(s, ROLE_UNIT, PHASE_PENDING, a->unit.tag.nodes);
			u->unit = a->unit.tag;
			u->nice = a->unit.nice;
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
			s->nrelayed += a->relayed;
			break;
		case ACTION_NOTE:
			s->notes++;
			break;
		case ACTION_RELEASE:
			s->releases++;
			assert_true(job(s, a->job)->launch_held);
			job(s, a->job)->launch_held = false;
			break;
		}
	}
}

void pass(struct sim *s)
{
	pass_on(s, false);
}

/* The held answers of submissions arrive. */
void deliver(struct sim *s)
{
	for (size_t i = 0; i < s->nheld; i++)
		reconcile_submitted(s->r, s->held[i].group, s->held[i].token,
				    s->held[i].job, s->now);
	s->nheld = 0;
}

void advance(struct sim *s, int64_t ms)
{
	s->now += ms;
}

/* Start every pending unit (of kind, or ANY). */
unsigned start_pending(struct sim *s, unsigned kind)
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

void start_one(struct sim *s, uint32_t id)
{
	struct sjob *j = job(s, id);

	assert_int_equal(j->phase, PHASE_PENDING);
	j->phase = PHASE_RUNNING;
	j->start = (time_t)(s->now / 1000);
}

void preempt(struct sim *s, uint32_t id)
{
	struct sjob *j = job(s, id);

	assert_int_equal(j->phase, PHASE_RUNNING);
	j->preempted = true;
}

void end_job(struct sim *s, uint32_t id, enum job_end end)
{
	struct sjob *j = job(s, id);

	j->phase = PHASE_GONE;
	j->end = end;
	j->preempted = end == END_PREEMPTED;
}

/* Unit ids of the group in a phase (and kind unless ANY), ascending. */
size_t units(struct sim *s, enum job_phase phase, unsigned kind, uint32_t *ids,
	     size_t max)
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

struct reconcile_group_status status(struct sim *s, uint32_t *world, size_t max)
{
	struct reconcile_group_status st;
	uint32_t dummy[1];

	assert_int_equal(reconcile_group_status(s->r, BASE, &st,
						world ? world : dummy,
						world ? max : 0),
			 0);
	return st;
}

bool raised(struct sim *s, uint32_t id)
{
	for (size_t i = 0; i < s->nraised; i++)
		if (s->raised[i] == id)
			return true;
	return false;
}

/* Form the first world and bring the group to its target. */
void grow_to_target(struct sim *s)
{
	for (int i = 0; i < 20; i++) {
		pass(s);
		start_pending(s, UNIT_PREEMPTIBLE);
		advance(s, 11000);
	}
	pass(s);
}
