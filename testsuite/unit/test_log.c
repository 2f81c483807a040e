/* Unit tests of log.c: the one line per message of elasticd and the
 * tools, its identity, levels, time and journal prefix, when stderr is
 * the journal's, and that a message cannot forge a second line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* For journald: each line begins with its syslog level. */
static void test_journal(void **state)
{
	(void)state;
	elog_init("elasticd", ELOG_DEBUG, ELOG_JOURNAL);
	elog_error("down");
	assert_string_equal(logged(), "<3>elasticd: down\n");
	elog_warn("late");
	assert_string_equal(logged(), "<4>elasticd: warning: late\n");
	elog_info("up");
	assert_string_equal(logged(), "<6>elasticd: up\n");
	elog_debug("cycle");
	assert_string_equal(logged(), "<7>elasticd: debug: cycle\n");
	/* A forged prefix in the text stays text. */
	elog_info("x\n<0>elasticd: y");
	assert_string_equal(logged(), "<6>elasticd: x\\n<0>elasticd: y\n");
	elog_set_flags(0);
	elog_error("plain");
	assert_string_equal(logged(), "elasticd: plain\n");
}

/* JOURNAL_STREAM names the stream systemd gave: a child writing
 * elsewhere (a test's daemon, into a file) inherits the name only. */
static void test_journal_stream(void **state)
{
	char name[] = "/tmp/test_log.XXXXXX", env[64];
	struct stat st;
	int fd = mkstemp(name), other, elsewhere;

	(void)state;
	assert_true(fd >= 0);
	unlink(name);
	other = dup(fd);
	assert_int_equal(fstat(fd, &st), 0);
	snprintf(env, sizeof(env), "%ju:%ju", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino);
	assert_true(elog_journal_stream(env, fd));
	assert_true(elog_journal_stream(env, other));
	/* Another file: the variable was inherited, not the stream. */
	elsewhere = open("/", O_RDONLY | O_DIRECTORY);
	assert_true(elsewhere >= 0);
	assert_false(elog_journal_stream(env, elsewhere));
	close(elsewhere);
	assert_false(elog_journal_stream(NULL, fd));
	assert_false(elog_journal_stream("", fd));
	snprintf(env, sizeof(env), "%ju:%ju", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino + 1);
	assert_false(elog_journal_stream(env, fd));
	snprintf(env, sizeof(env), "%ju:%jux", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino);
	assert_false(elog_journal_stream(env, fd));
	snprintf(env, sizeof(env), ":%ju", (uintmax_t)st.st_ino);
	assert_false(elog_journal_stream(env, fd));
	snprintf(env, sizeof(env), "%ju", (uintmax_t)st.st_ino);
	assert_false(elog_journal_stream(env, fd));
	close(other);
	/* A closed descriptor is no stream. */
	snprintf(env, sizeof(env), "%ju:%ju", (uintmax_t)st.st_dev,
		 (uintmax_t)st.st_ino);
	close(fd);
	assert_false(elog_journal_stream(env, fd));
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
		cmocka_unit_test_setup_teardown(test_journal, setup, teardown),
		cmocka_unit_test(test_journal_stream),
		cmocka_unit_test_setup_teardown(test_one_line, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
