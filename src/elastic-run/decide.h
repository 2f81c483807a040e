#ifndef ELASTIC_RUN_DECIDE_H
#define ELASTIC_RUN_DECIDE_H

/*
 * The launcher's decision once a launch is over: a pure function of what
 * elastic-run observed, so that every case (the race between a rank and
 * the launcher among them) is a unit test.  No I/O, no Slurm, no clock.
 *
 * The contract with the ranks (elastic-run(1), libelastic(3)): exit status
 * 0 means "my training is finished"; ELASTIC_EXIT_EVENT (75) means "I
 * stopped for an elastic event after my checkpoint: relaunch me".  A run
 * succeeds only when every member exited 0 and nothing elastic happened
 * during the launch; when in doubt, it relaunches (ranks whose training is
 * done find their final checkpoint and exit 0 at once).
 */

#include <stdbool.h>

/* What one member (one srun, or the one mpirun) ended with. */
enum member_end {
	MEMBER_OK,     /* exit status 0 */
	MEMBER_EVENT,  /* ELASTIC_EXIT_EVENT: stopped for an elastic event */
	MEMBER_FAILED, /* another exit status, or killed by a signal */
};

/* A wait(2) status as a member's end. */
enum member_end member_end_of(int wait_status);

struct launch_obs {
	/* The launcher is stopping (SIGTERM/INT/HUP, or Slurm ending the
	 * job): no relaunch, whatever the ranks did. */
	bool stopping;
	/* An event reached the launcher during the launch: its signal, a
	 * signal raised on the steps, the world changing while ranks ran. */
	bool event;
	/* A node's fault the launcher found ("node-lost": its heartbeats
	 * stopped and its host did not answer; "hang": a rank on it made no
	 * progress), NULL if none: whatever the ranks did after, the
	 * node's doing, never counted against --max-restarts. */
	const char *fault;
	/* Checked once all ranks were gone: the world is not the one the
	 * launch started on (a member lost or shrunk, a node down, a member
	 * being preempted, a new generation from elasticd). */
	bool world_changed;
	/* The ranks ended on their own, every one with status 0, before
	 * the launcher told them of the event it saw (in place: while it
	 * readied the ranks that were to join them): the job is done. */
	bool finished;
	/* How the members ended. */
	unsigned ok, event_exits, failed;
	/* Failures so far (launches that failed on their own) and the limit. */
	unsigned failures, max_restarts;
	/* Relaunches in a row that only the ranks' event status explained
	 * (nothing else saw an event): bounded, so that a script that exits
	 * 75 for no reason cannot loop for ever. */
	unsigned unexplained;
};

enum decision {
	DECIDE_SUCCESS,	 /* the training finished */
	DECIDE_RELAUNCH, /* an elastic event: relaunch, not a failure */
	DECIDE_RETRY,	 /* a failure: relaunch, counted */
	DECIDE_GIVE_UP,	 /* a failure beyond --max-restarts */
	DECIDE_STOP,	 /* the job is ending */
};

/* Relaunches in a row that only the ranks' status explains. */
#define DECIDE_MAX_UNEXPLAINED 10

struct decision_out {
	enum decision what;
	/* Why, for the timeline: a static string, one word or key. */
	const char *why;
	/* DECIDE_RELAUNCH: only the ranks' status said so (the caller
	 * counts these in launch_obs.unexplained; any other outcome resets
	 * the count). */
	bool unexplained;
};

void decide(const struct launch_obs *o, struct decision_out *ret);

const char *decision_name(enum decision d); /* "success", "relaunch", ... */

/*
 * The remote-shell launcher of the Open MPI whose `mpirun --version`
 * printed text: "rsh" for 4.x (orted; plm_rsh_agent), "ssh" from 5.0
 * (PRRTE's prted; plm_ssh_agent).  NULL when text is not Open MPI's.
 */
const char *ompi_plm_of(const char *text);

#endif
