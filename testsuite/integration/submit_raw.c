/*
 * submit_raw ENV=VALUE...: submit a one-line batch job whose spank_job_env
 * is exactly the arguments, as a client without the SPANK plugin could.
 * Prints the job id, or the error on stderr and exits 1.
 *
 * submit_raw --held N PARTITION: submit N held one-node jobs of that kind
 * (priority 0, as sbatch --hold) to PARTITION, one RPC each, and print how
 * many and how fast: the queue of other users' jobs for the benchmark of
 * slurmctld's cost (testsuite/bench/bench_ctld), much faster than N sbatch
 * processes.  Exits 1 at the first refusal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/slurm_compat.h"

static char *env[] = { "PATH=/usr/bin:/bin", NULL };

/* A one-line batch job of the caller's. */
static void plain_job(job_desc_msg_t *d, const char *name)
{
	slurm_init_job_desc_msg(d);
	d->name = (char *)name;
	d->script = "#!/bin/sh\ntrue\n";
	d->user_id = getuid();
	d->group_id = getgid();
	d->work_dir = "/tmp";
	d->environment = env;
	d->env_size = 1;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int submit_held(long n, char *partition)
{
	double t0 = now_s();

	for (long i = 0; i < n; i++) {
		submit_response_msg_t *resp = NULL;
		job_desc_msg_t d;

		plain_job(&d, "queued");
		d.partition = partition;
		d.min_nodes = 1;
		d.time_limit = 10;
		d.priority = 0; /* held */
		if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
			fprintf(stderr, "submit_raw: job %ld of %ld: %s\n",
				i + 1, n, slurm_strerror(errno));
			return 1;
		}
		slurm_free_submit_response_response_msg(resp);
	}
	printf("submit_raw: %ld held jobs in %.1f s\n", n, now_s() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	submit_response_msg_t *resp = NULL;
	job_desc_msg_t d;
	long n;
	int rc;

	slurm_init(NULL);
	if (argc > 1 && !strcmp(argv[1], "--held")) {
		if (argc != 4 || (n = strtol(argv[2], NULL, 10)) <= 0 ||
		    n > 1000000) {
			fprintf(stderr, "usage: submit_raw --held N PARTITION "
					"(N: 1 to 1000000)\n");
			return 2;
		}
		rc = submit_held(n, argv[3]);
		slurm_fini();
		return rc;
	}
	plain_job(&d, "submit_raw");
	d.spank_job_env = argv + 1;
	d.spank_job_env_size = argc - 1;
	if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
		fprintf(stderr, "submit_raw: %s\n", slurm_strerror(errno));
		return 1;
	}
	printf("%u\n", COMPAT_SUBMIT_JOB_ID(resp));
	slurm_free_submit_response_response_msg(resp);
	slurm_fini();
	return 0;
}
