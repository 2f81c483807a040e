#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/options.h"

static struct elastic_policy site(unsigned max, unsigned dmin, unsigned dmax)
{
	struct elastic_policy p = { max, dmin, dmax };
	return p;
}

static void names(void **state)
{
	assert_string_equal(options_name(ELASTIC_OPT_MIN), "elastic-min");
	assert_string_equal(options_name(ELASTIC_OPT_MAX), "elastic-max");
	assert_null(options_name(ELASTIC_OPT_COUNT));
	assert_int_equal(options_lookup("elastic-min"), ELASTIC_OPT_MIN);
	assert_int_equal(options_lookup("elastic_max"), ELASTIC_OPT_MAX);
	assert_int_equal(options_lookup("elastic-mi"), -1);
	assert_int_equal(options_lookup("elastic-minx"), -1);
	assert_int_equal(options_lookup(""), -1);
}

static void set_good(void **state)
{
	struct elastic_opts o = { 0 };
	elastic_error_t err;

	assert_false(options_any(&o));
	assert_int_equal(options_set(&o, ELASTIC_OPT_MIN, "2", &err), 0);
	assert_true(options_any(&o));
	assert_int_equal(options_set(&o, ELASTIC_OPT_MAX, "65535", &err), 0);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 65535);
}

static void set_bad(void **state)
{
	static const struct {
		enum elastic_opt_id id;
		const char *val;
		const char *msg;
	} cases[] = {
		{ ELASTIC_OPT_MIN, "",
		  "--elastic-min=: empty value (allowed: a node count from 1 "
		  "to 65535)" },
		{ ELASTIC_OPT_MIN, "0",
		  "--elastic-min=0: out of range (allowed: a node count from 1 "
		  "to 65535)" },
		{ ELASTIC_OPT_MAX, "65536",
		  "--elastic-max=65536: out of range (allowed: a node count "
		  "from 1 to 65535)" },
		{ ELASTIC_OPT_MAX, "4294967297",
		  "--elastic-max=4294967297: out of range (allowed: a node "
		  "count from 1 to 65535)" },
		{ ELASTIC_OPT_MIN, "two",
		  "--elastic-min=two: not a whole number (allowed: a node "
		  "count from 1 to 65535)" },
		{ ELASTIC_OPT_MIN, "-2",
		  "--elastic-min=-2: not a whole number (allowed: a node count "
		  "from 1 to 65535)" },
		{ ELASTIC_OPT_MAX, "4 ",
		  "--elastic-max=4 : not a whole number (allowed: a node count "
		  "from 1 to 65535)" },
		{ ELASTIC_OPT_MAX,
		  "111111111111111111111111111111111111111111111111111111111111"
		  "11"
		  "111",
		  "--elastic-max: value longer than 64 characters" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct elastic_opts o = { 3, 3 };
		elastic_error_t err = { "" };

		assert_int_equal(
		    options_set(&o, cases[i].id, cases[i].val, &err), -1);
		assert_string_equal(err.text, cases[i].msg);
		assert_int_equal(o.min, 3);
		assert_int_equal(o.max, 3);
	}
}

static void check_pair(void **state)
{
	struct elastic_opts o = { 5, 2 };
	elastic_error_t err;

	assert_int_equal(options_check(&o, &err), -1);
	assert_string_equal(err.text, "--elastic-min=5 is greater than "
				      "--elastic-max=2 (need --elastic-min <= "
				      "--elastic-max)");
	o.max = 5;
	assert_int_equal(options_check(&o, &err), 0);
	o = (struct elastic_opts){ 5, 0 };
	assert_int_equal(options_check(&o, &err), 0);
}

static void finalize_defaults(void **state)
{
	struct elastic_policy p = site(16, 2, 8);
	elastic_error_t err;
	struct elastic_opts o;

	/* policy defaults fill what is omitted */
	o = (struct elastic_opts){ 0, 0 };
	assert_int_equal(options_finalize(&o, &p, &err), 0);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 8);

	/* the user's value wins over the default (precedence) */
	o = (struct elastic_opts){ 4, 0 };
	assert_int_equal(options_finalize(&o, &p, &err), 0);
	assert_int_equal(o.min, 4);
	assert_int_equal(o.max, 8);

	o = (struct elastic_opts){ 0, 12 };
	assert_int_equal(options_finalize(&o, &p, &err), 0);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 12);

	/* a default never contradicts what was given */
	o = (struct elastic_opts){ 10, 0 };
	assert_int_equal(options_finalize(&o, &p, &err), 0);
	assert_int_equal(o.min, 10);
	assert_int_equal(o.max, 10);
	o = (struct elastic_opts){ 0, 1 };
	assert_int_equal(options_finalize(&o, &p, &err), 0);
	assert_int_equal(o.min, 1);
	assert_int_equal(o.max, 1);

	/* DefaultMaxNodes unset: up to MaxNodes */
	p = site(16, 1, 0);
	o = (struct elastic_opts){ 3, 0 };
	assert_int_equal(options_finalize(&o, &p, &err), 0);
	assert_int_equal(o.max, 16);
}

