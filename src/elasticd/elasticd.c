/*
 * elasticd: keeps each elastic group between its min and max by
 * submitting and cancelling unit jobs, tells the group's ranks when its
 * world changes, and serves the groups over HTTP (elasticd(8)).
 *
 *   elasticd [-f elastic.conf] [-D]
 *   elasticd --check-config [-f elastic.conf]
 *
 * One loop, in the foreground (systemd): load the jobs of elastic groups
 * from slurmctld, decide (reconcile.c, pure), act (slurmio.c), publish
 * the view to the API, sleep until the next cycle.  slurmctld is the
 * source of truth: a restarted elasticd rebuilds every group from the
 * jobs' tags in its first cycle.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "account_run.h"
#include "api.h"
#include "checkconf.h"
#include "common/filesave.h"
#include "common/log.h"
#include "common/parse.h"
#include "common/policy.h"
#include "common/slurm_compat.h"
#include "reconcile.h"
#include "slurmio.h"
#include "submitq.h"
#include "drain.h"
#include "suspect.h"
#include "batchhost_run.h"

#define PROG		"elasticd"
#define STATE_FILE	"groups"
#define STATE_MAX_BYTES (64u << 20)
/* The whole job list is read now and then even when slurmctld says
 * nothing changed: it does not count every change (a preemption's grace
 * beginning) as one. */
#define FULL_REFRESH_S 5
#define RAISE_BATCH    256

static struct {
	char conf_path[PATH_MAX];
	bool conf_explicit; /* -f: the file must exist */
	bool check_config;  /* --check-config: check it, and stop */
	struct stat conf_st;
	struct elastic_policy policy;
	struct slurmio *io;
	struct reconcile *rec;
	struct submitq *subq;
	struct action_list actions;
	struct elasticd_metrics m;
	char state_path[PATH_MAX];
	bool ctld_down;
	unsigned poll_ms;	   /* ElasticdPollInterval, or its default */
	enum policy_notify notify; /* ElasticdNotify, as it can be */
	struct suspect_window suspects; /* drains of the last hour */
	struct bh_table batch_hosts;	/* launchers' last word */
} ctx;

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static double mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void daemon_usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [-f FILE] [-D] [-q | -v]\n"
		   "       " PROG " --check-config [-f FILE]\n"
		   "       " PROG " -h | -V\n"
		   "\n"
		   "  -f FILE  the policy and elasticd's settings (default:\n"
		   "           elastic.conf beside slurm.conf)\n"
		   "  --check-config\n"
		   "           check them as a start would, without Slurm,\n"
		   "           and exit: 0 when elasticd would start\n"
		   "  -D       stay in the foreground (elasticd always does)\n"
		   "  -q       log warnings and errors only\n"
		   "  -v       log debug messages too (each cycle, each API\n"
		   "           request)\n"
		   "  -h       this help\n"
		   "  -V       the version\n");
}

/* (Re)read the policy when the file changed.  The daemon's own keys
 * (listen address, interval, ...) apply at the next start only. */
