/* Unit tests of options.c on what a job's options may say together:
 * options_check's relations among what the user gave (bounds, step or
 * sizes, a size config), options_size_allowed, and the checkpoint dir:
 * options_expand_path and the rule that its pattern name a place of the
 * user's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "options_fixture.h"

/* options_check: relations among what the user gave */

static void check_fails(const struct elastic_opts *o,
			const struct size_config *sc, const char *msg)
{
	elastic_error_t err = { "" };

	assert_int_equal(options_check(o, sc, &err), -1);
	assert_string_equal(err.text, msg);
}

static void check_ok(const struct elastic_opts *o, const struct size_config *sc)
{
	elastic_error_t err = { "" };

	if (options_check(o, sc, &err) != 0)
		fail_msg("options_check: %s", err.text);
}

static void check_min_max(void **state)
{
	struct elastic_opts o;

	o = opts_of("min=5 max=2");
	check_fails(&o, NULL,
		    "--elastic-min=5 is greater than --elastic-max=2 (need "
		    "--elastic-min <= --elastic-max)");
	o = opts_of("min=5 max=5");
	check_ok(&o, NULL);
	o = opts_of("min=5");
	check_ok(&o, NULL);
	o = opts_of("max=1");
	check_ok(&o, NULL);
	o = (struct elastic_opts){ 0 };
	check_ok(&o, NULL);
}

static void check_step_sizes(void **state)
{
	struct elastic_opts o;

	o = opts_of("step=2 sizes=1,2");
	check_fails(&o, NULL,
		    "--elastic-step and --elastic-sizes cannot be used "
		    "together");
	o = opts_of("sizes=1,2 step=2");
	check_fails(&o, NULL,
		    "--elastic-step and --elastic-sizes cannot be used "
		    "together");
	o = opts_of("step=2 min=2 max=8");
	check_ok(&o, NULL);
	o = opts_of("sizes=2,4,8 min=2 max=8");
	check_ok(&o, NULL);
}

static void check_sizes_within(void **state)
{
	struct elastic_opts o;

	o = opts_of("min=2 max=8 sizes=1,4");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=2 and --elastic-max=8");
	o = opts_of("min=2 max=8 sizes=4,9");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=2 and --elastic-max=8");
	/* Only one bound given: the sizes give the other. */
	o = opts_of("min=2 sizes=1,4");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=2 and --elastic-max=4");
	o = opts_of("max=3 sizes=1,4");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=1 and --elastic-max=3");
	/* Exact bounds pass. */
	o = opts_of("min=2 max=8 sizes=2,8");
	check_ok(&o, NULL);
	o = opts_of("sizes=2,8");
	check_ok(&o, NULL);
}

static void check_size_config(void **state)
{
	struct size_config sc = sizeconf_of("default A=1\n4 B=2\n8 B=3\n");
	struct size_config big = sizeconf_of("16 B=1");
	struct size_config def = sizeconf_of("default A=1");
	struct elastic_opts o;

	o = opts_of("min=2 max=8 step=2");
	check_ok(&o, &sc);
	o = opts_of("min=2 max=8 step=3");
	check_fails(&o, &sc,
		    "--elastic-size-config: size 4 is not a size this job can "
		    "take (between --elastic-min=2 and --elastic-max=8, on "
		    "--elastic-step=3)");
	o = opts_of("sizes=2,4,8");
	check_ok(&o, &sc);
	o = opts_of("sizes=2,8");
	check_fails(&o, &sc,
		    "--elastic-size-config: size 4 is not a size this job can "
		    "take (between --elastic-min=2 and --elastic-max=8, in "
		    "--elastic-sizes)");
	o = opts_of("min=2 max=8");
	check_fails(&o, &big,
		    "--elastic-size-config: size 16 is not a size this job "
		    "can take (between --elastic-min=2 and --elastic-max=8)");
	o = opts_of("min=5 max=8");
	check_fails(&o, &sc,
		    "--elastic-size-config: size 4 is not a size this job can "
		    "take (between --elastic-min=5 and --elastic-max=8)");
	/* The default line fits any size. */
	o = opts_of("min=2 max=2");
	check_ok(&o, &def);
	/* Without both bounds the client cannot judge: slurmctld will. */
	o = opts_of("min=2");
	check_ok(&o, &big);
	o = opts_of("max=8");
	check_ok(&o, &big);
}

