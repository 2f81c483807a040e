#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/parse.h"

static void uint_good(void **state)
{
	unsigned long v = 0;

	assert_int_equal(parse_uint("0", 0, 10, &v), PARSE_OK);
	assert_int_equal(v, 0);
	assert_int_equal(parse_uint("10", 0, 10, &v), PARSE_OK);
	assert_int_equal(v, 10);
	assert_int_equal(parse_uint("007", 1, 10, &v), PARSE_OK);
	assert_int_equal(v, 7);
}

static void uint_bad_leaves_result(void **state)
{
	static const struct {
		const char *in;
		enum parse_result want;
	} cases[] = {
		{ "", PARSE_EMPTY },
		{ "-1", PARSE_NOT_UINT },
		{ "+1", PARSE_NOT_UINT },
		{ " 1", PARSE_NOT_UINT },
		{ "1 ", PARSE_NOT_UINT },
		{ "1k", PARSE_NOT_UINT },
		{ "0x10", PARSE_NOT_UINT },
		{ "1.5", PARSE_NOT_UINT },
		{ "abc", PARSE_NOT_UINT },
		{ "11", PARSE_RANGE },
		{ "0", PARSE_RANGE },
		{ "18446744073709551615", PARSE_RANGE },
		{ "18446744073709551616", PARSE_RANGE },
		{ "99999999999999999999999999999", PARSE_RANGE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long v = 42;

		assert_int_equal(parse_uint(cases[i].in, 1, 10, &v),
				 cases[i].want);
		assert_int_equal(v, 42);
	}
	assert_int_equal(parse_uint(NULL, 0, 1, NULL), PARSE_EMPTY);
}

static void uint_max_ulong(void **state)
{
	unsigned long v = 0;

	assert_int_equal(parse_uint("18446744073709551615", 0, ~0UL, &v),
			 PARSE_OK);
	assert_true(v == ~0UL);
}

static void strerror_words(void **state)
{
	assert_string_equal(parse_strerror(PARSE_EMPTY), "empty value");
	assert_string_equal(parse_strerror(PARSE_NOT_UINT),
			    "not a whole number");
	assert_string_equal(parse_strerror(PARSE_RANGE), "out of range");
}

static void trim(void **state)
{
	char a[] = "  Max = 3 \t";
	char b[] = "   ";
	char c[] = "x";

	assert_string_equal(parse_trim(a), "Max = 3");
	assert_string_equal(parse_trim(b), "");
	assert_string_equal(parse_trim(c), "x");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uint_good),
		cmocka_unit_test(uint_bad_leaves_result),
		cmocka_unit_test(uint_max_ulong),
		cmocka_unit_test(strerror_words),
		cmocka_unit_test(trim),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
