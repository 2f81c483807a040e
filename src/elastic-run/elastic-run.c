/*
 * elastic-run: the launcher of an elastic job, run in the base job's batch
 * script the way torchrun is:
 *
 *   elastic-run [--nproc-per-node=N] [--max-restarts=K] [--] CMD ARGS...
 *
 * It launches the ranks with one `srun --jobid=ALLOC` per member allocation
 * of the group, in an environment cleaned of the batch's stale step
 * variables, with the launcher variables of rankenv.h set, and watches.
 * On an elastic event it raises the event on the job's steps, waits up to
 * the job's --elastic-grace for the ranks to exit, kills the rest and
 * relaunches at the current size with ELASTIC_RESTART_COUNT + 1 and
 * ELASTIC_PREV_NNODES set.  A launch that fails on its own (not an elastic
 * event) is retried up to --max-restarts times.
 *
 * The world: the group's allocations in elasticd's current generation
 * (membership.h), or the job's own allocation without elasticd.
 *
 * Events it sees:
 *   - the job's elastic signal, SIGURG or SIGUSR1 sent to elastic-run
 *     (`scancel --full --signal=URG JOB` reaches it and the ranks);
 *   - the event raised on the job's steps (elastic-event raise, elasticd,
 *     Slurm's preemption signal): the batch step does not get it, so
 *     elastic-run keeps a sentinel step of one task (srun --overlap, this
 *     program with --sentinel) that reports each signal it gets on its
 *     standard output;
 *   - a new world: another generation from elasticd, or without it the
 *     allocation changing size (a node failed, the job was shrunk);
 *   - SIGTERM, SIGINT or SIGHUP: the ranks are told, given the grace, and
 *     elastic-run stops without relaunching (the job is ending).
 *
 * Timeline on stderr, one line per event:
 *   elastic-run: <RFC3339 ms UTC> event=<what> restart=<n> nnodes=<n> ...
 * with event = launch, ranks-up, event, told, exited, relaunch, failure,
 * done.
 */
#include "config.h"

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
#include "common/options.h"
#include "common/nodelist.h"
#include "common/parse.h"
#include "common/rankenv.h"
#include "ckpt_slurm.h"
#include "common/ckpt.h"
#include "common/ckpt_eval.h"
#include "elastic-event/raise.h"
#include "decide.h"
#include "membership.h"
#include <pwd.h>

#define PROG	      "elastic-run"
#define SENTINEL_NAME "elastic-sentinel"
#define POLL_MS	      100
#define ALLOC_POLL_MS 1000
#define KILL_WAIT_S   10
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

/* ------------------------------------------------------------------ */
/* Timeline */

static void timeline(const char *event, unsigned restart, unsigned nnodes,
		     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void timeline(const char *event, unsigned restart, unsigned nnodes,
		     const char *fmt, ...)
{
	struct timeval tv;
	struct tm tm;
	char ts[64], extra[512] = "";
	va_list ap;

	gettimeofday(&tv, NULL);
	gmtime_r(&tv.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(extra, sizeof(extra), fmt, ap);
		va_end(ap);
	}
	fprintf(stderr, PROG ": %s.%03ldZ event=%s restart=%u nnodes=%u%s%s\n",
		ts, (long)(tv.tv_usec / 1000), event, restart, nnodes,
		extra[0] ? " " : "", extra);
	fflush(stderr);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	/* A signal cuts it short: the caller looks at the flags. */
	nanosleep(&t, NULL);
}

/* ------------------------------------------------------------------ */
/* Signals */

static volatile sig_atomic_t got_event; /* signal number, 0 if none */
static volatile sig_atomic_t got_stop;
/* When we last raised the event on the ranks' steps (monotonic s). */
static double last_raise;

static void on_event(int sig)
{
	got_event = sig;
}
static void on_stop(int sig)
{
	got_stop = sig;
}

static void install(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/* ------------------------------------------------------------------ */
/* Members: the allocations the world spans */

struct config {
	uint32_t job_id;
	unsigned nproc_per_node;
	unsigned max_restarts;
	char **cmd;
	int sig;		/* the job's elastic signal */
	unsigned grace;		/* seconds */
	unsigned fault_timeout; /* seconds elasticd waits for a replacement */
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
};

/* The job's current allocation and elastic options, in one RPC. */
struct alloc_view {
	unsigned nnodes;
	char nodes[MEMBERS_NODES_POOL];
	char batch_host[256];
	bool elastic;
	struct elastic_opts opts;
};

static int load_alloc(uint32_t job_id, struct alloc_view *v,
		      elastic_error_t *err)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *j;

	memset(v, 0, sizeof(*v));
	if (slurm_load_job(&msg, job_id, SHOW_ALL) != SLURM_SUCCESS)
		return elastic_errorf(err, "job %u: %s", job_id,
				      slurm_strerror(errno));
	if (msg->record_count < 1) {
		slurm_free_job_info_msg(msg);
		return elastic_errorf(err, "job %u: not found", job_id);
	}
	j = &msg->job_array[0];
	v->nnodes = j->num_nodes;
	if (j->nodes && strlen(j->nodes) >= sizeof(v->nodes)) {
		slurm_free_job_info_msg(msg);
		return elastic_errorf(err,
				      "job %u: node list longer than %zu "
				      "characters",
				      job_id, sizeof(v->nodes) - 1);
	}
	if (j->nodes)
		snprintf(v->nodes, sizeof(v->nodes), "%s", j->nodes);
	if (j->batch_host)
		snprintf(v->batch_host, sizeof(v->batch_host), "%s",
			 j->batch_host);
	v->elastic = j->admin_comment &&
		     options_parse_tag(j->admin_comment, &v->opts, NULL) == 0;
	slurm_free_job_info_msg(msg);
	return 0;
}

/* A node's address (NodeAddr), or its name if that cannot be read. */
static void node_addr(const char *node, char *out, size_t len)
{
	node_info_msg_t *msg = NULL;

	snprintf(out, len, "%s", node);
	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
	    SLURM_SUCCESS)
		return;
	if (msg->record_count > 0 && msg->node_array[0].node_addr)
		snprintf(out, len, "%s", msg->node_array[0].node_addr);
	slurm_free_node_info_msg(msg);
}

/* Membership without elasticd: the job's own allocation. */
static int members_from_allocation(uint32_t job_id, const struct alloc_view *v,
				   struct members *ms, elastic_error_t *err)
{
	const char *env;

	memset(ms, 0, sizeof(*ms));
	if (members_add(ms, job_id, v->nnodes, v->nodes, err) < 0)
		return -1;
	if (ms->m[0].nnodes == 0) {
		env = getenv("SLURM_JOB_NUM_NODES");
		unsigned long n;

		if (!env || parse_uint(env, 1, 100000, &n) != PARSE_OK)
			return elastic_errorf(
			    err, "job %u: holds no nodes (is it running?)",
			    job_id);
		ms->m[0].nnodes = (unsigned)n;
	}
	ms->nnodes = ms->m[0].nnodes;
	{
		char *first = nodelist_first_host(member_nodes(ms, 0));

		snprintf(ms->master_host, sizeof(ms->master_host), "%s",
			 first ? first : "");
		free(first);
	}
	if (!ms->master_host[0])
		snprintf(ms->master_host, sizeof(ms->master_host), "%s",
			 v->batch_host);
	return 0;
}

/* The rendezvous address: the master host's NodeAddr. */
static void resolve_master(struct members *ms)
{
	if (ms->master_host[0])
		node_addr(ms->master_host, ms->master_addr,
			  sizeof(ms->master_addr));
	else if (gethostname(ms->master_addr, sizeof(ms->master_addr)) != 0)
		snprintf(ms->master_addr, sizeof(ms->master_addr), "127.0.0.1");
}

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
	/* A member left the world without a new generation (a unit or node
	 * failed): elasticd waits the fault timeout for a replacement before
	 * it publishes the next world, and so does the relaunch. */
	bool degraded;
	char why[sizeof(((elastic_error_t *)0)->text)]; /* last failure */
	double next_probe; /* allocation mode: when to ask elasticd again */
	/* For the next report to elasticd: how long the ranks took to exit
	 * at the last event, ms (-1: not measured). */
	long exit_ms;
};

/*
 * Is every job of elasticd's world this group's own in Slurm (its base
 * or a unit of it, ours)?  Even elasticd's word is not taken for a job
 * to srun into, signal and kill.  FETCH_OK, FETCH_UNVERIFIED when one is
 * not, FETCH_ERROR when Slurm did not answer; err says why.
 */
