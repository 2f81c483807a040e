#ifndef ELASTIC_RUN_H
#define ELASTIC_RUN_H

/*
 * What the parts of elastic-run share: elastic-run.c (options, signals,
 * the timeline, the loop), world.c (the world and where it comes from),
 * sentinel.c (the step that reports raised signals), launch.c (starting,
 * signalling and reaping the ranks' steps; checkpoints), watch.c (one
 * launch watched to its end).  Private to the program.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/error.h"
#include "common/log.h"
#include "common/options.h"
#include "common/nodelist.h"
#include "common/parse.h"
#include "common/rankenv.h"
#include "common/slurm_compat.h"
#include "libelastic/elastic.h"
#include "ckpt_slurm.h"
#include "common/ckpt.h"
#include "common/ckpt_eval.h"
#include "elastic-event/jobload.h"
#include "elastic-event/raise.h"
#include "decide.h"
#include "membership.h"
#include "inplace.h"
#include "ledger.h"
#include <pwd.h>

#define PROG	       "elastic-run"
#define SENTINEL_NAME  "elastic-sentinel"
#define HEARTBEAT_NAME "elastic-heartbeat"
#define POLL_MS	       100
#define ALLOC_POLL_MS  1000
#define KILL_WAIT_S    10
/* After the ranks all exit, how long to wait for an elastic signal that
 * slurmd delivers to the batch step later than to the ranks. */
#define SETTLE_MS     500
#define DEFAULT_GRACE 30
/* elasticd: how often to ask for the group while ranks run, how long a
 * request may take, and how long to wait for a world: at the start (the
 * daemon adopts a new group within a poll or two), after an event (the
 * next generation is published within a poll), in an outage. */
#define ED_POLL_MS	    500
#define ED_TIMEOUT_MS	    2000
#define ED_RETRY_MS	    200
#define ED_START_WAIT_S	    15
#define RELAUNCH_GEN_WAIT_S 1.5
#define ED_OUTAGE_WAIT_S    10
#define ED_PROBE_S	    5
/* After ranks failed: how long to look for a lost member, how often. */
#define MOVED_WAIT_S  3
#define MOVED_POLL_MS 250
/* Beyond the fault timeout: elasticd's poll and decision. */
#define FAULT_MARGIN_S 5
/* Meanwhile elasticd is told of the fault this often (it reads a group
 * it was told of at every cycle for 30 s). */
#define FAULT_TELL_S 10
/* How often the checkpoint pass runs while the ranks train. */
#define CKPT_TICK_S 2
/* During the grace: how often the ranks still running are told again, and
 * how long after our last raise the sentinel may still report it. */
#define RERAISE_S    2
#define RAISE_ECHO_S 0.5
/* While a launch's steps are not all up, how often stale steps of earlier
 * launches are looked for (slurmctld may bring some back on a restart). */
#define STALE_CHECK_S 5
/* How long signalled stale steps have to end before they count as ghosts. */
#define GHOST_WAIT_S 3
/* After a node was lost: how long the survivors may take to exit (those
 * between two steps checkpoint; those in a collective with the dead peer
 * cannot, whatever the grace). */
#define LOST_EXIT_S 5

struct config {
	uint32_t job_id;
	unsigned nproc_per_node;
	unsigned max_restarts;
	char **cmd;
	int sig;		/* the job's elastic signal */
	unsigned grace;		/* seconds */
	unsigned fault_timeout; /* seconds elasticd waits for a replacement */
	unsigned heartbeat_timeout; /* a node's silence that is a loss; 0 */
	/* The site's straggler rule: StragglerSteps, StragglerFactor (in
	 * hundredths). */
	unsigned straggler_steps, straggler_factor;
	/* Checkpoints (common/ckpt.h): the job's dir, what the ranks resume
	 * from, and the pass that submits eval jobs and applies retention. */
	bool ckpt;
	struct elastic_opts opts;
	struct ckpt_slurm cs;
	char ckpt_dir[CKPT_PATH_MAX];
	char prev[CKPT_PATH_MAX];
	char eval_partition[POLICY_NAME_MAX + 1];
	unsigned port;
	const char *srun;
	/* --launcher=mpirun: the mpirun and the remote-shell agent. */
	const char *mpirun;
	char rsh_agent[4096];
	/* Its remote-shell launcher's MCA names: "rsh" (Open MPI 4),
	 * "ssh" (5, PRRTE), from mpirun --version. */
	char plm_agent[32], plm_no_tree[32];
	const char *plm;
	/* The in-place resizes' world channel, NULL when off. */
	struct inplace *ip;
	/* SpareCheck, SpareCheckTimeout (elastic.conf): "" for none. */
	char spare_check[POLICY_PATH_MAX + 1];
	unsigned spare_check_timeout;
};

