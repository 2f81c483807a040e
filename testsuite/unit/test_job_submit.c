/*
 * job_submit/elastic's entry points called at once from many threads, as
 * slurmctld 23.02 and later call them (under its read lock only): each
 * call must see its own job's size config and the policy whole, never
 * another call's.  The plugin's source is built in (its Slurm functions
 * come from libslurm), with the built-in policy (no elastic.conf).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>

#include "plugins/job_submit/job_submit_elastic.c"

#define THREADS	   8
#define ITERATIONS 4000

#define OPT "_SLURM_SPANK_OPTION_elastic_"

struct worker {
	unsigned size; /* min = max = the size config's only size */
	unsigned done, refused;
	char why[400];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	char min[64], max[64], sc[64], scpath[80];
	char *env[] = { min, max, scpath, sc };
	job_desc_msg_t d;

	snprintf(min, sizeof(min), OPT "elastic_min=%u", w->size);
	snprintf(max, sizeof(max), OPT "elastic_max=%u", w->size);
	snprintf(scpath, sizeof(scpath), OPT "elastic_size_config=/s%u",
		 w->size);
	snprintf(sc, sizeof(sc), SIZE_CONFIG_ENV "=%u BATCH=%u", w->size,
		 w->size * 8);
	for (unsigned i = 0; i < ITERATIONS; i++) {
		char *err_msg = NULL;

		slurm_init_job_desc_msg(&d);
		d.user_id = getuid();
		d.spank_job_env = env;
		d.spank_job_env_size = 4;
		if (job_submit(&d, getuid(), &err_msg) != SLURM_SUCCESS) {
			if (!w->refused++)
				snprintf(w->why, sizeof(w->why), "%s",
					 err_msg ? err_msg : "?");
		} else if (d.min_nodes != w->size) {
			if (!w->refused++)
				snprintf(w->why, sizeof(w->why),
					 "min_nodes %u, want %u", d.min_nodes,
					 w->size);
		}
		w->done++;
		slurm_xfree((void **)&err_msg);
		d.spank_job_env = NULL;
		d.spank_job_env_size = 0;
		slurm_xfree((void **)&d.admin_comment);
		slurm_xfree((void **)&d.partition);
	}
	return NULL;
}

static void concurrent_submissions(void **state)
{
	pthread_t th[THREADS];
	struct worker w[THREADS] = { 0 };
	int err_fd = dup(STDERR_FILENO), null_fd = open("/dev/null", O_WRONLY);

	(void)state;
	/* No elastic.conf: the built-in policy, read at the first call. */
	snprintf(ctx.conf_path, sizeof(ctx.conf_path), "/nonexistent/%d",
		 (int)getpid());
	load_policy(true);
	assert_true(ctx.policy_ok);
	/* Its log lines (one per job) go nowhere meanwhile. */
	assert_true(err_fd >= 0 && null_fd >= 0);
	dup2(null_fd, STDERR_FILENO);
	for (unsigned i = 0; i < THREADS; i++) {
		w[i].size = i + 1;
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	dup2(err_fd, STDERR_FILENO);
	close(err_fd);
	close(null_fd);
	for (unsigned i = 0; i < THREADS; i++) {
		assert_int_equal(w[i].done, ITERATIONS);
		if (w[i].refused)
			fail_msg("size %u: %u of %u calls wrong, first: %s",
				 w[i].size, w[i].refused, ITERATIONS, w[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(concurrent_submissions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
