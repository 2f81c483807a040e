/* Unit tests of ckpt.c's --elastic-resume-from: the value, a job's
 * checkpoint dir, the checkpoint it names, the one a job resumes from, and
 * another user's entries in a job's dir, never trusted (names, listing,
 * retention and deletion: test_ckpt.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ckpt.h"
#include "common/options.h"
#include "ckpt_scratch.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* --elastic-resume-from */

static void spec_good(void **state)
{
	struct ckpt_spec s;
	elastic_error_t err = { "" };

	assert_int_equal(ckpt_spec_parse("123", &s, &err), 0);
	assert_int_equal(s.kind, CKPT_SPEC_JOB);
	assert_int_equal(s.job_id, 123);
	assert_false(s.has_step);

	assert_int_equal(ckpt_spec_parse("123@50", &s, &err), 0);
	assert_int_equal(s.kind, CKPT_SPEC_JOB);
	assert_int_equal(s.job_id, 123);
	assert_true(s.has_step);
	assert_true(s.step == 50);

	assert_int_equal(ckpt_spec_parse("4294967294@0", &s, &err), 0);
	assert_int_equal(s.job_id, 4294967294u);
	assert_true(s.has_step && s.step == 0);

	assert_int_equal(ckpt_spec_parse("/ck/1/ckpt-40.pt", &s, &err), 0);
	assert_int_equal(s.kind, CKPT_SPEC_PATH);
	assert_string_equal(s.path, "/ck/1/ckpt-40.pt");
	assert_false(s.has_step);

	/* The step follows the last '@'; a path may hold others. */
	assert_int_equal(ckpt_spec_parse("/a@b/ck@7/run@000300", &s, &err), 0);
	assert_string_equal(s.path, "/a@b/ck@7/run");
	assert_true(s.has_step && s.step == 300);
	assert_int_equal(ckpt_spec_parse("/", &s, &err), 0);
	assert_string_equal(s.path, "/");
}

static void spec_bad(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "", "empty value" },
		{ "abc", "not a job id nor an absolute path" },
		{ "rel/path", "not a job id nor an absolute path" },
		{ "~/ck", "not a job id nor an absolute path" },
		{ "0", "not a job id nor an absolute path" },
		{ "-1", "not a job id nor an absolute path" },
		{ "4294967295", "not a job id nor an absolute path" },
		{ "99999999999999999999", "not a job id nor an absolute path" },
		{ "12 ", "not a job id nor an absolute path" },
		{ "123@", "a step after '@' is a whole number" },
		{ "123@x", "a step after '@' is a whole number" },
		{ "123@-1", "a step after '@' is a whole number" },
		{ "123@1@2", "not a job id nor an absolute path" },
		{ "/ck@", "a step after '@' is a whole number" },
		{ "/a@b", "a step after '@' is a whole number" },
		{ "@5", "nothing before '@'" },
		{ "1@0000000000000000001", "step out of range" },
		{ "%h/ck", "not a job id nor an absolute path" },
	};
	struct ckpt_spec s = { .job_id = 77 };
	elastic_error_t err = { "" };
	char want[512], longtext[CKPT_SPEC_MAX + 8];

	for (size_t i = 0; i < N(cases); i++) {
		snprintf(
		    want, sizeof(want),
		    "--elastic-resume-from=%s: %s (allowed: " CKPT_SPEC_WORDS
		    ")",
		    cases[i].text, cases[i].why);
		if (ckpt_spec_parse(cases[i].text, &s, &err) != -1)
			fail_msg("'%s' accepted", cases[i].text);
		assert_string_equal(err.text, want);
		assert_int_equal(s.job_id, 77);
	}
	assert_int_equal(ckpt_spec_parse("/a\nb", &s, &err), -1);
	assert_string_equal(err.text, "--elastic-resume-from: control "
				      "character in value");
	memset(longtext, 'a', sizeof(longtext) - 1);
	longtext[0] = '/';
	longtext[sizeof(longtext) - 1] = '\0';
	assert_int_equal(ckpt_spec_parse(longtext, &s, &err), -1);
	assert_string_equal(err.text, "--elastic-resume-from: longer than "
				      "1024 characters");
}