/* The job's current allocation and elastic options, in one RPC. */
struct alloc_view {
	unsigned nnodes;
	char nodes[MEMBERS_NODES_POOL];
	char batch_host[256];
	bool elastic;
	struct elastic_opts opts;
};

/*
 * Where the world comes from.  With an elasticd to ask, its view of the
 * group (the base and the units in the current world); once it has
 * answered, an outage keeps the world running and a relaunch waits for
 * it, then falls back to the job's own allocation, which always exists.
 */
struct source {
	bool have_ed;
	struct apiclient ed;
	/* Jobs of elasticd's worlds that Slurm showed to be the group's own
	 * (a job's owner and tag never change). */
	uint32_t ours[MAX_MEMBERS];
	size_t nours;
	bool ed_mode;	 /* the current world is elasticd's */
	bool ed_trouble; /* an outage was reported */
	bool ed_said;	 /* the fallback to the allocation was reported */
	uint64_t seen_generation; /* the last world logged (debug) */
	/* A member left the world without a new generation (a unit or node
	 * failed): elasticd waits the fault timeout for a replacement before
	 * it publishes the next world, and so does the relaunch. */
	bool degraded;
	char why[sizeof(((elastic_error_t *)0)->text)]; /* last failure */
	double next_probe; /* allocation mode: when to ask elasticd again */
	/* For the next report to elasticd: how long the ranks took to exit
	 * at the last event, ms (-1: not measured). */
	long exit_ms;
	/* The ranks run a world of the launcher's own (own_world()), made
	 * from elasticd's generation own_from: until a newer one, elasticd's
	 * world of that generation is no change. */
	uint64_t own_from;
};

struct sentinel {
	pid_t pid;
	int fd; /* its output, -1 if none */
	int in; /* its input: closing it ends the step, -1 if none */
	char buf[256];
	size_t len;
};

struct launch {
	size_t n;
	pid_t pid[MAX_MEMBERS];
	int status[MAX_MEMBERS];
	bool done[MAX_MEMBERS];
	size_t running;
	/* The member jobs the launch runs in (one srun each, or one
	 * mpirun over all), and their first step id of the launch. */
	size_t njobs;
	uint32_t job[MAX_MEMBERS];
	uint32_t first_step[MAX_MEMBERS];
	/* One mpirun, in a process group of its own with the ranks it
	 * starts on its own node: those are in no step of any job. */
	bool mpirun;
	/* The ranks' steps share their CPUs with ghosts (see below). */
	bool overlap;
	/* Stale steps the last check found (and killed). */
	size_t stale;
	/* Members that ended with 0 while others ran, checked in Slurm. */
	bool checked[MAX_MEMBERS];
};

/* What happened while a launch ran. */
/* Nodes besides the first that one split lets go (the rest, at the next). */
#define WATCH_ALSO_MAX 32

struct watch {
	/* What the launcher saw, NULL if the ranks all exited on their own:
	 * stop, signal, raised (on the steps), membership (the world changed
	 * while they ran), member-exit (a member failed while others ran),
	 * ranks-event (a member stopped for an event while others ran). */
	const char *cause;
	char detail[256];
	bool stopping;
	char world[256]; /* how the world changed, if it did */
	/* cause node-lost, hang, straggler, split: the node that leaves,
	 * its member job; for a split, the others that leave too. */
	char lost_node[64];
	uint32_t lost_job;
	/* A fault's onset: the node's last sign of life (monotonic s; 0
	 * when not known). */
	double onset;
	char also[WATCH_ALSO_MAX][64];
	uint32_t also_job[WATCH_ALSO_MAX];
	size_t nalso;
	/* The ranks all finished (status 0) while new ones were readied to
	 * join them in place: the job is done, the cause moot. */
	bool finished;
};

