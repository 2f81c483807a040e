/*
 * gnuplot found and run by fork and exec, no shell (gnuplot.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gnuplot.h"

/* A picture takes gnuplot well under a second; one that takes this long
 * is killed. */
#define TIMEOUT_S 120

#define MISSING                                                                \
	"--png/--svg: gnuplot not found (install it, on Debian gnuplot-nox; "  \
	"or set GNUPLOT to its absolute path)"

/* Is path an executable regular file? */
static int gnuplot_usable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

int gnuplot_find(char *buf, size_t len, elastic_error_t *err)
{
	const char *env = getenv("GNUPLOT");
	const char *path = getenv("PATH"), *p, *end;

	if (env && *env) {
		if (env[0] != '/' || strlen(env) >= len)
			return elastic_errorf(err,
					      "--png/--svg: GNUPLOT=%s: "
					      "not an absolute path to "
					      "gnuplot",
					      env);
		if (!gnuplot_usable(env))
			return elastic_errorf(err,
					      "--png/--svg: GNUPLOT=%s: "
					      "no gnuplot there",
					      env);
		snprintf(buf, len, "%s", env);
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		int n;

		end = strchrnul(p, ':');
		/* A relative entry would run whatever the working
		 * directory holds. */
		if (*p != '/')
			continue;
		n = snprintf(buf, len, "%.*s/gnuplot", (int)(end - p), p);
		if (n > 0 && (size_t)n < len && gnuplot_usable(buf))
			return 0;
	}
	buf[0] = '\0';
	return elastic_errorf(err, MISSING);
}

/* The last line of dir/name that is not blank, into err after what. */
static int gnuplot_failed(int dirfd, const char *name, const char *what,
			  elastic_error_t *err)
{
	char text[4096], *line = NULL;
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	ssize_t n = fd < 0 ? -1 : pread(fd, text, sizeof(text) - 1, 0);

	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	for (char *s = strtok(text, "\r\n"); s; s = strtok(NULL, "\r\n"))
		if (strspn(s, " \t^") < strlen(s))
			line = s;
	return elastic_errorf(err, "gnuplot %s%s%s", what, line ? ": " : "",
			      line ? line : "");
}

/* The child: gnuplot in dir, its output to errfile. */
static void gnuplot_exec(const char *gnuplot, const char *dir,
			 const char *script, int out)
{
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (in < 0 || chdir(dir) || dup2(in, 0) < 0 || dup2(out, 1) < 0 ||
	    dup2(out, 2) < 0)
		_exit(126);
	execl(gnuplot, gnuplot, "--default-settings", script, (char *)NULL);
	dprintf(2, "cannot run %s: %s\n", gnuplot, strerror(errno));
	_exit(127);
}

/* Wait for pid, killed after TIMEOUT_S: 0 with its status, or -1 with
 * err. */
static int gnuplot_wait(pid_t pid, int *status, elastic_error_t *err)
{
	const struct timespec tick = { 0, 20 * 1000 * 1000 };
	struct timespec start, now;
	pid_t r;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return elastic_errorf(err, "waitpid: %s",
					      strerror(errno));
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= TIMEOUT_S) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return elastic_errorf(
			    err, "gnuplot took more than %d s", TIMEOUT_S);
		}
		nanosleep(&tick, NULL);
	}
}

int gnuplot_run(const char *gnuplot, const char *dir, const char *script,
		const char *errfile, elastic_error_t *err)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), out = -1;
	int status = 0, rc = -1;
	char what[64];
	pid_t pid;

	if (dirfd >= 0)
		out = openat(
		    dirfd, errfile,
		    O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0) {
		rc = elastic_errorf(err, "%s: %s", dir, strerror(errno));
		goto done;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		rc = elastic_errorf(err, "fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0)
		gnuplot_exec(gnuplot, dir, script, out);
	if (gnuplot_wait(pid, &status, err))
		goto done;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = 0;
		goto done;
	}
	if (WIFEXITED(status))
		snprintf(what, sizeof(what), "failed (exit status %d)",
			 WEXITSTATUS(status));
	else
		snprintf(what, sizeof(what), "failed (signal %d)",
			 WTERMSIG(status));
	rc = gnuplot_failed(dirfd, errfile, what, err);
done:
	if (out >= 0)
		close(out);
	if (dirfd >= 0)
		close(dirfd);
	return rc;
}
