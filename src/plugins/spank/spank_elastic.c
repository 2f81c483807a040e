/*
 * spank_elastic: the --elastic-* options of sbatch, salloc and srun, and
 * the environment of an elastic job's ranks.
 *
 * sbatch/salloc/srun (allocator and local contexts): each option is checked
 * as it is parsed, the relations between them once all are known, and the
 * --elastic-size-config file is read and sent along in canonical form, so
 * a bad job fails before it reaches slurmctld.  Slurm forwards the options
 * to slurmctld in the job's spank_job_env, where job_submit/elastic applies
 * the site's policy.
 *
 * slurmstepd (remote context): every task of an elastic job's steps gets
 * its rank environment (torchrun's variables and ELASTIC_*); the batch
 * step of a unit elasticd submitted tells elasticd, as root, that the unit
 * started and where.  An error there (plugstack.conf's arguments, this
 * node's elastic.conf) fails the elastic step's tasks with its one line
 * and leaves the node in service, and other jobs' steps alone; with
 * on_error=drain it is Slurm's error of a required plugin, which drains
 * the node.
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "common/nodelist.h"
#include "common/options.h"
#include "common/parse.h"
#include "common/policy.h"
#include "common/rankenv.h"
#include "common/sizeconf.h"
#include "plugins/built_for.h"
#include "unit_notify.h"

SPANK_PLUGIN(elastic, 1);
const char plugin_built_for[] = ELASTIC_BUILT_FOR_MARK;

/* slurm.conf as the host process read it; elastic.conf lives beside it. */
extern slurm_conf_t slurm_conf;

static struct plugin_context {
	struct elastic_opts opts;
	struct size_config sc;
	bool have_sc;
	bool elastic; /* remote: this step belongs to an elastic job */
	char conf[POLICY_PATH_MAX + 1]; /* elastic_conf=, "" if not given */
	bool drain;			/* on_error=drain */
	/* remote: the error the elastic step's tasks fail with */
	char remote_err[sizeof(((elastic_error_t *)0)->text)];
} ctx;

/* An error in slurmstepd: the node drains with on_error=drain (Slurm's
 * way with a required plugin that fails), else the step's tasks fail
 * with it, if the step is elastic (slurm_spank_task_init). */
static int remote_fail(const char *text)
{
	slurm_error("elastic: %s", text);
	if (ctx.drain)
		return -1;
	if (!ctx.remote_err[0])
		snprintf(ctx.remote_err, sizeof(ctx.remote_err), "%s", text);
	return 0;
}

/* An error in slurm_spank_init: the command fails (sbatch, salloc,
 * srun); in slurmstepd, as remote_fail() says. */
static int init_fail(spank_context_t c, const char *text)
{
	if (c == S_CTX_REMOTE)
		return remote_fail(text);
	slurm_error("elastic: %s", text);
	return -1;
}

static int opt_cb(int val, const char *optarg, int remote);
static void unit_started(spank_t sp);

#define OPT(id, arg, help)                                                     \
	{                                                                      \
		NULL, arg, help, 1, id, opt_cb                                 \
	}
