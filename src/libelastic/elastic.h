/*
 * libelastic: what a rank of an elastic training job needs from
 * slurm-elastic.  Installed as <slurm-elastic/elastic.h>; link with
 * -lelastic (pkg-config libelastic).
 *
 * The elastic event.  When the job is about to lose or gain nodes (Slurm
 * preempts it, elasticd or the launcher resizes it), every rank of every
 * step gets the event signal: ELASTIC_SIGNAL from the environment (a name
 * without "SIG": URG, WINCH, USR1, USR2, HUP, INT or TERM; URG when unset),
 * or SIGTERM.  libelastic catches both and sets a flag; the rank polls it
 * with elastic_event_detected() (a memory read, no system call), then
 * checkpoints and exits with elastic_exit_event().  URG and WINCH are ignored by default, so processes
 * that do not use libelastic (data-loader workers, helpers) survive the event.
 *
 * Handlers are installed when the library is loaded (a constructor calls
 * elastic_init()) and chain to any handler that was installed before, other
 * than SIG_DFL and SIG_IGN.  A process that loads libelastic therefore no
 * longer dies on SIGTERM: it must exit once it sees the event, or Slurm
 * kills it KillWait seconds later.  An application that installs its own
 * handler for SIGTERM or the event signal later replaces libelastic's and
 * must call the old action it gets from sigaction(2) to keep the event.
 *
 * State: the event flag is process-wide; nothing here allocates memory,
 * every struct is owned by the caller, and all functions are thread-safe
 * (elastic_world() as long as no thread changes the environment).
 * Functions return 0 (or a value) on success and -1 with errno set on
 * failure; the library never prints, but for a bad ELASTIC_SIGNAL when it
 * is loaded: one line on standard error, then the process exits with
 * ELASTIC_EXIT_BAD_SIGNAL (a rank with no handler would never see an
 * event).
 */
#ifndef SLURM_ELASTIC_ELASTIC_H
#define SLURM_ELASTIC_ELASTIC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Install the handlers for ELASTIC_SIGNAL and SIGTERM (sigaction,
 * SA_RESTART).  Idempotent: the first call (the library's constructor)
 * does the work, later calls return its result (EINVAL for a bad
 * ELASTIC_SIGNAL, which the constructor already refused by ending the
 * process).
 */
int elastic_init(void);

/*
 * 1 once an event has arrived, 0 before.  Sticky until
 * elastic_event_clear().  No system call: cheap enough for every training
 * step.
 */
int elastic_event_detected(void);

/* The signal that raised the first event since the last clear, 0 if none:
 * SIGTERM means Slurm is ending the job (KILL follows after KillWait). */
int elastic_event_signal(void);

/* Forget the event, e.g. after a checkpoint when the rank runs on. */
void elastic_event_clear(void);

/*
 * The exit status of a rank that stops because of an elastic event, after
 * its checkpoint: 75, EX_TEMPFAIL of <sysexits.h> ("temporary failure, try
 * again"), which is what such a stop means.  elastic-run relaunches when a
 * member's ranks end with it and never takes it for the end of training;
 * exit status 0 says "my work is finished".  srun passes the highest exit
 * status of its tasks on, so one rank's event status reaches the launcher
 * even when its peers exited 0.
 */
#define ELASTIC_EXIT_EVENT 75

/* The exit status of a process that loads libelastic with a bad
 * ELASTIC_SIGNAL: the library says so on standard error, in one line, and
 * ends the process before main() (or in dlopen()). */
#define ELASTIC_EXIT_BAD_SIGNAL 2

/* exit(ELASTIC_EXIT_EVENT): flushes stdio and runs atexit handlers. */
void elastic_exit_event(void) __attribute__((noreturn));

/* The event signal in use besides SIGTERM (SIGURG unless ELASTIC_SIGNAL
 * says otherwise), or -1 with errno EINVAL for a bad ELASTIC_SIGNAL. */
int elastic_signal(void);

/*
 * Progress, for the launcher's hang detection (elastic-run(1), HANGS):
 * call elastic_progress() once per training step; a rank that reports no
 * step for --elastic-hang-timeout is taken as hung, its node left out of
 * the next world.  Around a checkpoint save longer than a step, call
 * elastic_progress_saving(1) before and (0) after: a save is never a
 * hang.  Without ELASTIC_PROGRESS_DIR (not under elastic-run) both do
 * nothing and return 0.  0, or -1 with errno set (the directory is not
 * the rank's own: EPERM); a rank that cannot report trains on.
 */
int elastic_progress(unsigned long long step);
int elastic_progress_saving(int saving);

#define ELASTIC_WORLD_ADDR_MAX 256  /* MASTER_ADDR, with its NUL */
#define ELASTIC_WORLD_PATH_MAX 4096 /* paths, with their NUL */

/*
 * The rank's place in the current world, read from the environment the
 * SPANK plugin sets (torchrun's names where torchrun has one).  Counts and
 * ranks are 0..INT_MAX.
 */
struct elastic_world {
	int rank;	      /* RANK: global rank, < world_size */
	int local_rank;	      /* LOCAL_RANK: rank on this node */
	int world_size;	      /* WORLD_SIZE: ranks in the world, >= 1 */
	int local_world_size; /* LOCAL_WORLD_SIZE: ranks on this node */
	int group_rank;	      /* GROUP_RANK: this node's index, < nnodes */
	int nnodes;	      /* ELASTIC_NNODES: nodes in the world */
	int prev_nnodes;      /* ELASTIC_PREV_NNODES (optional): nodes before
			       * the last restart; 0 on the first start */
	int restart_count;    /* ELASTIC_RESTART_COUNT: 0 on the first */
	uint32_t job_id;      /* ELASTIC_JOB_ID: the group's base job */
	uint16_t master_port; /* MASTER_PORT: 1..65535 */
	/* MASTER_ADDR */
	char master_addr[ELASTIC_WORLD_ADDR_MAX];
	/* ELASTIC_CHECKPOINT_DIR (optional): where to write checkpoints,
	 * the same on every rank; "" when unset */
	char checkpoint_dir[ELASTIC_WORLD_PATH_MAX];
	/* ELASTIC_PREV_CHECKPOINT (optional): what to resume from; "" when
	 * unset or empty: start fresh */
	char prev_checkpoint[ELASTIC_WORLD_PATH_MAX];
};

/*
 * Fill *w from the environment.  Parsing is strict (decimal digits only,
 * no sign, blank or suffix).  Fails with errno
 *   ENOENT        a required variable is unset (all but those marked
 *                 optional above),
 *   EINVAL        a value is empty or not a number, or the values
 *                 contradict each other (RANK >= WORLD_SIZE, ...),
 *   ERANGE        a number is out of range,
 *   ENAMETOOLONG  a string does not fit its field.
 * *w is untouched on failure.
 */
int elastic_world(struct elastic_world *w);

/* elastic_world(), and on failure a one-line explanation naming the
 * variable in err (when err is not NULL and errlen > 0), such as
 * "WORLD_SIZE=abc: not a whole number". */
int elastic_world_err(struct elastic_world *w, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