/* The base job holds --elastic-min nodes: the smallest size. */
static void check_min_is_first_size(void **state)
{
	struct elastic_opts o = opts_of("min=1 sizes=2,4");

	check_fails(&o, NULL,
		    "--elastic-min=1 must be the smallest of --elastic-sizes "
		    "(2): the job starts at --elastic-min");
	o = opts_of("min=2 sizes=2,4");
	check_ok(&o, NULL);
	o = opts_of("sizes=2,4");
	check_ok(&o, NULL);
}

static void size_allowed(void **state)
{
	struct elastic_opts o;

	o = opts_of("min=2 max=10 step=4");
	assert_false(options_size_allowed(&o, 0));
	assert_false(options_size_allowed(&o, 1));
	assert_true(options_size_allowed(&o, 2));
	assert_false(options_size_allowed(&o, 3));
	assert_false(options_size_allowed(&o, 4));
	assert_true(options_size_allowed(&o, 6));
	assert_true(options_size_allowed(&o, 10));
	assert_false(options_size_allowed(&o, 11));
	assert_false(options_size_allowed(&o, 14));

	/* The max need not be on the step. */
	o = opts_of("min=1 max=8 step=3");
	assert_true(options_size_allowed(&o, 7));
	assert_false(options_size_allowed(&o, 8));

	o = opts_of("min=2 max=5");
	for (unsigned n = 2; n <= 5; n++)
		assert_true(options_size_allowed(&o, n));
	assert_false(options_size_allowed(&o, 1));
	assert_false(options_size_allowed(&o, 6));

	o = opts_of("sizes=2,3,8");
	o.min = 2;
	o.max = 8;
	assert_true(options_size_allowed(&o, 2));
	assert_true(options_size_allowed(&o, 3));
	assert_false(options_size_allowed(&o, 4));
	assert_true(options_size_allowed(&o, 8));
	assert_false(options_size_allowed(&o, 1));
	assert_false(options_size_allowed(&o, 9));
	/* min and max still bound a list. */
	o.min = 3;
	assert_false(options_size_allowed(&o, 2));
	assert_true(options_size_allowed(&o, 3));
}

/* options_expand_path */

static void expand_path(void **state)
{
	static const struct {
		const char *pattern, *want;
	} cases[] = {
		{ "%h/ck/%j", "/home/alice/ck/42" },
		{ "/s/%u/%j", "/s/alice/42" },
		{ "/a/%%/100%%", "/a/%/100%" },
		{ "/a/%%j", "/a/%j" },
		{ "%j%j", "4242" },
		{ "/plain", "/plain" },
		{ "", "" },
	};
	char out[64];

	for (size_t i = 0; i < N(cases); i++) {
		memset(out, 'x', sizeof(out));
		assert_int_equal(options_expand_path(cases[i].pattern, "42",
						     "alice", "/home/alice",
						     out, sizeof(out)),
				 0);
		assert_string_equal(out, cases[i].want);
	}
	/* The owner's passwd entry could not be read: no user, no home.
	 * Fail closed: "%h/x" is never "/x". */
	assert_int_equal(
	    options_expand_path("%h/%u/x", "1", "", "", out, sizeof(out)), -1);
	assert_int_equal(
	    options_expand_path("%h/x", "1", "alice", "", out, sizeof(out)),
	    -1);
	assert_int_equal(
	    options_expand_path("/s/%u/x", "1", NULL, "/h", out, sizeof(out)),
	    -1);
	assert_int_equal(
	    options_expand_path("/s/%j", "", "alice", "/h", out, sizeof(out)),
	    -1);
	/* What the pattern does not use may be unknown. */
	assert_int_equal(
	    options_expand_path("/s/%j", "1", "", "", out, sizeof(out)), 0);
	assert_string_equal(out, "/s/1");
}

/* A checkpoint dir pattern must name a place of the user's own, unless
 * the site says its shared directories are safe. */