static void job_dir(void **state)
{
	elastic_error_t err = { "" };
	char dir[256], tag[1024];
	struct elastic_opts o = { 0 };
	struct elastic_policy p;

	policy_defaults(&p);
	assert_int_equal(options_set(&o, ELASTIC_OPT_CHECKPOINT_DIR,
				     "/scratch/%u/x y/%j", &err),
			 0);
	assert_int_equal(options_finalize(&o, &p, NULL, NULL, &err), 0);
	options_format_tag(&o, tag, sizeof(tag));

	/* The earlier job's own pattern, from its tag. */
	assert_int_equal(ckpt_job_dir(123, tag, "%h/elastic-checkpoints/%j",
				      "alice", "/home/alice", dir, sizeof(dir),
				      &err),
			 0);
	assert_string_equal(dir, "/scratch/alice/x y/123");
	/* Gone: this job's pattern with its id. */
	assert_int_equal(ckpt_job_dir(123, NULL, "%h/elastic-checkpoints/%j",
				      "alice", "/home/alice", dir, sizeof(dir),
				      &err),
			 0);
	assert_string_equal(dir, "/home/alice/elastic-checkpoints/123");
	/* A tag that is not ours: the fallback. */
	assert_int_equal(ckpt_job_dir(9, "hello", "/c/%j", NULL, NULL, dir,
				      sizeof(dir), &err),
			 0);
	assert_string_equal(dir, "/c/9");
	assert_int_equal(
	    ckpt_job_dir(9, NULL, NULL, NULL, NULL, dir, sizeof(dir), &err),
	    -1);
	assert_string_equal(err.text, "job 9: no checkpoint dir known");
	assert_int_equal(
	    ckpt_job_dir(9, NULL, "/c/%j", NULL, NULL, dir, 4, &err), -1);
	assert_string_equal(err.text,
			    "job 9: checkpoint dir /c/%j does not expand");
}

/* The resolver of the tests: job N's dir is tmp/jobs/N, job 666 fails. */
static int test_job_dir(uint32_t job, void *arg, char *dir, size_t len,
			elastic_error_t *err)
{
	int *calls = arg;

	(*calls)++;
	if (job == 666)
		return elastic_errorf(err, "job 666: lookup failed");
	snprintf(dir, len, "%s/jobs/%u", scratch_dir, job);
	return 0;
}

static void resolve_ok(const char *text, const char *want, uint64_t step)
{
	elastic_error_t err = { "" };
	char path[CKPT_PATH_MAX];
	uint64_t got = 9999;
	int calls = 0;

	if (ckpt_resolve(text, test_job_dir, &calls, path, sizeof(path), &got,
			 &err) != 0)
		fail_msg("ckpt_resolve(%s): %s", text, err.text);
	assert_string_equal(path, want);
	assert_true(got == step);
}

static void resolve_fails(const char *text, const char *want)
{
	elastic_error_t err = { "" };
	char path[CKPT_PATH_MAX];
	int calls = 0;

	assert_int_equal(ckpt_resolve(text, test_job_dir, &calls, path,
				      sizeof(path), NULL, &err),
			 -1);
	assert_string_equal(err.text, want);
}