static void finalize_caps(void **state)
{
	struct elastic_policy p = site(4, 1, 0);
	elastic_error_t err;
	struct elastic_opts o;

	o = (struct elastic_opts){ 1, 4 };
	assert_int_equal(options_finalize(&o, &p, &err), 0);

	o = (struct elastic_opts){ 1, 5 };
	assert_int_equal(options_finalize(&o, &p, &err), -1);
	assert_string_equal(err.text, "--elastic-max=5 is above this site's "
				      "limit of 4 nodes (MaxNodes in "
				      "elastic.conf)");
	assert_int_equal(o.max, 5);

	o = (struct elastic_opts){ 6, 0 };
	assert_int_equal(options_finalize(&o, &p, &err), -1);
	assert_string_equal(err.text, "--elastic-min=6 is above this site's "
				      "limit of 4 nodes (MaxNodes in "
				      "elastic.conf)");
	assert_int_equal(o.max, 0);

	o = (struct elastic_opts){ 3, 2 };
	assert_int_equal(options_finalize(&o, &p, &err), -1);
	assert_non_null(strstr(err.text, "is greater than"));
}

static void from_env(void **state)
{
	char *env[] = {
		"SPANK_FOO=1",
		"_SLURM_SPANK_OPTION_other_elastic_min=9",
		"_SLURM_SPANK_OPTION_elastic_elastic_min=2",
		"_SLURM_SPANK_OPTION_elastic_elastic_max=6",
		NULL,
	};
	struct elastic_opts o = { 0 };
	elastic_error_t err;

	assert_int_equal(options_from_env(&o, env, 4, &err), 0);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 6);

	/* n bounds the scan, and a NULL entry ends it early */
	o = (struct elastic_opts){ 0 };
	assert_int_equal(options_from_env(&o, env, 3, &err), 0);
	assert_int_equal(o.max, 0);
	assert_int_equal(options_from_env(&o, NULL, 0, &err), 0);
}

static void from_env_bad(void **state)
{
	char *bad_value[] = { "_SLURM_SPANK_OPTION_elastic_elastic_max=x" };
	char *unknown[] = { "_SLURM_SPANK_OPTION_elastic_elastic_color=red" };
	char *no_eq[] = { "_SLURM_SPANK_OPTION_elastic_elastic_min" };
	struct elastic_opts o = { 0 };
	elastic_error_t err;

	assert_int_equal(options_from_env(&o, bad_value, 1, &err), -1);
	assert_string_equal(err.text, "--elastic-max=x: not a whole number "
				      "(allowed: a node count from 1 to "
				      "65535)");
	assert_int_equal(options_from_env(&o, unknown, 1, &err), -1);
	assert_non_null(strstr(err.text, "unknown elastic option "
					 "'elastic_color'"));
	assert_int_equal(options_from_env(&o, no_eq, 1, &err), 0);
	assert_false(options_any(&o));
}

static void tag_roundtrip(void **state)
{
	struct elastic_opts o = { 2, 8 }, back = { 0 };
	elastic_error_t err;
	char buf[64];

	assert_int_equal(options_format_tag(&o, buf, sizeof(buf)),
			 (int)strlen("elastic:v1 min=2 max=8"));
	assert_string_equal(buf, "elastic:v1 min=2 max=8");
	assert_int_equal(options_parse_tag(buf, &back, &err), 0);
	assert_int_equal(back.min, 2);
	assert_int_equal(back.max, 8);
}

static void tag_bad(void **state)
{
	static const char *bad[] = {
		"",
		"elastic:v2 min=1 max=2",
		"elastic:v1",
		"elastic:v1 min=1",
		"elastic:v1 min=3 max=2",
		"elastic:v1 min=1 max",
		"elastic:v1 min=x max=2",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct elastic_opts o = { 9, 9 };
		elastic_error_t err;

		assert_int_equal(options_parse_tag(bad[i], &o, &err), -1);
		assert_int_equal(o.min, 9);
	}
	assert_int_equal(options_parse_tag(NULL, NULL, NULL), -1);
}

static void tag_future_keys(void **state)
{
	struct elastic_opts o = { 0 };
	elastic_error_t err;

	assert_int_equal(
	    options_parse_tag("elastic:v1 min=1 max=2 color=3", &o, &err), 0);
	assert_int_equal(o.max, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names),
		cmocka_unit_test(set_good),
		cmocka_unit_test(set_bad),
		cmocka_unit_test(check_pair),
		cmocka_unit_test(finalize_defaults),
		cmocka_unit_test(finalize_caps),
		cmocka_unit_test(from_env),
		cmocka_unit_test(from_env_bad),
		cmocka_unit_test(tag_roundtrip),
		cmocka_unit_test(tag_bad),
		cmocka_unit_test(tag_future_keys),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
