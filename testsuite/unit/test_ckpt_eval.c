/* Unit tests of ckpt_eval.c: the eval job's command line, the eval
 * index, which checkpoints need an eval, and the result line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/ckpt_eval.h"
#include "common/policy.h"
#include "fixture.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char tmp[256];

static int setup(void **state)
{
	return scratch_make(tmp, sizeof(tmp), "test_ckpt_eval");
}

static int teardown(void **state)
{
	return scratch_remove(tmp);
}

static void check_cmd(void **state)
{
	elastic_error_t err = { "" };
	char longcmd[CKPT_EVAL_CMD_MAX + 2];

	assert_int_equal(ckpt_eval_check_cmd("python3 eval.py --top5", &err),
			 0);
	assert_int_equal(ckpt_eval_check_cmd("a'b\"c $X %j ; | &", &err), 0);
	assert_int_equal(ckpt_eval_check_cmd("", &err), -1);
	assert_string_equal(err.text, "--elastic-eval=: empty value (allowed: "
				      "a command line)");
	assert_int_equal(ckpt_eval_check_cmd("a\nb", &err), -1);
	assert_string_equal(err.text, "--elastic-eval: newline in the command "
				      "(allowed: one line)");
	assert_int_equal(ckpt_eval_check_cmd("a\tb", &err), -1);
	assert_string_equal(err.text, "--elastic-eval: control character in "
				      "the command (allowed: one line)");
	memset(longcmd, 'x', sizeof(longcmd) - 1);
	longcmd[sizeof(longcmd) - 1] = '\0';
	assert_int_equal(ckpt_eval_check_cmd(longcmd, &err), -1);
	assert_string_equal(err.text,
			    "--elastic-eval: longer than 1024 characters");
	longcmd[CKPT_EVAL_CMD_MAX] = '\0';
	assert_int_equal(ckpt_eval_check_cmd(longcmd, &err), 0);
}

static void argv_of(const struct ckpt_eval_req *r, char *out, size_t len)
{
	struct ckpt_eval_argv a;
	elastic_error_t err = { "" };
	size_t j = 0;

	if (ckpt_eval_argv(r, &a, &err) != 0)
		fail_msg("ckpt_eval_argv: %s", err.text);
	out[0] = '\0';
	for (size_t i = 0; a.argv[i]; i++)
		j += snprintf(out + j, len - j, "%s[%s]", i ? " " : "",
			      a.argv[i]);
}

static void eval_argv(void **state)
{
	struct ckpt_eval_req r = {
		.cmd = "python3 eval.py --data /d",
		.ckpt_dir = "/ck/4711",
		.ckpt_path = "/ck/4711/ckpt-00000200.pt",
		.step = 200,
		.job_id = 4711,
		.partition = "preempt",
	};
	struct ckpt_eval_argv a;
	elastic_error_t err = { "" };
	char got[4096];

	argv_of(&r, got, sizeof(got));
	assert_string_equal(
	    got,
	    "[sbatch] [--parsable] [--job-name=elastic-eval] [--nodes=1] "
	    "[--nice=10000] [--partition=preempt] "
	    "[--output=/ck/4711/eval/ckpt-200.out] "
	    "[--export=ALL,ELASTIC_EVAL_CHECKPOINT=/ck/4711/"
	    "ckpt-00000200.pt,ELASTIC_EVAL_STEP=200,ELASTIC_EVAL_JOB=4711] "
	    "[--wrap=python3 eval.py --data /d]");

	/* No partition: Slurm's default; an account; '%' escaped in the
	 * output (sbatch expands %j there). */
	r.sbatch = "/usr/bin/sbatch";
	r.partition = "";
	r.account = "proj";
	r.ckpt_dir = "/ck/100%/";
	r.ckpt_path = "/ck/100%/ckpt-7";
	r.step = 7;
	argv_of(&r, got, sizeof(got));
	assert_string_equal(
	    got, "[/usr/bin/sbatch] [--parsable] [--job-name=elastic-eval] "
		 "[--nodes=1] [--nice=10000] [--account=proj] "
		 "[--output=/ck/100%%/eval/ckpt-7.out] "
		 "[--export=ALL,ELASTIC_EVAL_CHECKPOINT=/ck/100%/ckpt-7,"
		 "ELASTIC_EVAL_STEP=7,ELASTIC_EVAL_JOB=4711] "
		 "[--wrap=python3 eval.py --data /d]");

	/* What --export cannot carry. */
	r.ckpt_path = "/ck/a,b/ckpt-7";
	assert_int_equal(ckpt_eval_argv(&r, &a, &err), -1);
	assert_string_equal(err.text,
			    "checkpoint /ck/a,b/ckpt-7: no eval job for a path "
			    "with ',' or a newline (sbatch --export cannot "
			    "carry it)");
	assert_null(a.argv[0]);
	r.ckpt_path = "/ck/ckpt-7";
	r.cmd = "a\nb";
	assert_int_equal(ckpt_eval_argv(&r, &a, &err), -1);
	assert_string_equal(err.text, "--elastic-eval: newline in the command "
				      "(allowed: one line)");
	r.cmd = NULL;
	assert_int_equal(ckpt_eval_argv(&r, &a, &err), -1);
	assert_string_equal(err.text, "--elastic-eval: not set");
}

