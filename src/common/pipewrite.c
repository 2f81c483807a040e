/* A write to a pipe that fails with EPIPE instead of raising SIGPIPE. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "pipewrite.h"

int pipe_write(int fd, const void *buf, size_t len)
{
	sigset_t pipe, old, pending;
	struct timespec zero = { 0, 0 };
	bool was_pending;
	ssize_t n;
	int e;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE) == 1;
	do
		n = write(fd, buf, len);
	while (n < 0 && errno == EINTR);
	e = errno;
	/* Ours alone is taken back: one pending before is still there. */
	if (n < 0 && e == EPIPE && !was_pending)
		while (sigtimedwait(&pipe, NULL, &zero) == SIGPIPE)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	if (n >= 0 && (size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return n < 0 ? -1 : 0;
}