static enum fetch_result world_is_ours(const struct config *c,
				       struct source *src,
				       const struct members *ms,
				       elastic_error_t *err)
{
	for (size_t i = 0; i < ms->n; i++) {
		uint32_t id = ms->m[i].job_id;
		job_info_msg_t *msg = NULL;
		size_t k;
		int rc;

		for (k = 0; k < src->nours && src->ours[k] != id; k++)
			;
		if (k < src->nours || id == c->job_id)
			continue;
		if (slurm_load_job(&msg, id, SHOW_ALL) != SLURM_SUCCESS) {
			rc = errno;
			elastic_errorf(err, "job %u of elasticd's world: %s",
				       id, slurm_strerror(rc));
			return rc == ESLURM_INVALID_JOB_ID ? FETCH_UNVERIFIED
							   : FETCH_ERROR;
		}
		rc = msg->record_count < 1
			 ? elastic_errorf(err,
					  "elasticd's world names job %u, "
					  "which Slurm does not show",
					  id)
			 : members_job_is_ours(c->job_id, (uint32_t)getuid(),
					       id, msg->job_array[0].user_id,
					       msg->job_array[0].admin_comment,
					       err);
		slurm_free_job_info_msg(msg);
		if (rc < 0)
			return FETCH_UNVERIFIED;
		if (src->nours == MAX_MEMBERS)
			src->nours = 0; /* the oldest are long gone */
		src->ours[src->nours++] = id;
	}
	return FETCH_OK;
}

static enum fetch_result ed_fetch(const struct config *c, struct source *src,
				  struct members *ms)
{
	elastic_error_t err;
	enum fetch_result fr =
	    elasticd_fetch(&src->ed, c->job_id, ED_TIMEOUT_MS, ms, &err);

	if (fr == FETCH_OK)
		fr = world_is_ours(c, src, ms, &err);

	if (fr == FETCH_NOT_FORMED)
		snprintf(src->why, sizeof(src->why), "no world formed yet");
	else if (fr != FETCH_OK)
		snprintf(src->why, sizeof(src->why), "%s", err.text);
	if (fr == FETCH_OK || fr == FETCH_NOT_FORMED) {
		if (src->ed_trouble)
			fprintf(stderr, PROG ": elasticd at %s answers again\n",
				src->ed.server);
		src->ed_trouble = false;
	} else if (src->ed_mode && !src->ed_trouble) {
		fprintf(stderr, PROG ": warning: %s (keeping the world)\n",
			err.text);
		src->ed_trouble = true;
	}
	return fr;
}

/*
 * Which elasticd to ask: --elasticd, ELASTIC_RUN_ELASTICD, else what
 * elastic.conf (p, read from conf) says, by server_choose(); "none" asks
 * none.  The munge socket: --munge-socket, ELASTIC_RUN_MUNGE_SOCKET,
 * ElasticdMungeSocket, munge's.  An address that cannot be elasticd's
 * fails here, before anything is launched.
 */
static int source_init(struct source *src, const char *server,
		       const char *munge, const struct elastic_policy *p,
		       const char *conf, const elastic_error_t *p_err)
{
	const char *from = "--elasticd";
	struct server_addr addr;
	elastic_error_t err;
	int rc;

	memset(src, 0, sizeof(*src));
	src->exit_ms = -1;
	if (!server && (server = getenv("ELASTIC_RUN_ELASTICD")) && *server)
		from = "ELASTIC_RUN_ELASTICD";
	if (server && !*server)
		server = NULL;
	if (!munge && (munge = getenv("ELASTIC_RUN_MUNGE_SOCKET")) && !*munge)
		munge = NULL;
	if (server && !strcmp(server, "none"))
		return 0;
	if (!p && (!server || !munge)) {
		fprintf(stderr, PROG ": warning: %s\n", p_err->text);
		if (!server)
			return 0;
	}
	rc = server_choose(server, from, p, conf, &addr, &err);
	if (rc < 0) {
		fprintf(stderr, PROG ": %s (or --elasticd=none)\n", err.text);
		return -1;
	}
	if (rc == SERVER_NONE) {
		/* Said once: every launch line says source=allocation. */
		fprintf(stderr,
			PROG ": no ElasticdServer in %s (nor --elasticd): "
			     "the world is this job's own allocation alone\n",
			conf);
		return 0;
	}
	if (p && !munge && p->elasticd_munge_socket[0])
		munge = p->elasticd_munge_socket;
	if (apiclient_init(&src->ed, &addr, munge, p ? p->elasticd_user : NULL,
			   PROG, &err) < 0) {
		fprintf(stderr, PROG ": %s in %s\n", err.text, conf);
		return -1;
	}
	src->have_ed = true;
	return 0;
}

