/*
 * submit_raw ENV=VALUE...: submit a one-line batch job whose spank_job_env
 * is exactly the arguments, as a client without the SPANK plugin could.
 * Prints the job id, or the error on stderr and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	submit_response_msg_t *resp = NULL;
	job_desc_msg_t d;

	slurm_init(NULL);
	slurm_init_job_desc_msg(&d);
	d.name = "submit_raw";
	d.script = "#!/bin/sh\ntrue\n";
	d.user_id = getuid();
	d.group_id = getgid();
	d.work_dir = "/tmp";
	d.environment = env;
	d.env_size = 1;
	d.spank_job_env = argv + 1;
	d.spank_job_env_size = argc - 1;
	if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
		fprintf(stderr, "submit_raw: %s\n", slurm_strerror(errno));
		return 1;
	}
	printf("%u\n", resp->job_id);
	slurm_free_submit_response_response_msg(resp);
	slurm_fini();
	return 0;
}