/* A node whose heartbeats stopped and whose host does not answer
 * ("node-lost"), or where a rank made no progress ("hang"). */
struct lost_node {
	const char *kind;
	char node[64];
	uint32_t job;
	double silent_s;
	bool heard; /* it spoke before it fell silent */
};

/* Set by the signal handlers (elastic-run.c). */
extern volatile sig_atomic_t got_event; /* signal number, 0 if none */
extern volatile sig_atomic_t got_stop;
/* When we last raised the event on the ranks' steps (monotonic s). */
extern double last_raise;
/* Variables of the batch step that would mislead srun --jobid (launch.c). */
extern const char *const stale_vars[];

/* current_members(): the batch job was told to stop while waiting. */
#define MEMBERS_STOPPED (-2)

void timeline(const char *event, unsigned restart, unsigned nnodes,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));
double now_s(void);
void sleep_ms(unsigned ms);
/* This program's path, for the steps that run it on the nodes; -1 if
 * unknown.  Replaced while the job runs (an upgrade), the new file. */
int self_exe(char *out, size_t len);
void install(int sig, void (*fn)(int));
int load_alloc(uint32_t job_id, struct alloc_view *v, elastic_error_t *err);
int source_init(struct source *src, const char *server, const char *munge,
		const struct elastic_policy *p, const char *conf,
		const elastic_error_t *p_err);
void member_list(const struct members *ms, char *out, size_t len);
int current_members(const struct config *c, struct source *src,
		    uint64_t after_gen, unsigned restart, struct members *ms,
		    elastic_error_t *err);
bool world_changed(const struct config *c, struct source *src,
		   struct members *cur, double *next_poll, char *detail,
		   size_t len);
bool world_moved(const struct config *c, struct source *src,
		 struct members *cur, char *detail, size_t len);
bool own_job_preempted(uint32_t job_id);
/* Tell elasticd that event happened to job (elasticd(8), NOTIFICATIONS):
 * best effort, elasticd's poll is the net; nothing without an elasticd. */
void tell_elasticd(struct source *src, uint32_t job, const char *event,
		   unsigned timeout_ms);
/* A member of the launch that ended with 0 while others run, newly: is
 * its job still what the launch started on (one request to slurmctld per
 * member and launch)?  srun ends with 0 when slurmctld declares its node
 * down.  Returns the index of the first that is not, with detail filled,
 * or -1. */
int member_gone(const struct members *ms, struct launch *l, char *detail,
		size_t len);
bool world_intact(const struct config *c, struct source *src,
		  struct members *cur, char *detail, size_t len);
/* unit.c: elastic-run --unit=SIG, a unit's program. */
int unit_main(const char *sigarg);
int sentinel_main(void);
void sentinel_start(uint32_t job_id, const char *srun, struct sentinel *s);
int sentinel_read(struct sentinel *s, bool *ready);
/* A sentinel runs that said it is ready: the launcher hears an event
 * raised in the base's steps, and relays it (raise_launch()). */
bool sentinel_hears(void);
void sentinel_stop(struct sentinel *s);
size_t launch_stale(const struct config *c, const struct launch *l, bool kill);
int launch(const struct config *c, const struct members *ms, unsigned restart,
	   unsigned prev_nnodes, struct launch *l);
size_t reap(struct launch *l);
int member_failed(const struct launch *l);
void describe_status(const struct launch *l, char *out, size_t len);
size_t launch_up(const struct launch *l);
size_t raise_launch(const struct config *c, const struct launch *l,
		    uint32_t had, size_t *relayed);
void drain_steps(const struct launch *l);
void kill_launch(struct launch *l);
/* SIGKILL the srun of member job: its ranks' node is lost, and it would
 * wait for them until Slurm marks the node down. */
void kill_member(struct launch *l, uint32_t job);
const char *signame(int sig);
bool sentinel_event(const struct config *c, struct sentinel *s,
		    const char **cause, bool *stopping, char *detail,
		    size_t len);