/* "101:n[1-2],102:n3" for the timeline. */
static void member_list(const struct members *ms, char *out, size_t len)
{
	size_t i, off = 0;
	int w;

	out[0] = '\0';
	for (i = 0; i < ms->n && off < len; i++) {
		w = snprintf(out + off, len - off, "%s%u:%s", i ? "," : "",
			     ms->m[i].job_id,
			     member_nodes(ms, i)[0] ? member_nodes(ms, i)
						    : "?");
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* current_members(): the batch job was told to stop while waiting. */
#define MEMBERS_STOPPED (-2)

/* A world elasticd stands by: not one that lost members with no new one
 * formed yet (elasticd says DEGRADED). */
static bool world_current(const struct members *ms, uint64_t after_gen)
{
	return !ms->degraded || ms->generation > after_gen;
}

/*
 * elasticd formed worlds of the group and has no current one: the world
 * lost members and, past the fault timeout, fewer nodes than
 * --elastic-min are left (elasticd says DEGRADED).  What is left (the
 * base alone, say) is a size the job does not take, so no rank runs until
 * elasticd's next world (or until the job is stopped).  FETCH_OK with a
 * current world, a result that ends the wait for another reason, or
 * MEMBERS_STOPPED.
 */
static int wait_for_world(const struct config *c, struct source *src,
			  unsigned restart, uint64_t after_gen,
			  struct members *ms)
{
	enum fetch_result fr;

	timeline("waiting", restart, 0,
		 "source=elasticd reason=no-world state=%s min=%u",
		 ms->degraded ? "DEGRADED" : "not-formed", c->opts.min);
	while (!got_stop) {
		sleep_ms(ED_POLL_MS);
		fr = ed_fetch(c, src, ms);
		if (fr == FETCH_OK && !world_current(ms, after_gen))
			continue;
		if (fr != FETCH_NOT_FORMED && fr != FETCH_UNREACHABLE &&
		    fr != FETCH_UNVERIFIED)
			return (int)fr;
	}
	return MEMBERS_STOPPED;
}

/*
 * The world to launch now.  after_gen: the generation of the world the
 * ranks just left (0 at the first launch): after an elastic event,
 * elasticd publishes the next one within a poll, so wait briefly for it.
 * MEMBERS_STOPPED if the job was told to stop meanwhile.
 */
static int current_members(const struct config *c, struct source *src,
			   uint64_t after_gen, unsigned restart,
			   struct members *ms, elastic_error_t *err)
{
	struct alloc_view v;
	double deadline;
	enum fetch_result fr;

	if (src->have_ed) {
		double wait = !src->ed_mode ? ED_START_WAIT_S
			      : !after_gen  ? ED_OUTAGE_WAIT_S
			      : src->degraded
				  ? c->fault_timeout + FAULT_MARGIN_S
				  : RELAUNCH_GEN_WAIT_S;

		deadline = now_s() + wait;
		src->degraded = false;
		for (;;) {
			fr = ed_fetch(c, src, ms);
			if (fr == FETCH_OK &&
			    (ms->generation > after_gen || now_s() >= deadline))
				break;
			/* Never there: no elasticd on this cluster, or
			 * not elasticd that answers. */
			if ((fr == FETCH_UNREACHABLE ||
			     fr == FETCH_UNVERIFIED) &&
			    !src->ed_mode)
				break;
			if (now_s() >= deadline)
				break;
			sleep_ms(ED_RETRY_MS);
		}
		if (src->ed_mode &&
		    (fr == FETCH_NOT_FORMED ||
		     (fr == FETCH_OK && !world_current(ms, after_gen)))) {
			int w = wait_for_world(c, src, restart, after_gen, ms);

			if (w == MEMBERS_STOPPED)
				return w;
			fr = (enum fetch_result)w;
		}
		if (fr == FETCH_OK) {
			src->ed_mode = true;
			resolve_master(ms);
			return 0;
		}
		/* Unreachable from the start: a cluster without elasticd,
		 * which the launch line's source=allocation says. */
		if (src->ed_mode || (fr != FETCH_UNREACHABLE && !src->ed_said))
			fprintf(stderr,
				PROG ": warning: no world of job %u from "
				     "elasticd (%s): launching over its own "
				     "allocation\n",
				c->job_id, src->why);
		src->ed_said = true;
		src->ed_mode = false;
		src->next_probe = now_s() + ED_PROBE_S;
	}
	if (load_alloc(c->job_id, &v, err) < 0 ||
	    members_from_allocation(c->job_id, &v, ms, err) < 0)
		return -1;
	resolve_master(ms);
	return 0;
}

/*
 * While the ranks run: has the world changed?  Fills detail and returns
 * true if so.  Called every poll; asks elasticd or slurmctld when due.
 */
static bool world_changed(const struct config *c, struct source *src,
			  struct members *cur, double *next_poll, char *detail,
			  size_t len)
{
	struct members *nm;
	struct alloc_view v;
	bool changed = false;
	double t = now_s();

	if (t < *next_poll)
		return false;
	nm = malloc(sizeof(*nm));
	if (!nm)
		return false;
	if (src->ed_mode) {
		*next_poll = t + ED_POLL_MS / 1000.0;
		if (ed_fetch(c, src, nm) == FETCH_OK) {
			if (!members_same(nm, cur)) {
				src->degraded =
				    nm->generation == cur->generation;
				snprintf(detail, len,
					 "generation=%llu->%llu from=%u to=%u "
					 "members=%zu->%zu",
					 (unsigned long long)cur->generation,
					 (unsigned long long)nm->generation,
					 cur->nnodes, nm->nnodes, cur->n,
					 nm->n);
				changed = true;
			} else {
				cur->generation = nm->generation;
			}
		}
		free(nm);
		return changed;
	}
	*next_poll = t + ALLOC_POLL_MS / 1000.0;
	if (load_alloc(c->job_id, &v, NULL) == 0 && v.nnodes != 0 &&
	    v.nnodes != cur->nnodes) {
		snprintf(detail, len, "from=%u to=%u", cur->nnodes, v.nnodes);
		changed = true;
	} else if (src->have_ed && t >= src->next_probe) {
		src->next_probe = t + ED_PROBE_S;
		if (ed_fetch(c, src, nm) == FETCH_OK &&
		    !members_same(nm, cur)) {
			snprintf(detail, len,
				 "elasticd generation=%llu from=%u to=%u",
				 (unsigned long long)nm->generation,
				 cur->nnodes, nm->nnodes);
			changed = true;
		}
	}
	free(nm);
	return changed;
}

/*
 * Ranks failed: did the world lose a member (a node or a unit failed)?
 * elasticd and slurmctld see it within a poll or two of the ranks.
 */
static bool world_moved(const struct config *c, struct source *src,
			struct members *cur, char *detail, size_t len)
{
	double deadline = now_s() + MOVED_WAIT_S, next = 0;

	for (;;) {
		if (world_changed(c, src, cur, &next, detail, len))
			return true;
		if (now_s() >= deadline)
			return false;
		sleep_ms(MOVED_POLL_MS);
		next = 0;
	}
}

/* A member job is still what the launch started on: running, on as many
 * nodes, not in a preemption's grace.  Fills detail if not. */
static bool member_intact(const struct member *m, char *detail, size_t len)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *j;
	bool ok = false;

	if (slurm_load_job(&msg, m->job_id, SHOW_ALL) != SLURM_SUCCESS ||
	    msg->record_count < 1) {
		snprintf(detail, len, "job=%u gone", m->job_id);
		if (msg)
			slurm_free_job_info_msg(msg);
		return false;
	}
	j = &msg->job_array[0];
	if ((j->job_state & JOB_STATE_BASE) != JOB_RUNNING)
		snprintf(detail, len, "job=%u ended", m->job_id);
	else if (j->preempt_time)
		snprintf(detail, len, "job=%u preempted", m->job_id);
	else if (m->nnodes && j->num_nodes != m->nnodes)
		snprintf(detail, len, "job=%u nnodes=%u->%u", m->job_id,
			 m->nnodes, j->num_nodes);
	else
		ok = true;
	slurm_free_job_info_msg(msg);
	return ok;
}

/* Every node of the world is up (not down, failing or silent): one RPC. */
static bool nodes_up(const struct members *ms, char *detail, size_t len)
{
	node_info_msg_t *msg = NULL;
	hostlist_t hl = slurm_hostlist_create(NULL);
	bool ok = true;
	size_t i;

	if (!hl)
		return true;
	for (i = 0; i < ms->n; i++)
		if (member_nodes(ms, i)[0])
			slurm_hostlist_push(hl, member_nodes(ms, i));
	if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		slurm_hostlist_destroy(hl);
		return true; /* no answer: the other checks decide */
	}
	for (i = 0; ok && i < msg->record_count; i++) {
		const node_info_t *n = &msg->node_array[i];
		uint32_t st = n->node_state;

		if (!n->name || slurm_hostlist_find(hl, n->name) < 0)
			continue;
		if ((st & NODE_STATE_BASE) == NODE_STATE_DOWN ||
		    (st & (NODE_STATE_FAIL | NODE_STATE_NO_RESPOND))) {
			snprintf(detail, len, "node=%s down", n->name);
			ok = false;
		}
	}
	slurm_free_node_info_msg(msg);
	slurm_hostlist_destroy(hl);
	return ok;
}

/*
 * Once the ranks are all gone: is the world the one they were launched
 * on?  Asked at once, not at the next poll: ranks that stopped for an
 * event they heard of through a peer may exit before any poll saw it.
 */
static bool world_intact(const struct config *c, struct source *src,
			 struct members *cur, char *detail, size_t len)
{
	double next = 0;
	size_t i;

	if (world_changed(c, src, cur, &next, detail, len))
		return false;
	for (i = 0; i < cur->n; i++)
		if (!member_intact(&cur->m[i], detail, len))
			break;
	if (i == cur->n && nodes_up(cur, detail, len))
		return true;
	/* Slurm saw it first: elasticd's next world may wait the fault
	 * timeout for a replacement, and so does the relaunch. */
	if (src->ed_mode)
		src->degraded = true;
	return false;
}

/* Variables of the batch step that would mislead srun --jobid. */
static const char *const stale_vars[] = {
	"SLURM_NNODES",
	"SLURM_NTASKS",
	"SLURM_NPROCS",
	"SLURM_TASKS_PER_NODE",
	"SLURM_NTASKS_PER_NODE",
	"SLURM_NTASKS_PER_CORE",
	"SLURM_NTASKS_PER_SOCKET",
	"SLURM_NTASKS_PER_GPU",
	"SLURM_JOB_NUM_NODES",
	"SLURM_NODELIST",
	"SLURM_JOB_NODELIST",
	"SLURM_JOB_CPUS_PER_NODE",
	"SLURM_CPUS_PER_TASK",
	"SLURM_DISTRIBUTION",
	"SLURM_STEP_ID",
	"SLURM_STEPID",
	"SLURM_STEP_NODELIST",
	"SLURM_STEP_NUM_NODES",
	"SLURM_STEP_NUM_TASKS",
	"SLURM_STEP_TASKS_PER_NODE",
	/* Ours, from an outer launcher: set afresh below. */
	"ELASTIC_RANK_OFFSET",
	"ELASTIC_WORLD_SIZE",
	"ELASTIC_NODE_OFFSET",
	"ELASTIC_WORLD_NNODES",
	NULL,
};

/* ------------------------------------------------------------------ */
/* Sentinel: a one-task step that reports the signals raised on steps */

static const int sentinel_sigs[] = { SIGURG, SIGWINCH, SIGUSR1, SIGUSR2,
				     SIGHUP, SIGINT,   SIGTERM };

static volatile sig_atomic_t sentinel_got[NSIG];

static void on_sentinel(int sig)
{
	sentinel_got[sig] = 1;
}