static struct spank_option options[ELASTIC_OPT_COUNT] = {
	OPT(ELASTIC_OPT_MIN, "N", "Elastic job: fewest nodes to run on."),
	OPT(ELASTIC_OPT_MAX, "N", "Elastic job: most nodes to run on."),
	OPT(ELASTIC_OPT_STEP, "N", "Elastic job: sizes are min + k*N nodes."),
	OPT(ELASTIC_OPT_SIZES, "A,B,...",
	    "Elastic job: the only node counts allowed (instead of a step)."),
	OPT(ELASTIC_OPT_GRACE, "SECONDS",
	    "Elastic job: time ranks get to checkpoint before a resize."),
	OPT(ELASTIC_OPT_SCALE_DELAY, "SECONDS",
	    "Elastic job: wait this long to batch changes before growing."),
	OPT(ELASTIC_OPT_FAULT_TIMEOUT, "SECONDS",
	    "Elastic job: wait this long for a replacement after a failure."),
	OPT(ELASTIC_OPT_ONDEMAND, "never|below-min|always",
	    "Elastic job: when to fall back to on-demand nodes."),
	OPT(ELASTIC_OPT_SIGNAL, "SIG",
	    "Elastic job: signal that tells ranks to checkpoint (URG)."),
	OPT(ELASTIC_OPT_CHECKPOINT_DIR, "PATH",
	    "Elastic job: checkpoint directory (%j job, %u user, %h home)."),
	OPT(ELASTIC_OPT_KEEP, "N", "Elastic job: checkpoints to keep."),
	OPT(ELASTIC_OPT_SIZE_CONFIG, "FILE",
	    "Elastic job: per-size environment (batch size, rate, ...)."),
	OPT(ELASTIC_OPT_RESUME_FROM, "JOBID[@STEP]|PATH[@STEP]",
	    "Elastic job: start from another job's or a path's checkpoint."),
	OPT(ELASTIC_OPT_EVAL, "CMD",
	    "Elastic job: run CMD on each new checkpoint in its own job."),
	OPT(ELASTIC_OPT_HEARTBEAT_TIMEOUT, "SECONDS",
	    "Elastic job: a node silent this long is lost (0: no heartbeats)."),
	OPT(ELASTIC_OPT_HANG_TIMEOUT, "SECONDS",
	    "Elastic job: a rank without progress this long hangs (0: "
	    "derived)."),
	OPT(ELASTIC_OPT_STRAGGLERS, "report|evict|off",
	    "Elastic job: a node slower than the rest is reported or evicted."),
	OPT(ELASTIC_OPT_SPARES, "N",
	    "Elastic job: units kept beyond the world, to replace a lost one."),
};
#undef OPT

static int opt_cb(int val, const char *optarg, int remote)
{
	elastic_error_t err;

	if (options_set(&ctx.opts, val, optarg ? optarg : "", &err) < 0) {
		/* slurmstepd re-reads options the client already checked. */
		if (!remote)
			slurm_error("elastic: %s", err.text);
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t c = spank_context();
	elastic_error_t err;

	if (c != S_CTX_LOCAL && c != S_CTX_ALLOCATOR && c != S_CTX_REMOTE)
		return 0;
	/* In slurmstepd, the options are still taken: only an elastic step
	 * fails. */
	if (policy_plugstack_args(ac, av, ctx.conf, sizeof(ctx.conf),
				  &ctx.drain, &err) < 0 &&
	    init_fail(c, err.text) < 0)
		return -1;
	for (int i = 0; i < ELASTIC_OPT_COUNT; i++) {
		options[i].name = (char *)options_name(i);
		if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS) {
			snprintf(err.text, sizeof(err.text),
				 "cannot register --%s", options[i].name);
			return init_fail(c, err.text);
		}
	}
	return 0;
}

/* Client side: read the size config file and send its canonical form. */
static int client_size_config(spank_t sp, elastic_error_t *err)
{
	char *text;
	int rc;

	if (!options_given(&ctx.opts, ELASTIC_OPT_SIZE_CONFIG))
		return 0;
	if (parse_read_file(ctx.opts.size_config_path, SIZECONF_FILE_MAX, false,
			    &text, err) < 0) {
		char tmp[sizeof(err->text) + 32];

		snprintf(tmp, sizeof(tmp), "--elastic-size-config: %s",
			 err->text);
		return elastic_errorf(err, "%s", tmp);
	}
	rc = sizeconf_parse(&ctx.sc, text, ctx.opts.size_config_path, err);
	free(text);
	if (rc < 0)
		return -1;
	ctx.have_sc = true;
	/* For slurmctld to check it, and in the job's environment for the
	 * ranks. */
	if (spank_job_control_setenv(sp, SIZE_CONFIG_ENV, ctx.sc.text, 1) !=
		ESPANK_SUCCESS ||
	    setenv(SIZE_CONFIG_ENV, ctx.sc.text, 1) < 0)
		return elastic_errorf(err, "cannot pass the size config on");
	return 0;
}