static void ckpt_dir_per_user(void **state)
{
	struct elastic_policy p = policy_of("MaxNodes=64\n");
	struct elastic_policy shared =
	    policy_of("MaxNodes=64\nSharedCheckpointDirs=yes\n");
	struct elastic_submitter alice = { "alice", NULL };
	struct elastic_submitter bob = { "bob", NULL };
	struct elastic_opts o;
	elastic_error_t err;

	(void)state;
	assert_true(policy_path_per_user("%h/ck/%j", NULL));
	assert_true(policy_path_per_user("/s/%u/%j", NULL));
	assert_true(policy_path_per_user("/s/ck-%u-%j", NULL));
	assert_false(policy_path_per_user("/s/%j", NULL));
	assert_false(policy_path_per_user("/s/%%u/%j", NULL));
	assert_true(policy_path_per_user("/scratch/alice/%j", "alice"));
	assert_true(policy_path_per_user("/scratch/alice", "alice"));
	assert_false(policy_path_per_user("/scratch/alice2/%j", "alice"));
	assert_false(policy_path_per_user("/scratch/xalice/%j", "alice"));
	assert_false(policy_path_per_user("/scratch/alice/%j", "bob"));

	o = opts_of("min=1 checkpoint-dir=/ck/%j");
	finalize_fails(&o, &p, &alice, NULL,
		       "--elastic-checkpoint-dir=/ck/%j: no per-user part, so "
		       "another user could make the job's directory first "
		       "(allowed: a path with %u, %h or your user name; "
		       "SharedCheckpointDirs=yes in elastic.conf allows any)");
	finalize_ok(&o, &shared, &alice, NULL);
	o = opts_of("min=1 checkpoint-dir=/ck/%u/%j");
	finalize_ok(&o, &p, &alice, NULL);
	o = opts_of("min=1 checkpoint-dir=/scratch/alice/%j");
	finalize_ok(&o, &p, &alice, NULL);
	o = opts_of("min=1 checkpoint-dir=/scratch/alice/%j");
	finalize_fails(&o, &p, &bob, NULL,
		       "--elastic-checkpoint-dir=/scratch/alice/%j: no "
		       "per-user part, so another user could make the job's "
		       "directory first (allowed: a path with %u, %h or your "
		       "user name; SharedCheckpointDirs=yes in elastic.conf "
		       "allows any)");
	/* The site's default must be per-user too, or declared shared. */
	assert_int_equal(policy_parse(&p, "DefaultCheckpointDir=/ck/%j\n",
				      "elastic.conf", &err),
			 -1);
	assert_string_equal(err.text,
			    "elastic.conf: DefaultCheckpointDir=/ck/%j has no "
			    "per-user part (%u or %h): another user could make "
			    "a job's directory first (or "
			    "SharedCheckpointDirs=yes)");
	assert_int_equal(policy_parse(&p,
				      "DefaultCheckpointDir=/ck/%j\n"
				      "SharedCheckpointDirs=yes\n",
				      "elastic.conf", &err),
			 0);
}

static void expand_path_errors(void **state)
{
	static const char *bad[] = { "/a/%x", "/a/%", "%J", "%H", "% j" };
	char out[64];

	for (size_t i = 0; i < N(bad); i++)
		assert_int_equal(options_expand_path(bad[i], "42", "alice",
						     "/home/alice", out,
						     sizeof(out)),
				 -1);

	/* "/home/alice/ck/42" is 17 characters: 18 bytes fit, 17 do not. */
	assert_int_equal(options_expand_path("%h/ck/%j", "42", "alice",
					     "/home/alice", out, 18),
			 0);
	assert_string_equal(out, "/home/alice/ck/42");
	assert_int_equal(options_expand_path("%h/ck/%j", "42", "alice",
					     "/home/alice", out, 17),
			 -1);
	assert_int_equal(options_expand_path("/plain", "1", "u", "/h", out, 7),
			 0);
	assert_int_equal(options_expand_path("/plain", "1", "u", "/h", out, 6),
			 -1);
	assert_int_equal(options_expand_path("%%", "1", "u", "/h", out, 1), -1);
	assert_int_equal(options_expand_path("%%", "1", "u", "/h", out, 2), 0);
	assert_string_equal(out, "%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_min_max),
		cmocka_unit_test(check_step_sizes),
		cmocka_unit_test(check_sizes_within),
		cmocka_unit_test(check_size_config),
		cmocka_unit_test(check_min_is_first_size),
		cmocka_unit_test(size_allowed),
		cmocka_unit_test(ckpt_dir_per_user),
		cmocka_unit_test(expand_path),
		cmocka_unit_test(expand_path_errors),
	};
	return cmocka_run_group_tests_name("options_check", tests, NULL, NULL);
}