/* The largest request fits. */
static void eval_argv_largest(void **state)
{
	static char dir[CKPT_PATH_MAX - 40], path[CKPT_PATH_MAX - 1];
	static char cmd[CKPT_EVAL_CMD_MAX + 1];
	struct ckpt_eval_req r = {
		.cmd = cmd,
		.ckpt_dir = dir,
		.ckpt_path = path,
		.step = 999999999999999999ULL,
		.job_id = 4294967294u,
		.partition = "p",
		.account = "a",
	};
	struct ckpt_eval_argv a;
	elastic_error_t err = { "" };

	memset(dir, '%', sizeof(dir) - 1);
	dir[0] = '/';
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	memset(cmd, 'c', sizeof(cmd) - 1);
	assert_int_equal(ckpt_eval_argv(&r, &a, &err), 0);
	assert_int_equal(strlen(a.argv[9]), 7 + CKPT_EVAL_CMD_MAX);
	assert_null(a.argv[10]);
}

static void env_drop(void **state)
{
	assert_true(
	    ckpt_eval_env_drop("_SLURM_SPANK_OPTION_elastic_elastic_min=2"));
	assert_true(ckpt_eval_env_drop(
	    "SLURM_SPANK__SLURM_SPANK_OPTION_elastic_elastic_eval=x"));
	assert_true(ckpt_eval_env_drop("ELASTIC_SIZE_CONFIG=default A=1"));
	assert_false(ckpt_eval_env_drop("PATH=/usr/bin"));
	assert_false(ckpt_eval_env_drop("ELASTIC_CHECKPOINT_DIR=/ck"));
	assert_false(ckpt_eval_env_drop("_SLURM_SPANK_OPTION_other_x=1"));
}

static void partition(void **state)
{
	struct elastic_policy p;
	elastic_error_t err = { "" };

	policy_defaults(&p);
	assert_string_equal(ckpt_eval_partition(&p), "");
	assert_int_equal(policy_parse(&p,
				      "PreemptiblePartitions=spot,preempt\n",
				      "elastic.conf", &err),
			 0);
	assert_string_equal(ckpt_eval_partition(&p), "spot");
	assert_int_equal(policy_parse(&p,
				      "PreemptiblePartitions=spot\n"
				      "EvalPartition=eval\n",
				      "elastic.conf", &err),
			 0);
	assert_string_equal(ckpt_eval_partition(&p), "eval");
	assert_int_equal(
	    policy_parse(&p, "EvalPartition=a b\n", "elastic.conf", &err), -1);
	assert_string_equal(err.text, "elastic.conf:1: EvalPartition: bad "
				      "character in name 'a b' (allowed: "
				      "letters, digits, - _ . @ +)");
}

