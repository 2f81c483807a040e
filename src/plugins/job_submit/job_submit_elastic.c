/*
 * job_submit/elastic: applies the site's elastic policy in slurmctld.
 *
 * An elastic job (one that used any --elastic-* option) is validated
 * against elastic.conf, its omitted options are filled from the policy's
 * defaults, and it becomes the base job of its elastic group: it starts on
 * --elastic-min nodes in a base partition, survives node failure
 * (--no-kill), is requeued rather than lost, gets the elastic signal at
 * preemption and before its time limit, and is tagged in AdminComment
 * ("elastic:v1 min=2 max=8 ..."), a field only administrators can set, so
 * elasticd can trust the tag.  A job without elastic options passes
 * through untouched.
 */
#include "config.h"

#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/options.h"
#include "common/parse.h"
#include "common/policy.h"
#include "common/sizeconf.h"
#include "common/slurm_compat.h"
#include "plugins/built_for.h"
#include "slurm_internal.h"

const char plugin_name[] = "Elastic training job submit plugin";
const char plugin_type[] = "job_submit/elastic";
const uint32_t plugin_version = ELASTIC_BUILT_FOR;
const char plugin_built_for[] = ELASTIC_BUILT_FOR_MARK;

/* slurmctld calls job_submit and job_modify from several threads at once
 * (under its read lock only): this state, reloaded and used as scratch by
 * each call, is the plugin's own to guard. */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct plugin_context {
	char conf_path[PATH_MAX];
	struct stat conf_st; /* of the file last read; st_ino 0 if none */
	struct elastic_policy policy;
	bool policy_ok;
	bool expedite_said; /* ExpeditedRequeue's trouble logged */
	elastic_error_t policy_err;
	struct size_config sc;
} ctx;

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/*
 * (Re)read elastic.conf when it changed, so an admin's fix applies without
 * restarting slurmctld.  Never fails: a bad file only makes us refuse
 * elastic jobs, with its reason.
 */
static void load_policy(bool force)
{
	struct stat st = { 0 };
	bool found = false;

	if (stat(ctx.conf_path, &st) < 0)
		memset(&st, 0, sizeof(st));
	if (!force && same_file(&st, &ctx.conf_st))
		return;
	ctx.conf_st = st;
	ctx.policy_ok = policy_load(&ctx.policy, ctx.conf_path, &found,
				    &ctx.policy_err) == 0;
	if (!ctx.policy_ok)
		slurm_error("%s: %s; elastic jobs will be refused", plugin_type,
			    ctx.policy_err.text);
	else if (!found)
		slurm_info("%s: no %s, using built-in defaults (MaxNodes=%u)",
			   plugin_type, ctx.conf_path, ctx.policy.max_nodes);
	else
		slurm_info("%s: loaded %s (MaxNodes=%u)", plugin_type,
			   ctx.conf_path, ctx.policy.max_nodes);
}

int init(void)
{
	/* Beside slurm.conf, like Slurm's other configuration files. */
	policy_conf_path(slurm_conf.slurm_conf, ctx.conf_path,
			 sizeof(ctx.conf_path));
	load_policy(true);
	return SLURM_SUCCESS;
}

int fini(void)
{
	return SLURM_SUCCESS;
}

static int refuse(char **err_msg, uint32_t uid, int rc, const char *text)
{
	char line[400];

	snprintf(line, sizeof(line), "elastic: %s", text);
	slurm_info("%s: uid %u: job refused: %s", plugin_type, uid, text);
	if (err_msg) {
		slurm_xfree((void **)err_msg);
		*err_msg = slurm_xstrdup(line);
	}
	return rc;
}

static void set_str(char **field, const char *value)
{
	slurm_xfree((void **)field);
	*field = slurm_xstrdup(value);
}

/* Every partition the job asked for must be allowed to hold base jobs. */
static int check_partition(job_desc_msg_t *d, elastic_error_t *err)
{
	const struct policy_list *base = &ctx.policy.base_partitions;
	/* The refusal must fit an error line whole, the key at its end. */
	char buf[1024], allowed[160];
	char *save = NULL, *part;

	if (!base->n)
		return 0;
	if (!d->partition) {
		set_str(&d->partition, base->name[0]);
		return 0;
	}
	if (strlen(d->partition) >= sizeof(buf))
		return elastic_errorf(err, "partition list too long");
	strcpy(buf, d->partition);
	for (part = strtok_r(buf, ",", &save); part;
	     part = strtok_r(NULL, ",", &save)) {
		if (policy_list_has(base, part))
			continue;
		policy_list_join(base, allowed, sizeof(allowed));
		return elastic_errorf(
		    err,
		    "partition %.64s cannot hold elastic jobs "
		    "(allowed: %s; BasePartitions in "
		    "elastic.conf)",
		    part, allowed);
	}
	return 0;
}

/* ExpeditedRequeue=yes: Slurm requeues the base at once when it fails
 * (elastic.conf(5)); said once when it cannot be had. */
