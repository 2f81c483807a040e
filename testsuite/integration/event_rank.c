/*
 * event_rank DIR TAG: a C rank for t0040-event.t, linked to libelastic.
 *
 * Forks a helper child that has no handler (the default action for the
 * event signal and SIGTERM, as in a process that never loaded libelastic),
 * reports DIR/TAG.<procid>.ready, then polls elastic_event_detected().
 * When the event arrives it writes the CLOCK_REALTIME time it saw it to
 * DIR/TAG.<procid>.seen, waits for the test to create DIR/finish, and
 * reports in DIR/TAG.<procid>.child whether the helper is still alive and
 * still without a handler.  Files appear whole (written, then renamed).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libelastic/elastic.h"

static const char *dir, *tag, *procid;

static void report(const char *what, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void report(const char *what, const char *fmt, ...)
{
	char tmp[4096], path[4096];
	va_list ap;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s.%s.%s", dir, tag, procid,
		     what) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, "event_rank: %s: path too long\n", dir);
		exit(1);
	}
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "event_rank: %s: %s\n", tmp, strerror(errno));
		exit(1);
	}
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "event_rank: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static double now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 1 if /proc says pid neither catches nor ignores sig (default action). */
static int has_default_action(pid_t pid, int sig)
{
	char path[64], line[256];
	uint64_t cgt = ~0ULL, ign = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "SigCgt: %" SCNx64, &cgt);
		sscanf(line, "SigIgn: %" SCNx64, &ign);
	}
	fclose(f);
	return !((cgt | ign) & (1ULL << (sig - 1)));
}

int main(int argc, char **argv)
{
	struct elastic_world w;
	char err[8192], sync;
	int sig, pipefd[2], status, alive, deflt = 0;
	double deadline;
	pid_t child;
	struct stat st;

	if (argc != 3) {
		fprintf(stderr, "usage: event_rank DIR TAG\n");
		return 2;
	}
	dir = argv[1];
	tag = argv[2];
	procid = getenv("SLURM_PROCID") ? getenv("SLURM_PROCID") : "x";

	if (elastic_init() < 0 || (sig = elastic_signal()) < 0) {
		report("ready", "error elastic_init: %s\n", strerror(errno));
		return 1;
	}

	if (pipe(pipefd) < 0)
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		signal(sig, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		(void)!write(pipefd[1], "r", 1);
		for (;;)
			pause();
	}
	if (read(pipefd[0], &sync, 1) != 1)
		return 1;

	if (elastic_world_err(&w, err, sizeof(err)) == 0 &&
	    snprintf(err, sizeof(err),
		     "rank=%d/%d local=%d/%d group=%d/%d job=%" PRIu32
		     " master=%s:%u ckpt=%s",
		     w.rank, w.world_size, w.local_rank, w.local_world_size,
		     w.group_rank, w.nnodes, w.job_id, w.master_addr,
		     w.master_port, w.checkpoint_dir) >= (int)sizeof(err))
		err[sizeof(err) - 1] = '\0'; /* truncated: fine for a report */
	report("ready", "pid=%d child=%d signal=%d world: %s\n", (int)getpid(),
	       (int)child, sig, err);

	/* The hot loop a training rank runs: one flag read per step. */
	deadline = now(CLOCK_MONOTONIC) + 600;
	while (!elastic_event_detected()) {
		struct timespec ms = { 0, 1000000 };

		if (now(CLOCK_MONOTONIC) > deadline) {
			report("seen", "timeout\n");
			return 1;
		}
		nanosleep(&ms, NULL);
	}
	report("seen", "%.6f %d\n", now(CLOCK_REALTIME),
	       elastic_event_signal());

	/* The test says when every rank has seen it: by then any signal
	 * that could kill the helper has long been delivered. */
	deadline = now(CLOCK_MONOTONIC) + 120;
	for (;;) {
		char path[4096];
		struct timespec ms = { 0, 10000000 };

		snprintf(path, sizeof(path), "%s/finish", dir);
		if (stat(path, &st) == 0)
			break;
		if (now(CLOCK_MONOTONIC) > deadline)
			break;
		nanosleep(&ms, NULL);
	}
	/* waitpid, not kill(child, 0) alone: a dead, unreaped child still
	 * answers kill(). */
	alive = waitpid(child, &status, WNOHANG) == 0 && kill(child, 0) == 0;
	if (alive) {
		deflt = has_default_action(child, sig) &&
			has_default_action(child, SIGTERM);
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
	}
	report("child", "alive=%d default=%d\n", alive, deflt);
	return 0;
}