/* elastic-run --sentinel: the sentinel step's task. */
static int sentinel_main(void)
{
	sigset_t block, old;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < sizeof(sentinel_sigs) / sizeof(sentinel_sigs[0]); i++) {
		install(sentinel_sigs[i], on_sentinel);
		sigaddset(&block, sentinel_sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &old);
	if (write(1, "READY\n", 6) != 6)
		return 1;
	for (;;) {
		/* The end of its standard input (elastic-run closed it) ends
		 * the step normally: COMPLETED in sacct, not CANCELLED. */
		struct pollfd in = { 0, POLLIN, 0 };
		char b[64];

		if (ppoll(&in, 1, NULL, &old) > 0 && read(0, b, sizeof(b)) <= 0)
			return 0;
		for (i = 0;
		     i < sizeof(sentinel_sigs) / sizeof(sentinel_sigs[0]);
		     i++) {
			int sig = sentinel_sigs[i];
			char line[32];
			int n;

			if (!sentinel_got[sig])
				continue;
			sentinel_got[sig] = 0;
			n = snprintf(line, sizeof(line), "%s\n",
				     parse_signal_name(sig));
			if (n > 0 && write(1, line, (size_t)n) != n)
				return 1;
		}
	}
}

struct sentinel {
	pid_t pid;
	int fd; /* its output, -1 if none */
	int in; /* its input: closing it ends the step, -1 if none */
	char buf[256];
	size_t len;
};

static void sentinel_start(uint32_t job_id, const char *srun,
			   struct sentinel *s)
{
	char self[4096], jobarg[64];
	ssize_t n;
	int p[2] = { -1, -1 }, q[2] = { -1, -1 };

	s->pid = -1;
	s->fd = -1;
	s->in = -1;
	s->len = 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || pipe(p) != 0 || pipe(q) != 0) {
		if (n > 0 && q[0] < 0 && p[0] >= 0) {
			close(p[0]);
			close(p[1]);
		}
		fprintf(stderr, PROG ": warning: no sentinel step: events "
				     "raised on steps only will be missed\n");
		return;
	}
	self[n] = '\0';
	snprintf(jobarg, sizeof(jobarg), "--jobid=%u", job_id);
	fflush(NULL);
	s->pid = fork();
	if (s->pid == 0) {
		size_t k;

		close(p[0]);
		dup2(p[1], 1);
		close(p[1]);
		close(q[1]);
		dup2(q[0], 0);
		close(q[0]);
		for (k = 0; stale_vars[k]; k++)
			unsetenv(stale_vars[k]);
		execlp(srun, srun, jobarg, "--overlap", "-N1", "-n1", "-Q",
		       "--kill-on-bad-exit=0", "--job-name=" SENTINEL_NAME,
		       self, "--sentinel", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	close(q[0]);
	if (s->pid < 0) {
		close(p[0]);
		close(q[1]);
		return;
	}
	s->fd = p[0];
	s->in = q[1];
	fcntl(s->in, F_SETFD, FD_CLOEXEC);
	fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
}

/*
 * Read what the sentinel said.  Returns the signal of the last complete
 * line ("READY" sets *ready), 0 if none; -1 once it is gone.
 */
static int sentinel_read(struct sentinel *s, bool *ready)
{
	int sig = 0;
	char *nl;
	ssize_t n;

	if (s->fd < 0)
		return -1;
	for (;;) {
		n = read(s->fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
		if (n > 0) {
			s->len += (size_t)n;
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(s->fd);
			s->fd = -1;
			break;
		} else {
			break;
		}
		if (s->len == sizeof(s->buf) - 1)
			s->len = 0; /* garbage: drop it */
	}
	s->buf[s->len] = '\0';
	while ((nl = strchr(s->buf, '\n'))) {
		int v;

		*nl = '\0';
		if (strcmp(s->buf, "READY") == 0) {
			if (ready)
				*ready = true;
		} else if (parse_signal(s->buf, &v) == PARSE_OK) {
			sig = v;
		}
		s->len -= (size_t)(nl + 1 - s->buf);
		memmove(s->buf, nl + 1, s->len + 1);
	}
	return sig ? sig : (s->fd < 0 ? -1 : 0);
}

static void sentinel_stop(struct sentinel *s)
{
	double deadline = now_s() + KILL_WAIT_S;

	if (s->in >= 0) {
		close(s->in);
		s->in = -1;
		while (s->pid > 0 && now_s() < deadline) {
			if (waitpid(s->pid, NULL, WNOHANG) != 0)
				s->pid = -1;
			else
				sleep_ms(20);
		}
	}
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->pid = -1;
	}
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}

/* ------------------------------------------------------------------ */
/* Launching */

static void setenv_u(const char *name, unsigned v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%u", v);
	setenv(name, buf, 1);
}

/* In the child: the environment of one member's srun, then exec. */
static void exec_member(const struct config *c, const struct members *ms,
			size_t i, unsigned rank_off, unsigned node_off,
			unsigned restart, unsigned prev_nnodes, bool overlap)
{
	const struct member *m = &ms->m[i];
	char jobarg[64], narg[64], tparg[64];
	char **argv;
	size_t k, n = 0;

	for (k = 0; stale_vars[k]; k++)
		unsetenv(stale_vars[k]);
	setenv_u("ELASTIC_JOB_ID", c->job_id);
	setenv_u("ELASTIC_RESTART_COUNT", restart);
	setenv_u("ELASTIC_PREV_NNODES", prev_nnodes);
	setenv("ELASTIC_MASTER_ADDR", ms->master_addr, 1);
	setenv_u("ELASTIC_MASTER_PORT", c->port);
	if (ms->n > 1) {
		setenv_u("ELASTIC_RANK_OFFSET", rank_off);
		setenv_u("ELASTIC_WORLD_SIZE", ms->nnodes * c->nproc_per_node);
		setenv_u("ELASTIC_NODE_OFFSET", node_off);
		setenv_u("ELASTIC_WORLD_NNODES", ms->nnodes);
	}

	for (k = 0; c->cmd[k]; k++)
		;
	argv = calloc(k + 8, sizeof(*argv));
	if (!argv)
		_exit(127);
	snprintf(jobarg, sizeof(jobarg), "--jobid=%u", m->job_id);
	snprintf(narg, sizeof(narg), "-N%u", m->nnodes);
	snprintf(tparg, sizeof(tparg), "--ntasks-per-node=%u",
		 c->nproc_per_node);
	argv[n++] = (char *)c->srun;
	argv[n++] = jobarg;
	argv[n++] = narg;
	argv[n++] = tparg;
	argv[n++] = "--kill-on-bad-exit=0";
	if (overlap)
		argv[n++] = "--overlap";
	for (k = 0; c->cmd[k]; k++)
		argv[n++] = c->cmd[k];
	argv[n] = NULL;
	execvp(c->srun, argv);
	fprintf(stderr, PROG ": cannot run %s: %s\n", c->srun, strerror(errno));
	_exit(127);
}

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
};

/* The next step id of the job (the first the launch may get). */
static uint32_t next_step_id(uint32_t job_id)
{
	job_step_info_response_msg_t *r = NULL;
	uint32_t next = 0, i;

	if (slurm_get_job_steps(0, job_id, NO_VAL, &r, SHOW_ALL) !=
	    SLURM_SUCCESS)
		return 0;
	for (i = 0; i < r->job_step_count; i++) {
		uint32_t s = r->job_steps[i].step_id.step_id;

		if (s <= SLURM_MAX_NORMAL_STEP_ID && s + 1 > next)
			next = s + 1;
	}
	slurm_free_job_step_info_response_msg(r);
	return next;
}

/*
 * The job's ranks' steps (normal steps but the sentinel's) with ids from
 * `from` up to `below`: how many there are (running ones only, if
 * `running`); each is signalled SIGKILL if `kill`.
 */
static size_t job_steps(uint32_t job_id, uint32_t from, uint32_t below,
			bool running, bool kill)
{
	job_step_info_response_msg_t *r = NULL;
	size_t n = 0;
	uint32_t i;

	if (slurm_get_job_steps(0, job_id, NO_VAL, &r, SHOW_ALL) !=
	    SLURM_SUCCESS)
		return 0;
	for (i = 0; i < r->job_step_count; i++) {
		const job_step_info_t *st = &r->job_steps[i];
		uint32_t id = st->step_id.step_id;

		if (id > SLURM_MAX_NORMAL_STEP_ID || id < from || id >= below ||
		    (running && st->state != JOB_RUNNING) ||
		    (st->name && strcmp(st->name, SENTINEL_NAME) == 0))
			continue;
		n++;
		if (kill)
			slurm_kill_job_step(job_id, id, SIGKILL);
	}
	slurm_free_job_step_info_response_msg(r);
	return n;
}

/* How many steps of the launch are running (ranks up). */
static size_t steps_up(uint32_t job_id, uint32_t from)
{
	return job_steps(job_id, from, UINT32_MAX, true, false);
}