static int reload_policy(bool first)
{
	struct elastic_policy p;
	struct stat st = { 0 };
	elastic_error_t err;
	bool found;

	if (stat(ctx.conf_path, &st) < 0)
		memset(&st, 0, sizeof(st));
	if (!first && st.st_ino == ctx.conf_st.st_ino &&
	    st.st_dev == ctx.conf_st.st_dev &&
	    st.st_size == ctx.conf_st.st_size &&
	    st.st_mtim.tv_sec == ctx.conf_st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == ctx.conf_st.st_mtim.tv_nsec)
		return 0;
	ctx.conf_st = st;
	if (policy_load(&p, ctx.conf_path, &found, &err) < 0) {
		elog_error("%s%s", err.text,
			   first ? "" : "; keeping the policy read before");
		return -1;
	}
	if (!found && ctx.conf_explicit) {
		elog_error("%s: %s", ctx.conf_path, strerror(ENOENT));
		return -1;
	}
	if (!first) {
		/* Daemon settings need a restart; say so if they differ. */
		if (strcmp(p.elasticd_listen, ctx.policy.elasticd_listen) ||
		    p.elasticd_poll_ms != ctx.policy.elasticd_poll_ms ||
		    strcmp(p.elasticd_state_dir,
			   ctx.policy.elasticd_state_dir) ||
		    strcmp(p.elasticd_munge_socket,
			   ctx.policy.elasticd_munge_socket) ||
		    strcmp(p.elasticd_user, ctx.policy.elasticd_user) ||
		    p.elasticd_release_holds !=
			ctx.policy.elasticd_release_holds ||
		    p.elasticd_resync_s != ctx.policy.elasticd_resync_s ||
		    p.elasticd_queue_s != ctx.policy.elasticd_queue_s ||
		    p.elasticd_notify != ctx.policy.elasticd_notify ||
		    strcmp(p.elasticd_unit_program,
			   ctx.policy.elasticd_unit_program) ||
		    memcmp(&p.elasticd_admins, &ctx.policy.elasticd_admins,
			   sizeof(p.elasticd_admins)))
			elog_warn("%s: Elasticd* settings changed: they apply "
				  "when elasticd restarts",
				  ctx.conf_path);
		strcpy(p.elasticd_listen, ctx.policy.elasticd_listen);
		p.elasticd_poll_ms = ctx.policy.elasticd_poll_ms;
		strcpy(p.elasticd_state_dir, ctx.policy.elasticd_state_dir);
		strcpy(p.elasticd_munge_socket,
		       ctx.policy.elasticd_munge_socket);
		strcpy(p.elasticd_user, ctx.policy.elasticd_user);
		p.elasticd_admins = ctx.policy.elasticd_admins;
		p.elasticd_release_holds = ctx.policy.elasticd_release_holds;
		p.elasticd_resync_s = ctx.policy.elasticd_resync_s;
		p.elasticd_queue_s = ctx.policy.elasticd_queue_s;
		p.elasticd_notify = ctx.policy.elasticd_notify;
		strcpy(p.elasticd_unit_program,
		       ctx.policy.elasticd_unit_program);
	}
	ctx.policy = p;
	elog_info("%s %s (MaxNodes=%u, PreemptiblePartitions=%s, "
		  "OnDemandPartitions=%s)",
		  found ? "policy from" : "built-in policy: no", ctx.conf_path,
		  p.max_nodes,
		  p.preemptible_partitions.n ? p.preemptible_partitions.name[0]
					     : "none",
		  p.ondemand_partitions.n ? p.ondemand_partitions.name[0]
					  : "none");
	return 0;
}

/* ------------------------------------------------------------ state */

static void state_load(void)
{
	elastic_error_t err;
	char *text = NULL;

	if (!ctx.policy.elasticd_state_dir[0]) {
		elog_info("no ElasticdStateDir: groups running now are adopted "
			  "as they are, with new generations");
		return;
	}
	if (mkdir(ctx.policy.elasticd_state_dir, 0700) < 0 && errno != EEXIST)
		elog_warn("ElasticdStateDir %s: %s",
			  ctx.policy.elasticd_state_dir, strerror(errno));
	if (checkconf_state_dir(ctx.policy.elasticd_state_dir, &err)) {
		elog_warn("%s; running without saved state", err.text);
		return;
	}
	snprintf(ctx.state_path, sizeof(ctx.state_path), "%s/" STATE_FILE,
		 ctx.policy.elasticd_state_dir);
	if (parse_read_file(ctx.state_path, STATE_MAX_BYTES, true, &text,
			    &err) < 0) {
		elog_warn("%s; starting without it", err.text);
		return;
	}
	if (!text)
		return;
	if (reconcile_state_load(ctx.rec, text, &err) < 0) {
		elog_warn("%s: %s; starting without it", ctx.state_path,
			  err.text);
		/* What was loaded before the bad line stays: it is true. */
	} else {
		elog_info("state from %s: %zu groups", ctx.state_path,
			  reconcile_ngroups(ctx.rec));
	}
	free(text);
}

