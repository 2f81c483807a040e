/* The sentinel: a one-task step that reports the signals raised on the
 * job's steps (elastic-run.h). */
#include "config.h"

#include "elastic-run.h"

static const int sentinel_sigs[] = { SIGURG, SIGWINCH, SIGUSR1, SIGUSR2,
				     SIGHUP, SIGINT,   SIGTERM };

static volatile sig_atomic_t sentinel_got[NSIG];

static void on_sentinel(int sig)
{
	sentinel_got[sig] = 1;
}
/* elastic-run --sentinel: the sentinel step's task. */
int sentinel_main(void)
{
	sigset_t block, old;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < sizeof(sentinel_sigs) / sizeof(sentinel_sigs[0]); i++) {
		install(sentinel_sigs[i], on_sentinel);
		sigaddset(&block, sentinel_sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &old);
	if (write(1, "READY\n", 6) != 6)
		return 1;
	for (;;) {
		/* The end of its standard input (elastic-run closed it) ends
		 * the step normally: COMPLETED in sacct, not CANCELLED. */
		struct pollfd in = { 0, POLLIN, 0 };
		char b[64];

		if (ppoll(&in, 1, NULL, &old) > 0 && read(0, b, sizeof(b)) <= 0)
			return 0;
		for (i = 0;
		     i < sizeof(sentinel_sigs) / sizeof(sentinel_sigs[0]);
		     i++) {
			int sig = sentinel_sigs[i];
			char line[32];
			int n;

			if (!sentinel_got[sig])
				continue;
			sentinel_got[sig] = 0;
			n = snprintf(line, sizeof(line), "%s\n",
				     parse_signal_name(sig));
			if (n > 0 && write(1, line, (size_t)n) != n)
				return 1;
		}
	}
}

/* The sentinel said READY and runs on: an event raised in the base's
 * steps reaches the launcher, which can relay it (sentinel_hears()). */
static bool sentinel_ready;

bool sentinel_hears(void)
{
	return sentinel_ready;
}

void sentinel_start(uint32_t job_id, const char *srun, struct sentinel *s)
{
	char self[4096], jobarg[64];
	int n;
	int p[2] = { -1, -1 }, q[2] = { -1, -1 };

	s->pid = -1;
	s->fd = -1;
	s->in = -1;
	s->len = 0;
	n = self_exe(self, sizeof(self));
	if (n < 0 || pipe(p) != 0 || pipe(q) != 0) {
		if (n == 0 && q[0] < 0 && p[0] >= 0) {
			close(p[0]);
			close(p[1]);
		}
		elog_warn("no sentinel step: events "
			  "raised on steps only will be missed");
		return;
	}
	snprintf(jobarg, sizeof(jobarg), "--jobid=%u", job_id);
	fflush(NULL);
	s->pid = fork();
	if (s->pid == 0) {
		size_t k;

		close(p[0]);
		dup2(p[1], 1);
		close(p[1]);
		close(q[1]);
		dup2(q[0], 0);
		close(q[0]);
		for (k = 0; stale_vars[k]; k++)
			unsetenv(stale_vars[k]);
		execlp(srun, srun, jobarg, "--overlap", "-N1", "-n1", "-Q",
		       "--kill-on-bad-exit=0", "--job-name=" SENTINEL_NAME,
		       self, "--sentinel", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	close(q[0]);
	if (s->pid < 0) {
		close(p[0]);
		close(q[1]);
		return;
	}
	s->fd = p[0];
	s->in = q[1];
	fcntl(s->in, F_SETFD, FD_CLOEXEC);
	fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
}
/*
 * Read what the sentinel said.  Returns the signal of the last complete
 * line ("READY" sets *ready), 0 if none; -1 once it is gone.
 */
int sentinel_read(struct sentinel *s, bool *ready)
{
	int sig = 0;
	char *nl;
	ssize_t n;

	if (s->fd < 0)
		return -1;
	for (;;) {
		n = read(s->fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
		if (n > 0) {
			s->len += (size_t)n;
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			close(s->fd);
			s->fd = -1;
			sentinel_ready = false;
			break;
		} else {
			break;
		}
		if (s->len == sizeof(s->buf) - 1)
			s->len = 0; /* garbage: drop it */
	}
	s->buf[s->len] = '\0';
	while ((nl = strchr(s->buf, '\n'))) {
		int v;

		*nl = '\0';
		if (strcmp(s->buf, "READY") == 0) {
			sentinel_ready = s->fd >= 0;
			if (ready)
				*ready = true;
		} else if (parse_signal(s->buf, &v) == PARSE_OK) {
			sig = v;
		}
		s->len -= (size_t)(nl + 1 - s->buf);
		memmove(s->buf, nl + 1, s->len + 1);
	}
	return sig ? sig : (s->fd < 0 ? -1 : 0);
}
void sentinel_stop(struct sentinel *s)
{
	double deadline = now_s() + KILL_WAIT_S;

	sentinel_ready = false;
	if (s->in >= 0) {
		close(s->in);
		s->in = -1;
		while (s->pid > 0 && now_s() < deadline) {
			if (waitpid(s->pid, NULL, WNOHANG) != 0)
				s->pid = -1;
			else
				sleep_ms(20);
		}
	}
	if (s->pid > 0) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		s->pid = -1;
	}
	if (s->fd >= 0) {
		close(s->fd);
		s->fd = -1;
	}
}