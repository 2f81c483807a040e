/* Unit tests of parse.c and error.c: the strict value parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "common/parse.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* parse_uint */

static void uint_good(void **state)
{
	unsigned long v = 0;

	assert_int_equal(parse_uint("0", 0, 10, &v), PARSE_OK);
	assert_int_equal(v, 0);
	assert_int_equal(parse_uint("10", 0, 10, &v), PARSE_OK);
	assert_int_equal(v, 10);
	assert_int_equal(parse_uint("007", 1, 10, &v), PARSE_OK);
	assert_int_equal(v, 7);
	/* Many leading zeros are not an overflow. */
	assert_int_equal(
	    parse_uint("000000000000000000000000000000042", 0, 100, &v),
	    PARSE_OK);
	assert_int_equal(v, 42);
	assert_int_equal(parse_uint("65535", 1, 65535, &v), PARSE_OK);
	assert_int_equal(v, 65535);
}

/* Exact bounds pass, one past fails. */
static void uint_bounds(void **state)
{
	unsigned long v = 99;

	assert_int_equal(parse_uint("5", 5, 9, &v), PARSE_OK);
	assert_int_equal(v, 5);
	assert_int_equal(parse_uint("9", 5, 9, &v), PARSE_OK);
	assert_int_equal(v, 9);
	assert_int_equal(parse_uint("4", 5, 9, &v), PARSE_RANGE);
	assert_int_equal(parse_uint("10", 5, 9, &v), PARSE_RANGE);
	assert_int_equal(v, 9);
	assert_int_equal(parse_uint("7", 7, 7, &v), PARSE_OK);
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
		{ "-0", PARSE_NOT_UINT },
		{ "+1", PARSE_NOT_UINT },
		{ " 1", PARSE_NOT_UINT },
		{ "1 ", PARSE_NOT_UINT },
		{ "1\n", PARSE_NOT_UINT },
		{ "1k", PARSE_NOT_UINT },
		{ "0x10", PARSE_NOT_UINT },
		{ "1e3", PARSE_NOT_UINT },
		{ "1.5", PARSE_NOT_UINT },
		{ "1,5", PARSE_NOT_UINT },
		{ "abc", PARSE_NOT_UINT },
		{ " ", PARSE_NOT_UINT },
		{ "11", PARSE_RANGE },
		{ "0", PARSE_RANGE },
		{ "18446744073709551615", PARSE_RANGE },
		{ "18446744073709551616", PARSE_RANGE },
		{ "99999999999999999999999999999", PARSE_RANGE },
		/* Garbage after an overflow is still garbage. */
		{ "99999999999999999999999999999x", PARSE_NOT_UINT },
	};

	for (size_t i = 0; i < N(cases); i++) {
		unsigned long v = 42;

		assert_int_equal(parse_uint(cases[i].in, 1, 10, &v),
				 cases[i].want);
		assert_int_equal(v, 42);
	}
	assert_int_equal(parse_uint(NULL, 0, 1, NULL), PARSE_EMPTY);
}

/* Values near ULONG_MAX saturate instead of wrapping. */
static void uint_overflow(void **state)
{
	unsigned long v = 0;
	char buf[64];

	assert_int_equal(parse_uint("18446744073709551615", 0, ULONG_MAX, &v),
			 PARSE_OK);
	assert_true(v == ULONG_MAX);
	v = 3;
	/* 2^64 would wrap to 0, 2^64 + 5 to 5: both must be range errors. */
	assert_int_equal(parse_uint("18446744073709551616", 0, ULONG_MAX, &v),
			 PARSE_RANGE);
	assert_int_equal(parse_uint("18446744073709551621", 0, ULONG_MAX, &v),
			 PARSE_RANGE);
	assert_int_equal(parse_uint("184467440737095516150", 0, ULONG_MAX, &v),
			 PARSE_RANGE);
	assert_int_equal(v, 3);
	snprintf(buf, sizeof(buf), "%lu", (unsigned long)UINT_MAX + 1);
	assert_int_equal(parse_uint(buf, 0, UINT_MAX, &v), PARSE_RANGE);
	assert_int_equal(v, 3);
}