/* Write the state atomically: a new file, then rename. */
static void state_save(void)
{
	elastic_error_t err;
	char tmp[PATH_MAX + 8];
	char *text;

	if (!ctx.state_path[0] || !reconcile_dirty(ctx.rec))
		return;
	if (reconcile_state_format(ctx.rec, &text, &err) < 0) {
		elog_error("state: %s", err.text);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.new", ctx.state_path);
	if (file_save_atomic(ctx.state_path, tmp, 0600, text, strlen(text),
			     &err) < 0)
		elog_error("state: %s", err.text);
	free(text);
}

/* ------------------------------------------------------------ acting */

static void perform(struct action_list *l, int64_t now)
{
	elastic_error_t err;

	/* The decisions first, when they are made: each action after waits
	 * for slurmctld's locks (tens of ms with a long queue). */
	for (size_t i = 0; i < l->n; i++)
		if (l->a[i].type == ACTION_NOTE)
			elog_info("%s", l->a[i].text);
	for (size_t i = 0; i < l->n; i++) {
		const struct action *a = &l->a[i];

		switch (a->type) {
		case ACTION_NOTE:
			break;
		case ACTION_SUBMIT:
			/* Answered at a later cycle (submit_answers). */
			if (submitq_push(ctx.subq, a->group, a->token, &a->unit,
					 a->text) < 0) {
				elog_warn("%s: not submitted: %zu submissions "
					  "wait already",
					  a->text, submitq_busy(ctx.subq));
				reconcile_submitted(ctx.rec, a->group, a->token,
						    0, now);
			}
			break;
		case ACTION_RELEASE:
			if (slurmio_release(ctx.io, a->job, &err) < 0)
				elog_error("%s: %s", a->text, err.text);
			else
				elog_warn("%s", a->text);
			break;
		case ACTION_CANCEL:
			if (slurmio_cancel(ctx.io, a->job, &err) < 0)
				elog_error("%s: %s", a->text, err.text);
			else
				elog_info("%s", a->text);
			break;
		case ACTION_RAISE: {
			char jobs[256];
			size_t j = 0;

			jobs[0] = '\0';
			for (size_t k = 0;
			     k < a->njobs && j + 16 < sizeof(jobs); k++)
				j += snprintf(jobs + j, sizeof(jobs) - j,
					      "%s%u", k ? "," : "", a->jobs[k]);
			/* One RPC per job in jobs[]; the relayed ones cost
			 * slurmctld nothing. */
			if (slurmio_raise(ctx.io, a->jobs, a->njobs, a->signal,
					  &err) < 0)
				elog_error("%s: jobs %s: %s", a->text, jobs,
					   err.text);
			else
				elog_info("%s: jobs %s, relayed to %zu",
					  a->text, jobs, a->relayed);
			break;
		}
		}
	}
}

/* A submission, on a submitq thread. */
static int submit_unit(void *arg, const struct unit_request *u, uint32_t *job,
		       elastic_error_t *err)
{
	return slurmio_submit(arg, u, job, err);
}

/* The submissions slurmctld answered since the last cycle. */
static void submit_answers(int64_t now)
{
	struct submitq_item it[16];
	size_t n;

	while ((n = submitq_take(ctx.subq, it, 16)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (it[i].job) {
				elog_info("%s: job %u", it[i].text, it[i].job);
				/* Read by id from the next load on. */
				slurmio_lookup(ctx.io, &it[i].job, 1);
			} else {
				elog_warn("%s: refused: %s", it[i].text,
					  it[i].err);
			}
			reconcile_submitted(ctx.rec, it[i].group, it[i].token,
					    it[i].job, now);
		}
	}
}

/* Raises users asked for through the API. */
static void api_raises(void)
{
	uint32_t ids[RAISE_BATCH];
	int n = api_take_raise_requests(ids, RAISE_BATCH);

	action_list_clear(&ctx.actions);
	for (int i = 0; i < n; i++)
		if (reconcile_raise_request(ctx.rec, ids[i], &ctx.actions) < 0)
			elog_warn("group %u: raise asked through the API: no "
				  "world to raise",
				  ids[i]);
	perform(&ctx.actions, now_ms());
}

/* What the groups' launchers reported through the API. */
static void api_reports(void)
{
	struct launch_report reps[RAISE_BATCH];
	int n = api_take_reports(reps, RAISE_BATCH);

	for (int i = 0; i < n; i++)
		if (reconcile_report(ctx.rec, &reps[i], now_ms()) < 0)
			elog_warn(
			    "group %u: a report from its launcher, but it "
			    "has no world",
			    reps[i].group);
}

/* Nodes the groups' launchers found lost, hung or straggling (checked
 * by the API to be the group's own): drained within the hourly cap, or
 * reported.  Never a preemption: a launcher names no leaving node, and
 * the API takes none that a preempted member holds. */
static void api_suspects(void)
{
	struct suspect_report s[RAISE_BATCH];
	int n = api_take_suspects(s, RAISE_BATCH);

	for (int i = 0; i < n; i++) {
		char reason[128];
		elastic_error_t err;
		/* A node still drained for an earlier report (a straggler
		 * reported again at each relaunch) costs no drain of the
		 * hour's; one drained by another (the site's health check)
		 * keeps its reason. */
		enum suspect_action a =
		    ctx.policy.suspect_nodes == POLICY_SUSPECT_DRAIN &&
			    node_drained(s[i].node)
			? SUSPECT_ALREADY
			: suspect_decide(
			      &ctx.suspects, ctx.policy.suspect_nodes,
			      ctx.policy.suspect_drains_per_hour, now_ms());

		snprintf(reason, sizeof(reason),
			 "slurm-elastic: job %u: %s (from its launcher)",
			 s[i].group, s[i].why);
		if (a == SUSPECT_DRAIN &&
		    drain_node(s[i].node, reason, &err) < 0) {
			elog_error("group %u: %s", s[i].group, err.text);
			a = SUSPECT_REPORT;
		}
		ctx.m.suspects[s[i].fault % SUSPECT_FAULTS]
			      [a == SUSPECT_DRAIN ? 0 : 1]++;
		snprintf(reason, sizeof(reason), "node %s %s: %s", s[i].node,
			 s[i].why, suspect_action_name(a));
		reconcile_note(ctx.rec, s[i].group, CAUSE_SUSPECT, reason,
			       now_ms());
		elog_info("group %u: node %s suspect (%s): %s; %zu drained "
			  "in the last hour (SuspectDrainsPerHour=%u)",
			  s[i].group, s[i].node, s[i].why,
			  suspect_action_name(a), suspect_drains(&ctx.suspects),
			  ctx.policy.suspect_drains_per_hour);
	}
}

/* The spares the groups' launchers checked: only those join a world. */
static void api_spares(void)
{
	struct spare_note *sn = malloc(16 * sizeof(*sn));
	int n;

	while (sn && (n = api_take_spare_notes(sn, 16)) > 0)
		for (int i = 0; i < n; i++)
			reconcile_spares_checked(ctx.rec, sn[i].group,
						 sn[i].jobs, sn[i].n);
	free(sn);
}

/* Bases whose launcher fell silent (batchhost.h). */
static void batch_hosts(const struct snapshot *s)
{
	struct bh_run r = { &ctx.batch_hosts, &ctx.policy, &ctx.suspects,
			    ctx.m.suspects, ctx.rec };

	batchhost_pass(&r, s, now_ms());
}

/* ------------------------------------------------------------ the loop */

/* How long a job notified as ending, or as losing a member, is read at
 * every cycle: what the notification announced shows in Slurm within
 * seconds (a launcher ends before its job; a base's launcher tells of a
 * fault as slurmctld shrinks the base), and a launcher that still waits
 * for a new world tells again. */
#define FOLLOW_S 30

/* One cycle: Slurm read (full: as ElasticdPollInterval's cycles do; else
 * only the jobs notified, if any), decided on, acted on, published. */
static void cycle(bool full)
{
	const struct snapshot *s = NULL;
	elastic_error_t err;
	struct elasticd_view *v;
	bool changed;
	int64_t now = now_ms();
	double t0;
	int rc;

	slurmio_cycle(ctx.io);
	reload_policy(false);
	{
		uint32_t ids[16];
		int n = api_take_lookups(ids, sizeof(ids) / sizeof(ids[0]));

		if (n > 0)
			slurmio_lookup(ctx.io, ids, (size_t)n);
		n = api_take_follows(ids, sizeof(ids) / sizeof(ids[0]));
		if (n > 0)
			slurmio_follow(ctx.io, ids, (size_t)n,
				       now + FOLLOW_S * 1000);
	}
	{
		static struct api_started st[16];
		int n = api_take_started(st, sizeof(st) / sizeof(st[0]));

		for (int i = 0; i < n; i++)
			slurmio_started(ctx.io, st[i].id, st[i].nodes);
	}
	/* Before the read: the units just submitted are read with it. */
	submit_answers(now);
	if (full)
		rc = slurmio_load(
		    ctx.io, now, FULL_REFRESH_S, ctx.policy.elasticd_resync_s,
		    ctx.policy.elasticd_queue_s, &s, &changed, &err);
	else
		rc = slurmio_load_lookups(ctx.io, now, &s, &changed, &err);
	if (rc == 0 && !s)
		return; /* nothing read yet */
	if (rc < 0) {
		if (!ctx.ctld_down)
			elog_error("%s; retrying every cycle", err.text);
		ctx.ctld_down = true;
		ctx.m.slurm_rpcs_last_cycle = slurmio_rpcs_cycle(ctx.io);
		ctx.m.slurm_rpcs = slurmio_rpcs_total(ctx.io);
		return;
	}
	if (ctx.ctld_down)
		elog_info("slurmctld answers again");
	ctx.ctld_down = false;

	t0 = mono();
	if (reconcile_pass(ctx.rec, s, &ctx.policy, now, &ctx.actions, &err) <
	    0)
		elog_error("%s", err.text);
	ctx.m.reconcile_seconds_last = mono() - t0;
	ctx.m.reconcile_seconds_sum += ctx.m.reconcile_seconds_last;
	ctx.m.cycles++;
	if (changed || ctx.actions.n)
		elog_debug("cycle %" PRIu64 ": Slurm's state %s, %zu groups, "
			   "%zu actions, %u RPCs, reconcile %.3f ms",
			   (uint64_t)ctx.m.cycles,
			   changed ? "changed" : "unchanged",
			   reconcile_ngroups(ctx.rec), ctx.actions.n,
			   (unsigned)slurmio_rpcs_cycle(ctx.io),
			   ctx.m.reconcile_seconds_last * 1e3);
	perform(&ctx.actions, now);
	api_raises();
	api_reports();
	api_suspects();
	api_spares();
	batch_hosts(s);
	state_save();

	ctx.m.slurm_rpcs_last_cycle = slurmio_rpcs_cycle(ctx.io);
	ctx.m.slurm_rpcs = slurmio_rpcs_total(ctx.io);
	v = reconcile_view(ctx.rec, s, now_ms());
	if (!v) {
		elog_error("view: out of memory");
		return;
	}
	v->metrics.cycles = ctx.m.cycles;
	v->metrics.slurm_rpcs = ctx.m.slurm_rpcs;
	v->metrics.slurm_rpcs_last_cycle = ctx.m.slurm_rpcs_last_cycle;
	v->metrics.reconcile_seconds_last = ctx.m.reconcile_seconds_last;
	v->metrics.reconcile_seconds_sum = ctx.m.reconcile_seconds_sum;
	v->metrics.started = ctx.m.started;
	api_notify_counts(&v->metrics.notified, &v->metrics.notify_dropped);
	v->metrics.light_cycles = ctx.m.light_cycles += !full && changed;
	v->metrics.starts_told = slurmio_starts_told(ctx.io);
	memcpy(v->metrics.suspects, ctx.m.suspects, sizeof(ctx.m.suspects));
	account_run_cycle(ctx.io, v, &ctx.policy, now_ms());
	api_publish(v);
	/* Units taken as started on slurmstepd's word, acted on first: the
	 * reads that were due come in a cycle now. */
	if (!full && slurmio_reads_waiting(ctx.io))
		api_wake();
}

/* SlurmUser is an admin of the API.  Asked of slurmctld once. */
static uid_t slurm_user(void)
{
	slurm_conf_t *conf = NULL;
	uid_t uid = 0;

	if (slurm_load_ctl_conf((time_t)0, &conf) == SLURM_SUCCESS && conf) {
		uid = conf->slurm_user_id;
		compat_free_conf(conf);
	} else {
		elog_warn("slurm_load_ctl_conf: %s; SlurmUser taken as root",
			  slurm_strerror(errno));
	}
	return uid;
}

/* ElasticdNotify and ElasticdUnitProgram: what units run, and whether
 * the API wakes the loop.  A program missing here is missing on the
 * nodes too, most likely: units then only hold their nodes. */
static int set_notify(void)
{
	const char *prog = NULL;
	elastic_error_t err;

	if (checkconf_unit_program(&ctx.policy, &prog, &err) < 0)
		elog_warn("%s", err.text);
	if (slurmio_set_unit_program(ctx.io, prog, &err) < 0) {
		elog_error("%s", err.text);
		return -1;
	}
	ctx.notify = prog ? ctx.policy.elasticd_notify : POLICY_NOTIFY_NO;
	api_set_notify(ctx.notify, pthread_self());
	ctx.poll_ms =
	    policy_poll_ms(&ctx.policy, ctx.notify == POLICY_NOTIFY_YES);
	return 0;
}

/* The options: -1 to go on, else the exit status. */
static int daemon_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "check-config", no_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "f:DhqvV", longopts, NULL)) != -1) {
		switch (c) {
		case 'C':
			ctx.check_config = true;
			break;
		case 'q':
			elog_set_level(ELOG_WARN);
			break;
		case 'v':
			elog_set_level(ELOG_DEBUG);
			break;
		case 'f':
			if (strlen(optarg) >= sizeof(ctx.conf_path)) {
				fprintf(stderr, PROG ": -f: path too long\n");
				return 2;
			}
			strcpy(ctx.conf_path, optarg);
			ctx.conf_explicit = true;
			break;
		case 'D':
			break;
		case 'h':
			daemon_usage(stdout);
			return 0;
		case 'V':
			printf(PROG " " PACKAGE_VERSION "\n");
			return 0;
		default:
			daemon_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		daemon_usage(stderr);
		return 2;
	}
	if (!ctx.conf_path[0])
		policy_conf_path(secure_getenv("SLURM_CONF"), ctx.conf_path,
				 sizeof(ctx.conf_path));
	return -1;
}

