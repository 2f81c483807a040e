/*
 * A simulated Slurm for the unit tests of reconcile.c (test_reconcile,
 * test_reconcile_units, test_reconcile_state): a table of jobs, a clock,
 * and a pass that builds a snapshot from the jobs, runs reconcile_pass()
 * and applies its actions as slurmctld would.  The scenarios' set-ups
 * (sim_start, grow_to_target) and the moves of Slurm and of time (start,
 * preempt, end, advance) are here; what a pass did is kept in the sim.
 */
#ifndef ELASTIC_TEST_SIM_H
#define ELASTIC_TEST_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

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
	bool launch_held; /* Slurm held it after a failed launch */
	uint32_t restarts;
	uint32_t nnodes;
	uid_t uid;
	struct unit_tag unit;
	char partition[32];
	uint32_t time_limit;
	time_t submit, start, end_time;
	unsigned nice; /* a unit's, as submitted */
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
	unsigned submits, submits_od, cancels, raises, notes, releases;
	uint32_t submit_nodes[64];
	uint32_t cancelled[64];
	uint32_t raised[64];
	size_t nraised;
	size_t nrelayed; /* jobs left to the launchers to tell */
	uint32_t last_limit;
	char last_partition[POLICY_NAME_MAX + 1];
	char last_qos[POLICY_NAME_MAX + 1];
};

/* The job id (the test fails if there is none). */
struct sjob *job(struct sim *s, uint32_t id);
/* A new job of role in phase, of nnodes, owned by OWNER, submitted now. */
struct sjob *add(struct sim *s, enum job_role role, enum job_phase phase,
		 uint32_t nnodes);
/* Options of a step group (--elastic-min/max/step), or of a sizes list. */
void opts_step(struct elastic_opts *o, unsigned min, unsigned max,
	       unsigned step);
void opts_sizes(struct elastic_opts *o, const unsigned *sizes, unsigned n);
/* A running base of nnodes in partition base, started at T0 for 10 h. */
struct sjob *add_base(struct sim *s, uint32_t nnodes);
/* A simulated cluster with one running base of min nodes, started at T0. */
struct sim *sim_new(const struct elastic_opts *o);
/* The same, with elasticd's first pass made before the base started. */
struct sim *sim_start(const struct elastic_opts *o);
/* sim_start() of a step group (opts_step). */
struct sim *sim_start_step(unsigned min, unsigned max, unsigned step);
void sim_free(struct sim *s);

/* One pass (on the last snapshot again if same_snapshot); then Slurm does
 * what was asked. */
void pass_on(struct sim *s, bool same_snapshot);
void pass(struct sim *s);
/* The held answers of submissions arrive. */
void deliver(struct sim *s);
void advance(struct sim *s, int64_t ms);

/* Start every pending unit (of kind, or ANY): how many. */
unsigned start_pending(struct sim *s, unsigned kind);
void start_one(struct sim *s, uint32_t id);
void preempt(struct sim *s, uint32_t id);
void end_job(struct sim *s, uint32_t id, enum job_end end);

/* Unit ids of the group in a phase (and kind unless ANY), ascending. */
size_t units(struct sim *s, enum job_phase phase, unsigned kind, uint32_t *ids,
	     size_t max);
/* How many there are (static: fuzz_sizeconf.c has a count of its own). */
static inline size_t count(struct sim *s, enum job_phase phase, unsigned kind)
{
	uint32_t ids[MAX_JOBS];

	return units(s, phase, kind, ids, MAX_JOBS);
}

/* The group BASE's status, its world's job ids in world (up to max). */
struct reconcile_group_status status(struct sim *s, uint32_t *world,
				     size_t max);
/* Was id among the jobs the last pass raised? */
bool raised(struct sim *s, uint32_t id);
/* Form the first world and bring the group to its target. */
void grow_to_target(struct sim *s);

#endif