/* parse_bool */

static void bool_good(void **state)
{
	static const struct {
		const char *in;
		bool want;
	} cases[] = {
		{ "yes", true },    { "YES", true },  { "Yes", true },
		{ "true", true },   { "TRUE", true }, { "1", true },
		{ "no", false },    { "NO", false },  { "false", false },
		{ "False", false }, { "0", false },
	};

	for (size_t i = 0; i < N(cases); i++) {
		bool b = !cases[i].want;

		assert_int_equal(parse_bool(cases[i].in, &b), PARSE_OK);
		assert_true(b == cases[i].want);
	}
}

static void bool_bad_leaves_result(void **state)
{
	static const struct {
		const char *in;
		enum parse_result want;
	} cases[] = {
		{ "", PARSE_EMPTY },	    { "y", PARSE_NOT_VALID },
		{ "n", PARSE_NOT_VALID },   { "on", PARSE_NOT_VALID },
		{ "off", PARSE_NOT_VALID }, { "2", PARSE_NOT_VALID },
		{ "01", PARSE_NOT_VALID },  { "yes ", PARSE_NOT_VALID },
		{ " no", PARSE_NOT_VALID }, { "yess", PARSE_NOT_VALID },
	};

	for (size_t i = 0; i < N(cases); i++) {
		bool t = true, f = false;

		assert_int_equal(parse_bool(cases[i].in, &t), cases[i].want);
		assert_int_equal(parse_bool(cases[i].in, &f), cases[i].want);
		assert_true(t);
		assert_false(f);
	}
	assert_int_equal(parse_bool(NULL, NULL), PARSE_EMPTY);
}

/* parse_signal, parse_signal_name */

static const struct {
	const char *name;
	int sig;
} all_signals[] = {
	{ "URG", SIGURG },   { "WINCH", SIGWINCH }, { "USR1", SIGUSR1 },
	{ "USR2", SIGUSR2 }, { "HUP", SIGHUP },	    { "INT", SIGINT },
	{ "TERM", SIGTERM },
};