static void paths(void **state)
{
	char buf[64];

	assert_int_equal(ckpt_eval_dir("/ck/1", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/ck/1/eval");
	assert_int_equal(ckpt_eval_dir("/ck/1/", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/ck/1/eval");
	assert_int_equal(ckpt_eval_output("/ck/1", 40, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/ck/1/eval/ckpt-40.out");
	assert_int_equal(ckpt_eval_output("/ck/1", 40, buf, 10), -1);
	assert_int_equal(ckpt_eval_dir("/ck/1", buf, 5), -1);
}

static void index_text(void **state)
{
	struct ckpt_eval_index *ix = malloc(sizeof(*ix));
	elastic_error_t err = { "" };
	char buf[256];

	assert_non_null(ix);
	assert_int_equal(ckpt_eval_index_parse("# step eval-job\n"
					       "20 1002\n"
					       "  10\t1001  \n"
					       "\n"
					       "30 0\n"
					       "20 1003",
					       ix, &err),
			 0);
	assert_int_equal(ix->n, 3);
	assert_int_equal(ckpt_eval_index_format(ix, buf, sizeof(buf)), 21);
	assert_string_equal(buf, "10 1001\n20 1003\n30 0\n");
	assert_int_equal(ckpt_eval_index_format(ix, NULL, 0), 21);
	assert_int_equal(ckpt_eval_index_find(ix, 20)->job_id, 1003);
	assert_null(ckpt_eval_index_find(ix, 25));

	ix->n = 77;
	assert_int_equal(ckpt_eval_index_parse("10 x\n", ix, &err), -1);
	assert_string_equal(err.text, "eval index:1: expected 'STEP JOBID'");
	assert_int_equal(ix->n, 77);
	assert_int_equal(ckpt_eval_index_parse("1\n2 3 4\n", ix, &err), -1);
	assert_int_equal(ckpt_eval_index_parse("-1 3\n", ix, &err), -1);
	assert_int_equal(ckpt_eval_index_parse("\n\n1 4294967295\n", ix, &err),
			 -1);
	assert_string_equal(err.text, "eval index:3: expected 'STEP JOBID'");
	assert_int_equal(
	    ckpt_eval_index_parse("0000000000000000001 3\n", ix, &err), -1);
	free(ix);
}

static void index_full(void **state)
{
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));

	assert_non_null(ix);
	for (unsigned i = 1; i <= CKPT_EVAL_INDEX_MAX + 5; i++)
		ckpt_eval_index_add(ix, i * 10, i);
	assert_int_equal(ix->n, CKPT_EVAL_INDEX_MAX);
	/* The oldest went. */
	assert_true(ix->r[0].step == 60);
	assert_true(ix->r[ix->n - 1].step == (CKPT_EVAL_INDEX_MAX + 5) * 10);
	/* Older than all kept: not added. */
	ckpt_eval_index_add(ix, 5, 1);
	assert_int_equal(ix->n, CKPT_EVAL_INDEX_MAX);
	assert_null(ckpt_eval_index_find(ix, 5));
	free(ix);
}

static void index_files(void **state)
{
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));
	struct ckpt_eval_index *back = calloc(1, sizeof(*back));
	elastic_error_t err = { "" };
	char dir[512], path[600];
	struct stat st;

	assert_non_null(ix);
	assert_non_null(back);
	snprintf(dir, sizeof(dir), "%s/job", tmp);
	/* Missing: empty. */
	back->n = 9;
	assert_int_equal(ckpt_eval_index_load(dir, back, &err), 0);
	assert_int_equal(back->n, 0);
	ckpt_eval_index_add(ix, 100, 501);
	ckpt_eval_index_add(ix, 200, 0);
	assert_int_equal(ckpt_eval_index_save(dir, ix, &err), 0);
	assert_int_equal(ckpt_eval_index_load(dir, back, &err), 0);
	assert_int_equal(back->n, 2);
	assert_int_equal(ckpt_eval_index_find(back, 100)->job_id, 501);
	assert_int_equal(ckpt_eval_index_find(back, 200)->job_id, 0);
	/* No temporary file is left. */
	snprintf(path, sizeof(path), "%s/eval/.index.tmp.%ld", dir,
		 (long)getpid());
	assert_int_equal(stat(path, &st), -1);
	/* A damaged index says so. */
	snprintf(path, sizeof(path), "%s/eval/index", dir);
	write_text(path, "garbage\n");
	assert_int_equal(ckpt_eval_index_load(dir, back, &err), -1);
	assert_string_equal(err.text, "eval index:1: expected 'STEP JOBID'");
	/* Where the dir cannot be made. */
	snprintf(path, sizeof(path), "%s/file", tmp);
	write_text(path, "");
	assert_int_equal(ckpt_eval_index_save(path, ix, &err), -1);
	free(ix);
	free(back);
}

static struct ckpt_list fake(const uint64_t *steps, size_t n)
{
	struct ckpt_list l = { .dir = "/ck" };

	l.e = calloc(n ? n : 1, sizeof(*l.e));
	assert_non_null(l.e);
	l.n = n;
	for (size_t i = 0; i < n; i++) {
		l.e[i].step = steps[i];
		snprintf(l.e[i].name, sizeof(l.e[i].name), "ckpt-%llu",
			 (unsigned long long)steps[i]);
	}
	return l;
}

static void todo(void **state)
{
	const uint64_t s[] = { 10, 20, 20, 30, 40 };
	struct ckpt_list l = fake(s, N(s));
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));
	size_t out[8];

	assert_non_null(ix);
	/* Nothing evaluated yet: every step, once. */
	assert_int_equal(ckpt_eval_todo(&l, ix, out), 4);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(out[2], 3);
	assert_int_equal(out[3], 4);
	/* Only what is newer than the newest evaluated. */
	ckpt_eval_index_add(ix, 20, 7);
	assert_int_equal(ckpt_eval_todo(&l, ix, out), 2);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 4);
	ckpt_eval_index_add(ix, 40, 0); /* failed: not again */
	assert_int_equal(ckpt_eval_todo(&l, ix, out), 0);
	ckpt_list_free(&l);
	free(ix);
}