/* The policy, the signals the loop waits for, Slurm, the state and the
 * API: 0, or the exit status. */
static int start_daemon(sigset_t *sigs)
{
	struct reconcile_config rc;
	elastic_error_t err;

	if (reload_policy(true) < 0)
		return 1;

	/* Signals are taken synchronously by the loop; threads (the API's)
	 * inherit the mask. */
	sigemptyset(sigs);
	sigaddset(sigs, SIGTERM);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGHUP);
	sigaddset(sigs, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	slurm_init(NULL);
	reconcile_config_defaults(&rc);
	rc.release_launch_holds = ctx.policy.elasticd_release_holds;
	ctx.io = slurmio_create();
	ctx.rec = reconcile_create(&rc);
	ctx.subq = ctx.io ? submitq_create(SUBMITQ_WORKERS, submit_unit, ctx.io)
			  : NULL;
	if (!ctx.io || !ctx.rec || !ctx.subq) {
		elog_error("out of memory");
		return 1;
	}
	state_load();
	account_run_start(&ctx.policy);
	if (checkconf_user(&ctx.policy, ctx.conf_path, &err) < 0) {
		elog_error("%s", err.text);
		return 1;
	}
	if (set_notify() < 0)
		return 1;
	/* A unit's answer at once: its start, which slurmstepd may tell
	 * soon after, finds it known and pending. */
	submitq_on_answer(ctx.subq, api_wake);
	if (api_start(ctx.policy.elasticd_listen,
		      ctx.policy.elasticd_munge_socket[0]
			  ? ctx.policy.elasticd_munge_socket
			  : NULL,
		      &ctx.policy.elasticd_admins, slurm_user(), &err) < 0) {
		elog_error("API on %s: %s", ctx.policy.elasticd_listen,
			   err.text);
		return 1;
	}
	ctx.m.started = time(NULL);
	elog_info("started: API on %s, Slurm read every %u ms, notifications "
		  "%s",
		  ctx.policy.elasticd_listen, ctx.poll_ms,
		  policy_notify_name(ctx.notify));
	return 0;
}

