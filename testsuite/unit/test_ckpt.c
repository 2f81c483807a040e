/* Unit tests of ckpt.c: checkpoint names, listing, retention and deletion
 * (--elastic-resume-from: test_ckpt_resume.c). */
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

#include "common/ckpt.h"
#include "ckpt_scratch.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

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

	scratch_put("ckpt-00000100.pt", 10);
	scratch_put("ckpt-42.bin", 3);
	scratch_mkd("ckpt-7");
	scratch_put("ckpt-7/model.bin", 5);
	scratch_mkd("ckpt-7/shards");
	scratch_put("ckpt-7/shards/0", 7);
	assert_int_equal(symlink("/etc/passwd", scratch_at("ckpt-7/link")), 0);
	scratch_put(".ckpt-200.pt.tmp.1", 1); /* an incomplete write */
	scratch_put("ckpt-x", 1);
	scratch_put("notes.txt", 1);
	scratch_mkd("eval");
	assert_int_equal(
	    symlink(scratch_at("ckpt-42.bin"), scratch_at("ckpt-300.pt")), 0);
	assert_int_equal(mkfifo(scratch_at("ckpt-400"), 0600), 0);

	assert_int_equal(ckpt_list(scratch_dir, &l, &err), 0);
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
	assert_string_equal(buf, scratch_at("ckpt-42.bin"));
	assert_int_equal(ckpt_entry_path(&l, &l.e[1], buf, 5), -1);
	ckpt_steps_text(&l, buf, sizeof(buf));
	assert_string_equal(buf, "7, 42, 100");
	ckpt_list_free(&l);
	ckpt_list_free(&l); /* twice is harmless */

	/* Fast: the same, without directory sizes. */
	assert_int_equal(ckpt_list_fast(scratch_dir, &l, &err), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.e[0].name, "ckpt-7");
	assert_true(l.e[0].size == 0);
	assert_true(l.e[1].size == 3);
	ckpt_list_free(&l);

	/* A trailing slash gives the same paths, without "//". */
	snprintf(buf, sizeof(buf), "%s/", scratch_dir);
	assert_int_equal(ckpt_list(buf, &l, &err), 0);
	assert_int_equal(ckpt_entry_path(&l, &l.e[0], buf, sizeof(buf)), 0);
	assert_string_equal(buf, scratch_at("ckpt-7"));
	ckpt_list_free(&l);
}

static void list_missing_and_errors(void **state)
{
	struct ckpt_list l;
	elastic_error_t err = { "" };

	assert_int_equal(ckpt_list(scratch_at("none"), &l, &err), 0);
	assert_true(l.missing);
	assert_int_equal(l.n, 0);
	assert_null(ckpt_newest(&l));
	ckpt_list_free(&l);

	scratch_put("file", 1);
	assert_int_equal(ckpt_list(scratch_at("file"), &l, &err), -1);
	assert_non_null(strstr(err.text, "Not a directory"));
	ckpt_list_free(&l);

	/* Empty dir. */
	scratch_mkd("empty");
	assert_int_equal(ckpt_list(scratch_at("empty"), &l, &err), 0);
	assert_false(l.missing);
	assert_int_equal(l.n, 0);
	ckpt_list_free(&l);
}

