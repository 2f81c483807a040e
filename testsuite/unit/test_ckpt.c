/* Unit tests of ckpt.c: checkpoint names, listing, retention, deletion
 * and --elastic-resume-from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ckpt.h"
#include "common/options.h"
#include "fixture.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A scratch directory per test, removed afterwards. */
static char tmp[256];

static int setup(void **state)
{
	return scratch_make(tmp, sizeof(tmp), "test_ckpt");
}

static int teardown(void **state)
{
	return scratch_remove(tmp);
}

static void put(const char *rel, size_t size)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	assert_int_equal(fclose(f), 0);
}

static void mkd(const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static bool exists(const char *rel)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return lstat(path, &st) == 0;
}

static const char *at(const char *rel)
{
	static char path[8][1024];
	static int k;

	k = (k + 1) % 8;
	snprintf(path[k], sizeof(path[k]), "%s%s%s", tmp, *rel ? "/" : "", rel);
	return path[k];
}

/* Names */

static void parse_name(void **state)
{
	static const struct {
		const char *name;
		uint64_t step;
	} good[] = {
		{ "ckpt-00000100.pt", 100 },
		{ "ckpt-42.bin", 42 },
		{ "ckpt-7", 7 },
		{ "ckpt-0", 0 },
		{ "ckpt-000000000000000001", 1 },
		{ "ckpt-999999999999999999", 999999999999999999ULL },
		{ "ckpt-5.tar.gz", 5 },
		{ "ckpt-5.model_v-2", 5 },
	};
	static const char *const bad[] = {
		"ckpt-",
		"ckpt",
		"ckpt-x",
		"ckpt--1",
		"ckpt-+1",
		"ckpt- 1",
		"ckpt-1.",
		"ckpt-1x",
		"ckpt-1 .pt",
		"ckpt-1.p t",
		"ckpt-1.pt/",
		".ckpt-1.pt",
		"Ckpt-1",
		"xckpt-1",
		"ckpt-1.pt\n",
		"ckpt-1.p$t",
		"ckpt-0000000000000000001", /* 19 digits */
		"step-1",
		"",
	};
	uint64_t step;

	for (size_t i = 0; i < N(good); i++) {
		step = 12345;
		if (ckpt_parse_name(good[i].name, &step) != 0)
			fail_msg("%s not accepted", good[i].name);
		assert_true(step == good[i].step);
	}
	for (size_t i = 0; i < N(bad); i++) {
		step = 12345;
		if (ckpt_parse_name(bad[i], &step) != -1)
			fail_msg("'%s' accepted", bad[i]);
		assert_true(step == 12345);
	}
	/* A name longer than any entry name. */
	{
		char longname[CKPT_NAME_MAX + 8];

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		memcpy(longname, "ckpt-1.", 7);
		assert_int_equal(ckpt_parse_name(longname, &step), -1);
	}
}

/* Listing */

