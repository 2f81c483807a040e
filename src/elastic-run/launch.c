/* Launching the ranks (one srun per allocation, or one mpirun), telling,
 * killing and reaping them; the checkpoint passes (elastic-run.h). */
#include "config.h"

#include "elastic-run.h"

/* Variables of the batch step that would mislead srun --jobid. */
const char *const stale_vars[] = {
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
	elog_error("cannot run %s: %s", c->srun, strerror(errno));
	_exit(127);
}

/* The next step id of the job (the first the launch may get). */
static uint32_t next_step_id(uint32_t job_id)
{
	job_step_info_response_msg_t *r = NULL;
	uint32_t next = 0, i;

	if (compat_get_job_steps(job_id, &r, SHOW_ALL | SHOW_LOCAL) !=
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

	if (compat_get_job_steps(job_id, &r, SHOW_ALL | SHOW_LOCAL) !=
	    SLURM_SUCCESS)
		return 0;
	for (i = 0; i < r->job_step_count; i++) {
		const job_step_info_t *st = &r->job_steps[i];
		uint32_t id = st->step_id.step_id;

		if (id > SLURM_MAX_NORMAL_STEP_ID || id < from || id >= below ||
		    (running && st->state != JOB_RUNNING) ||
		    (st->name && (strcmp(st->name, SENTINEL_NAME) == 0 ||
				  strcmp(st->name, HEARTBEAT_NAME) == 0)))
			continue;
		n++;
		if (kill)
			compat_kill_job_step(job_id, id, SIGKILL);
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
 * Every node of the world, in hosts as "NODE:SLOTS,..." (mpirun --host) and
 * in map as "NODE=JOBID,..." (ELASTIC_RUN_HOSTMAP, for elastic-run-rsh):
 * returns how many nodes.
 */
static unsigned mpirun_host_lists(const struct config *c,
				  const struct members *ms, char *hosts,
				  char *map, size_t hl)
{
	unsigned nhosts = 0;
	size_t i;

	for (i = 0; i < ms->n; i++) {
		compat_hostlist_t h =
		    slurm_hostlist_create(member_nodes(ms, i));
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
	return nhosts;
}
/* mpirun's command line (NULL when out of memory): np ranks over hosts,
 * its daemons (orted, or PRRTE's prted) started by the rsh agent, then the
 * command. */
static char **mpirun_argv(const struct config *c, char *np, char *hosts)
{
	size_t k, n = 0;
	char **argv;

	for (k = 0; c->cmd[k]; k++)
		;
	argv = calloc(k + 32, sizeof(*argv));
	if (!argv)
		return NULL;
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
	argv[n++] = (char *)c->plm;
	argv[n++] = "--mca";
	argv[n++] = (char *)c->plm_agent;
	argv[n++] = (char *)c->rsh_agent;
	argv[n++] = "--mca";
	argv[n++] = (char *)c->plm_no_tree;
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
	return argv;
}
/* In the child: mpirun in a process group of its own, with the host map
 * and the variables it passes on (-x) to the ranks. */
static void exec_mpirun(const struct config *c, char **argv, const char *map,
			unsigned restart, unsigned prev_nnodes)
{
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
	elog_error("cannot run %s: %s", c->mpirun, strerror(errno));
	_exit(127);
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
	size_t hl = 16 * MAX_MEMBERS * 8;
	char *hosts = calloc(1, hl), *map = calloc(1, hl);
	char np[32], **argv;
	unsigned nhosts;
	pid_t pid;

	if (!hosts || !map) {
		free(hosts);
		free(map);
		return -1;
	}
	nhosts = mpirun_host_lists(c, ms, hosts, map, hl);
	snprintf(np, sizeof(np), "%u", nhosts * c->nproc_per_node);
	argv = mpirun_argv(c, np, hosts);
	if (!argv) {
		free(hosts);
		free(map);
		return -1;
	}

	pid = fork();
	if (pid < 0) {
		elog_error("fork: %s", strerror(errno));
		free(hosts);
		free(map);
		free(argv);
		return -1;
	}
	if (pid == 0)
		exec_mpirun(c, argv, map, restart, prev_nnodes);
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
size_t launch_stale(const struct config *c, const struct launch *l, bool kill)
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
/*
 * Start the ranks of world's members that jm names (an in-place resize's
 * joiners: ELASTIC_INPLACE_WORLD=0) into l, at their places in world.
 */
int launch_members(const struct config *c, const struct members *jm,
		   const struct members *world, unsigned restart,
		   struct launch *l)
{
	unsigned rank_off, node_off;
	size_t i, k;

	memset(l, 0, sizeof(*l));
	inplace_env(c, 0);
	fflush(NULL);
	for (i = 0; i < jm->n; i++) {
		pid_t pid;

		rank_off = node_off = 0;
		for (k = 0;
		     k < world->n && world->m[k].job_id != jm->m[i].job_id;
		     k++) {
			rank_off += world->m[k].nnodes * c->nproc_per_node;
			node_off += world->m[k].nnodes;
		}
		if (k == world->n)
			return -1;
		l->job[i] = jm->m[i].job_id;
		l->first_step[i] = next_step_id(jm->m[i].job_id);
		pid = fork();
		if (pid < 0) {
			elog_error("fork: %s", strerror(errno));
			return -1;
		}
		if (pid == 0) {
			child_setup();
			exec_member(c, world, k, rank_off, node_off, restart,
				    world->nnodes, false);
		}
		l->pid[i] = pid;
		l->n++;
		l->running++;
	}
	l->njobs = l->n;
	return 0;
}
int launch(const struct config *c, const struct members *ms, unsigned restart,
	   unsigned prev_nnodes, struct launch *l)
{
	unsigned rank_off = 0, node_off = 0;
	size_t i;

	/* A spare's warm ranks hold its unit's CPUs: the world may take it
	 * in now. */
	spares_stop();
	memset(l, 0, sizeof(*l));
	if (!c->mpirun)
		inplace_env(c, inplace_next_world(c));
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
			elog_error("fork: %s", strerror(errno));
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
size_t reap(struct launch *l)
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
int member_failed(const struct launch *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->done[i] && member_end_of(l->status[i]) != MEMBER_OK)
			return (int)i;
	return -1;
}
void describe_status(const struct launch *l, char *out, size_t len)
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
size_t launch_up(const struct launch *l)
{
	size_t i, up = 0;

	for (i = 0; i < l->njobs; i++)
		if (steps_up(l->job[i], l->first_step[i]) > 0)
			up++;
	return up;
}
/*
 * Tell every member's ranks: over its heartbeat step where it has one
 * (no RPC: elasticd raised the event in the base alone, elasticd(8)),
 * else through slurmctld.  A job whose steps have the event already
 * (the base, when the sentinel heard it: `had`; 0 for none) is not
 * signalled twice.  Returns how many members were told, *relayed how
 * many of them without slurmctld.
 */
size_t raise_launch(const struct config *c, const struct launch *l,
		    uint32_t had, size_t *relayed)
{
	elastic_error_t err;
	size_t i, told = 0;

	*relayed = 0;
	for (i = 0; i < l->njobs; i++) {
		if (l->njobs == l->n && l->done[i])
			continue;
		if (l->job[i] == had)
			told++;
		else if (heartbeat_relay(l->job[i], c->sig) == 0) {
			told++;
			(*relayed)++;
		} else if (raise_job(l->job[i], c->sig, &err) < 0)
			elog_error("%s", err.text);
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
void drain_steps(const struct launch *l)
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
void kill_launch(struct launch *l)
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
void launch_append(struct launch *l, const struct launch *from, size_t i)
{
	size_t k = l->n++;

	l->pid[k] = from->pid[i];
	l->job[k] = from->job[i];
	l->first_step[k] = from->first_step[i];
	l->status[k] = from->status[i];
	l->done[k] = from->done[i];
	l->running += !from->done[i];
	l->njobs = l->n;
}
void launch_cut(const struct launch *l, size_t i)
{
	kill_steps(l->job[i], l->first_step[i]);
	if (!l->done[i])
		kill(l->pid[i], SIGKILL);
}
void kill_member(struct launch *l, uint32_t job)
{
	for (size_t i = 0; i < l->n && !l->mpirun; i++)
		if (l->job[i] == job && !l->done[i])
			kill(l->pid[i], SIGKILL);
}
const char *signame(int sig)
{
	const char *n = parse_signal_name(sig);

	return n ? n : "?";
}
/*
 * Did the sentinel report a signal raised on the steps?  The job's own
 * signal and the other event signals are an event; TERM, INT and HUP
 * (Slurm's preemption, scancel) otherwise mean the job is ending.
 */
bool sentinel_event(const struct config *c, struct sentinel *s,
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

/*
 * The job's checkpoint dir and the eval partition: 1, or 0 if the job has
 * none, or -1 (said) when its pattern cannot be expanded for this user:
 * never a guess such as "%h/x" as "/x", never a fresh start that loses the
 * job's checkpoints.
 */
int ckpt_setup(struct config *c, const struct elastic_policy *p)
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
		elog_error("checkpoint dir %s: cannot expand it for uid "
			   "%u (%s)",
			   c->opts.checkpoint_dir, (unsigned)getuid(),
			   pw ? "too long"
			      : "no passwd entry: no user, no home");
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
int ckpt_prev(struct config *c, unsigned restart)
{
	elastic_error_t err;

	if (!c->ckpt)
		return 0;
	if (ckpt_prev_checkpoint(c->ckpt_dir, c->opts.resume_from,
				 ckpt_slurm_job_dir, &c->cs, c->prev,
				 sizeof(c->prev), NULL, &err) < 0) {
		elog_error("%s", err.text);
		if (restart == 0)
			return -1;
		c->prev[0] = '\0';
	}
	setenv("ELASTIC_PREV_CHECKPOINT", c->prev, 1);
	return 0;
}
/* One checkpoint pass: eval jobs for new checkpoints, then retention. */
void ckpt_pass(const struct config *c, unsigned restart, unsigned nnodes)
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
		elog_warn("checkpoints: %s", err.text);
	/* Retention alone is routine: said with the next eval, not alone. */
	if (res.submitted || res.failed)
		timeline("checkpoints", restart, nnodes,
			 "newest=%llu evals=%u eval_failed=%u deleted=%u",
			 (unsigned long long)res.newest_step, res.submitted,
			 res.failed, res.deleted);
}