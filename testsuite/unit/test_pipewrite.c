/*
 * Unit tests of pipe_write(): a pipe whose reader is gone gives EPIPE and
 * the process lives on (SIGPIPE, by default, would end it); the signal
 * mask is as before; a reader that is there gets every byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "common/pipewrite.h"

static void reader_gone(void **state)
{
	int p[2];
	sigset_t before, after, pending;

	(void)state;
	signal(SIGPIPE, SIG_DFL);
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	sigprocmask(SIG_SETMASK, NULL, &before);
	errno = 0;
	assert_int_equal(pipe_write(p[1], "RING\n", 5), -1);
	assert_int_equal(errno, EPIPE);
	sigprocmask(SIG_SETMASK, NULL, &after);
	assert_int_equal(sigismember(&after, SIGPIPE),
			 sigismember(&before, SIGPIPE));
	sigpending(&pending);
	assert_int_equal(sigismember(&pending, SIGPIPE), 0);
	close(p[1]);
}

static void reader_there(void **state)
{
	int p[2];
	char buf[16] = "";

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe_write(p[1], "PROBE a b\n", 10), 0);
	assert_int_equal(read(p[0], buf, sizeof(buf) - 1), 10);
	assert_string_equal(buf, "PROBE a b\n");
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reader_gone),
		cmocka_unit_test(reader_there),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
