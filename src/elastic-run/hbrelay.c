/*
 * An elastic event relayed by a heartbeat task (hbtask.c) to its node's
 * ranks, without slurmctld: the line "EVENT SIG" on its input signals
 * every process of its job's other steps on its node, as slurmctld's
 * signal to the job's steps (raise.h) reaches them through slurmd and
 * slurmstepd.  One RPC a member job saved per event: a rack preempted
 * does not send slurmctld a signal per job (elastic-run(1), EVENTS).
 *
 * A process is one of the job's steps' on this node by its environment,
 * which Slurm gives every task and its children: SLURM_JOB_ID the task's
 * job, SLURM_STEP_ID a step of its (not the batch or extern step, whose
 * ids are Slurm's reserved ones, nor this task's own step), and
 * SLURMD_NODENAME this node (a cluster of several slurmd on one host).
 * Only the owner's processes can be read and signalled: no other user's
 * process is ever touched.
 */
#include "config.h"

#include <dirent.h>

#include "elastic-run.h"

/* Step ids from here on are Slurm's reserved ones (batch, extern,
 * interactive, pending). */
#define HBRELAY_STEP_RESERVED 0xfffffff0UL
/* A process's environment read, at most. */
#define HBRELAY_ENV_MAX (1 << 20)

/* The value of name=... in a NUL-separated environment, or NULL. */
static const char *hbrelay_env(const char *env, size_t len, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (!strncmp(env + i, name, n) && env[i + n] == '=')
			return env + i + n + 1;
	return NULL;
}

/* /proc/PID/environ into *buf (grown as needed): its length, or -1. */
static ssize_t hbrelay_read_env(const char *pid, char **buf, size_t *cap)
{
	char path[300];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1; /* another user's, or gone */
	for (;;) {
		if (len + 1 >= *cap) {
			char *b = *cap < HBRELAY_ENV_MAX
				      ? realloc(*buf, *cap ? *cap * 2 : 16384)
				      : NULL;

			if (!b)
				break;
			*buf = b;
			*cap = *cap ? *cap * 2 : 16384;
		}
		n = read(fd, *buf + len, *cap - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!*buf)
		return -1;
	(*buf)[len] = '\0';
	return (ssize_t)len;
}

/* Is the process of this environment in another step of job on node? */
static bool hbrelay_ours(const char *env, size_t len, const char *job,
			 const char *own_step, const char *node)
{
	const char *j = hbrelay_env(env, len, "SLURM_JOB_ID");
	const char *s = hbrelay_env(env, len, "SLURM_STEP_ID");
	const char *n = hbrelay_env(env, len, "SLURMD_NODENAME");
	unsigned long step;

	if (!j || strcmp(j, job) != 0 || !s ||
	    parse_uint(s, 0, HBRELAY_STEP_RESERVED - 1, &step) != PARSE_OK)
		return false;
	if (own_step && !strcmp(s, own_step))
		return false;
	return !node || !n || !strcmp(n, node);
}

size_t hbrelay_signal(const char *job, const char *own_step, const char *node,
		      int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	char *env = NULL;
	size_t cap = 0, told = 0;
	pid_t self = getpid();

	if (!d || !job)
		goto out;
	while ((e = readdir(d))) {
		unsigned long pid;
		ssize_t len;

		if (parse_uint(e->d_name, 2, INT32_MAX, &pid) != PARSE_OK ||
		    (pid_t)pid == self)
			continue;
		len = hbrelay_read_env(e->d_name, &env, &cap);
		if (len > 0 &&
		    hbrelay_ours(env, (size_t)len, job, own_step, node) &&
		    kill((pid_t)pid, sig) == 0)
			told++;
	}
out:
	if (d)
		closedir(d);
	free(env);
	return told;
}