static void expedite(job_desc_msg_t *d)
{
	const char *why;

	if (policy_expedite(ctx.policy.expedited_requeue,
			    COMPAT_EXPEDITED_REQUEUE != 0,
			    slurm_conf.slurmctld_params, &why))
		d->bitflags |= COMPAT_EXPEDITED_REQUEUE;
	else if (why && !ctx.expedite_said) {
		slurm_info("%s: ExpeditedRequeue=yes: not given to bases: %s",
			   plugin_type, why);
		ctx.expedite_said = true;
	}
}

/* Make the job the base of its group; see the file comment. */
static int make_base(job_desc_msg_t *d, const struct elastic_opts *o,
		     elastic_error_t *err)
{
	char tag[ELASTIC_TAG_MAX];

	if (d->min_nodes != NO_VAL && d->min_nodes != 0 &&
	    d->min_nodes != o->min)
		return elastic_errorf(err,
				      "-N/--nodes=%u conflicts with "
				      "--elastic-min=%u (an elastic job starts "
				      "on --elastic-min nodes; leave -N out)",
				      d->min_nodes, o->min);
	if (d->max_nodes != NO_VAL && d->max_nodes != 0 &&
	    d->max_nodes != o->min && d->max_nodes != d->min_nodes)
		return elastic_errorf(err,
				      "-N/--nodes=...-%u conflicts with "
				      "--elastic-min=%u (leave -N out)",
				      d->max_nodes, o->min);
	if (check_partition(d, err) < 0)
		return -1;
	if (options_format_tag(o, tag, sizeof(tag)) >= (int)sizeof(tag))
		return elastic_errorf(err, "options too long");

	d->min_nodes = o->min;
	d->max_nodes = o->min;
	if (!d->qos && ctx.policy.base_qos[0])
		set_str(&d->qos, ctx.policy.base_qos);
	d->kill_on_node_fail = 0;
	d->requeue = 1;
	/* To the steps (not the batch shell, which is the launcher): at
	 * preemption with preempt_send_user_signal, and before the time
	 * limit. */
	d->warn_signal = o->signal;
	d->warn_time = o->grace;
	d->warn_flags = 0;
	expedite(d);
	set_str(&d->admin_comment, tag);
	return 0;
}

static int submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct elastic_opts opts = { 0 };
	struct elastic_submitter who = { NULL, job_desc->account };
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096];
	const char *sc_text;
	elastic_error_t err;

	if (options_from_env(&opts, job_desc->spank_job_env,
			     job_desc->spank_job_env_size, &err) < 0)
		return refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT,
			      err.text);
	if (!options_any(&opts))
		return SLURM_SUCCESS;
	/* Each task of an array would be a group of its own, all sharing
	 * one checkpoint directory pattern and one base's policy. */
	if (job_desc->array_inx && job_desc->array_inx[0])
		return refuse(err_msg, submit_uid, ESLURM_INVALID_ARRAY,
			      "--array: an elastic job cannot be a job array "
			      "(submit one elastic job per training)");

	load_policy(false);
	if (!ctx.policy_ok) {
		char text[sizeof(err.text) + 64];

		snprintf(text, sizeof(text),
			 "elastic jobs are disabled: %s (tell your admin)",
			 ctx.policy_err.text);
		return refuse(err_msg, submit_uid, ESLURM_NOT_SUPPORTED, text);
	}

	sc_text =
	    options_env_get(job_desc->spank_job_env,
			    job_desc->spank_job_env_size, SIZE_CONFIG_ENV);
	if (options_given(&opts, ELASTIC_OPT_SIZE_CONFIG) && !sc_text)
		return refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT,
			      "--elastic-size-config: the file's content did "
			      "not arrive (is spank_elastic.so in the "
			      "client's plugstack.conf?)");
	if (sc_text &&
	    sizeconf_parse(&ctx.sc, sc_text, "--elastic-size-config", &err) < 0)
		return refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT,
			      err.text);

	if (getpwuid_r(job_desc->user_id, &pw, pwbuf, sizeof(pwbuf), &pwp) ==
		0 &&
	    pwp)
		who.user = pw.pw_name;
	if (options_finalize(&opts, &ctx.policy, &who, sc_text ? &ctx.sc : NULL,
			     &err) < 0 ||
	    make_base(job_desc, &opts, &err) < 0)
		return refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT,
			      err.text);
	slurm_info("%s: uid %u: elastic job accepted: %s", plugin_type,
		   submit_uid, job_desc->admin_comment);
	return SLURM_SUCCESS;
}

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	int rc;

	pthread_mutex_lock(&ctx_lock);
	rc = submit(job_desc, submit_uid, err_msg);
	pthread_mutex_unlock(&ctx_lock);
	return rc;
}

/*
 * Elastic fields live in AdminComment, which only administrators can
 * change.  A change that sets an elastic tag must be a well-formed,
 * consistent tag; the site's caps are the administrator's to override.
 */
static int modify(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct elastic_opts opts;
	const char *c = job_desc->admin_comment;
	elastic_error_t err;

	if (!c || strncmp(c, "elastic:", 8))
		return SLURM_SUCCESS;
	if (options_parse_tag(c, &opts, &err) < 0)
		return refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT,
			      err.text);
	return SLURM_SUCCESS;
}

int job_modify(COMPAT_JOB_MODIFY_PARAMS)
{
	return modify(job_desc, submit_uid, COMPAT_JOB_MODIFY_ERR_MSG);
}