/* In a launcher's child: default signals, no stale step variables. */
static void child_setup(void)
{
	static const int sigs[] = { SIGURG, SIGUSR1, SIGTERM, SIGINT, SIGHUP };
	size_t k;

	for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		signal(sigs[k], SIG_DFL);
	for (k = 0; stale_vars[k]; k++)
		unsetenv(stale_vars[k]);
}

/*
 * --launcher=mpirun: one mpirun (Open MPI) over every node of the world,
 * its orted on each node started by the remote-shell agent
 * (elastic-run-rsh) as a one-task step of the member job holding that
 * node, so that the ranks are processes of Slurm steps: signalled,
 * accounted and killed with their jobs.  See contribs/examples/mpi.
 */
static int launch_mpirun(const struct config *c, const struct members *ms,
			 unsigned restart, unsigned prev_nnodes,
			 struct launch *l)
{
	size_t hl = 16 * MAX_MEMBERS * 8, i, k, n = 0;
	char *hosts = calloc(1, hl), *map = calloc(1, hl);
	char np[32], **argv;
	unsigned nhosts = 0;
	pid_t pid;

	if (!hosts || !map) {
		free(hosts);
		free(map);
		return -1;
	}
	for (i = 0; i < ms->n; i++) {
		hostlist_t h = slurm_hostlist_create(member_nodes(ms, i));
		char *name;

		while (h && (name = slurm_hostlist_shift(h))) {
			size_t a = strlen(hosts), b = strlen(map);

			snprintf(hosts + a, hl - a, "%s%s:%u", a ? "," : "",
				 name, c->nproc_per_node);
			snprintf(map + b, hl - b, "%s%s=%u", b ? "," : "", name,
				 ms->m[i].job_id);
			nhosts++;
			free(name);
		}
		if (h)
			slurm_hostlist_destroy(h);
	}
	snprintf(np, sizeof(np), "%u", nhosts * c->nproc_per_node);
	for (k = 0; c->cmd[k]; k++)
		;
	argv = calloc(k + 32, sizeof(*argv));
	if (!argv) {
		free(hosts);
		free(map);
		return -1;
	}
	argv[n++] = (char *)c->mpirun;
	argv[n++] = "-np";
	argv[n++] = np;
	argv[n++] = "--host";
	argv[n++] = hosts;
	/* Every node the map names, not only this job's. */
	argv[n++] = "--mca";
	argv[n++] = "ras";
	argv[n++] = "^slurm";
	/* orted not daemonized: its step lasts as long as it does. */
	argv[n++] = "--leave-session-attached";
	argv[n++] = "--mca";
	argv[n++] = "plm";
	argv[n++] = "rsh";
	argv[n++] = "--mca";
	argv[n++] = "plm_rsh_agent";
	argv[n++] = (char *)c->rsh_agent;
	argv[n++] = "--mca";
	argv[n++] = "plm_rsh_no_tree_spawn";
	argv[n++] = "1";
	/* Ours over what spank_elastic set in each one-task orted step. */
	argv[n++] = "-x";
	argv[n++] = "ELASTIC_JOB_ID";
	argv[n++] = "-x";
	argv[n++] = "ELASTIC_RESTART_COUNT";
	argv[n++] = "-x";
	argv[n++] = "ELASTIC_PREV_NNODES";
	argv[n++] = "-x";
	argv[n++] = "ELASTIC_CHECKPOINT_DIR";
	argv[n++] = "-x";
	argv[n++] = "ELASTIC_PREV_CHECKPOINT";
	for (k = 0; c->cmd[k]; k++)
		argv[n++] = c->cmd[k];
	argv[n] = NULL;

	pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		free(hosts);
		free(map);
		free(argv);
		return -1;
	}
	if (pid == 0) {
		/* mpirun forwards SIGURG/SIGUSR1 to the ranks itself. */
		child_setup();
		setpgid(0, 0);
		setenv("ELASTIC_RUN_HOSTMAP", map, 1);
		setenv_u("ELASTIC_JOB_ID", c->job_id);
		setenv_u("ELASTIC_RESTART_COUNT", restart);
		setenv_u("ELASTIC_PREV_NNODES", prev_nnodes);
		setenv("ELASTIC_CHECKPOINT_DIR", c->ckpt ? c->ckpt_dir : "", 1);
		if (!getenv("ELASTIC_PREV_CHECKPOINT"))
			setenv("ELASTIC_PREV_CHECKPOINT", "", 1);
		execvp(c->mpirun, argv);
		fprintf(stderr, PROG ": cannot run %s: %s\n", c->mpirun,
			strerror(errno));
		_exit(127);
	}
	free(hosts);
	free(map);
	free(argv);
	setpgid(pid, pid); /* also here: no window before a kill */
	l->pid[0] = pid;
	l->n = 1;
	l->running = 1;
	l->mpirun = true;
	return 0;
}

/*
 * The base's first step this program launched ranks in: the steps below it
 * (the sentinel's, the batch script's own) are never ours to kill.
 */
static uint32_t base_floor = UINT32_MAX;

/*
 * Steps of earlier launches that slurmctld still holds as running in a
 * member job (below step id `below`): their sruns are gone.  Mostly they
 * are ending, and a signal ends them.  But when slurmctld restarts from a
 * state saved before they ended, and their completion reached only the
 * slurmctld that died, they are ghosts: nothing on the nodes answers for
 * them, a signal does not end them, and they hold their CPUs until the
 * job ends, so that a new step waits "Requested nodes are busy" forever.
 * Signals (SIGKILL) them if `kill`; returns how many there are.
 */
static size_t stale_steps(uint32_t base_job, uint32_t job_id, uint32_t below,
			  bool kill)
{
	uint32_t floor = job_id == base_job ? base_floor : 0;

	if (floor == UINT32_MAX)
		return 0;
	return job_steps(job_id, floor, below, true, kill);
}

static size_t launch_stale(const struct config *c, const struct launch *l,
			   bool kill)
{
	size_t i, n = 0;

	for (i = 0; i < l->njobs; i++)
		n += stale_steps(c->job_id, l->job[i], l->first_step[i], kill);
	return n;
}

/*
 * Before a launch: signal the stale steps and give them a moment to end;
 * those left are ghosts, and the launch's steps overlap them (--overlap:
 * they use the CPUs slurmctld counts as the ghosts').  Safe: a ghost's
 * ranks are gone, and live ranks would have died of the signal.
 */
static void clear_stale(const struct config *c, struct launch *l,
			unsigned restart, unsigned nnodes)
{
	double deadline = now_s() + GHOST_WAIT_S;
	size_t killed = launch_stale(c, l, true), left = killed;

	while (left && now_s() < deadline) {
		sleep_ms(POLL_MS);
		left = launch_stale(c, l, false);
	}
	/* Steps still ending are the usual case after a resize: quiet. */
	if (!left)
		return;
	l->overlap = !c->mpirun;
	timeline("stale-steps", restart, nnodes,
		 "killed=%zu ghosts=%zu overlap=%s", killed, left,
		 l->overlap ? "yes" : "no");
}

static int launch(const struct config *c, const struct members *ms,
		  unsigned restart, unsigned prev_nnodes, struct launch *l)
{
	unsigned rank_off = 0, node_off = 0;
	size_t i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < ms->n; i++) {
		l->job[i] = ms->m[i].job_id;
		l->first_step[i] = next_step_id(ms->m[i].job_id);
		if (l->job[i] == c->job_id && base_floor == UINT32_MAX)
			base_floor = l->first_step[i];
	}
	l->njobs = ms->n;
	clear_stale(c, l, restart, ms->nnodes);
	fflush(NULL);
	if (c->mpirun)
		return launch_mpirun(c, ms, restart, prev_nnodes, l);
	for (i = 0; i < ms->n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
			return -1;
		}
		if (pid == 0) {
			/* The child's srun handles its own signals. */
			child_setup();
			exec_member(c, ms, i, rank_off, node_off, restart,
				    prev_nnodes, l->overlap);
		}
		l->pid[i] = pid;
		l->n++;
		l->running++;
		rank_off += ms->m[i].nnodes * c->nproc_per_node;
		node_off += ms->m[i].nnodes;
	}
	return 0;
}

/* Reap what exited; returns how many are still running. */
static size_t reap(struct launch *l)
{
	size_t i;
	int st;

	for (i = 0; i < l->n; i++) {
		if (l->done[i])
			continue;
		if (waitpid(l->pid[i], &st, WNOHANG) == l->pid[i]) {
			l->done[i] = true;
			l->status[i] = st;
			l->running--;
			/* Ranks of a killed mpirun would live on, orphans. */
			if (l->mpirun)
				kill(-l->pid[i], SIGKILL);
		}
	}
	return l->running;
}

