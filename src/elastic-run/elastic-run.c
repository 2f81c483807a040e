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
 * preempted, done.
 */
#include "config.h"

#include "elastic-run.h"

volatile sig_atomic_t got_event;
volatile sig_atomic_t got_stop;
double last_raise;

void timeline(const char *event, unsigned restart, unsigned nnodes,
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
double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
void sleep_ms(unsigned ms)
{
	struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };

	/* A signal cuts it short: the caller looks at the flags. */
	nanosleep(&t, NULL);
}
int self_exe(char *out, size_t len)
{
	static const char gone[] = " (deleted)";
	static bool said;
	ssize_t n = readlink("/proc/self/exe", out, len - 1);
	size_t k = sizeof(gone) - 1;

	if (n <= 0)
		return -1;
	out[n] = '\0';
	/* The kernel names a file replaced since exec so: the steps must run
	 * the one now at its path (an upgrade), or nothing runs at all. */
	if ((size_t)n > k && !strcmp(out + n - k, gone)) {
		out[n - k] = '\0';
		if (!said)
			elog_warn("%s was replaced while this job runs: its "
				  "steps run the file now there%s",
				  out,
				  access(out, X_OK) == 0
				      ? ""
				      : ", which is gone: they will fail");
		said = true;
	}
	return 0;
}

static void on_event(int sig)
{
	got_event = sig;
}
static void on_stop(int sig)
{
	got_stop = sig;
}
void install(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}
/*
 * The remote-shell agent of --launcher=mpirun: ELASTIC_RUN_RSH_AGENT,
 * else beside this program (a build tree), else where it is installed.
 */
static int find_rsh_agent(char *out, size_t len)
{
	const char *env = getenv("ELASTIC_RUN_RSH_AGENT");
	char self[4096 + 32], *slash;
	int n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		return 0;
	}
	n = self_exe(self, 4096);
	if (n == 0) {
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
	elog_error("--launcher=mpirun: no elastic-run-rsh beside " PROG
		   " nor in %s (set ELASTIC_RUN_RSH_AGENT)",
		   PKGLIBEXECDIR);
	return -1;
}
/*
 * The remote-shell launcher of c->mpirun's Open MPI, from `mpirun
 * --version`: its MCA names into c.  -1 (said) when it does not run or is
 * not Open MPI.
 */
