#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "filesave.h"

/* write(2) until all is written; -1 with errno on failure. */
static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int file_save_atomic(const char *path, const char *tmp, mode_t mode,
		     const void *data, size_t len, elastic_error_t *err)
{
	const char *what;
	int fd, e;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  mode);
	if (fd < 0)
		return elastic_errorf(err, "%s: %s", tmp, strerror(errno));
	/* Each step once: the descriptor is closed exactly once below. */
	if (write_all(fd, data, len) < 0)
		what = "write";
	else if (fsync(fd) < 0)
		what = "fsync";
	else
		what = NULL;
	e = errno;
	if (close(fd) < 0 && !what) {
		what = "close";
		e = errno;
	}
	if (!what && rename(tmp, path) < 0) {
		what = "rename";
		e = errno;
	}
	if (!what)
		return 0;
	unlink(tmp);
	return elastic_errorf(err, "%s: %s: %s", path, what, strerror(e));
}