static struct timespec to_timespec(double s)
{
	struct timespec ts;

	if (s < 0.001)
		s = 0.001;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	return ts;
}

/* The cycles, until SIGTERM or SIGINT; after SIGHUP the next cycle reads
 * the policy again.  Slurm is read every ElasticdPollInterval; between,
 * at least every TICK_S, a cycle decides on what was read (its timers:
 * the scale delay, the fault timeout, the grace).  A notification (SIGUSR2
 * from the API) brings a cycle that reads the jobs notified, at once but
 * at most one per NOTIFY_GAP_S: a burst is one cycle. */
#define TICK_S	     1.0
#define NOTIFY_GAP_S 0.02
static void run_loop(const sigset_t *sigs)
{
	double next_poll = 0, last = 0;
	bool full = true;

	for (;;) {
		double start = mono(), poll_s, wake;
		struct timespec ts;
		int sig;

		poll_s = (double)ctx.poll_ms / 1000.0;
		if (full)
			next_poll = start + poll_s;
		cycle(full);
		last = start;
		wake = next_poll;
		if (poll_s > TICK_S && start + TICK_S < wake)
			wake = start + TICK_S;
		ts = to_timespec(wake - mono());
		sig = sigtimedwait(sigs, NULL, &ts);
		if (sig == SIGTERM || sig == SIGINT) {
			elog_info("%s: stopping", strsignal(sig));
			break;
		}
		if (sig == SIGHUP)
			ctx.conf_st.st_ino = 0; /* re-read at the next cycle */
		full = mono() >= next_poll;
		if (!full && sig == SIGUSR2 && mono() - last < NOTIFY_GAP_S) {
			ts = to_timespec(NOTIFY_GAP_S - (mono() - last));
			nanosleep(&ts, NULL);
		}
	}
}

static void stop_daemon(void)
{
	api_stop();
	/* What slurmctld answered is known before the state is saved. */
	submitq_stop(ctx.subq);
	submit_answers(now_ms());
	submitq_destroy(ctx.subq);
	ctx.subq = NULL;
	state_save();
	account_run_stop();
	action_list_free(&ctx.actions);
	reconcile_destroy(ctx.rec);
	slurmio_destroy(ctx.io);
	slurm_fini();
}

int main(int argc, char **argv)
{
	/* Under systemd stderr is the journal: it adds the time, and takes
	 * each line's level from its prefix. */
	bool journal =
	    elog_journal_stream(secure_getenv("JOURNAL_STREAM"), STDERR_FILENO);
	sigset_t sigs;
	int rc;

	elog_init(PROG, ELOG_INFO, journal ? ELOG_JOURNAL : ELOG_TIME);
	if ((rc = daemon_options(argc, argv)) >= 0)
		return rc;
	if (ctx.check_config) {
		elog_set_flags(journal ? ELOG_JOURNAL : 0);
		return checkconf_run(ctx.conf_path, ctx.conf_explicit);
	}
	if ((rc = start_daemon(&sigs)))
		return rc;
	run_loop(&sigs);
	stop_daemon();
	return 0;
}
