/*
 * Progress records for the launcher's hang detection (elastic.h): one
 * pwrite of a fixed-size record per step to a file of the rank's own in
 * a directory of the user's own on the node (common/progress_rec.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "elastic.h"
#include "common/progress_rec.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = -2; /* -2: not opened yet; -1: nothing to report to */
static int open_errno;
static struct progress_rec rec;
/* A step was reported: before it, a save says nothing of progress. */
static bool reported;

/* The directory, made if need be, must be a directory of ours that no
 * one else may write: another user cannot feed the launcher. */
static int own_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	if (lstat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* The rank's number, digits only: RANK (torchrun, elastic-run), else
 * the MPI library's (mpirun sets no RANK); NULL when none. */
static const char *progress_rank(void)
{
	static const char *const names[] = { "RANK", "OMPI_COMM_WORLD_RANK",
					     "PMIX_RANK", "PMI_RANK" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *v = secure_getenv(names[i]);

		if (v && *v && strlen(v) <= 9 &&
		    strspn(v, "0123456789") == strlen(v))
			return v;
	}
	return NULL;
}

static void progress_open(void)
{
	const char *dir = secure_getenv("ELASTIC_PROGRESS_DIR");
	const char *rank = progress_rank();
	const char *restart = secure_getenv("ELASTIC_RESTART_COUNT");
	char path[4096];

	fd = -1;
	if (!dir || dir[0] != '/' || !rank)
		return;
	if (own_dir(dir) < 0 || snprintf(path, sizeof(path), "%s/rank.%s", dir,
					 rank) >= (int)sizeof(path)) {
		open_errno = errno ? errno : ENAMETOOLONG;
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		open_errno = errno;
		return;
	}
	rec.restart = restart ? (unsigned)strtoul(restart, NULL, 10) : 0;
	rec.pid = getpid();
	rec.sig = 0;
}

/* CLOCK_MONOTONIC in ms. */
static uint64_t mono_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static int progress_write(void)
{
	char buf[PROGRESS_REC_LEN];

	if (fd == -2)
		progress_open();
	if (fd < 0) {
		errno = open_errno;
		return open_errno ? -1 : 0;
	}
	rec.mono_ms = mono_now_ms();
	if (progress_rec_format(&rec, buf) < 0) {
		errno = EOVERFLOW;
		return -1;
	}
	return pwrite(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) ? 0 : -1;
}

int elastic_progress(unsigned long long step)
{
	int rc;

	pthread_mutex_lock(&lock);
	rec.step = step;
	rec.state = PROGRESS_STEPPING;
	reported = true;
	rc = progress_write();
	pthread_mutex_unlock(&lock);
	return rc;
}

int elastic_progress_saving(int saving)
{
	static uint64_t since; /* when the save under way began */
	int rc;

	pthread_mutex_lock(&lock);
	/* The save's time goes into the records after it (the launcher
	 * weighs it against the grace). */
	if (saving && rec.state != PROGRESS_SAVING)
		since = mono_now_ms();
	else if (!saving && rec.state == PROGRESS_SAVING)
		rec.save_ms = mono_now_ms() - since;
	rec.state = saving ? PROGRESS_SAVING : PROGRESS_STEPPING;
	rc = reported ? progress_write() : 0;
	pthread_mutex_unlock(&lock);
	return rc;
}