static void list_dir(void **state)
{
	struct ckpt_list l;
	elastic_error_t err = { "" };
	char buf[512];

	put("ckpt-00000100.pt", 10);
	put("ckpt-42.bin", 3);
	mkd("ckpt-7");
	put("ckpt-7/model.bin", 5);
	mkd("ckpt-7/shards");
	put("ckpt-7/shards/0", 7);
	assert_int_equal(symlink("/etc/passwd", at("ckpt-7/link")), 0);
	put(".ckpt-200.pt.tmp.1", 1); /* an incomplete write */
	put("ckpt-x", 1);
	put("notes.txt", 1);
	mkd("eval");
	assert_int_equal(symlink(at("ckpt-42.bin"), at("ckpt-300.pt")), 0);
	assert_int_equal(mkfifo(at("ckpt-400"), 0600), 0);

	assert_int_equal(ckpt_list(tmp, &l, &err), 0);
	assert_false(l.missing);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.e[0].name, "ckpt-7");
	assert_true(l.e[0].step == 7);
	assert_true(l.e[0].is_dir);
	assert_true(l.e[0].size == 12); /* regular files only, links not */
	assert_string_equal(l.e[1].name, "ckpt-42.bin");
	assert_false(l.e[1].is_dir);
	assert_true(l.e[1].size == 3);
	assert_string_equal(l.e[2].name, "ckpt-00000100.pt");
	assert_true(l.e[2].mtime > 0);

	assert_ptr_equal(ckpt_newest(&l), &l.e[2]);
	assert_ptr_equal(ckpt_find(&l, 42), &l.e[1]);
	assert_null(ckpt_find(&l, 43));
	assert_int_equal(ckpt_entry_path(&l, &l.e[1], buf, sizeof(buf)), 0);
	assert_string_equal(buf, at("ckpt-42.bin"));
	assert_int_equal(ckpt_entry_path(&l, &l.e[1], buf, 5), -1);
	ckpt_steps_text(&l, buf, sizeof(buf));
	assert_string_equal(buf, "7, 42, 100");
	ckpt_list_free(&l);
	ckpt_list_free(&l); /* twice is harmless */

	/* Fast: the same, without directory sizes. */
	assert_int_equal(ckpt_list_fast(tmp, &l, &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.e[0].name, "ckpt-7");
	assert_true(l.e[0].size == 0);
	assert_true(l.e[1].size == 3);
	ckpt_list_free(&l);

	/* A trailing slash gives the same paths, without "//". */
	snprintf(buf, sizeof(buf), "%s/", tmp);
	assert_int_equal(ckpt_list(buf, &l, &err), 0);
	assert_int_equal(ckpt_entry_path(&l, &l.e[0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, at("ckpt-7"));
	ckpt_list_free(&l);
}

static void list_missing_and_errors(void **state)
{
	struct ckpt_list l;
	elastic_error_t err = { "" };

	assert_int_equal(ckpt_list(at("none"), &l, &err), 0);
	assert_true(l.missing);
	assert_int_equal(l.n, 0);
	assert_null(ckpt_newest(&l));
	ckpt_list_free(&l);

	put("file", 1);
	assert_int_equal(ckpt_list(at("file"), &l, &err), -1);
	assert_non_null(strstr(err.text, "Not a directory"));
	ckpt_list_free(&l);

	/* Empty dir. */
	mkd("empty");
	assert_int_equal(ckpt_list(at("empty"), &l, &err), 0);
	assert_false(l.missing);
	assert_int_equal(l.n, 0);
	ckpt_list_free(&l);
}

static void list_same_step(void **state)
{
	struct ckpt_list l;
	elastic_error_t err = { "" };

	put("ckpt-10.pt", 1);
	put("ckpt-0010.bin", 1);
	put("ckpt-5", 1);
	assert_int_equal(ckpt_list(tmp, &l, &err), 0);
	assert_int_equal(l.n, 3);
	/* By step, then name; the first by name stands for the step. */
	assert_string_equal(l.e[1].name, "ckpt-0010.bin");
	assert_string_equal(ckpt_newest(&l)->name, "ckpt-0010.bin");
	assert_string_equal(ckpt_find(&l, 10)->name, "ckpt-0010.bin");
	ckpt_list_free(&l);
}

/* A list without a directory, for the pure functions. */
static struct ckpt_list fake(const char *dir, const uint64_t *steps, size_t n)
{
	struct ckpt_list l = { 0 };

	snprintf(l.dir, sizeof(l.dir), "%s", dir);
	l.e = calloc(n ? n : 1, sizeof(*l.e));
	assert_non_null(l.e);
	l.n = n;
	for (size_t i = 0; i < n; i++) {
		l.e[i].step = steps[i];
		snprintf(l.e[i].name, sizeof(l.e[i].name), "ckpt-%llu.pt",
			 (unsigned long long)steps[i]);
	}
	return l;
}

static void steps_text(void **state)
{
	uint64_t s[20];
	struct ckpt_list l;
	char buf[256], small[8];

	for (size_t i = 0; i < N(s); i++)
		s[i] = (i + 1) * 10;
	l = fake("/d", s, 10);
	ckpt_steps_text(&l, buf, sizeof(buf));
	assert_string_equal(buf, "10, 20, 30, 40, 50, 60, 70, 80, 90, 100");
	ckpt_list_free(&l);
	l = fake("/d", s, 20);
	ckpt_steps_text(&l, buf, sizeof(buf));
	assert_string_equal(buf,
			    "10, 20, 30, ..., 150, 160, 170, 180, 190, 200");
	ckpt_steps_text(&l, small, sizeof(small));
	assert_string_equal(small, "10, 20,");
	ckpt_list_free(&l);
	l = fake("/d", s, 0);
	ckpt_steps_text(&l, buf, sizeof(buf));
	assert_string_equal(buf, "");
	ckpt_list_free(&l);
}

/* Retention */

static size_t retention(const struct ckpt_list *l, unsigned keep,
			const char *const *use, size_t n_use, char *out,
			size_t len)
{
	size_t idx[64], n = ckpt_retention(l, keep, use, n_use, idx);
	size_t j = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		j += snprintf(out + j, len - j, "%s%llu", i ? " " : "",
			      (unsigned long long)l->e[idx[i]].step);
	return n;
}

static void retention_keep(void **state)
{
	const uint64_t s[] = { 10, 20, 30, 40, 50 };
	struct ckpt_list l = fake("/ck/1", s, N(s));
	char got[256];

	assert_int_equal(retention(&l, 2, NULL, 0, got, sizeof(got)), 3);
	assert_string_equal(got, "10 20 30"); /* oldest first */
	assert_int_equal(retention(&l, 5, NULL, 0, got, sizeof(got)), 0);
	assert_int_equal(retention(&l, 1000, NULL, 0, got, sizeof(got)), 0);
	assert_int_equal(retention(&l, 1, NULL, 0, got, sizeof(got)), 4);
	assert_string_equal(got, "10 20 30 40");
	/* Never the newest, even with keep 0. */
	assert_int_equal(retention(&l, 0, NULL, 0, got, sizeof(got)), 4);
	ckpt_list_free(&l);

	l = fake("/ck/1", s, 0);
	assert_int_equal(retention(&l, 1, NULL, 0, got, sizeof(got)), 0);
	ckpt_list_free(&l);
	l = fake("/ck/1", s, 1);
	assert_int_equal(retention(&l, 1, NULL, 0, got, sizeof(got)), 0);
	ckpt_list_free(&l);
}

static void retention_in_use(void **state)
{
	const uint64_t s[] = { 10, 20, 30, 40, 50 };
	struct ckpt_list l = fake("/ck/1", s, N(s));
	const char *use[] = {
		"/ck/1/ckpt-20.pt",	 /* as ckpt_entry_path gives */
		"//ck//1/./ckpt-10.pt/", /* other spellings */
		NULL,			 /* holes are fine */
		"",			 /* and empty strings */
		"/ck/1/ckpt-3.pt",	 /* not a prefix match of 30 */
		"/ck/10/ckpt-30.pt",	 /* another dir */
		"/ck/1/ckpt-30.ptx",	 /* another name */
	};
	char got[256];

	assert_int_equal(retention(&l, 2, use, N(use), got, sizeof(got)), 1);
	assert_string_equal(got, "30");
	{
		const char *inside[] = { "/ck/1/ckpt-30.pt/model/0.bin",
					 "ckpt-10.pt" };

		assert_int_equal(retention(&l, 2, inside, 2, got, sizeof(got)),
				 1);
		assert_string_equal(got, "20");
	}
	/* In use and old: kept; the count still keeps the newest. */
	{
		const char *all[] = { "/ck/1/ckpt-10.pt", "/ck/1/ckpt-20.pt",
				      "/ck/1/ckpt-30.pt", "/ck/1/ckpt-40.pt" };

		assert_int_equal(retention(&l, 1, all, 4, got, sizeof(got)), 0);
	}
	ckpt_list_free(&l);
}

static void retention_same_step(void **state)
{
	const uint64_t s[] = { 10, 10, 20, 30, 30 };
	struct ckpt_list l = fake("/ck", s, N(s));
	char got[256];

	/* keep counts steps: both entries of step 10 go, both of 30 stay. */
	assert_int_equal(retention(&l, 2, NULL, 0, got, sizeof(got)), 2);
	assert_string_equal(got, "10 10");
	assert_int_equal(retention(&l, 1, NULL, 0, got, sizeof(got)), 3);
	assert_string_equal(got, "10 10 20");
	ckpt_list_free(&l);
}

/* Deletion */

static void delete_entries(void **state)
{
	elastic_error_t err = { "" };
	char want[512];

	put("ckpt-1.pt", 3);
	mkd("ckpt-2");
	mkd("ckpt-2/a");
	mkd("ckpt-2/a/b");
	put("ckpt-2/a/b/c", 1);
	put("ckpt-2/x", 1);
	/* Links inside a directory checkpoint are removed, not followed. */
	mkd("outside");
	put("outside/keep", 1);
	assert_int_equal(symlink(at("outside"), at("ckpt-2/a/dirlink")), 0);
	assert_int_equal(symlink(at("outside/keep"), at("ckpt-2/filelink")), 0);
	/* A link named like a checkpoint is left alone. */
	assert_int_equal(symlink(at("outside"), at("ckpt-3")), 0);
	put("other.txt", 1);

	assert_int_equal(ckpt_delete(tmp, "ckpt-1.pt", &err), 0);
	assert_false(exists("ckpt-1.pt"));
	assert_int_equal(ckpt_delete(tmp, "ckpt-2", &err), 0);
	assert_false(exists("ckpt-2"));
	assert_false(exists(".deleting-ckpt-2"));
	assert_true(exists("outside/keep"));
	assert_int_equal(ckpt_delete(tmp, "ckpt-3", &err), -1);
	snprintf(want, sizeof(want), "%s: not a file or directory, left alone",
		 at("ckpt-3"));
	assert_string_equal(err.text, want);
	assert_true(exists("ckpt-3"));
	assert_true(exists("outside/keep"));

	/* Only checkpoint names, only directly in the dir. */
	assert_int_equal(ckpt_delete(tmp, "other.txt", &err), -1);
	assert_string_equal(err.text, "other.txt: not a checkpoint name");
	assert_int_equal(ckpt_delete(tmp, "../ckpt-1", &err), -1);
	assert_int_equal(ckpt_delete(tmp, "outside/ckpt-1", &err), -1);
	assert_int_equal(ckpt_delete(tmp, ".ckpt-1", &err), -1);
	assert_true(exists("other.txt"));

	/* Already gone is done. */
	assert_int_equal(ckpt_delete(tmp, "ckpt-1.pt", &err), 0);
	assert_int_equal(ckpt_delete(at("none"), "ckpt-1.pt", &err), -1);
}

static void retain(void **state)
{
	struct ckpt_list l;
	elastic_error_t err = { "" };
	unsigned deleted = 99;
	const char *use[2];

	put("ckpt-10.pt", 1);
	put("ckpt-20.pt", 1);
	mkd("ckpt-30");
	put("ckpt-30/m", 1);
	put("ckpt-40.pt", 1);
	put("ckpt-50.pt", 1);
	assert_int_equal(ckpt_list(tmp, &l, &err), 0);
	use[0] = at("ckpt-20.pt"); /* the ranks resumed from it */
	use[1] = at("ckpt-30/");   /* an eval job reads it */
	assert_int_equal(ckpt_retain(&l, 1, use, 2, &deleted, &err), 0);
	assert_int_equal(deleted, 2);
	ckpt_list_free(&l);
	assert_false(exists("ckpt-10.pt"));
	assert_true(exists("ckpt-20.pt"));
	assert_true(exists("ckpt-30/m"));
	assert_false(exists("ckpt-40.pt"));
	assert_true(exists("ckpt-50.pt"));

	/* Nothing in use any more: down to keep. */
	assert_int_equal(ckpt_list(tmp, &l, &err), 0);
	assert_int_equal(ckpt_retain(&l, 1, NULL, 0, &deleted, &err), 0);
	assert_int_equal(deleted, 2);
	ckpt_list_free(&l);
	assert_int_equal(ckpt_list(tmp, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.e[0].name, "ckpt-50.pt");
	assert_int_equal(ckpt_retain(&l, 1, NULL, 0, NULL, &err), 0);
	ckpt_list_free(&l);
	assert_true(exists("ckpt-50.pt"));
}

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
	snprintf(dir, len, "%s/jobs/%u", tmp, job);
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

	mkd("jobs");
	mkd("jobs/123");
	put("jobs/123/ckpt-00000010.pt", 1);
	put("jobs/123/ckpt-00000020.pt", 1);
	put("jobs/123/ckpt-00000040.pt", 1);
	put("jobs/123/.ckpt-00000050.pt.tmp", 1);
	mkd("jobs/124");
	mkd("jobs/125");
	mkd("jobs/125/ckpt-7");

	resolve_ok("123", at("jobs/123/ckpt-00000040.pt"), 40);
	resolve_ok("123@20", at("jobs/123/ckpt-00000020.pt"), 20);
	resolve_ok("123@0020", at("jobs/123/ckpt-00000020.pt"), 20);
	resolve_fails("123@50", "--elastic-resume-from=123@50: job 123 has no "
				"checkpoint at step 50 (has 10, 20, 40)");
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=124: job 124 has no checkpoint in %s",
		 at("jobs/124"));
	resolve_fails("124", want);
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=126@1: job 126 has no checkpoint (%s "
		 "does not exist)",
		 at("jobs/126"));
	resolve_fails("126@1", want);
	resolve_fails("666", "--elastic-resume-from=666: job 666: lookup "
			     "failed");
	resolve_ok("125", at("jobs/125/ckpt-7"), 7);

	/* A directory of checkpoints. */
	snprintf(text, sizeof(text), "%s", at("jobs/123"));
	resolve_ok(text, at("jobs/123/ckpt-00000040.pt"), 40);
	snprintf(text, sizeof(text), "%s/", at("jobs/123"));
	resolve_ok(text, at("jobs/123/ckpt-00000040.pt"), 40);
	snprintf(text, sizeof(text), "%s@10", at("jobs/123"));
	resolve_ok(text, at("jobs/123/ckpt-00000010.pt"), 10);
	snprintf(text, sizeof(text), "%s@11", at("jobs/123"));
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=%s: %s has no checkpoint at step 11 "
		 "(has 10, 20, 40)",
		 text, at("jobs/123"));
	resolve_fails(text, want);
	/* A checkpoint itself: file or directory. */
	snprintf(text, sizeof(text), "%s", at("jobs/123/ckpt-00000020.pt"));
	resolve_ok(text, text, 20);
	snprintf(text, sizeof(text), "%s@20", at("jobs/123/ckpt-00000020.pt"));
	resolve_ok(text, at("jobs/123/ckpt-00000020.pt"), 20);
	snprintf(text, sizeof(text), "%s@40", at("jobs/123/ckpt-00000020.pt"));
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=%s: %s is the checkpoint of step 20, "
		 "not 40",
		 text, at("jobs/123/ckpt-00000020.pt"));
	resolve_fails(text, want);
	snprintf(text, sizeof(text), "%s/", at("jobs/125/ckpt-7"));
	resolve_ok(text, at("jobs/125/ckpt-7"), 7);
	/* A file not named like one. */
	put("model.pt", 1);
	snprintf(text, sizeof(text), "%s", at("model.pt"));
	snprintf(want, sizeof(want),
		 "--elastic-resume-from=%s: %s is not named like a checkpoint "
		 "(ckpt-STEP[.ext])",
		 text, text);
	resolve_fails(text, want);
	snprintf(text, sizeof(text), "%s", at("nothing"));
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

	mkd("jobs");
	mkd("jobs/123");
	put("jobs/123/ckpt-10.pt", 1);
	put("jobs/123/ckpt-20.pt", 1);

	/* Nothing anywhere: a fresh start. */
	assert_int_equal(ckpt_prev_checkpoint(at("jobs/200"), NULL,
					      test_job_dir, &calls, path,
					      sizeof(path), &step, &err),
			 0);
	assert_string_equal(path, "");
	assert_true(step == 0);
	/* The own dir is empty: resume-from. */
	assert_int_equal(ckpt_prev_checkpoint(at("jobs/200"), "123@10",
					      test_job_dir, &calls, path,
					      sizeof(path), &step, &err),
			 0);
	assert_string_equal(path, at("jobs/123/ckpt-10.pt"));
	assert_true(step == 10);
	assert_int_equal(calls, 1);
	/* The own dir has one: it wins (a requeued or relaunched job). */
	mkd("jobs/200");
	put("jobs/200/ckpt-5.pt", 1);
	assert_int_equal(ckpt_prev_checkpoint(at("jobs/200"), "123@10",
					      test_job_dir, &calls, path,
					      sizeof(path), &step, &err),
			 0);
	assert_string_equal(path, at("jobs/200/ckpt-5.pt"));
	assert_true(step == 5);
	assert_int_equal(calls, 1);
	/* A resume-from that names nothing fails. */
	assert_int_equal(ckpt_prev_checkpoint(at("jobs/201"), "123@11",
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
	assert_string_equal(path, at("jobs/123/ckpt-20.pt"));
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
	assert_int_equal(chmod(tmp, 0755), 0);
	mkd("job");
	put("job/ckpt-10.pt", 1);
	put("job/ckpt-20.pt", 1);
	put("job/ckpt-99999999.pt", 1);
	if (geteuid() == 0) {
		assert_int_equal(chown(at("job"), u, g), 0);
		assert_int_equal(chown(at("job/ckpt-10.pt"), u, g), 0);
		assert_int_equal(chown(at("job/ckpt-20.pt"), u, g), 0);
		/* The attacker's, with a later step. */
		assert_int_equal(
		    chown(at("job/ckpt-99999999.pt"), 54321, 54321), 0);
		mkd("theirs");
		put("theirs/ckpt-1.pt", 1);
		assert_int_equal(chown(at("theirs"), 54321, 54321), 0);
	} else {
		/* Our own, but anyone may write it. */
		assert_int_equal(chmod(at("job/ckpt-99999999.pt"), 0666), 0);
	}
	assert_int_equal(chmod(at("job/ckpt-20.pt"), 0666), 0);
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
		if (ckpt_list(at("job"), &l, &err) < 0)
			_exit(101);
		fprintf(f, "n=%zu foreign=%zu first=%s;", l.n, l.foreign,
			l.n ? l.e[0].name : "-");
		ckpt_list_free(&l);
		if (ckpt_prev_checkpoint(at("job"), NULL, NULL, NULL, path,
					 sizeof(path), NULL, &err) < 0)
			_exit(102);
		fprintf(f, "prev=%s;", strrchr(path, '/') + 1);
		if (geteuid() != 0 && u != 65534) {
			fclose(f);
			_exit(0);
		}
		status = ckpt_list(at("theirs"), &l, &err) < 0 ? errno : 0;
		fprintf(f, "theirs=%d:%s;", status,
			strstr(err.text, "owned by uid 54321") ? "said" : "-");
		ckpt_list_free(&l);
		fprintf(f, "delete=%d",
			ckpt_delete(at("theirs"), "ckpt-1.pt", &err));
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
		assert_true(exists("theirs/ckpt-1.pt"));
	} else {
		assert_string_equal(out, "n=1 foreign=2 first=ckpt-10.pt;"
					 "prev=ckpt-10.pt;");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_name),
		cmocka_unit_test_setup_teardown(foreign_entries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(list_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(list_missing_and_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(list_same_step, setup,
						teardown),
		cmocka_unit_test(steps_text),
		cmocka_unit_test(retention_keep),
		cmocka_unit_test(retention_in_use),
		cmocka_unit_test(retention_same_step),
		cmocka_unit_test_setup_teardown(delete_entries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(retain, setup, teardown),
		cmocka_unit_test(spec_good),
		cmocka_unit_test(spec_bad),
		cmocka_unit_test(job_dir),
		cmocka_unit_test_setup_teardown(resolve, setup, teardown),
		cmocka_unit_test_setup_teardown(prev_checkpoint, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
