/*
 * job_submit/elastic: applies the site's elastic policy in slurmctld.
 *
 * An elastic job (one that used any --elastic-* option) is validated
 * against elastic.conf, its omitted options are filled from the policy's
 * defaults, and it is tagged in AdminComment ("elastic:v1 min=2 max=8"),
 * a field only administrators can set, so elasticd can trust the tag.
 * A job without elastic options passes through untouched.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/options.h"
#include "common/policy.h"
#include "slurm_internal.h"

const char plugin_name[] = "Elastic training job submit plugin";
const char plugin_type[] = "job_submit/elastic";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static struct plugin_context {
	char conf_path[PATH_MAX];
	struct elastic_policy policy;
	bool policy_ok;
	elastic_error_t policy_err;
} ctx;

/* elastic.conf lives beside slurm.conf, like Slurm's other config files. */
static void conf_path(char *buf, size_t len)
{
	const char *sc = slurm_conf.slurm_conf;
	const char *slash = sc ? strrchr(sc, '/') : NULL;

	if (slash)
		snprintf(buf, len, "%.*s/elastic.conf", (int)(slash - sc), sc);
	else
		snprintf(buf, len, "%s/elastic.conf", SLURM_SYSCONFDIR);
}

/*
 * Never fail init: slurmctld would refuse to start over our file.  A bad
 * elastic.conf only makes us refuse elastic jobs, with its reason.
 */
int init(void)
{
	conf_path(ctx.conf_path, sizeof(ctx.conf_path));
	ctx.policy_ok =
	    policy_load(&ctx.policy, ctx.conf_path, &ctx.policy_err) == 0;
	if (ctx.policy_ok && access(ctx.conf_path, F_OK) != 0)
		slurm_info("%s: no %s, using built-in defaults (MaxNodes=%u)",
			   plugin_type, ctx.conf_path, ctx.policy.max_nodes);
	else if (ctx.policy_ok)
		slurm_info("%s: loaded %s (MaxNodes=%u)", plugin_type,
			   ctx.conf_path, ctx.policy.max_nodes);
	else
		slurm_error("%s: %s; elastic jobs will be refused", plugin_type,
			    ctx.policy_err.text);
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

int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid, char **err_msg)
{
	struct elastic_opts opts = { 0 };
	elastic_error_t err;
	char tag[128];

	if (options_from_env(&opts, job_desc->spank_job_env,
			     job_desc->spank_job_env_size, &err) < 0)
		return refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT,
			      err.text);
	if (!options_any(&opts))
		return SLURM_SUCCESS;

	if (!ctx.policy_ok) {
		char text[sizeof(err.text) + 64];

		snprintf(text, sizeof(text),
			 "elastic jobs are disabled: %s (tell your admin)",
			 ctx.policy_err.text);
		return refuse(err_msg, submit_uid, SLURM_ERROR, text);
	}
	if (options_finalize(&opts, &ctx.policy, &err) < 0)
		return refuse(err_msg, submit_uid, ESLURM_INVALID_NODE_COUNT,
			      err.text);

	options_format_tag(&opts, tag, sizeof(tag));
	slurm_xfree((void **)&job_desc->admin_comment);
	job_desc->admin_comment = slurm_xstrdup(tag);
	slurm_info("%s: uid %u: elastic job accepted: %s", plugin_type,
		   submit_uid, tag);
	return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
#else
int job_modify(job_desc_msg_t *job_desc, void *job_ptr, uint32_t submit_uid)
#endif
{
	/* Elastic options are fixed at submit; nothing to validate yet. */
	return SLURM_SUCCESS;
}
