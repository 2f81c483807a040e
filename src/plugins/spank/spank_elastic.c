/*
 * spank_elastic: the --elastic-* options of sbatch, salloc and srun.
 *
 * In sbatch/salloc/srun (local and allocator contexts) it checks each
 * option as it is parsed and the relations between them once all are
 * known, so a bad job fails before it reaches slurmctld.  Slurm itself
 * forwards the options to slurmctld in the job's spank_job_env, where
 * job_submit/elastic applies the site's policy.
 */
#include "config.h"

#include <slurm/spank.h>

#include "common/options.h"

SPANK_PLUGIN(elastic, 1);

static struct plugin_context {
	struct elastic_opts opts;
} ctx;

static int opt_cb(int val, const char *optarg, int remote);

static struct spank_option options[ELASTIC_OPT_COUNT] = {
	{ "elastic-min", "N",
	  "Elastic job: the smallest number of nodes it runs on.", 1,
	  ELASTIC_OPT_MIN, opt_cb },
	{ "elastic-max", "N",
	  "Elastic job: the largest number of nodes it runs on.", 1,
	  ELASTIC_OPT_MAX, opt_cb },
};

static int opt_cb(int val, const char *optarg, int remote)
{
	elastic_error_t err;

	if (options_set(&ctx.opts, val, optarg ? optarg : "", &err) < 0) {
		/* slurmstepd re-reads options sbatch already checked. */
		if (!remote)
			slurm_error("elastic: %s", err.text);
		return -1;
	}
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t c = spank_context();

	if (c != S_CTX_LOCAL && c != S_CTX_ALLOCATOR && c != S_CTX_REMOTE)
		return 0;
	for (int i = 0; i < ELASTIC_OPT_COUNT; i++) {
		if (spank_option_register(sp, &options[i]) != ESPANK_SUCCESS) {
			slurm_error("elastic: cannot register --%s",
				    options[i].name);
			return -1;
		}
	}
	return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t c = spank_context();
	elastic_error_t err;

	if (c != S_CTX_LOCAL && c != S_CTX_ALLOCATOR)
		return 0;
	if (options_check(&ctx.opts, &err) < 0) {
		slurm_error("elastic: %s", err.text);
		return -1;
	}
	return 0;
}
