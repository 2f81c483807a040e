/*
 * train_mpi's checkpoints (train_mpi.h): ckpt-%08d.bin written atomically,
 * read back and checked against the training's configuration, and the
 * newest of a checkpoint file or a directory of them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "train_mpi.h"

#define CKPT_MAGIC   "ELMPICK1"
#define CKPT_VERSION 1u

/* On disk, native byte order: header, then the state's arrays, then an
 * FNV-1a hash of everything before it. */
struct ckpt_header {
	char magic[8];
	uint32_t version;
	uint32_t features;
	int64_t samples;
	int64_t batch;
	uint64_t seed;
	int64_t step;
	int64_t epoch; /* consumed / samples: for people reading the file */
	int64_t consumed;
	int64_t world_size; /* that wrote it; any size may load it */
	double initial_loss;
};

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

#define FNV_INIT 0xcbf29ce484222325ULL

static int write_whole(int fd, const void *p, size_t n)
{
	const char *b = p;

	while (n > 0) {
		ssize_t w = write(fd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int mkdir_p(const char *path)
{
	char tmp[MAX_PATH_LEN];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, 0777) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* A save that failed (a full disk, a quota, a write error): the training
 * goes on, and says so in one line a test can grep, naming the checkpoint
 * a relaunch would resume from.  Returns -1. */
static int save_failed(const char *dir, int64_t step, int err, char *out)
{
	char newest[MAX_PATH_LEN] = "";
	long long best = -1;
	const char *base;

	out[0] = '\0';
	newest_in(dir, &best, newest, sizeof(newest));
	base = strrchr(newest, '/');
	fprintf(stderr,
		PROG ": checkpoint not saved at step %lld: %s (the newest "
		     "checkpoint stays %s); training goes on\n",
		(long long)step, strerror(err),
		newest[0] ? (base ? base + 1 : newest) : "none");
	fflush(stderr);
	return -1;
}

/*
 * Write ckpt-<step>.bin atomically: a temporary file, fsync, rename, fsync
 * of the directory.  A reader sees all of it or none.  Returns 0 and the
 * path in out; on failure -1 and "" in out, the temporary file removed and
 * the older checkpoints untouched, after one line on stderr.
 */
int save_checkpoint(const struct config *c, const char *dir,
		    const struct state *st, char *out, size_t len)
{
	struct ckpt_header h;
	char tmp[MAX_PATH_LEN];
	size_t nw = (size_t)c->features + 1;
	uint64_t sum;
	int fd, dfd;

	if (mkdir_p(dir) != 0)
		return save_failed(dir, st->step, errno, out);
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CKPT_MAGIC, sizeof(h.magic));
	h.version = CKPT_VERSION;
	h.features = (uint32_t)c->features;
	h.samples = c->samples;
	h.batch = c->batch;
	h.seed = c->seed;
	h.step = st->step;
	h.epoch = st->consumed / c->samples;
	h.consumed = st->consumed;
	h.world_size = n_ranks;
	h.initial_loss = st->initial_loss;
	snprintf(out, len, "%s/ckpt-%08lld.bin", dir, (long long)st->step);
	snprintf(tmp, sizeof(tmp), "%s/.ckpt-%08lld.bin.tmp.%ld", dir,
		 (long long)st->step, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		return save_failed(dir, st->step, errno, out);
	sum = fnv1a(FNV_INIT, &h, sizeof(h));
	sum = fnv1a(sum, st->w, nw * sizeof(double));
	sum = fnv1a(sum, st->v, nw * sizeof(double));
	if (write_whole(fd, &h, sizeof(h)) != 0 ||
	    write_whole(fd, st->w, nw * sizeof(double)) != 0 ||
	    write_whole(fd, st->v, nw * sizeof(double)) != 0 ||
	    write_whole(fd, &sum, sizeof(sum)) != 0 || fsync(fd) != 0) {
		int e = errno;

		close(fd);
		unlink(tmp);
		return save_failed(dir, st->step, e, out);
	}
	if (close(fd) != 0 || rename(tmp, out) != 0) {
		int e = errno;

		unlink(tmp);
		return save_failed(dir, st->step, e, out);
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

/* Read a checkpoint into *st; dies with one line if it is not one of this
 * training (another data set) or is damaged. */
void load_checkpoint(const struct config *c, const char *path, struct state *st)
{
	struct ckpt_header h;
	size_t nw = (size_t)c->features + 1;
	uint64_t sum, want;
	FILE *f = fopen(path, "rb");

	if (!f)
		die("cannot read checkpoint %s: %s", path, strerror(errno));
	if (fread(&h, sizeof(h), 1, f) != 1 ||
	    memcmp(h.magic, CKPT_MAGIC, sizeof(h.magic)) != 0 ||
	    h.version != CKPT_VERSION)
		die("%s: not a " PROG " checkpoint (version %u)", path,
		    CKPT_VERSION);
	if (h.features != (uint32_t)c->features)
		die("%s: --features=%d but the checkpoint has %u", path,
		    c->features, h.features);
	if (h.samples != c->samples)
		die("%s: --samples=%ld but the checkpoint has %lld", path,
		    c->samples, (long long)h.samples);
	if (h.seed != c->seed)
		die("%s: --seed=%llu but the checkpoint has %llu", path,
		    (unsigned long long)c->seed, (unsigned long long)h.seed);
	if (fread(st->w, sizeof(double), nw, f) != nw ||
	    fread(st->v, sizeof(double), nw, f) != nw ||
	    fread(&sum, sizeof(sum), 1, f) != 1)
		die("%s: truncated checkpoint", path);
	want = fnv1a(FNV_INIT, &h, sizeof(h));
	want = fnv1a(want, st->w, nw * sizeof(double));
	want = fnv1a(want, st->v, nw * sizeof(double));
	if (sum != want)
		die("%s: damaged checkpoint (checksum mismatch)", path);
	fclose(f);
	if (h.step < 0 || h.consumed < 0)
		die("%s: damaged checkpoint (negative step)", path);
	st->step = h.step;
	st->consumed = h.consumed;
	st->initial_loss = h.initial_loss;
}

/* The step of a checkpoint's file name "ckpt-%08d.bin", -1 if it is not
 * one. */
static long long ckpt_step(const char *name)
{
	const char *p;
	char *end;
	long long s;

	if (strncmp(name, "ckpt-", 5) != 0)
		return -1;
	p = name + 5;
	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	s = strtoll(p, &end, 10);
	if (errno || strcmp(end, ".bin") != 0)
		return -1;
	return s;
}

/* Consider PATH (a checkpoint file or a directory of them): keep the
 * newest (highest step) in best. */
void newest_in(const char *path, long long *best_step, char *best, size_t len)
{
	struct stat sb;
	struct dirent *e;
	DIR *d;

	if (!path || !path[0] || stat(path, &sb) != 0)
		return;
	if (S_ISREG(sb.st_mode)) {
		const char *base = strrchr(path, '/');
		long long s = ckpt_step(base ? base + 1 : path);

		/* A file named otherwise is still what the user asked for. */
		if (s < 0)
			s = 0;
		if (s > *best_step || !best[0]) {
			*best_step = s;
			snprintf(best, len, "%s", path);
		}
		return;
	}
	d = opendir(path);
	if (!d)
		return;
	while ((e = readdir(d))) {
		long long s = ckpt_step(e->d_name);

		if (s >= 0 && s > *best_step) {
			*best_step = s;
			snprintf(best, len, "%s/%s", path, e->d_name);
		}
	}
	closedir(d);
}