int ckpt_setup(struct config *c, const struct elastic_policy *p);
int ckpt_prev(struct config *c, unsigned restart);
void ckpt_pass(const struct config *c, unsigned restart, unsigned nnodes);
void watch_launch(const struct config *c, struct source *src,
		  struct members *ms, struct launch *l, struct sentinel *sen,
		  unsigned restart, struct watch *w);
void end_launch(const struct config *c, struct source *src, struct launch *l,
		const struct members *ms, unsigned restart, struct watch *w);
void observe(const struct config *c, struct source *src, struct members *ms,
	     const struct launch *l, struct watch *w, struct launch_obs *o);

void node_addr(const char *node, char *out, size_t len);
/* A node state (node_info_t.node_state) that takes no ranks: down,
 * failing or not responding (a drain is for the caller to weigh). */
bool node_state_down(uint32_t st);
void report_up(const struct config *c, struct source *src,
	       const struct members *ms);
int launch_members(const struct config *c, const struct members *jm,
		   const struct members *world, unsigned restart,
		   struct launch *l);
/* heartbeat.c: one step per member job, a task per node.  _start()
 * (again) for the world that runs (the ranks' progress is of it when
 * written from world_t on: its launch, or its in-place publication),
 * _lost() at every poll, _stop() when the launch is over. */
int heartbeat_main(const char *ms_arg);
/* hbprobe.c: a heartbeat task's port for probes (its fd, -1), taking
 * the connections made to it, and its answer to "PROBE ..." (list is
 * cut up). */
int probe_listen(unsigned *port);
void probe_accept(int fd);
void probe_answer(const char *self, char *list);
/* A connection to addr:port begun (non-blocking): its socket, or -1. */
int probe_connect(const char *addr, const char *port);
/* hbrelay.c: sig sent to every process of another step of job (not
 * own_step) on node (NULL: any), as a heartbeat task relays an event;
 * how many were signalled. */
size_t hbrelay_signal(const char *job, const char *own_step, const char *node,
		      int sig);
/* The heartbeat task's side of the ring probe (ring.h, hbring.c): the
 * "RING ..." line taken; a check of the peers begun at a heartbeat;
 * their sockets into p (returns how many); the results read after poll
 * (and the checks out of time failed), the node's line said when it
 * changes. */
void hbring_set(const char *self, char *list);
void hbring_start(double now, const char *self);
size_t hbring_fds(struct pollfd *p, size_t max);
void hbring_done(const struct pollfd *p, size_t n, double now,
		 const char *self);
void heartbeat_start(const struct config *c, const struct members *ms,
		     unsigned restart, double world_t);
bool heartbeat_lost(unsigned restart, unsigned nnodes, struct lost_node *ret);
/* A rank made no progress past the hang timeout (pace.h): its node.
 * Unless a split explains the stall, heartbeat_hang_named then names it
 * in the timeline and asks every node for its ranks' stacks. */
bool heartbeat_hung(struct lost_node *ret);
/* A rank's last checkpoint save (pace.h) took more than half the grace:
 * said once a launch, in the timeline and on standard error. */
void heartbeat_grace(const struct config *c, unsigned restart, unsigned nnodes);
/* A node's ring probe found a peer it cannot reach (ring.h), not acted
 * on in the last HB_RING_HOLDOFF_S: then the full probe decides. */
bool heartbeat_ring_cut(void);
void heartbeat_hang_named(unsigned restart, unsigned nnodes,
			  const struct lost_node *h);
/* A node slower than the rest (straggle.h): named in the timeline and
 * to elasticd; true when it is to leave the world (--elastic-stragglers=
 * evict, the world at more than its min, not the batch host). */
bool heartbeat_slow(const struct config *c, struct source *src,
		    const struct members *ms, unsigned restart,
		    struct lost_node *ret);
/* Which nodes reach which (a probe, split.h): true with the nodes that
 * leave in w (cause "split") when some pairs cannot reach each other. */
bool heartbeat_split(const struct members *ms, unsigned restart,
		     struct watch *w);