/* elastic.conf: plugstack.conf's elastic_conf=, else beside slurm.conf
 * (which slurmstepd knows no longer from Slurm 23.02 on). */
static void conf_path(char *path, size_t len)
{
	if (ctx.conf[0])
		snprintf(path, len, "%s", ctx.conf);
	else
		policy_conf_path(slurm_conf.slurm_conf, path, len);
}

/*
 * slurmstepd: the job's options complete with the site's defaults, as
 * slurmctld computed them (same elastic.conf, same rules).
 */
static int remote_setup(spank_t sp, elastic_error_t *err)
{
	struct elastic_policy *p = malloc(sizeof(*p));
	char path[POLICY_PATH_MAX + 32], buf[SIZECONF_TEXT_MAX + 1];
	int rc;

	if (!p)
		return elastic_errorf(err, "out of memory");
	conf_path(path, sizeof(path));
	rc = policy_load(p, path, NULL, err);
	if (rc == 0)
		options_apply_defaults(&ctx.opts, p, NULL);
	free(p);
	if (rc < 0)
		return -1;
	/* Slurm's copy of what slurmctld checked survives --export=NONE;
	 * the job's environment has the client's. */
	if (spank_getenv(sp, "SLURM_SPANK_" SIZE_CONFIG_ENV, buf,
			 sizeof(buf)) == ESPANK_SUCCESS ||
	    spank_getenv(sp, SIZE_CONFIG_ENV, buf, sizeof(buf)) ==
		ESPANK_SUCCESS) {
		if (sizeconf_parse(&ctx.sc, buf, SIZE_CONFIG_ENV, err) < 0)
			return -1;
		ctx.have_sc = true;
	}
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t c = spank_context();
	elastic_error_t err;

	if (c == S_CTX_REMOTE)
		unit_started(sp);
	if (!options_any(&ctx.opts))
		return 0;
	if (c == S_CTX_REMOTE) {
		ctx.elastic = true;
		if (!ctx.remote_err[0] && remote_setup(sp, &err) < 0)
			return remote_fail(err.text);
		return 0;
	}
	if (c != S_CTX_LOCAL && c != S_CTX_ALLOCATOR)
		return 0;
	if (client_size_config(sp, &err) < 0 ||
	    options_check(&ctx.opts, ctx.have_sc ? &ctx.sc : NULL, &err) < 0) {
		slurm_error("elastic: %s", err.text);
		return -1;
	}
	return 0;
}

struct task_env {
	spank_t sp;
	char buf[4 * ELASTIC_PATH_MAX];
};

static const char *task_getenv(const char *name, void *arg)
{
	struct task_env *t = arg;

	int rc = spank_getenv(t->sp, name, t->buf, sizeof(t->buf));

	if (rc == ESPANK_NOSPACE) {
		/* Too long for any variable we read: say so, not "unset". */
		memset(t->buf, '?', sizeof(t->buf) - 1);
		t->buf[sizeof(t->buf) - 1] = '\0';
		return t->buf;
	}
	return rc == ESPANK_SUCCESS ? t->buf : NULL;
}

static int task_setenv(const char *name, const char *value, void *arg)
{
	struct task_env *t = arg;

	return spank_setenv(t->sp, name, value, 1) == ESPANK_SUCCESS ? 0 : -1;
}

static int item_u32(spank_t sp, spank_item_t item, unsigned *ret)
{
	uint32_t v = 0;

	if (spank_get_item(sp, item, &v) != ESPANK_SUCCESS)
		return -1;
	*ret = v;
	return 0;
}

/* How long slurmstepd waits for elasticd's answer: the unit's program
 * tells elasticd too, and the poll finds the start anyway. */
#define UNIT_NOTIFY_TIMEOUT_MS 500

/*
 * slurmstepd, as root, in the batch step of a unit elasticd submitted
 * (ELASTIC_GROUP in its environment, which elasticd set): elasticd learns
 * of the start now, and of the nodes from root, so that it need not read
 * the job from slurmctld before it acts.  The list is slurmctld's:
 * slurmstepd writes SLURM_JOB_NODELIST from the batch launch message over
 * whatever the job's environment had.  Another job with ELASTIC_GROUP
 * set only makes elasticd read it, as any notification does.  A failure
 * leaves elasticd to learn of the start from the unit's program or its
 * poll; the step goes on.
 */