static void resolve(void **state)
{
	char text[512], want[1200];

	scratch_mkd("jobs");
	scratch_mkd("jobs/123");
	scratch_put("jobs/123/ckpt-00000010.pt", 1);
	scratch_put("jobs/123/ckpt-00000020.pt", 1);
	scratch_put("jobs/123/ckpt-00000040.pt", 1);
	scratch_put("jobs/123/.ckpt-00000050.pt.tmp", 1);
	scratch_mkd("jobs/124");
	scratch_mkd("jobs/125");
	scratch_mkd("jobs/125/ckpt-7");

	resolve_ok("123", scratch_at("jobs/123/ckpt-00000040.pt"), 40);
	resolve_ok("123@20", scratch_at("jobs/123/ckpt-00000020.pt"), 20);
	resolve_ok("123@0020", scratch_at("jobs/123/ckpt-00000020.pt"), 20);
	resolve_fails("123@50", "--elastic-resume-from=123@50: job 123 has no "
				"checkpoint at step 50 (has 10, 20, 40)");
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=124: job 124 has no checkpoint in %s",
		 scratch_at("jobs/124"));
	resolve_fails("124", want);
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=126@1: job 126 has no checkpoint (%s "
		 "does not exist)",
		 scratch_at("jobs/126"));
	resolve_fails("126@1", want);
	resolve_fails("666", "--elastic-resume-from=666: job 666: lookup "
			     "failed");
	resolve_ok("125", scratch_at("jobs/125/ckpt-7"), 7);

	/* A directory of checkpoints. */
	snprintf(text, sizeof(text), "%s", scratch_at("jobs/123"));
	resolve_ok(text, scratch_at("jobs/123/ckpt-00000040.pt"), 40);
	snprintf(text, sizeof(text), "%s/", scratch_at("jobs/123"));
	resolve_ok(text, scratch_at("jobs/123/ckpt-00000040.pt"), 40);
	snprintf(text, sizeof(text), "%s@10", scratch_at("jobs/123"));
	resolve_ok(text, scratch_at("jobs/123/ckpt-00000010.pt"), 10);
	snprintf(text, sizeof(text), "%s@11", scratch_at("jobs/123"));
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=%s: %s has no checkpoint at step 11 "
		 "(has 10, 20, 40)",
		 text, scratch_at("jobs/123"));
	resolve_fails(text, want);
	/* A checkpoint itself: file or directory. */
	snprintf(text, sizeof(text), "%s",
		 scratch_at("jobs/123/ckpt-00000020.pt"));
	resolve_ok(text, text, 20);
	snprintf(text, sizeof(text), "%s@20",
		 scratch_at("jobs/123/ckpt-00000020.pt"));
	resolve_ok(text, scratch_at("jobs/123/ckpt-00000020.pt"), 20);
	snprintf(text, sizeof(text), "%s@40",
		 scratch_at("jobs/123/ckpt-00000020.pt"));
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=%s: %s is the checkpoint of step 20, "
		 "not 40",
		 text, scratch_at("jobs/123/ckpt-00000020.pt"));
	resolve_fails(text, want);
	snprintf(text, sizeof(text), "%s/", scratch_at("jobs/125/ckpt-7"));
	resolve_ok(text, scratch_at("jobs/125/ckpt-7"), 7);
	/* A file not named like one. */
	scratch_put("model.pt", 1);
	snprintf(text, sizeof(text), "%s", scratch_at("model.pt"));
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=%s: %s is not named like a checkpoint "
		 "(ckpt-STEP[.ext])",
		 text, text);
	resolve_fails(text, want);
	snprintf(text, sizeof(text), "%s", scratch_at("nothing"));
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=%s: %s: No such file or directory",
		 text, text);
	resolve_fails(text, want);
	resolve_fails("x", "--elastic-resume-from=x: not a job id nor an "
			   "absolute path (allowed: " CKPT_SPEC_WORDS ")");
}

static void prev_checkpoint(void **state)
{
	elastic_error_t err = { "" };
	char path[CKPT_PATH_MAX];
	uint64_t step = 1;
	int calls = 0;

	scratch_mkd("jobs");
	scratch_mkd("jobs/123");
	scratch_put("jobs/123/ckpt-10.pt", 1);
	scratch_put("jobs/123/ckpt-20.pt", 1);

	/* Nothing anywhere: a fresh start. */
	assert_int_equal(ckpt_prev_checkpoint(scratch_at("jobs/200"), NULL,
					      test_job_dir, &calls, path,
					      sizeof(path), &step, &err),
			 0);
	assert_string_equal(path, "");
	assert_true(step == 0);
	/* The own dir is empty: resume-from. */
	assert_int_equal(ckpt_prev_checkpoint(scratch_at("jobs/200"), "123@10",
					      test_job_dir, &calls, path,
					      sizeof(path), &step, &err),
			 0);
	assert_string_equal(path, scratch_at("jobs/123/ckpt-10.pt"));
	assert_true(step == 10);
	assert_int_equal(calls, 1);
	/* The own dir has one: it wins (a requeued or relaunched job). */
	scratch_mkd("jobs/200");
	scratch_put("jobs/200/ckpt-5.pt", 1);
	assert_int_equal(ckpt_prev_checkpoint(scratch_at("jobs/200"), "123@10",
					      test_job_dir, &calls, path,
					      sizeof(path), &step, &err),
			 0);
	assert_string_equal(path, scratch_at("jobs/200/ckpt-5.pt"));
	assert_true(step == 5);
	assert_int_equal(calls, 1);
	/* A resume-from that names nothing fails. */
	assert_int_equal(ckpt_prev_checkpoint(scratch_at("jobs/201"), "123@11",
					      test_job_dir, &calls, path,
					      sizeof(path), &step, &err),
			 -1);
	assert_string_equal(err.text,
			    "--elastic-resume-from=123@11: job 123 has no "
			    "checkpoint at step 11 (has 10, 20)");
	assert_string_equal(path, "");
	/* No own dir at all. */
	assert_int_equal(ckpt_prev_checkpoint(NULL, "123", test_job_dir, &calls,
					      path, sizeof(path), NULL, &err),
			 0);
	assert_string_equal(path, scratch_at("jobs/123/ckpt-20.pt"));
}