void heartbeat_stop(void);
/* The event to member job's ranks over its heartbeat step, without
 * slurmctld (hbrelay.c): 0, or -1 when the step cannot carry it (no
 * heartbeats, a node not heard from yet, its srun gone). */
int heartbeat_relay(uint32_t job, int sig);
/* Name node to elasticd as lost, hung or straggling (why), if there is
 * one; a failure is only logged (release.c). */
void suspect_node(const struct config *c, struct source *src, const char *node,
		  const char *why);
/* After a node was lost: elasticd told, its unit cancelled, or the base
 * shrunk without it (not the batch host's), so that Slurm's view follows
 * before SlurmdTimeout, and its member's srun killed (release.c). */
void release_lost(const struct config *c, struct source *src,
		  const struct members *ms, struct launch *l,
		  const struct watch *w, unsigned restart);
/* The addresses of the nodes w lets go for a fault their ranks cannot
 * leave from themselves (lost, hung, split off), comma-separated into
 * out; NULL if none (release.c). */
const char *lost_addrs(const struct watch *w, char *out, size_t len);
/* After a fault that let members' units go: the world without them, of
 * the launcher's own, into nm, when it is a size the job takes; the
 * world then stands until elasticd's next generation (release.c). */
bool own_world(const struct config *c, struct source *src,
	       const struct members *ms, const struct watch *w,
	       struct members *nm);
/* inplace_leave.c: member index of job in l, or -1; the launch over
 * the next world nm (survivors keep their sruns, leavers' go to be reaped
 * and killed after the grace, joiners' come from jl); the leavers killed
 * now (the resize fell back). */
int launch_index(const struct launch *l, uint32_t job);
void inplace_relaunch_table(const struct config *c, struct launch *l,
			    const struct members *nm, const struct launch *jl);
void inplace_leavers_kill(void);
/* spares.c: warm spares.  _tend() at every poll of a launch (the
 * joiners of ms's spares started once the world is in place capable, those
 * of units no longer spares stopped); _take() moves the warm srun of job
 * into jl (a resize's joiners), false if there is none; _warm() counts
 * them; _stop() before a launch and at the end. */
void spares_tend(const struct config *c, const struct members *ms,
		 unsigned restart);
bool spares_take(uint32_t job, struct launch *jl);
size_t spares_warm(void);
void spares_stop(void);
/* sparecheck.c: health before use.  _tend() at every poll of a launch
 * (ms's new spares checked, one that fails cancelled and its node
 * reported); _ok() whether job passed; _list() those that passed, as
 * elasticd hears it ("JOB,JOB"); _usable() leaves in ms only the spares
 * that passed. */
void sparecheck_tend(const struct config *c, struct source *src,
		     const struct members *ms, unsigned restart);
bool sparecheck_ok(uint32_t job);
const char *sparecheck_list(void);
void sparecheck_usable(struct members *ms);
/* Entry i of from (one srun) to the end of l (l->n < MAX_MEMBERS). */
void launch_append(struct launch *l, const struct launch *from, size_t i);
/* Kill entry i's steps and srun, without waiting (reap() takes it). */
void launch_cut(const struct launch *l, size_t i);
/* inplace_world.c: a world's payload (inplace.h), malloc'd; NULL when
 * it does not fit.  lost: lost_addrs()'s, or NULL. */
char *inplace_payload(const struct config *c, enum inplace_path path,
		      const struct members *ms, unsigned port, unsigned src,
		      const char *lost, size_t *plen);
/* inplace.c: in-place resizes. */
struct inplace *inplace_open(void);
void inplace_env(const struct config *c, uint64_t world);
uint64_t inplace_next_world(const struct config *c);
void inplace_serve(const struct config *c, int fd, unsigned ms);
bool inplace_capable(const struct config *c, const struct members *ms);
/* When the last world was published (monotonic s; 0: none). */
double inplace_published(const struct config *c);
void inplace_abandon(const struct config *c, bool stop);
void inplace_reap(void);
bool inplace_resize(const struct config *c, struct source *src,
		    struct members *ms, struct launch *l, unsigned restart,
		    struct watch *w);

#endif