static void unit_started(spank_t sp)
{
	char group[32], nodes[4096], path[POLICY_PATH_MAX + 32];
	struct elastic_policy *p;
	elastic_error_t err;
	uint32_t step = 0;
	unsigned job;
	int rc;

	if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    step != SLURM_BATCH_SCRIPT ||
	    spank_getenv(sp, "ELASTIC_GROUP", group, sizeof(group)) !=
		ESPANK_SUCCESS ||
	    item_u32(sp, S_JOB_ID, &job) < 0 ||
	    spank_getenv(sp, "SLURM_JOB_NODELIST", nodes, sizeof(nodes)) !=
		ESPANK_SUCCESS)
		return;
	if (!(p = malloc(sizeof(*p))))
		return;
	conf_path(path, sizeof(path));
	rc = policy_load(p, path, NULL, &err);
	if (rc == 0)
		rc = unit_notify_start(p, path, job, nodes,
				       UNIT_NOTIFY_TIMEOUT_MS, &err);
	free(p);
	if (rc < 0)
		slurm_info("elastic: job %u: elasticd is not told that the "
			   "unit started: %s",
			   job, err.text);
}

/* In the task, before exec: the rank's environment. */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	struct rankenv_in in = { 0 };
	struct task_env t = { .sp = sp };
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096], addr[256], nodes[4096], *first = NULL;
	uint32_t step = 0;
	uid_t uid;
	int local_id = 0, rc;
	elastic_error_t err;

	if (!ctx.elastic || spank_context() != S_CTX_REMOTE)
		return 0;
	if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS ||
	    step == SLURM_EXTERN_CONT)
		return 0;
	if (ctx.remote_err[0]) {
		/* The task exits 1 (Slurm's task.c): the step fails, the
		 * node stays in service. */
		slurm_error("elastic: this elastic step cannot run here: %s "
			    "(plugstack.conf's on_error=drain would drain "
			    "the node instead)",
			    ctx.remote_err);
		return -1;
	}
	/* The batch script is not a rank. */
	if (step == SLURM_BATCH_SCRIPT)
		return 0;
	if (item_u32(sp, S_JOB_ID, &in.job_id) ||
	    item_u32(sp, S_JOB_NODEID, &in.node_id) ||
	    item_u32(sp, S_JOB_NNODES, &in.nnodes) ||
	    item_u32(sp, S_TASK_GLOBAL_ID, &in.task_id) ||
	    item_u32(sp, S_JOB_TOTAL_TASK_COUNT, &in.ntasks) ||
	    item_u32(sp, S_JOB_LOCAL_TASK_COUNT, &in.local_ntasks) ||
	    spank_get_item(sp, S_TASK_ID, &local_id) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS) {
		slurm_error("elastic: cannot read the task's ids from Slurm");
		return -1;
	}
	in.local_id = local_id;
	item_u32(sp, S_SLURM_RESTART_COUNT, &in.restart_count);
	if (spank_getenv(sp, "SLURM_STEP_NODELIST", nodes, sizeof(nodes)) ==
		ESPANK_SUCCESS &&
	    (first = nodelist_first_host(nodes)))
		in.first_node = first;
	if (spank_getenv(sp, "SLURM_LAUNCH_NODE_IPADDR", addr, sizeof(addr)) ==
	    ESPANK_SUCCESS)
		in.launch_addr = addr;
	if (getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &pwp) == 0 && pwp) {
		in.user = pw.pw_name;
		in.home = pw.pw_dir;
	}
	in.opts = &ctx.opts;
	in.sc = ctx.have_sc ? &ctx.sc : NULL;
	in.getenv = task_getenv;
	in.getenv_arg = &t;
	rc = rankenv_build(&in, task_setenv, &t, &err);
	free(first);
	if (rc < 0) {
		slurm_error("elastic: %s", err.text);
		return -1;
	}
	return 0;
}
