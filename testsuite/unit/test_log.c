/* Unit tests of log.c: the one line per message of elasticd and the
 * tools, its identity, levels and time, and that a message cannot forge a
 * second line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

static char *buf;
static size_t len;
static FILE *out;

static int setup(void **state)
{
	(void)state;
	out = open_memstream(&buf, &len);
	if (!out)
		return -1;
	elog_set_stream(out);
	elog_init("prog", ELOG_INFO, 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	elog_set_stream(NULL);
	fclose(out);
	free(buf);
	buf = NULL;
	return 0;
}

/* What was logged since the last call. */
static const char *logged(void)
{
	static char copy[4096];

	fclose(out);
	snprintf(copy, sizeof(copy), "%s", buf ? buf : "");
	free(buf);
	buf = NULL;
	out = open_memstream(&buf, &len);
	assert_non_null(out);
	elog_set_stream(out);
	return copy;
}

static void test_shapes(void **state)
{
	(void)state;
	elog_error("cannot %s", "start");
	assert_string_equal(logged(), "prog: cannot start\n");
	elog_warn("ElasticdStateDir %s: gone", "/x");
	assert_string_equal(logged(),
			    "prog: warning: ElasticdStateDir /x: gone\n");
	elog_info("started");
	assert_string_equal(logged(), "prog: started\n");
}

static void test_levels(void **state)
{
	(void)state;
	elog_debug("hidden at info");
	assert_string_equal(logged(), "");
	assert_false(elog_enabled(ELOG_DEBUG));
	elog_set_level(ELOG_DEBUG);
	assert_true(elog_enabled(ELOG_DEBUG));
	elog_debug("cycle %d", 7);
	assert_string_equal(logged(), "prog: debug: cycle 7\n");
	elog_set_level(ELOG_WARN);
	elog_info("quiet");
	assert_string_equal(logged(), "");
	elog_warn("loud");
	assert_string_equal(logged(), "prog: warning: loud\n");
	elog_set_level(ELOG_ERROR);
	elog_warn("quiet");
	elog_error("always");
	assert_string_equal(logged(), "prog: always\n");
}

static void test_time(void **state)
{
	regex_t re;

	(void)state;
	elog_init("elasticd", ELOG_INFO, ELOG_TIME);
	elog_warn("late");
	assert_int_equal(
	    regcomp(&re,
		    "^elasticd: [0-2][0-9]:[0-5][0-9]:[0-6][0-9]\\."
		    "[0-9]{3} warning: late\n$",
		    REG_EXTENDED),
	    0);
	assert_int_equal(regexec(&re, logged(), 0, NULL, 0), 0);
	regfree(&re);
}

/* A URL or job name with a newline stays on its line. */
static void test_one_line(void **state)
{
	char big[2000];

	(void)state;
	elog_info("API: GET %s: 404", "/v1/x\nprog: forged\x1b");
	assert_string_equal(logged(),
			    "prog: API: GET /v1/x\\nprog: forged\\x1b: 404\n");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	elog_info("%s", big);
	{
		const char *l = logged();

		assert_true(strlen(l) < 1100);
		assert_ptr_equal(strchr(l, '\n'), l + strlen(l) - 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_shapes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_line, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