/* A member that ended other than with 0 (failed, or stopped for an
 * event) while others still run: its index, or -1. */
static int member_failed(const struct launch *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->done[i] && member_end_of(l->status[i]) != MEMBER_OK)
			return (int)i;
	return -1;
}

static void describe_status(const struct launch *l, char *out, size_t len)
{
	size_t i, off = 0;

	out[0] = '\0';
	for (i = 0; i < l->n && off < len; i++) {
		int st = l->status[i];
		int w;

		if (WIFEXITED(st))
			w = snprintf(out + off, len - off, "%sexit=%d",
				     i ? "," : "", WEXITSTATUS(st));
		else if (WIFSIGNALED(st))
			w = snprintf(out + off, len - off, "%ssignal=%d",
				     i ? "," : "", WTERMSIG(st));
		else
			w = snprintf(out + off, len - off, "%s?", i ? "," : "");
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* Kill the job's steps from step id `from` on (the sentinel's is lower). */
static void kill_steps(uint32_t job_id, uint32_t from)
{
	job_steps(job_id, from, UINT32_MAX, false, true);
}

/* How many sruns of the launch have their step running (ranks up). */
static size_t launch_up(const struct launch *l)
{
	size_t i, up = 0;

	for (i = 0; i < l->njobs; i++)
		if (steps_up(l->job[i], l->first_step[i]) > 0)
			up++;
	return up;
}

/* Tell every member's ranks.  Returns how many members were told. */
static size_t raise_launch(const struct config *c, const struct launch *l)
{
	elastic_error_t err;
	size_t i, told = 0;

	for (i = 0; i < l->njobs; i++) {
		if (l->njobs == l->n && l->done[i])
			continue;
		if (raise_job(l->job[i], c->sig, &err) < 0)
			fprintf(stderr, PROG ": %s\n", err.text);
		else
			told++;
	}
	/* The ranks on mpirun's own node are in no step: mpirun passes the
	 * signal on to every rank. */
	if (l->mpirun && !l->done[0])
		kill(l->pid[0], c->sig);
	return told;
}

/*
 * After an mpirun exits, its orted steps may still be ending: wait (and
 * then kill them) so that the next launch's orteds do not meet them.
 */
static void drain_steps(const struct launch *l)
{
	double deadline = now_s() + KILL_WAIT_S;
	size_t i, left;

	for (;;) {
		for (i = 0, left = 0; i < l->njobs; i++)
			left += steps_up(l->job[i], l->first_step[i]);
		if (!left)
			return;
		if (now_s() >= deadline)
			break;
		sleep_ms(POLL_MS);
	}
	for (i = 0; i < l->njobs; i++)
		kill_steps(l->job[i], l->first_step[i]);
}

/* After the grace: kill the launch's steps and the sruns. */
static void kill_launch(struct launch *l)
{
	double deadline;
	size_t i;

	for (i = 0; i < l->njobs; i++)
		if (l->njobs != l->n || !l->done[i])
			kill_steps(l->job[i], l->first_step[i]);
	deadline = now_s() + KILL_WAIT_S;
	while (reap(l) > 0 && now_s() < deadline)
		sleep_ms(POLL_MS);
	for (i = 0; i < l->n; i++)
		if (!l->done[i])
			kill(l->mpirun ? -l->pid[i] : l->pid[i], SIGKILL);
	while (reap(l) > 0)
		sleep_ms(POLL_MS);
}

static const char *signame(int sig)
{
	const char *n = parse_signal_name(sig);

	return n ? n : "?";
}

/*
 * Did the sentinel report a signal raised on the steps?  The job's own
 * signal and the other event signals are an event; TERM, INT and HUP
 * (Slurm's preemption, scancel) otherwise mean the job is ending.
 */
static bool sentinel_event(const struct config *c, struct sentinel *s,
			   const char **cause, bool *stopping, char *detail,
			   size_t len)
{
	int sig = sentinel_read(s, NULL);

	if (sig <= 0)
		return false;
	if (sig != c->sig &&
	    (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)) {
		*cause = "stop";
		*stopping = true;
	} else {
		*cause = "raised";
	}
	snprintf(detail, len, "signal=%s on=steps", signame(sig));
	return true;
}

/* ------------------------------------------------------------------ */

/* ------------------------------------------------------------------ */
/* Checkpoints */

/*
 * The job's checkpoint dir and the eval partition: 1, or 0 if the job has
 * none, or -1 (said) when its pattern cannot be expanded for this user:
 * never a guess such as "%h/x" as "/x", never a fresh start that loses the
 * job's checkpoints.
 */
static int ckpt_setup(struct config *c, const struct elastic_policy *p)
{
	struct passwd *pw = getpwuid(getuid());
	char job[16];
	const char *part;

	c->cs.pattern = c->opts.checkpoint_dir;
	c->cs.user = pw ? strdup(pw->pw_name) : "";
	c->cs.home = pw ? strdup(pw->pw_dir) : "";
	snprintf(job, sizeof(job), "%u", c->job_id);
	if (!c->cs.user || !c->cs.home || !c->opts.checkpoint_dir[0])
		return 0;
	if (options_expand_path(c->opts.checkpoint_dir, job, c->cs.user,
				c->cs.home, c->ckpt_dir,
				sizeof(c->ckpt_dir)) < 0) {
		fprintf(stderr,
			PROG ": checkpoint dir %s: cannot expand it for uid "
			     "%u (%s)\n",
			c->opts.checkpoint_dir, (unsigned)getuid(),
			pw ? "too long" : "no passwd entry: no user, no home");
		return -1;
	}
	if (p && (part = ckpt_eval_partition(p)))
		snprintf(c->eval_partition, sizeof(c->eval_partition), "%s",
			 part);
	return 1;
}

/*
 * ELASTIC_PREV_CHECKPOINT for the next launch: the newest of the job's
 * own, else what --elastic-resume-from names.  A resume address that
 * names nothing fails the first launch; later ones go on without.
 */
static int ckpt_prev(struct config *c, unsigned restart)
{
	elastic_error_t err;

	if (!c->ckpt)
		return 0;
	if (ckpt_prev_checkpoint(c->ckpt_dir, c->opts.resume_from,
				 ckpt_slurm_job_dir, &c->cs, c->prev,
				 sizeof(c->prev), NULL, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.text);
		if (restart == 0)
			return -1;
		c->prev[0] = '\0';
	}
	setenv("ELASTIC_PREV_CHECKPOINT", c->prev, 1);
	return 0;
}

/* One checkpoint pass: eval jobs for new checkpoints, then retention. */
static void ckpt_pass(const struct config *c, unsigned restart, unsigned nnodes)
{
	struct ckpt_tick_result res;
	struct ckpt_tick t = {
		.ckpt_dir = c->ckpt_dir,
		.keep = c->opts.keep,
		.prev = c->prev,
		.eval_cmd = c->opts.eval_cmd,
		.job_id = c->job_id,
		.partition = c->eval_partition[0] ? c->eval_partition : NULL,
		.active = ckpt_slurm_active,
	};
	elastic_error_t err;

	if (!c->ckpt)
		return;
	memset(&res, 0, sizeof(res));
	if (ckpt_tick(&t, &res, &err) < 0)
		fprintf(stderr, PROG ": warning: checkpoints: %s\n", err.text);
	/* Retention alone is routine: said with the next eval, not alone. */
	if (res.submitted || res.failed)
		timeline("checkpoints", restart, nnodes,
			 "newest=%llu evals=%u eval_failed=%u deleted=%u",
			 (unsigned long long)res.newest_step, res.submitted,
			 res.failed, res.deleted);
}

/* ------------------------------------------------------------------ */
/* One launch: watch it, end it, say what happened */

/* What happened while a launch ran. */
struct watch {
	/* What the launcher saw, NULL if the ranks all exited on their own:
	 * stop, signal, raised (on the steps), membership (the world changed
	 * while they ran), member-exit (a member failed while others ran),
	 * ranks-event (a member stopped for an event while others ran). */
	const char *cause;
	char detail[256];
	bool stopping;
	char world[256]; /* how the world changed, if it did */
};

/* Tell elasticd the ranks run in its world (the resize is over) and how
 * long they took to leave the last one. */
static void report_up(const struct config *c, struct source *src,
		      const struct members *ms)
{
	elastic_error_t err;

	if (!src->ed_mode)
		return;
	if (elasticd_report(&src->ed, c->job_id, ms->generation, src->exit_ms,
			    ED_TIMEOUT_MS, &err) < 0)
		fprintf(stderr, PROG ": warning: report to elasticd: %s\n",
			err.text);
	src->exit_ms = -1;
}

/* Watch the ranks until they all exit or something happens. */
static void watch_launch(const struct config *c, struct source *src,
			 struct members *ms, struct launch *l,
			 struct sentinel *sen, unsigned restart,
			 struct watch *w)
{
	double next_poll = now_s() + ALLOC_POLL_MS / 1000.0;
	double next_ckpt = now_s() + CKPT_TICK_S, settle;
	double next_stale = now_s() + STALE_CHECK_S;
	bool up = false;
	int failed;

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
		if (l->running < l->n && (failed = member_failed(l)) >= 0) {
			/* The others may wait on it in a collective. */
			w->cause =
			    member_end_of(l->status[failed]) == MEMBER_EVENT
				? "ranks-event"
				: "member-exit";
			snprintf(w->detail, sizeof(w->detail),
				 "job=%u nodes=%s", l->job[failed],
				 member_nodes(ms, (size_t)failed));
			return;
		}
		if (!up && launch_up(l) >= l->n) {
			up = true;
			timeline("ranks-up", restart, ms->nnodes, "ranks=%u",
				 ms->nnodes * c->nproc_per_node);
			report_up(c, src, ms);
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
		if (sen->fd >= 0) {
			struct pollfd pfd = { sen->fd, POLLIN, 0 };

			poll(&pfd, 1, POLL_MS);
		} else {
			sleep_ms(POLL_MS);
		}
	}

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
 * checkpoint will not make it: say so while there is time to act.
 */
static void grace_check(const struct config *c, unsigned restart,
			unsigned nnodes, double exit_s, bool killed)
{
	if (!c->grace || exit_s * 2 < c->grace)
		return;
	timeline("grace-warning", restart, nnodes,
		 "exit_seconds=%.3f grace=%u killed=%s", exit_s, c->grace,
		 killed ? "yes" : "no");
	fprintf(stderr,
		PROG ": warning: the ranks took %.1f s of the %u s grace to "
		     "checkpoint and exit%s: raise --elastic-grace (or "
		     "checkpoint faster) before Slurm kills a checkpoint "
		     "half-written\n",
		exit_s, c->grace, killed ? " and were killed" : "");
}

/* The launcher saw an event: tell the ranks, give them the grace, kill
 * what is left.  The ranks' time to exit is checked against the grace. */
static void end_launch(const struct config *c, struct source *src,
		       struct launch *l, const struct members *ms,
		       unsigned restart, struct watch *w)
{
	double t_event = now_s(), deadline = t_event + c->grace, waited;
	bool told = false, running = l->running > 0;
	size_t left;
	char st[256];

	timeline("event", restart, ms->nnodes, "cause=%s %s", w->cause,
		 w->detail);
	if (running)
		told = raise_launch(c, l) > 0;
	timeline("told", restart, ms->nnodes, "signal=%s ok=%s",
		 signame(c->sig), told || !running ? "yes" : "no");
	last_raise = now_s();
	while (reap(l) > 0 && now_s() < deadline) {
		/* A rank still starting (importing its framework) has no
		 * handler yet and ignores the signal: tell them again. */
		if (now_s() >= last_raise + RERAISE_S) {
			raise_launch(c, l);
			last_raise = now_s();
		}
		sleep_ms(POLL_MS);
	}
	waited = now_s() - t_event;
	left = l->running;
	if (left > 0) {
		kill_launch(l);
		timeline("exited", restart, ms->nnodes,
			 "killed_members=%zu grace=%u waited=%.3f", left,
			 c->grace, waited);
	} else {
		describe_status(l, st, sizeof(st));
		timeline("exited", restart, ms->nnodes,
			 "killed_members=0 waited=%.3f status=%s", waited, st);
	}
	if (running && !w->stopping) {
		grace_check(c, restart, ms->nnodes, waited, left > 0);
		src->exit_ms = (long)(waited * 1000);
	}
	ckpt_pass(c, restart, ms->nnodes);
}

/* What the decision needs to know of a launch that is over. */
static void observe(const struct config *c, struct source *src,
		    struct members *ms, const struct launch *l, struct watch *w,
		    struct launch_obs *o)
{
	size_t i;

	memset(o, 0, sizeof(*o));
	o->stopping = w->stopping;
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
	if (o->stopping || o->event)
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

/*
 * The remote-shell agent of --launcher=mpirun: ELASTIC_RUN_RSH_AGENT,
 * else beside this program (a build tree), else where it is installed.
 */
static int find_rsh_agent(char *out, size_t len)
{
	const char *env = getenv("ELASTIC_RUN_RSH_AGENT");
	char self[4096 + 32], *slash;
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", self, 4095);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		/* self is at most 4095 bytes and ends in "/elastic-run". */
		if (slash && (size_t)(slash - self) + 17 <= len) {
			strcpy(slash, "/elastic-run-rsh");
			memcpy(out, self, strlen(self) + 1);
			if (access(out, X_OK) == 0)
				return 0;
		}
	}
	snprintf(out, len, "%s/elastic-run-rsh", PKGLIBEXECDIR);
	if (access(out, X_OK) == 0)
		return 0;
	fprintf(stderr,
		PROG ": --launcher=mpirun: no elastic-run-rsh beside " PROG
		     " nor in %s (set ELASTIC_RUN_RSH_AGENT)\n",
		PKGLIBEXECDIR);
	return -1;
}

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG
	    " [--nproc-per-node=N] [--max-restarts=K] [--] CMD ARGS...\n"
	    "\n"
	    "Run CMD as the ranks of this elastic job (in its batch "
	    "script),\n"
	    "relaunching them at the new size after each elastic event.\n"
	    "\n"
	    "  -n, --nproc-per-node=N  ranks per node (default 1)\n"
	    "  -r, --max-restarts=K    relaunches after ranks fail on "
	    "their own,\n"
	    "                          not counting elastic events "
	    "(default 3)\n"
	    "  -L, --launcher=srun|mpirun\n"
	    "                          one srun per allocation (default), "
	    "or one\n"
	    "                          Open MPI mpirun over all of them\n"
	    "  -E, --elasticd=HOST:PORT|none\n"
	    "                          where elasticd is (default: "
	    "ElasticdServer)\n"
	    "  -M, --munge-socket=PATH munged's socket (default: "
	    "ElasticdMungeSocket)\n"
	    "\n"
	    "The world: the group's allocations in elasticd's current "
	    "world,\n"
	    "or the job's own allocation when there is no elasticd.\n"
	    "Events: the job's elastic signal, SIGURG or SIGUSR1 sent to " PROG
	    "\n"
	    "(scancel --full --signal=URG JOB), or the world changing.\n"
	    "SIGTERM/SIGINT/SIGHUP: tell the ranks, wait the grace, "
	    "stop.\n");
}