/*
 * The launcher lists its job's dir as the job's user: another user's
 * file named like a newer checkpoint is never the one resumed from, an
 * entry others may write neither, and a dir another user made where the
 * job's is looked for is refused, as is retention's deletion through it.
 * (As root, the files are given to nobody and another uid.)
 */
static void foreign_entries(void **state)
{
	uid_t u = geteuid() == 0 ? 65534 : geteuid();
	gid_t g = geteuid() == 0 ? 65534 : getegid();
	int pipefd[2], status;
	char out[1024] = "";
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(chmod(scratch_dir, 0755), 0);
	scratch_mkd("job");
	scratch_put("job/ckpt-10.pt", 1);
	scratch_put("job/ckpt-20.pt", 1);
	scratch_put("job/ckpt-99999999.pt", 1);
	if (geteuid() == 0) {
		assert_int_equal(chown(scratch_at("job"), u, g), 0);
		assert_int_equal(chown(scratch_at("job/ckpt-10.pt"), u, g), 0);
		assert_int_equal(chown(scratch_at("job/ckpt-20.pt"), u, g), 0);
		/* The attacker's, with a later step. */
		assert_int_equal(
		    chown(scratch_at("job/ckpt-99999999.pt"), 54321, 54321), 0);
		scratch_mkd("theirs");
		scratch_put("theirs/ckpt-1.pt", 1);
		assert_int_equal(chown(scratch_at("theirs"), 54321, 54321), 0);
	} else {
		/* Our own, but anyone may write it. */
		assert_int_equal(
		    chmod(scratch_at("job/ckpt-99999999.pt"), 0666), 0);
	}
	assert_int_equal(chmod(scratch_at("job/ckpt-20.pt"), 0666), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	if (pid == 0) {
		elastic_error_t err;
		struct ckpt_list l;
		char path[CKPT_PATH_MAX];
		FILE *f = fdopen(pipefd[1], "w");

		if (geteuid() == 0 &&
		    (setgroups(0, NULL) || setgid(g) || setuid(u)))
			_exit(100);
		if (ckpt_list(scratch_at("job"), &l, &err) < 0)
			_exit(101);
		fprintf(f, "n=%zu foreign=%zu first=%s;", l.n, l.foreign,
			l.n ? l.e[0].name : "-");
		ckpt_list_free(&l);
		if (ckpt_prev_checkpoint(scratch_at("job"), NULL, NULL, NULL,
					 path, sizeof(path), NULL, &err) < 0)
			_exit(102);
		fprintf(f, "prev=%s;", strrchr(path, '/') + 1);
		if (geteuid() != 0 && u != 65534) {
			fclose(f);
			_exit(0);
		}
		status =
		    ckpt_list(scratch_at("theirs"), &l, &err) < 0 ? errno : 0;
		fprintf(f, "theirs=%d:%s;", status,
			strstr(err.text, "owned by uid 54321") ? "said" : "-");
		ckpt_list_free(&l);
		fprintf(f, "delete=%d",
			ckpt_delete(scratch_at("theirs"), "ckpt-1.pt", &err));
		fclose(f);
		_exit(0);
	}
	close(pipefd[1]);
	n = read(pipefd[0], out, sizeof(out) - 1);
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	out[n > 0 ? n : 0] = '\0';
	if (geteuid() == 0) {
		assert_string_equal(out, "n=1 foreign=2 first=ckpt-10.pt;"
					 "prev=ckpt-10.pt;theirs=1:said;"
					 "delete=-1");
		assert_true(scratch_exists("theirs/ckpt-1.pt"));
	} else {
		assert_string_equal(out, "n=1 foreign=2 first=ckpt-10.pt;"
					 "prev=ckpt-10.pt;");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(spec_good),
		cmocka_unit_test(spec_bad),
		cmocka_unit_test(job_dir),
		cmocka_unit_test_setup_teardown(resolve, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(prev_checkpoint, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(foreign_entries, scratch_setup,
						scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
