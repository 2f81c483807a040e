/*
 * The checkpoint library as a launcher uses it, for t0210-checkpoints.t:
 *
 *   ckpt_tool prev JOBID [RESUME]   ELASTIC_PREV_CHECKPOINT for job JOBID
 *   ckpt_tool tick JOBID [PREV]     one checkpoint pass (eval, retention)
 *
 * Both read the job's options from its tag, with slurmctld's help for
 * other jobs' checkpoint dirs and eval jobs' states.
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "common/ckpt.h"
#include "elastic-run/ckpt_slurm.h"
#include "common/ckpt_eval.h"
#include "common/options.h"
#include "common/policy.h"
#include "common/slurm_compat.h"

int main(int argc, char **argv)
{
	struct elastic_policy p;
	struct elastic_opts o;
	job_info_msg_t *msg = NULL;
	struct passwd *pw = getpwuid(getuid());
	char conf[1100], dir[CKPT_PATH_MAX], out[CKPT_PATH_MAX];
	elastic_error_t err;
	struct ckpt_slurm c;
	uint32_t job;
	int rc;

	if (argc < 3 || argc > 4 ||
	    (strcmp(argv[1], "prev") && strcmp(argv[1], "tick"))) {
		fprintf(stderr, "usage: ckpt_tool prev|tick JOBID [ARG]\n");
		return 2;
	}
	job = (uint32_t)strtoul(argv[2], NULL, 10);
	slurm_init(NULL);
	if (compat_load_job(&msg, job, SHOW_ALL) != SLURM_SUCCESS ||
	    msg->record_count < 1 || !msg->job_array[0].admin_comment ||
	    options_parse_tag(msg->job_array[0].admin_comment, &o, &err) < 0) {
		fprintf(stderr, "ckpt_tool: job %u: no elastic tag\n", job);
		return 1;
	}
	slurm_free_job_info_msg(msg);
	c.pattern = o.checkpoint_dir;
	c.user = pw ? pw->pw_name : "";
	c.home = pw ? pw->pw_dir : "";
	if (options_expand_path(o.checkpoint_dir, argv[2], c.user, c.home, dir,
				sizeof(dir)) < 0) {
		fprintf(stderr, "ckpt_tool: %s does not expand\n",
			o.checkpoint_dir);
		return 1;
	}
	if (!strcmp(argv[1], "prev")) {
		rc = ckpt_prev_checkpoint(
		    dir, argc > 3 ? argv[3] : o.resume_from, ckpt_slurm_job_dir,
		    &c, out, sizeof(out), NULL, &err);
		if (rc == 0)
			printf("%s\n", out);
	} else {
		struct ckpt_tick_result res;
		struct ckpt_tick t = {
			.ckpt_dir = dir,
			.keep = o.keep,
			.prev = argc > 3 ? argv[3] : "",
			.eval_cmd = o.eval_cmd,
			.job_id = job,
			.active = ckpt_slurm_active,
		};

		policy_conf_path(getenv("SLURM_CONF"), conf, sizeof(conf));
		if (policy_load(&p, conf, NULL, &err) < 0) {
			fprintf(stderr, "ckpt_tool: %s\n", err.text);
			return 1;
		}
		t.partition = ckpt_eval_partition(&p);
		rc = ckpt_tick(&t, &res, &err);
		printf("checkpoints=%zu newest=%llu submitted=%u failed=%u "
		       "deleted=%u\n",
		       res.checkpoints, (unsigned long long)res.newest_step,
		       res.submitted, res.failed, res.deleted);
	}
	if (rc < 0)
		fprintf(stderr, "ckpt_tool: %s\n", err.text);
	slurm_fini();
	return rc < 0 ? 1 : 0;
}