static int get_uint_opt(const char *name, const char *v, unsigned long min,
			unsigned long max, unsigned *out)
{
	unsigned long n;
	enum parse_result r = parse_uint(v, min, max, &n);

	if (r != PARSE_OK) {
		fprintf(stderr, PROG ": --%s=%s: %s (allowed: %lu..%lu)\n",
			name, v, parse_strerror(r), min, max);
		return -1;
	}
	*out = (unsigned)n;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "nproc-per-node", required_argument, NULL, 'n' },
		{ "max-restarts", required_argument, NULL, 'r' },
		{ "elasticd", required_argument, NULL, 'E' },
		{ "launcher", required_argument, NULL, 'L' },
		{ "munge-socket", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct config c;
	struct alloc_view v;
	struct members ms;
	struct launch l;
	struct sentinel sen;
	elastic_error_t err;
	unsigned long ul;
	unsigned restart = 0, prev_nnodes = 0, failures = 0, unexplained = 0;
	uint64_t prev_gen = 0;
	struct source src;
	const char *ed_server = NULL, *ed_munge = NULL, *launcher = NULL;
	struct elastic_policy *pol;
	elastic_error_t pol_err;
	char pol_path[POLICY_PATH_MAX + 32];
	int rc;
	const char *env;
	int ch;

	if (argc == 2 && strcmp(argv[1], "--sentinel") == 0)
		return sentinel_main();
	memset(&c, 0, sizeof(c));
	c.nproc_per_node = 1;
	c.max_restarts = 3;
	while ((ch = getopt_long(argc, argv, "+n:r:E:L:M:h", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 'n':
			if (get_uint_opt("nproc-per-node", optarg, 1, 4096,
					 &c.nproc_per_node) < 0)
				return 2;
			break;
		case 'r':
			if (get_uint_opt("max-restarts", optarg, 0, 1000000,
					 &c.max_restarts) < 0)
				return 2;
			break;
		case 'E':
			ed_server = optarg;
			break;
		case 'L':
			launcher = optarg;
			break;
		case 'M':
			ed_munge = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(PROG " %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fprintf(stderr, "usage: " PROG " [--nproc-per-node=N] "
					"[--max-restarts=K] [--] CMD ARGS... "
					"(" PROG " --help for more)\n");
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, PROG ": no command to run (" PROG
				     " --help for more)\n");
		return 2;
	}
	c.cmd = argv + optind;
	env = getenv("SLURM_JOB_ID");
	if (!env || parse_uint(env, 1, UINT32_MAX, &ul) != PARSE_OK) {
		fprintf(stderr, PROG ": SLURM_JOB_ID is not set: run " PROG
				     " in an elastic job's batch script\n");
		return 2;
	}
	c.job_id = (uint32_t)ul;
	c.srun = getenv("ELASTIC_RUN_SRUN");
	if (!c.srun || !c.srun[0])
		c.srun = "srun";
	/* Not the job id's default: another user who cannot guess the
	 * port cannot take it on the master's node first and receive the
	 * ranks' rendezvous.  One for the run: its launches rebind it. */
	{
		uint16_t r;

		c.port = getrandom(&r, sizeof(r), 0) == (ssize_t)sizeof(r)
			     ? RANKENV_PORT_FIRST + r % RANKENV_PORT_COUNT
			     : rankenv_default_port(c.job_id);
	}
	if (!launcher)
		launcher = getenv("ELASTIC_RUN_LAUNCHER");
	if (launcher && *launcher && strcmp(launcher, "srun") != 0) {
		if (strcmp(launcher, "mpirun") != 0) {
			fprintf(stderr,
				PROG
				": --launcher=%s: not a launcher (allowed: "
				"srun, mpirun)\n",
				launcher);
			return 2;
		}
		if (find_rsh_agent(c.rsh_agent, sizeof(c.rsh_agent)) < 0)
			return 2;
		c.mpirun = getenv("ELASTIC_RUN_MPIRUN");
		if (!c.mpirun || !*c.mpirun)
			c.mpirun = "mpirun";
	}

	memset(&src, 0, sizeof(src));
	src.exit_ms = -1;
	slurm_init(NULL);
	if (load_alloc(c.job_id, &v, &err) < 0) {
		fprintf(stderr, PROG ": %s\n", err.text);
		return 1;
	}
	if (v.elastic) {
		c.sig = v.opts.signal;
		c.grace = v.opts.grace;
		c.fault_timeout = v.opts.fault_timeout;
		c.opts = v.opts;
		/* elastic.conf, once: elasticd's address, the eval partition.
		 */
		pol = malloc(sizeof(*pol));
		policy_conf_path(getenv("SLURM_CONF"), pol_path,
				 sizeof(pol_path));
		if (!pol)
			elastic_errorf(&pol_err, "out of memory");
		else if (policy_load(pol, pol_path, NULL, &pol_err) < 0) {
			free(pol);
			pol = NULL;
		}
		rc = ckpt_setup(&c, pol);
		if (rc < 0) {
			free(pol);
			return 2;
		}
		c.ckpt = rc > 0;
		rc = source_init(&src, ed_server, ed_munge, pol, pol_path,
				 &pol_err);
		free(pol);
		if (rc < 0)
			return 2;
	} else {
		fprintf(stderr,
			PROG ": warning: job %u is not elastic (no elastic "
			     "tag): using SIGURG and a %u s grace\n",
			c.job_id, DEFAULT_GRACE);
		c.sig = SIGURG;
		c.grace = DEFAULT_GRACE;
	}

	install(SIGURG, on_event);
	install(SIGUSR1, on_event);
	if (c.sig != SIGTERM && c.sig != SIGINT && c.sig != SIGHUP)
		install(c.sig, on_event);
	install(SIGTERM, on_stop);
	install(SIGINT, on_stop);
	install(SIGHUP, on_stop);

	/* Before the first launch, so that its step id is below the ranks'. */
	sentinel_start(c.job_id, c.srun, &sen);
	{
		double deadline = now_s() + 20;
		bool ready = false;

		while (!ready && sentinel_read(&sen, &ready) >= 0 &&
		       now_s() < deadline)
			sleep_ms(20);
		if (!ready)
			fprintf(stderr,
				PROG ": warning: the sentinel step did not "
				     "start: events raised on steps only "
				     "will be missed\n");
	}

	for (;;) {
		struct watch w;
		struct launch_obs obs;
		struct decision_out d;
		char detail[256] = "";

		if (restart > 0 && c.mpirun)
			drain_steps(&l);
		rc = current_members(&c, &src, prev_gen, restart, &ms, &err);
		if (rc == MEMBERS_STOPPED) {
			timeline("done", restart, 0, "result=stopped");
			sentinel_stop(&sen);
			return 128 + (int)got_stop;
		}
		if (rc < 0) {
			fprintf(stderr, PROG ": %s\n", err.text);
			return 1;
		}
		if (ckpt_prev(&c, restart) < 0) {
			timeline("done", restart, ms.nnodes, "result=failed");
			sentinel_stop(&sen);
			return 1;
		}
		got_event = 0;
		/* What our own raises caused, echoed by the sentinel. */
		while (now_s() < last_raise + RAISE_ECHO_S)
			sleep_ms(20);
		sentinel_read(&sen, NULL);
		member_list(&ms, detail, sizeof(detail));
		timeline(restart ? "relaunch" : "launch", restart, ms.nnodes,
			 "members=%zu nproc_per_node=%u master=%s:%u "
			 "generation=%llu source=%s jobs=%s",
			 ms.n, c.nproc_per_node, ms.master_addr, c.port,
			 (unsigned long long)ms.generation,
			 src.ed_mode ? "elasticd" : "allocation", detail);
		if (launch(&c, &ms, restart, prev_nnodes, &l) < 0)
			return 1;

		watch_launch(&c, &src, &ms, &l, &sen, restart, &w);
		if (w.cause)
			end_launch(&c, &src, &l, &ms, restart, &w);
		else
			ckpt_pass(&c, restart, ms.nnodes);
		observe(&c, &src, &ms, &l, &w, &obs);
		obs.failures = failures;
		obs.max_restarts = c.max_restarts;
		obs.unexplained = unexplained;
		decide(&obs, &d);
		unexplained = d.unexplained ? unexplained + 1 : 0;
		describe_status(&l, detail, sizeof(detail));

		switch (d.what) {
		case DECIDE_STOP:
			timeline("done", restart, ms.nnodes, "result=stopped");
			sentinel_stop(&sen);
			return 128 + (got_stop ? (int)got_stop : SIGTERM);
		case DECIDE_SUCCESS:
			timeline("done", restart, ms.nnodes,
				 "result=success status=%s", detail);
			sentinel_stop(&sen);
			return 0;
		case DECIDE_RELAUNCH:
			/* Said already when the launcher saw the event. */
			if (!w.cause || strcmp(d.why, "event") != 0)
				timeline("event", restart, ms.nnodes,
					 "cause=%s%s%s status=%s", d.why,
					 w.world[0] ? " " : "", w.world,
					 detail);
			prev_gen = ms.generation;
			break;
		case DECIDE_RETRY:
		case DECIDE_GIVE_UP:
			failures++;
			timeline("failure", restart, ms.nnodes,
				 "status=%s failures=%u max_restarts=%u",
				 detail, failures, c.max_restarts);
			if (d.what == DECIDE_GIVE_UP) {
				timeline("done", restart, ms.nnodes,
					 "result=failed");
				sentinel_stop(&sen);
				fprintf(stderr,
					PROG ": the ranks failed %u time%s on "
					     "their own (not an elastic event; "
					     "last: %s), more than "
					     "--max-restarts=%u: giving up\n",
					failures, failures == 1 ? "" : "s",
					detail, c.max_restarts);
				return 1;
			}
			/* The same world again: no new one to wait for. */
			prev_gen = 0;
			break;
		}
		prev_nnodes = ms.nnodes;
		restart++;
	}
}