static bool odd_active(uint32_t job, void *arg)
{
	(*(int *)arg)++;
	return job % 2;
}

static void active(void **state)
{
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));
	uint64_t steps[4];
	int calls = 0;

	assert_non_null(ix);
	ckpt_eval_index_add(ix, 10, 1);
	ckpt_eval_index_add(ix, 20, 2);
	ckpt_eval_index_add(ix, 30, 0); /* never submitted: not asked */
	ckpt_eval_index_add(ix, 40, 3);
	ckpt_eval_index_add(ix, 50, 5);
	assert_int_equal(ckpt_eval_active(ix, odd_active, &calls, steps, 4), 3);
	assert_int_equal(calls, 4);
	assert_true(steps[0] == 10 && steps[1] == 40 && steps[2] == 50);
	assert_int_equal(ckpt_eval_active(ix, odd_active, &calls, steps, 1), 1);
	free(ix);
}

static void result(void **state)
{
	char dir[512], path[600], buf[64], big[10000];

	snprintf(dir, sizeof(dir), "%s/job", tmp);
	assert_int_equal(ckpt_eval_result(dir, 10, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "");
	snprintf(path, sizeof(path), "%s/job", tmp);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/job/eval", tmp);
	mkdir(path, 0755);

	snprintf(path, sizeof(path), "%s/job/eval/ckpt-10.out", tmp);
	write_text(path, "loading\nstep 10\n  accuracy=0.91 loss=0.3\t\n\n \n");
	assert_int_equal(ckpt_eval_result(dir, 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "accuracy=0.91 loss=0.3");
	write_text(path, "");
	assert_int_equal(ckpt_eval_result(dir, 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	write_text(path, "\n\n\n");
	assert_int_equal(ckpt_eval_result(dir, 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	write_text(path, "one line, no newline\x1b[0m");
	assert_int_equal(ckpt_eval_result(dir, 10, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "one line, no newline[0m");
	/* Only the end of a large file is read; long lines are cut. */
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	big[100] = '\n';
	write_text(path, big);
	assert_int_equal(ckpt_eval_result(dir, 10, buf, sizeof(buf)), 0);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
	/* Not through a link. */
	unlink(path);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(ckpt_eval_result(dir, 10, buf, sizeof(buf)), -1);
}

/* A fake sbatch: records its arguments and environment, prints what
 * FAKE_OUT says, exits with FAKE_RC. */
static void fake_sbatch(char *path, size_t len)
{
	char log[600];

	snprintf(path, len, "%s/sbatch", tmp);
	snprintf(log, sizeof(log), "%s/log", tmp);
	write_text(path, "");
	{
		FILE *f = fopen(path, "w");

		assert_non_null(f);
		fprintf(f,
			"#!/bin/sh\n"
			"for a; do printf '[%%s]\\n' \"$a\"; done >'%s'\n"
			"env | grep -c '^_SLURM_SPANK_OPTION_elastic_' >>'%s'\n"
			"env | grep -c '^KEEP_ME=' >>'%s'\n"
			"[ -n \"$FAKE_SLEEP\" ] && sleep \"$FAKE_SLEEP\"\n"
			"printf '%%s' \"$FAKE_OUT\"\n"
			"echo 'sbatch: error: no luck' >&2\n"
			"exit \"${FAKE_RC:-0}\"\n",
			log, log, log);
		assert_int_equal(fclose(f), 0);
	}
	assert_int_equal(chmod(path, 0755), 0);
}

static char *slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void submit(void **state)
{
	char sbatch[600], log[800];
	struct ckpt_eval_req r = {
		.sbatch = sbatch,
		.cmd = "echo acc=1",
		.ckpt_dir = "/ck/9",
		.ckpt_path = "/ck/9/ckpt-3.pt",
		.step = 3,
		.job_id = 9,
	};
	elastic_error_t err = { "" };

	fake_sbatch(sbatch, sizeof(sbatch));
	snprintf(log, sizeof(log), "%s/log", tmp);
	setenv("_SLURM_SPANK_OPTION_elastic_elastic_min", "2", 1);
	setenv("KEEP_ME", "1", 1);
	setenv("FAKE_OUT", "4242\n", 1);
	assert_int_equal(ckpt_eval_submit(&r, 10, &err), 4242);
	assert_string_equal(
	    slurp(log), "[--parsable]\n[--job-name=elastic-eval]\n[--nodes=1]\n"
			"[--nice=10000]\n[--output=/ck/9/eval/ckpt-3.out]\n"
			"[--export=ALL,ELASTIC_EVAL_CHECKPOINT=/ck/9/"
			"ckpt-3.pt,ELASTIC_EVAL_STEP=3,ELASTIC_EVAL_JOB=9]\n"
			"[--wrap=echo acc=1]\n0\n1\n");
	/* Our own environment is untouched. */
	assert_non_null(getenv("_SLURM_SPANK_OPTION_elastic_elastic_min"));

	setenv("FAKE_OUT", "4243;cluster", 1);
	assert_int_equal(ckpt_eval_submit(&r, 10, &err), 4243);
	setenv("FAKE_OUT", "", 1);
	setenv("FAKE_RC", "1", 1);
	assert_int_equal(ckpt_eval_submit(&r, 10, &err), 0);
	snprintf(log, sizeof(log),
		 "eval job: %s failed: sbatch: error: no luck", sbatch);
	assert_string_equal(err.text, log);
	setenv("FAKE_RC", "0", 1);
	setenv("FAKE_OUT", "Submitted batch job 5", 1);
	assert_int_equal(ckpt_eval_submit(&r, 10, &err), 0);
	snprintf(log, sizeof(log),
		 "eval job: %s printed 'Submitted batch job 5', not a job id",
		 sbatch);
	assert_string_equal(err.text, log);
	setenv("FAKE_OUT", "12x", 1);
	assert_int_equal(ckpt_eval_submit(&r, 10, &err), 0);
	setenv("FAKE_OUT", "7", 1);
	setenv("FAKE_SLEEP", "5", 1);
	assert_int_equal(ckpt_eval_submit(&r, 1, &err), 0);
	snprintf(log, sizeof(log), "eval job: %s did not answer within 1 s",
		 sbatch);
	assert_string_equal(err.text, log);
	unsetenv("FAKE_SLEEP");
	r.sbatch = "/nonexistent/sbatch";
	assert_int_equal(ckpt_eval_submit(&r, 10, &err), 0);
	assert_string_equal(err.text, "eval job: /nonexistent/sbatch failed: "
				      "cannot run /nonexistent/sbatch: No such "
				      "file or directory");
	unsetenv("_SLURM_SPANK_OPTION_elastic_elastic_min");
	unsetenv("KEEP_ME");
	unsetenv("FAKE_OUT");
	unsetenv("FAKE_RC");
}

struct tick_env {
	uint32_t next_job;
	unsigned calls;
	uint32_t active_job; /* the one job still active */
	bool fail;
	char last_path[256];
};

static uint32_t tick_submit(const struct ckpt_eval_req *r, void *arg,
			    elastic_error_t *err)
{
	struct tick_env *t = arg;

	t->calls++;
	snprintf(t->last_path, sizeof(t->last_path), "%s", r->ckpt_path);
	assert_string_equal(r->cmd, "eval.sh");
	assert_int_equal(r->job_id, 77);
	if (t->fail) {
		elastic_errorf(err, "no luck");
		return 0;
	}
	return t->next_job++;
}

static bool tick_active(uint32_t job, void *arg)
{
	return job == ((struct tick_env *)arg)->active_job;
}

static void put(const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/ck/%s", tmp, name);
	write_text(path, "x");
}

static bool there(const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/ck/%s", tmp, name);
	return access(path, F_OK) == 0;
}

static void tick(void **state)
{
	char dir[512], prev[600];
	struct tick_env env = { .next_job = 100 };
	struct ckpt_tick t = {
		.ckpt_dir = dir,
		.keep = 2,
		.prev = "",
		.eval_cmd = "eval.sh",
		.job_id = 77,
		.submit = tick_submit,
		.active = tick_active,
		.arg = &env,
	};
	struct ckpt_tick_result res;
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));
	elastic_error_t err = { "" };

	assert_non_null(ix);
	snprintf(dir, sizeof(dir), "%s/ck", tmp);
	/* No dir yet: nothing to do. */
	assert_int_equal(ckpt_tick(&t, &res, &err), 0);
	assert_int_equal(res.checkpoints, 0);
	mkdir(dir, 0755);
	put("ckpt-10.pt");
	assert_int_equal(ckpt_tick(&t, &res, &err), 0);
	assert_int_equal(res.checkpoints, 1);
	assert_true(res.newest_step == 10);
	assert_int_equal(res.submitted, 1);
	assert_int_equal(env.calls, 1);
	snprintf(prev, sizeof(prev), "%s/ckpt-10.pt", dir);
	assert_string_equal(env.last_path, prev);
	/* Nothing new: nothing submitted. */
	assert_int_equal(ckpt_tick(&t, &res, &err), 0);
	assert_int_equal(env.calls, 1);
	assert_int_equal(ckpt_eval_index_load(dir, ix, &err), 0);
	assert_int_equal(ckpt_eval_index_find(ix, 10)->job_id, 100);

	/* Two new ones at once; the eval of 10 is still running. */
	env.active_job = 100;
	put("ckpt-20.pt");
	put("ckpt-30.pt");
	put("ckpt-40.pt");
	assert_int_equal(ckpt_tick(&t, &res, &err), 0);
	assert_int_equal(res.submitted, 3);
	assert_int_equal(res.deleted, 0); /* 10 in use, 20 just submitted */
	assert_true(there("ckpt-10.pt") && there("ckpt-20.pt"));
	/* The evals of 10 and 20 end: down to keep. */
	env.active_job = 0;
	assert_int_equal(ckpt_tick(&t, &res, &err), 0);
	assert_int_equal(res.deleted, 2);
	assert_false(there("ckpt-10.pt") || there("ckpt-20.pt"));
	assert_true(there("ckpt-30.pt") && there("ckpt-40.pt"));

	/* What the ranks resumed from stays; a failed submission is
	 * recorded (0) and not retried. */
	snprintf(prev, sizeof(prev), "%s/ckpt-30.pt", dir);
	t.prev = prev;
	env.fail = true;
	put("ckpt-50.pt");
	put("ckpt-60.pt");
	assert_int_equal(ckpt_tick(&t, &res, &err), -1);
	assert_string_equal(err.text, "no luck");
	assert_int_equal(res.failed, 2);
	assert_int_equal(res.deleted, 1);
	assert_true(there("ckpt-30.pt"));
	assert_false(there("ckpt-40.pt"));
	assert_int_equal(ckpt_eval_index_load(dir, ix, &err), 0);
	assert_int_equal(ckpt_eval_index_find(ix, 60)->job_id, 0);
	env.fail = false;
	assert_int_equal(ckpt_tick(&t, &res, &err), 0);
	assert_int_equal(res.submitted, 0);

	/* Without eval: retention only; a damaged index stops it. */
	t.eval_cmd = NULL;
	t.prev = "";
	put("ckpt-70.pt");
	snprintf(prev, sizeof(prev), "%s/eval/index", dir);
	write_text(prev, "junk\n");
	assert_int_equal(ckpt_tick(&t, &res, &err), -1);
	assert_string_equal(err.text, "eval index:1: expected 'STEP JOBID'");
	assert_true(there("ckpt-30.pt"));
	unlink(prev);
	assert_int_equal(ckpt_tick(&t, &res, &err), 0);
	assert_int_equal(res.submitted, 0);
	assert_int_equal(res.deleted, 2);
	assert_true(there("ckpt-60.pt") && there("ckpt-70.pt"));
	assert_false(there("ckpt-30.pt") || there("ckpt-50.pt"));
	free(ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_cmd),
		cmocka_unit_test(eval_argv),
		cmocka_unit_test(eval_argv_largest),
		cmocka_unit_test(env_drop),
		cmocka_unit_test(partition),
		cmocka_unit_test(paths),
		cmocka_unit_test(index_text),
		cmocka_unit_test(index_full),
		cmocka_unit_test_setup_teardown(index_files, setup, teardown),
		cmocka_unit_test(todo),
		cmocka_unit_test(active),
		cmocka_unit_test_setup_teardown(result, setup, teardown),
		cmocka_unit_test_setup_teardown(submit, setup, teardown),
		cmocka_unit_test_setup_teardown(tick, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