static int find_mpirun_plm(struct config *c)
{
	char out[512] = "";
	size_t n = 0;
	ssize_t r;
	int p[2], st;
	pid_t pid;

	if (pipe(p) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		close(p[0]);
		close(p[1]);
		execlp(c->mpirun, c->mpirun, "--version", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	while (pid > 0 && n < sizeof(out) - 1 &&
	       (r = read(p[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	c->plm = ompi_plm_of(out);
	if (!c->plm) {
		elog_error("--launcher=mpirun: '%s --version' does not say "
			   "Open MPI (%s)",
			   c->mpirun, n ? "other output" : "no output");
		return -1;
	}
	snprintf(c->plm_agent, sizeof(c->plm_agent), "plm_%s_agent", c->plm);
	snprintf(c->plm_no_tree, sizeof(c->plm_no_tree), "plm_%s_no_tree_spawn",
		 c->plm);
	return 0;
}
static void run_usage(FILE *f)
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
	    "  -I, --in-place=auto|no  resize ranks that use the in-place "
	    "API\n"
	    "                          without restarting them (default "
	    "auto)\n"
	    "  -v, --verbose           log debug messages too (each new "
	    "world)\n"
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
		elog_error("--%s=%s: %s (allowed: %lu..%lu)", name, v,
			   parse_strerror(r), min, max);
		return -1;
	}
	*out = (unsigned)n;
	return 0;
}
/* What the command line names beside the config. */
struct cmdline {
	const char *ed_server, *ed_munge, *launcher, *in_place;
};

/* The options: -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, struct config *c,
			 struct cmdline *cl)
{
	static const struct option longopts[] = {
		{ "nproc-per-node", required_argument, NULL, 'n' },
		{ "max-restarts", required_argument, NULL, 'r' },
		{ "elasticd", required_argument, NULL, 'E' },
		{ "launcher", required_argument, NULL, 'L' },
		{ "munge-socket", required_argument, NULL, 'M' },
		{ "in-place", required_argument, NULL, 'I' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(c, 0, sizeof(*c));
	memset(cl, 0, sizeof(*cl));
	c->nproc_per_node = 1;
	c->max_restarts = 3;
	while ((ch = getopt_long(argc, argv, "+n:r:E:L:M:I:vh", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'n':
			if (get_uint_opt("nproc-per-node", optarg, 1, 4096,
					 &c->nproc_per_node) < 0)
				return 2;
			break;
		case 'r':
			if (get_uint_opt("max-restarts", optarg, 0, 1000000,
					 &c->max_restarts) < 0)
				return 2;
			break;
		case 'E':
			cl->ed_server = optarg;
			break;
		case 'L':
			cl->launcher = optarg;
			break;
		case 'M':
			cl->ed_munge = optarg;
			break;
		case 'I':
			cl->in_place = optarg;
			break;
		case 'v':
			elog_set_level(ELOG_DEBUG);
			break;
		case 'h':
			run_usage(stdout);
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
		elog_error("no command to run (" PROG " --help for more)");
		return 2;
	}
	c->cmd = argv + optind;
	return -1;
}

/* The job, srun, the rendezvous port and the launcher: 0 or 2. */
static int job_config(struct config *c, const char *launcher)
{
	unsigned long ul;
	const char *env = getenv("SLURM_JOB_ID");
	char progress[64];
	uint16_t r;

	if (!env || parse_uint(env, 1, UINT32_MAX, &ul) != PARSE_OK) {
		elog_error("SLURM_JOB_ID is not set: run " PROG
			   " in an elastic job's batch script");
		return 2;
	}
	c->job_id = (uint32_t)ul;
	/* Where the ranks report progress on each node (a node's own /tmp,
	 * read by its heartbeat task), inherited by every step. */
	snprintf(progress, sizeof(progress), "/tmp/elastic-progress-%u-%u",
		 (unsigned)getuid(), c->job_id);
	setenv("ELASTIC_PROGRESS_DIR", progress, 1);
	c->srun = getenv("ELASTIC_RUN_SRUN");
	if (!c->srun || !c->srun[0])
		c->srun = "srun";
	/* Not the job id's default: another user who cannot guess the
	 * port cannot take it on the master's node first and receive the
	 * ranks' rendezvous.  One for the run: its launches rebind it. */
	c->port = getrandom(&r, sizeof(r), 0) == (ssize_t)sizeof(r)
		      ? RANKENV_PORT_FIRST + r % RANKENV_PORT_COUNT
		      : rankenv_default_port(c->job_id);
	if (!launcher)
		launcher = getenv("ELASTIC_RUN_LAUNCHER");
	if (!launcher || !*launcher || !strcmp(launcher, "srun"))
		return 0;
	if (strcmp(launcher, "mpirun") != 0) {
		elog_error("--launcher=%s: not a launcher (allowed: "
			   "srun, mpirun)",
			   launcher);
		return 2;
	}
	if (find_rsh_agent(c->rsh_agent, sizeof(c->rsh_agent)) < 0)
		return 2;
	c->mpirun = getenv("ELASTIC_RUN_MPIRUN");
	if (!c->mpirun || !*c->mpirun)
		c->mpirun = "mpirun";
	if (find_mpirun_plm(c) < 0)
		return 2;
	return 0;
}

/* The job's elastic options, elastic.conf, the checkpoints and elasticd:
 * 0, or the exit status. */
static int job_setup(struct config *c, struct source *src,
		     const struct cmdline *cl)
{
	struct alloc_view v;
	struct elastic_policy *pol;
	elastic_error_t err, pol_err;
	char pol_path[POLICY_PATH_MAX + 32];
	int rc;

	memset(src, 0, sizeof(*src));
	src->exit_ms = -1;
	c->straggler_steps = POLICY_STRAGGLER_STEPS_DEFAULT;
	c->straggler_factor = POLICY_STRAGGLER_FACTOR_DEFAULT;
	slurm_init(NULL);
	if (load_alloc(c->job_id, &v, &err) < 0) {
		elog_error("%s", err.text);
		return 1;
	}
	if (v.elastic) {
		c->sig = v.opts.signal;
		c->grace = v.opts.grace;
		c->fault_timeout = v.opts.fault_timeout;
		c->heartbeat_timeout = v.opts.heartbeat_timeout;
		c->opts = v.opts;
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
		if (pol) {
			c->straggler_steps = pol->straggler_steps;
			c->straggler_factor = pol->straggler_factor;
			snprintf(c->spare_check, sizeof(c->spare_check), "%s",
				 pol->spare_check);
			c->spare_check_timeout = pol->spare_check_timeout;
		}
		rc = ckpt_setup(c, pol);
		if (rc < 0) {
			free(pol);
			return 2;
		}
		c->ckpt = rc > 0;
		rc = source_init(src, cl->ed_server, cl->ed_munge, pol,
				 pol_path, &pol_err);
		free(pol);
		if (rc < 0)
			return 2;
	} else {
		elog_warn("job %u is not elastic (no elastic "
			  "tag): using SIGURG and a %u s grace",
			  c->job_id, DEFAULT_GRACE);
		c->sig = SIGURG;
		c->grace = DEFAULT_GRACE;
		c->heartbeat_timeout = POLICY_DEFAULT_HEARTBEAT_TIMEOUT;
	}
	return 0;
}

/* --in-place=auto|no (ELASTIC_RUN_IN_PLACE): the world channel, for
 * ranks that use the in-place API (srun launches only): 0 or 2. */
static int in_place_setup(struct config *c, const struct cmdline *cl)
{
	const char *v =
	    cl->in_place ? cl->in_place : getenv("ELASTIC_RUN_IN_PLACE");

	if (!v || !*v || !strcmp(v, "auto")) {
		if (!c->mpirun)
			c->ip = inplace_open();
		return 0;
	}
	if (strcmp(v, "no") != 0) {
		elog_error("--in-place=%s: not a choice (allowed: auto, no)",
			   v);
		return 2;
	}
	return 0;
}

/* The handlers, and the sentinel before the first launch, so that its
 * step id is below the ranks'. */
static void start_watching(const struct config *c, struct sentinel *sen)
{
	double deadline;
	bool ready = false;

	install(SIGURG, on_event);
	install(SIGUSR1, on_event);
	if (c->sig != SIGTERM && c->sig != SIGINT && c->sig != SIGHUP)
		install(c->sig, on_event);
	install(SIGTERM, on_stop);
	install(SIGINT, on_stop);
	install(SIGHUP, on_stop);

	sentinel_start(c->job_id, c->srun, sen);
	deadline = now_s() + 20;
	while (!ready && sentinel_read(sen, &ready) >= 0 && now_s() < deadline)
		sleep_ms(20);
	if (!ready)
		elog_warn("the sentinel step did not "
			  "start: events raised on steps only "
			  "will be missed");
}

/* From one launch to the next. */
struct rounds {
	struct config *c;
	struct source *src;
	struct sentinel *sen;
	struct members ms;
	struct launch l;
	unsigned restart, prev_nnodes, failures, unexplained;
	uint64_t prev_gen;
};

/* What the decision says to do: -1 to launch again, else the exit
 * status. */
static int act(struct rounds *x, const struct watch *w,
	       const struct decision_out *d, const char *detail)
{
	const struct config *c = x->c;

	switch (d->what) {
	case DECIDE_STOP:
		timeline("done", x->restart, x->ms.nnodes, "result=stopped");
		sentinel_stop(x->sen);
		return 128 + (got_stop ? (int)got_stop : SIGTERM);
	case DECIDE_SUCCESS:
		timeline("done", x->restart, x->ms.nnodes,
			 "result=success status=%s", detail);
		sentinel_stop(x->sen);
		return 0;
	case DECIDE_RELAUNCH:
		/* Said already when the launcher saw the event. */
		if (!w->cause || (strcmp(d->why, "event") != 0 &&
				  strcmp(d->why, w->cause) != 0))
			timeline("event", x->restart, x->ms.nnodes,
				 "cause=%s%s%s status=%s", d->why,
				 w->world[0] ? " " : "", w->world, detail);
		x->prev_gen = x->ms.generation;
		return -1;
	case DECIDE_RETRY:
	case DECIDE_GIVE_UP:
		x->failures++;
		timeline("failure", x->restart, x->ms.nnodes,
			 "status=%s failures=%u max_restarts=%u", detail,
			 x->failures, c->max_restarts);
		if (d->what == DECIDE_GIVE_UP) {
			timeline("done", x->restart, x->ms.nnodes,
				 "result=failed");
			sentinel_stop(x->sen);
			elog_error("the ranks failed %u time%s on their "
				   "own (not an elastic event; last: %s), "
				   "more than --max-restarts=%u: giving up",
				   x->failures, x->failures == 1 ? "" : "s",
				   detail, c->max_restarts);
			return 1;
		}
		/* The same world again: no new one to wait for. */
		x->prev_gen = 0;
		return -1;
	}
	return -1;
}

/*
 * Our own job is being preempted and its ranks stopped (at the event, after
 * their checkpoint): no launch in the grace, whose end kills it.  From
 * Slurm 24.05 a script that exits in the grace is requeued
 * (PreemptMode=REQUEUE), and the preemptor starts at once: exit "relaunch
 * me".  Before, the job would end COMPLETED and never run again: wait for
 * Slurm to end it when the grace is over, which requeues it.
 */
static int preempted(struct rounds *x)
{
	timeline("preempted", x->restart, x->ms.nnodes, "then=%s",
		 COMPAT_GRACE_EXIT_REQUEUES ? "exit" : "wait");
	sentinel_stop(x->sen);
	if (!COMPAT_GRACE_EXIT_REQUEUES)
		while (!got_stop)
			sleep_ms(200);
	timeline("done", x->restart, x->ms.nnodes, "result=preempted");
	return COMPAT_GRACE_EXIT_REQUEUES ? ELASTIC_EXIT_EVENT
					  : 128 + (int)got_stop;
}

/* One launch, watched to its end and decided on: -1 to launch again,
 * else the exit status. */
static int round_once(struct rounds *x)
{
	struct config *c = x->c;
	struct watch w;
	struct launch_obs obs;
	struct decision_out d;
	elastic_error_t err;
	char detail[256] = "";
	double t_launch;
	int rc;

	if (x->restart > 0 && c->mpirun)
		drain_steps(&x->l);
	rc = current_members(c, x->src, x->prev_gen, x->restart, &x->ms, &err);
	if (rc == MEMBERS_STOPPED) {
		timeline("done", x->restart, 0, "result=stopped");
		sentinel_stop(x->sen);
		return 128 + (int)got_stop;
	}
	if (rc < 0) {
		elog_error("%s", err.text);
		return 1;
	}
	if (ckpt_prev(c, x->restart) < 0) {
		timeline("done", x->restart, x->ms.nnodes, "result=failed");
		sentinel_stop(x->sen);
		return 1;
	}
	got_event = 0;
	/* What our own raises caused, echoed by the sentinel. */
	while (now_s() < last_raise + RAISE_ECHO_S)
		sleep_ms(20);
	sentinel_read(x->sen, NULL);
	member_list(&x->ms, detail, sizeof(detail));
	timeline(x->restart ? "relaunch" : "launch", x->restart, x->ms.nnodes,
		 "members=%zu nproc_per_node=%u master=%s:%u "
		 "generation=%llu source=%s jobs=%s%s",
		 x->ms.n, c->nproc_per_node, x->ms.master_addr, c->port,
		 (unsigned long long)x->ms.generation,
		 x->src->ed_mode ? "elasticd" : "allocation", detail,
		 x->restart ? " path=restart" : "");
	t_launch = now_s();
	if (launch(c, &x->ms, x->restart, x->prev_nnodes, &x->l) < 0)
		return 1;
	ledger_launch(&x->ms, x->restart);
	heartbeat_start(c, &x->ms, x->restart, t_launch);

	for (;;) {
		watch_launch(c, x->src, &x->ms, &x->l, x->sen, x->restart, &w);
		if (!w.cause || w.stopping || !inplace_capable(c, &x->ms))
			break;
		if (!inplace_resize(c, x->src, &x->ms, &x->l, x->restart, &w))
			break;
		ledger_world(&x->ms);
		ledger_up();
		/* The ranks step in the new world from its publication. */
		heartbeat_start(c, &x->ms, x->restart, inplace_published(c));
	}
	/* Ranks on the world channel heed its word, not the signal. */
	if (w.cause && !w.finished) {
		inplace_abandon(c, w.stopping);
		end_launch(c, x->src, &x->l, &x->ms, x->restart, &w);
	} else
		ckpt_pass(c, x->restart, x->ms.nnodes);
	heartbeat_stop();
	observe(c, x->src, &x->ms, &x->l, &w, &obs);
	obs.failures = x->failures;
	obs.max_restarts = c->max_restarts;
	obs.unexplained = x->unexplained;
	decide(&obs, &d);
	x->unexplained = d.unexplained ? x->unexplained + 1 : 0;
	describe_status(&x->l, detail, sizeof(detail));
	rc = act(x, &w, &d, detail);
	if (rc < 0)
		ledger_relaunch(d.what == DECIDE_RETRY);
	if (rc < 0 && own_job_preempted(c->job_id))
		return preempted(x);
	if (rc < 0) {
		x->prev_nnodes = x->ms.nnodes;
		x->restart++;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static struct rounds x;
	struct config c;
	struct cmdline cl;
	struct source src;
	struct sentinel sen;
	int rc;

	elog_init(PROG, ELOG_INFO, 0);
	if (argc == 2 && strcmp(argv[1], "--sentinel") == 0)
		return sentinel_main();
	if (argc == 2 && strncmp(argv[1], "--heartbeat=", 12) == 0)
		return heartbeat_main(argv[1] + 12);
	if (argc == 2 && strncmp(argv[1], "--unit=", 7) == 0)
		return unit_main(argv[1] + 7);
	if ((rc = parse_options(argc, argv, &c, &cl)) >= 0)
		return rc;
	if ((rc = job_config(&c, cl.launcher)) ||
	    (rc = job_setup(&c, &src, &cl)))
		return rc;
	if ((rc = in_place_setup(&c, &cl)))
		return rc;
	if (ledger_start(&c) < 0)
		return 2;
	start_watching(&c, &sen);
	x.c = &c;
	x.src = &src;
	x.sen = &sen;
	while ((rc = round_once(&x)) < 0)
		;
	ledger_end(&src);
	spares_stop();
	/* The job ends with us: elasticd ends the group's units once it
	 * sees that, at once rather than at its poll. */
	if (src.ed_mode)
		tell_elasticd(&src, c.job_id, "end", ED_TIMEOUT_MS);
	return rc;
}