static void signal_good(void **state)
{
	assert_int_equal(N(all_signals), 7);
	for (size_t i = 0; i < N(all_signals); i++) {
		char buf[32];
		int sig;

		/* bare, with SIG, lower case, mixed case */
		sig = 0;
		assert_int_equal(parse_signal(all_signals[i].name, &sig),
				 PARSE_OK);
		assert_int_equal(sig, all_signals[i].sig);
		snprintf(buf, sizeof(buf), "SIG%s", all_signals[i].name);
		sig = 0;
		assert_int_equal(parse_signal(buf, &sig), PARSE_OK);
		assert_int_equal(sig, all_signals[i].sig);
		for (char *c = buf; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		sig = 0;
		assert_int_equal(parse_signal(buf, &sig), PARSE_OK);
		assert_int_equal(sig, all_signals[i].sig);
		sig = 0;
		assert_int_equal(parse_signal(buf + 3, &sig), PARSE_OK);
		assert_int_equal(sig, all_signals[i].sig);
	}
	{
		int sig = 0;

		assert_int_equal(parse_signal("SigUsr1", &sig), PARSE_OK);
		assert_int_equal(sig, SIGUSR1);
	}
}

static void signal_bad_leaves_result(void **state)
{
	static const struct {
		const char *in;
		enum parse_result want;
	} cases[] = {
		{ "", PARSE_EMPTY },
		{ "SIG", PARSE_NOT_VALID },
		{ "KILL", PARSE_NOT_VALID },
		{ "SIGKILL", PARSE_NOT_VALID },
		{ "STOP", PARSE_NOT_VALID },
		{ "SEGV", PARSE_NOT_VALID },
		{ "10", PARSE_NOT_VALID },
		{ "23", PARSE_NOT_VALID },
		{ "USR", PARSE_NOT_VALID },
		{ "USR1 ", PARSE_NOT_VALID },
		{ " USR1", PARSE_NOT_VALID },
		{ "SIG USR1", PARSE_NOT_VALID },
		{ "SIGSIGURG", PARSE_NOT_VALID },
		{ "USR1,USR2", PARSE_NOT_VALID },
	};

	for (size_t i = 0; i < N(cases); i++) {
		int sig = 12345;

		assert_int_equal(parse_signal(cases[i].in, &sig),
				 cases[i].want);
		assert_int_equal(sig, 12345);
	}
	assert_int_equal(parse_signal(NULL, NULL), PARSE_EMPTY);
}

static void signal_names(void **state)
{
	for (size_t i = 0; i < N(all_signals); i++) {
		const char *name = parse_signal_name(all_signals[i].sig);
		int sig = 0;

		assert_non_null(name);
		assert_string_equal(name, all_signals[i].name);
		/* The name reads back as the same signal. */
		assert_int_equal(parse_signal(name, &sig), PARSE_OK);
		assert_int_equal(sig, all_signals[i].sig);
	}
	assert_null(parse_signal_name(0));
	assert_null(parse_signal_name(SIGKILL));
	assert_null(parse_signal_name(SIGSEGV));
	assert_null(parse_signal_name(-1));
	assert_string_equal(PARSE_SIGNALS,
			    "URG, WINCH, USR1, USR2, HUP, INT, TERM");
}

/* parse_strerror, elastic_errorf */

static void strerror_words(void **state)
{
	assert_string_equal(parse_strerror(PARSE_OK), "ok");
	assert_string_equal(parse_strerror(PARSE_EMPTY), "empty value");
	assert_string_equal(parse_strerror(PARSE_NOT_UINT),
			    "not a whole number");
	assert_string_equal(parse_strerror(PARSE_RANGE), "out of range");
	assert_string_equal(parse_strerror(PARSE_NOT_VALID), "not valid");
	assert_string_equal(parse_strerror((enum parse_result)99), "invalid");
}

static void errorf(void **state)
{
	elastic_error_t err = { "" };
	char big[1000];

	assert_int_equal(elastic_errorf(&err, "%s=%d", "a", 1), -1);
	assert_string_equal(err.text, "a=1");
	assert_int_equal(elastic_errorf(NULL, "%s", "ignored"), -1);
	/* A long message is cut, still NUL-terminated. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(elastic_errorf(&err, "%s", big), -1);
	assert_int_equal(strlen(err.text), sizeof(err.text) - 1);
	/* What users wrote cannot break the line it is logged on. */
	elastic_errorf(&err, "--elastic-step=%s: bad",
		       "1\nslurmctld: fake\r\t\x1b[0m\x7f");
	assert_string_equal(err.text, "--elastic-step=1\\nslurmctld: "
				      "fake\\r\\t\\x1b[0m\\x7f: bad");
	/* An escape is never cut in half at the end. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(err.text) - 2] = '\n';
	big[sizeof(err.text) - 1] = '\0';
	elastic_errorf(&err, "%s", big);
	assert_int_equal(strlen(err.text), sizeof(err.text) - 2);
	assert_null(strchr(err.text, '\n'));
}

/* parse_trim */

static void trim(void **state)
{
	char a[] = "  Max = 3 \t";
	char b[] = "   ";
	char c[] = "x";
	char d[] = "";
	char e[] = "\t\r\n a b \r\n";
	char f[] = "no-blanks";

	assert_string_equal(parse_trim(a), "Max = 3");
	assert_string_equal(parse_trim(b), "");
	assert_string_equal(parse_trim(c), "x");
	assert_string_equal(parse_trim(d), "");
	assert_string_equal(parse_trim(e), "a b");
	/* In place: the result points into the buffer. */
	assert_ptr_equal(parse_trim(f), f);
	assert_ptr_equal(parse_trim(a), a + 2);
}

/* parse_read_file */

static int tmp_setup(void **state)
{
	return tmp_make(state, "test_parse", "f");
}

static void read_missing(void **state)
{
	struct tmp *t = *state;
	elastic_error_t err = { "" };
	char *text = (char *)"untouched";
	char want[256];

	unlink(t->path);
	assert_int_equal(parse_read_file(t->path, 100, true, &text, &err), 0);
	assert_null(text);

	text = (char *)"untouched";
	assert_int_equal(parse_read_file(t->path, 100, false, &text, &err), -1);
	snprintf(want, sizeof(want),
		 "%s: cannot open: No such file or directory", t->path);
	assert_string_equal(err.text, want);
	assert_string_equal(text, "untouched");

	/* Only "does not exist" is excused, not any failure to open. */
	write_file(t->path, "x", 1);
	snprintf(want, sizeof(want), "%s/x", t->path);
	assert_int_equal(parse_read_file(want, 100, true, &text, &err), -1);
	strcat(want, ": cannot open: Not a directory");
	assert_string_equal(err.text, want);
	assert_string_equal(text, "untouched");
}

static void read_good(void **state)
{
	struct tmp *t = *state;
	elastic_error_t err = { "" };
	char *text = NULL;

	write_file(t->path, "MaxNodes=4\n", 11);
	assert_int_equal(parse_read_file(t->path, 100, false, &text, &err), 0);
	assert_non_null(text);
	assert_string_equal(text, "MaxNodes=4\n");
	free(text);

	/* An empty file is an empty string, not "missing". */
	write_file(t->path, "", 0);
	text = NULL;
	assert_int_equal(parse_read_file(t->path, 100, true, &text, &err), 0);
	assert_non_null(text);
	assert_string_equal(text, "");
	free(text);
}

/* Exactly max bytes pass, one more fails. */
static void read_too_large(void **state)
{
	struct tmp *t = *state;
	elastic_error_t err = { "" };
	char *text = NULL;
	char data[11], want[256];

	memset(data, 'a', sizeof(data));
	write_file(t->path, data, 10);
	assert_int_equal(parse_read_file(t->path, 10, false, &text, &err), 0);
	assert_int_equal(strlen(text), 10);
	free(text);

	text = (char *)"untouched";
	write_file(t->path, data, 11);
	assert_int_equal(parse_read_file(t->path, 10, false, &text, &err), -1);
	snprintf(want, sizeof(want), "%s: larger than 10 bytes", t->path);
	assert_string_equal(err.text, want);
	assert_string_equal(text, "untouched");
}

static void read_nul_byte(void **state)
{
	struct tmp *t = *state;
	elastic_error_t err = { "" };
	char *text = (char *)"untouched";
	char want[256];

	write_file(t->path, "MaxNodes=2\0Bogus\n", 17);
	assert_int_equal(parse_read_file(t->path, 100, false, &text, &err), -1);
	snprintf(want, sizeof(want), "%s: contains a NUL byte", t->path);
	assert_string_equal(err.text, want);
	assert_string_equal(text, "untouched");
}

static void read_directory(void **state)
{
	struct tmp *t = *state;
	elastic_error_t err = { "" };
	char *text = (char *)"untouched";
	char want[256];

	assert_int_equal(parse_read_file(t->dir, 100, true, &text, &err), -1);
	snprintf(want, sizeof(want), "%s: cannot read: Is a directory", t->dir);
	assert_string_equal(err.text, want);
	assert_string_equal(text, "untouched");
	/* err may be NULL. */
	assert_int_equal(parse_read_file(t->dir, 100, true, &text, NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(uint_good),
		cmocka_unit_test(uint_bounds),
		cmocka_unit_test(uint_bad_leaves_result),
		cmocka_unit_test(uint_overflow),
		cmocka_unit_test(bool_good),
		cmocka_unit_test(bool_bad_leaves_result),
		cmocka_unit_test(signal_good),
		cmocka_unit_test(signal_bad_leaves_result),
		cmocka_unit_test(signal_names),
		cmocka_unit_test(strerror_words),
		cmocka_unit_test(errorf),
		cmocka_unit_test(trim),
		cmocka_unit_test_setup_teardown(read_missing, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(read_good, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(read_too_large, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(read_nul_byte, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(read_directory, tmp_setup,
						tmp_teardown),
	};
	return cmocka_run_group_tests_name("parse", tests, NULL, NULL);
}