static void list_same_step(void **state)
{
	struct ckpt_list l;
	elastic_error_t err = { "" };

	scratch_put("ckpt-10.pt", 1);
	scratch_put("ckpt-0010.bin", 1);
	scratch_put("ckpt-5", 1);
	assert_int_equal(ckpt_list(scratch_dir, &l, &err), 0);
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

	scratch_put("ckpt-1.pt", 3);
	scratch_mkd("ckpt-2");
	scratch_mkd("ckpt-2/a");
	scratch_mkd("ckpt-2/a/b");
	scratch_put("ckpt-2/a/b/c", 1);
	scratch_put("ckpt-2/x", 1);
	/* Links inside a directory checkpoint are removed, not followed. */
	scratch_mkd("outside");
	scratch_put("outside/keep", 1);
	assert_int_equal(
	    symlink(scratch_at("outside"), scratch_at("ckpt-2/a/dirlink")), 0);
	assert_int_equal(
	    symlink(scratch_at("outside/keep"), scratch_at("ckpt-2/filelink")),
	    0);
	/* A link named like a checkpoint is left alone. */
	assert_int_equal(symlink(scratch_at("outside"), scratch_at("ckpt-3")),
			 0);
	scratch_put("other.txt", 1);

	assert_int_equal(ckpt_delete(scratch_dir, "ckpt-1.pt", &err), 0);
	assert_false(scratch_exists("ckpt-1.pt"));
	assert_int_equal(ckpt_delete(scratch_dir, "ckpt-2", &err), 0);
	assert_false(scratch_exists("ckpt-2"));
	assert_false(scratch_exists(".deleting-ckpt-2"));
	assert_true(scratch_exists("outside/keep"));
	assert_int_equal(ckpt_delete(scratch_dir, "ckpt-3", &err), -1);
	snprintf(want, sizeof(want), "%s: not a file or directory, left alone",
		 scratch_at("ckpt-3"));
	assert_string_equal(err.text, want);
	assert_true(scratch_exists("ckpt-3"));
	assert_true(scratch_exists("outside/keep"));

	/* Only checkpoint names, only directly in the dir. */
	assert_int_equal(ckpt_delete(scratch_dir, "other.txt", &err), -1);
	assert_string_equal(err.text, "other.txt: not a checkpoint name");
	assert_int_equal(ckpt_delete(scratch_dir, "../ckpt-1", &err), -1);
	assert_int_equal(ckpt_delete(scratch_dir, "outside/ckpt-1", &err), -1);
	assert_int_equal(ckpt_delete(scratch_dir, ".ckpt-1", &err), -1);
	assert_true(scratch_exists("other.txt"));

	/* Already gone is done. */
	assert_int_equal(ckpt_delete(scratch_dir, "ckpt-1.pt", &err), 0);
	assert_int_equal(ckpt_delete(scratch_at("none"), "ckpt-1.pt", &err),
			 -1);
}

static void retain(void **state)
{
	struct ckpt_list l;
	elastic_error_t err = { "" };
	unsigned deleted = 99;
	const char *use[2];

	scratch_put("ckpt-10.pt", 1);
	scratch_put("ckpt-20.pt", 1);
	scratch_mkd("ckpt-30");
	scratch_put("ckpt-30/m", 1);
	scratch_put("ckpt-40.pt", 1);
	scratch_put("ckpt-50.pt", 1);
	assert_int_equal(ckpt_list(scratch_dir, &l, &err), 0);
	use[0] = scratch_at("ckpt-20.pt"); /* the ranks resumed from it */
	use[1] = scratch_at("ckpt-30/");   /* an eval job reads it */
	assert_int_equal(ckpt_retain(&l, 1, use, 2, &deleted, &err), 0);
	assert_int_equal(deleted, 2);
	ckpt_list_free(&l);
	assert_false(scratch_exists("ckpt-10.pt"));
	assert_true(scratch_exists("ckpt-20.pt"));
	assert_true(scratch_exists("ckpt-30/m"));
	assert_false(scratch_exists("ckpt-40.pt"));
	assert_true(scratch_exists("ckpt-50.pt"));

	/* Nothing in use any more: down to keep. */
	assert_int_equal(ckpt_list(scratch_dir, &l, &err), 0);
	assert_int_equal(ckpt_retain(&l, 1, NULL, 0, &deleted, &err), 0);
	assert_int_equal(deleted, 2);
	ckpt_list_free(&l);
	assert_int_equal(ckpt_list(scratch_dir, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.e[0].name, "ckpt-50.pt");
	assert_int_equal(ckpt_retain(&l, 1, NULL, 0, NULL, &err), 0);
	ckpt_list_free(&l);
	assert_true(scratch_exists("ckpt-50.pt"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_name),
		cmocka_unit_test_setup_teardown(list_dir, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(
		    list_missing_and_errors, scratch_setup, scratch_teardown),
		cmocka_unit_test_setup_teardown(list_same_step, scratch_setup,
						scratch_teardown),
		cmocka_unit_test(steps_text),
		cmocka_unit_test(retention_keep),
		cmocka_unit_test(retention_in_use),
		cmocka_unit_test(retention_same_step),
		cmocka_unit_test_setup_teardown(delete_entries, scratch_setup,
						scratch_teardown),
		cmocka_unit_test_setup_teardown(retain, scratch_setup,
						scratch_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
