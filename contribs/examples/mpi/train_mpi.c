/*
 * train_mpi: elastic data-parallel training with MPI, the C counterpart of
 * contribs/examples/pytorch/train_ddp.py.
 *
 * Trains a linear regression y = x.w + b on a synthetic, deterministic data
 * set of N samples (ids 0..N-1) with SGD and momentum.  Each global step
 * takes the next --batch sample ids of the epoch's shuffled order, split
 * across the ranks by rank (as torch.tensor_split does); the ranks
 * allreduce their gradients, so the update is the mean over the global batch
 * at any world size.  World size and rank come from MPI, not from RANK.
 *
 * Elastic behaviour (libelastic):
 *   - after every step the ranks allreduce (MAX) whether any of them saw
 *     elastic_event_detected(); if so, rank 0 writes a checkpoint of that
 *     step and every rank exits 0, so that the launcher can relaunch at the
 *     new size;
 *   - a checkpoint (ckpt-%08d.bin, by step) holds the weights, the momentum,
 *     the step, the epoch and the data position (samples consumed, global):
 *     it loads at any world size, and no sample is skipped or repeated;
 *   - on start rank 0 resumes from the newest checkpoint of
 *     ELASTIC_PREV_CHECKPOINT (a file or a directory) and the checkpoint
 *     directory (--checkpoint-dir, else ELASTIC_CHECKPOINT_DIR) and
 *     broadcasts it.
 *
 * Each rank appends the sample ids it trained on to
 * <sample-log-dir>/samples.rank<R>.world<W>.pid<P>.log, one line per step,
 * "step epoch id id ...", the format of train_ddp.py that
 * ../pytorch/check_samples.py checks.
 *
 * Rank 0 prints, among others, these lines for scripts:
 *   train_mpi: world W restart R fresh start|resumed from PATH at step S,
 *     samples consumed C, loss L
 *   step S epoch E samples C loss L world W
 *   train_mpi: elastic event at step S (samples consumed C): checkpoint
 *     PATH, exiting
 *   initial loss L          (the loss of the untrained model)
 *   final loss L            (after the last step)
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "libelastic/elastic.h"

#define PROG	     "train_mpi"
#define CKPT_MAGIC   "ELMPICK1"
#define CKPT_VERSION 1u
#define MAX_FEATURES 1024
#define MAX_PATH_LEN 4096

struct config {
	long samples;
	int features;
	int epochs;
	long batch;
	double lr;
	double momentum;
	double noise;
	uint64_t seed;
	const char *checkpoint_dir;
	long checkpoint_every;
	const char *sample_log_dir;
	long log_every;
	double step_sleep;
};

/* The training state: what a checkpoint holds and rank 0 broadcasts. */
struct state {
	int64_t step;	  /* global steps done */
	int64_t consumed; /* samples consumed over all epochs: the position */
	double initial_loss;
	double w[MAX_FEATURES + 1]; /* weights, then the bias */
	double v[MAX_FEATURES + 1]; /* momentum buffer */
};

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

static int rank, world;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One line on stderr, then the whole world ends. */
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": rank %d: ", rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

/* ------------------------------------------------------------------ */
/* Deterministic data: the same on every rank, at any world size */

static uint64_t mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform double in (0, 1) from a hash. */
static double unit(uint64_t h)
{
	return ((double)(h >> 11) + 0.5) / 9007199254740992.0;
}

/* A standard normal value, a pure function of (seed, a, b). */
static double gauss(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t h = mix64(mix64(mix64(seed) ^ a) ^ b);
	double u1 = unit(h), u2 = unit(mix64(h));

	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

struct dataset {
	long n;
	int d;
	double *x; /* n * d */
	double *y; /* n */
};

static void make_dataset(const struct config *c, struct dataset *ds)
{
	double truth[MAX_FEATURES + 1];
	long i;
	int j;

	ds->n = c->samples;
	ds->d = c->features;
	ds->x =
	    malloc(sizeof(double) * (size_t)c->samples * (size_t)c->features);
	ds->y = malloc(sizeof(double) * (size_t)c->samples);
	if (!ds->x || !ds->y)
		die("out of memory for %ld samples", c->samples);
	for (j = 0; j <= c->features; j++)
		truth[j] = gauss(c->seed, UINT64_MAX, (uint64_t)j);
	for (i = 0; i < c->samples; i++) {
		double t = truth[c->features];

		for (j = 0; j < c->features; j++) {
			double v = gauss(c->seed, (uint64_t)i, (uint64_t)j);

			ds->x[i * c->features + j] = v;
			t += v * truth[j];
		}
		ds->y[i] =
		    t + c->noise * gauss(c->seed, (uint64_t)i, UINT64_MAX - 1);
	}
}

/* The epoch's order of the sample ids: Fisher-Yates, seeded by epoch. */
static void epoch_order(const struct config *c, int64_t epoch, long *order)
{
	uint64_t s = mix64(c->seed * 1000003ULL + (uint64_t)epoch);
	long i;

	for (i = 0; i < c->samples; i++)
		order[i] = i;
	for (i = c->samples - 1; i > 0; i--) {
		long k, t;

		s = mix64(s);
		k = (long)(s % (uint64_t)(i + 1));
		t = order[i];
		order[i] = order[k];
		order[k] = t;
	}
}

static double predict(const struct dataset *ds, const double *w, long i)
{
	const double *x = ds->x + i * ds->d;
	double p = w[ds->d];
	int j;

	for (j = 0; j < ds->d; j++)
		p += w[j] * x[j];
	return p;
}

/* Mean squared error over the whole data set. */
static double full_loss(const struct dataset *ds, const double *w)
{
	double s = 0;
	long i;

	for (i = 0; i < ds->n; i++) {
		double e = predict(ds, w, i) - ds->y[i];

		s += e * e;
	}
	return s / (double)ds->n;
}

/* ------------------------------------------------------------------ */
/* Checkpoints */

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

static int write_all(int fd, const void *p, size_t n)
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

static int mkdir_p(const char *path)
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

/*
 * Write ckpt-<step>.bin atomically: a temporary file, fsync, rename, fsync
 * of the directory.  A reader sees all of it or none.  Returns the path in
 * out, or dies with one line.
 */
static void save_checkpoint(const struct config *c, const char *dir,
			    const struct state *st, char *out, size_t len)
{
	struct ckpt_header h;
	char tmp[MAX_PATH_LEN];
	size_t nw = (size_t)c->features + 1;
	uint64_t sum;
	int fd, dfd;

	if (mkdir_p(dir) != 0)
		die("cannot create checkpoint directory %s: %s", dir,
		    strerror(errno));
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
	h.world_size = world;
	h.initial_loss = st->initial_loss;
	snprintf(out, len, "%s/ckpt-%08lld.bin", dir, (long long)st->step);
	snprintf(tmp, sizeof(tmp), "%s/.ckpt-%08lld.bin.tmp.%ld", dir,
		 (long long)st->step, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		die("cannot write checkpoint %s: %s", tmp, strerror(errno));
	sum = fnv1a(FNV_INIT, &h, sizeof(h));
	sum = fnv1a(sum, st->w, nw * sizeof(double));
	sum = fnv1a(sum, st->v, nw * sizeof(double));
	if (write_all(fd, &h, sizeof(h)) != 0 ||
	    write_all(fd, st->w, nw * sizeof(double)) != 0 ||
	    write_all(fd, st->v, nw * sizeof(double)) != 0 ||
	    write_all(fd, &sum, sizeof(sum)) != 0 || fsync(fd) != 0) {
		int e = errno;

		close(fd);
		unlink(tmp);
		die("cannot write checkpoint %s: %s", tmp, strerror(e));
	}
	if (close(fd) != 0 || rename(tmp, out) != 0) {
		int e = errno;

		unlink(tmp);
		die("cannot write checkpoint %s: %s", out, strerror(e));
	}
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
}

/* Read a checkpoint into *st; dies with one line if it is not one of this
 * training (another data set) or is damaged. */
static void load_checkpoint(const struct config *c, const char *path,
			    struct state *st)
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
static void newest_in(const char *path, long long *best_step, char *best,
		      size_t len)
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

/* ------------------------------------------------------------------ */
/* Options */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mpirun [...] " PROG " [OPTION...]\n"
		"\n"
		"Elastic data-parallel linear regression with MPI_Allreduce.\n"
		"\n"
		"  --samples=N           data set size; sample ids 0..N-1 "
		"(4096)\n"
		"  --features=D          features per sample (16)\n"
		"  --epochs=E            passes over the data set (3)\n"
		"  --batch=B             samples per global step, split across "
		"ranks (64)\n"
		"  --lr=X                learning rate (0.05)\n"
		"  --momentum=X          SGD momentum (0.9)\n"
		"  --noise=X             label noise (0.1)\n"
		"  --seed=S              data set and order seed (1234)\n"
		"  --checkpoint-dir=DIR  where checkpoints go (default "
		"ELASTIC_CHECKPOINT_DIR)\n"
		"  --checkpoint-every=K  also checkpoint every K steps (0: on "
		"events and at the end)\n"
		"  --sample-log-dir=DIR  where each rank logs its sample ids "
		"(default: none)\n"
		"  --log-every=K         rank 0 prints the loss every K steps "
		"(10)\n"
		"  --step-sleep=SEC      simulated compute per step (0)\n");
}

static long opt_long(const char *name, const char *v, long min, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < min || n > max) {
		if (rank == 0)
			fprintf(stderr,
				PROG ": --%s=%s: not a whole number in "
				     "%ld..%ld\n",
				name, v, min, max);
		MPI_Finalize();
		exit(2);
	}
	return n;
}

static double opt_double(const char *name, const char *v, double min,
			 double max)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || !(x >= min && x <= max)) {
		if (rank == 0)
			fprintf(stderr,
				PROG ": --%s=%s: not a number in %g..%g\n",
				name, v, min, max);
		MPI_Finalize();
		exit(2);
	}
	return x;
}

static void parse_args(int argc, char **argv, struct config *c)
{
	enum {
		O_SAMPLES = 256,
		O_FEATURES,
		O_EPOCHS,
		O_BATCH,
		O_LR,
		O_MOMENTUM,
		O_NOISE,
		O_SEED,
		O_CKPT_DIR,
		O_CKPT_EVERY,
		O_SAMPLE_LOG_DIR,
		O_LOG_EVERY,
		O_STEP_SLEEP,
	};
	static const struct option longopts[] = {
		{ "samples", required_argument, NULL, O_SAMPLES },
		{ "features", required_argument, NULL, O_FEATURES },
		{ "epochs", required_argument, NULL, O_EPOCHS },
		{ "batch", required_argument, NULL, O_BATCH },
		{ "global-batch", required_argument, NULL, O_BATCH },
		{ "lr", required_argument, NULL, O_LR },
		{ "momentum", required_argument, NULL, O_MOMENTUM },
		{ "noise", required_argument, NULL, O_NOISE },
		{ "seed", required_argument, NULL, O_SEED },
		{ "checkpoint-dir", required_argument, NULL, O_CKPT_DIR },
		{ "checkpoint-every", required_argument, NULL, O_CKPT_EVERY },
		{ "sample-log-dir", required_argument, NULL, O_SAMPLE_LOG_DIR },
		{ "log-dir", required_argument, NULL, O_SAMPLE_LOG_DIR },
		{ "log-every", required_argument, NULL, O_LOG_EVERY },
		{ "step-sleep", required_argument, NULL, O_STEP_SLEEP },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(c, 0, sizeof(*c));
	c->samples = 4096;
	c->features = 16;
	c->epochs = 3;
	c->batch = 64;
	c->lr = 0.05;
	c->momentum = 0.9;
	c->noise = 0.1;
	c->seed = 1234;
	c->log_every = 10;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case O_SAMPLES:
			c->samples = opt_long("samples", optarg, 1, 1L << 24);
			break;
		case O_FEATURES:
			c->features =
			    (int)opt_long("features", optarg, 1, MAX_FEATURES);
			break;
		case O_EPOCHS:
			c->epochs = (int)opt_long("epochs", optarg, 1, 1000000);
			break;
		case O_BATCH:
			c->batch = opt_long("batch", optarg, 1, 1L << 24);
			break;
		case O_LR:
			c->lr = opt_double("lr", optarg, 0, 1e6);
			break;
		case O_MOMENTUM:
			c->momentum = opt_double("momentum", optarg, 0, 1);
			break;
		case O_NOISE:
			c->noise = opt_double("noise", optarg, 0, 1e6);
			break;
		case O_SEED:
			c->seed =
			    (uint64_t)opt_long("seed", optarg, 0, LONG_MAX);
			break;
		case O_CKPT_DIR:
			c->checkpoint_dir = optarg;
			break;
		case O_CKPT_EVERY:
			c->checkpoint_every =
			    opt_long("checkpoint-every", optarg, 0, LONG_MAX);
			break;
		case O_SAMPLE_LOG_DIR:
			c->sample_log_dir = optarg;
			break;
		case O_LOG_EVERY:
			c->log_every =
			    opt_long("log-every", optarg, 0, LONG_MAX);
			break;
		case O_STEP_SLEEP:
			c->step_sleep =
			    opt_double("step-sleep", optarg, 0, 3600);
			break;
		case 'h':
			if (rank == 0)
				usage(stdout);
			MPI_Finalize();
			exit(0);
		default:
			if (rank == 0)
				fprintf(stderr, PROG ": bad option (" PROG
						     " --help for more)\n");
			MPI_Finalize();
			exit(2);
		}
	}
	if (optind < argc) {
		if (rank == 0)
			fprintf(stderr, PROG ": unexpected argument: %s\n",
				argv[optind]);
		MPI_Finalize();
		exit(2);
	}
	if (!c->checkpoint_dir) {
		const char *e = getenv("ELASTIC_CHECKPOINT_DIR");

		c->checkpoint_dir = e && e[0] ? e : NULL;
	}
}

/* ------------------------------------------------------------------ */

static void sleep_s(double s)
{
	struct timespec t;

	t.tv_sec = (time_t)s;
	t.tv_nsec = (long)((s - (double)t.tv_sec) * 1e9);
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* This rank's part [lo, hi) of a global batch of n samples, as
 * torch.tensor_split(batch, world)[rank] splits it. */
static void my_part(long n, long *lo, long *hi)
{
	long q = n / world, r = n % world;

	*lo = rank * q + (rank < r ? rank : r);
	*hi = *lo + q + (rank < r ? 1 : 0);
}

/* Rank 0 picks and reads the checkpoint (the newest of
 * ELASTIC_PREV_CHECKPOINT and the checkpoint dir; its path in ckpt, ""
 * for a fresh start); everyone gets its state. */
static void resume_newest(const struct config *c, const struct dataset *ds,
			  struct state *st, unsigned restart, char *ckpt,
			  size_t len)
{
	if (rank == 0) {
		long long best_step = -1;

		newest_in(getenv("ELASTIC_PREV_CHECKPOINT"), &best_step, ckpt,
			  len);
		newest_in(c->checkpoint_dir, &best_step, ckpt, len);
		if (ckpt[0])
			load_checkpoint(c, ckpt, st);
	}
	MPI_Bcast(st, (int)sizeof(*st), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		printf(PROG ": world %d restart %u %s%s at step %lld, samples "
			    "consumed %lld, loss %.6f\n",
		       world, restart,
		       ckpt[0] ? "resumed from " : "fresh start", ckpt,
		       (long long)st->step, (long long)st->consumed,
		       full_loss(ds, st->w));
		fflush(stdout);
	}
}

/* This rank's sample log in --sample-log-dir (its path in path): one per
 * process, so that no launch appends to another's. */
static FILE *open_sample_log(const struct config *c, char *path, size_t len)
{
	FILE *slog;

	if (mkdir_p(c->sample_log_dir) != 0)
		die("cannot create %s: %s", c->sample_log_dir, strerror(errno));
	snprintf(path, len, "%s/samples.rank%d.world%d.pid%ld.log",
		 c->sample_log_dir, rank, world, (long)getpid());
	slog = fopen(path, "a");
	if (!slog)
		die("cannot write %s: %s", path, strerror(errno));
	return slog;
}

/*
 * One SGD step over the global batch of n samples, this rank's part being
 * order[from..to): the weights and momentum of st updated with the mean
 * gradient.  Returns the global batch's sum of squared errors.
 */
static double sgd_step(const struct config *c, const struct dataset *ds,
		       struct state *st, const long *order, long from, long to,
		       long n, double *grad)
{
	int nw = c->features + 1;
	long k;
	int j;

	/* Local sums: gradient of the squared error, and the error;
	 * the allreduce adds them over the ranks. */
	memset(grad, 0, sizeof(double) * (size_t)(nw + 1));
	for (k = from; k < to; k++) {
		long i = order[k];
		const double *x = ds->x + i * c->features;
		double e = predict(ds, st->w, i) - ds->y[i];

		for (j = 0; j < c->features; j++)
			grad[j] += 2.0 * e * x[j];
		grad[c->features] += 2.0 * e;
		grad[nw] += e * e;
	}
	MPI_Allreduce(MPI_IN_PLACE, grad, nw + 1, MPI_DOUBLE, MPI_SUM,
		      MPI_COMM_WORLD);
	for (j = 0; j < nw; j++) {
		st->v[j] = c->momentum * st->v[j] + grad[j] / (double)n;
		st->w[j] -= c->lr * st->v[j];
	}
	return grad[nw];
}

/* The step's line of the sample log: "step epoch id id ...". */
static void log_step_samples(FILE *slog, const char *path,
			     const struct state *st, int64_t epoch,
			     const long *order, long from, long to)
{
	long k;

	fprintf(slog, "%lld %lld", (long long)st->step, (long long)epoch);
	for (k = from; k < to; k++)
		fprintf(slog, " %ld", order[k]);
	fputc('\n', slog);
	if (fflush(slog) != 0)
		die("cannot write %s: %s", path, strerror(errno));
}

/* Every --log-every steps, rank 0's line of the batch's mean loss. */
static void log_step_loss(const struct config *c, const struct state *st,
			  int64_t epoch, double sqerr, long n)
{
	if (rank == 0 && c->log_every && st->step % c->log_every == 0) {
		printf("step %lld epoch %lld samples %lld loss %.6f "
		       "world %d\n",
		       (long long)st->step, (long long)epoch,
		       (long long)st->consumed, sqerr / (double)n, world);
		fflush(stdout);
	}
}

/* If any rank saw an elastic event: rank 0 checkpoints this step and
 * every rank exits, for the launcher to relaunch at the new size. */
static void stop_on_event(const struct config *c, const struct state *st,
			  char *ckpt, size_t len, FILE *slog)
{
	int flag, any;

	/* All ranks agree whether any saw the event, so that they
	 * all stop after the same step. */
	flag = elastic_event_detected();
	MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any) {
		if (rank == 0 && c->checkpoint_dir)
			save_checkpoint(c, c->checkpoint_dir, st, ckpt, len);
		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0) {
			printf(PROG ": elastic event at step %lld "
				    "(samples consumed %lld): "
				    "checkpoint %s, exiting\n",
			       (long long)st->step, (long long)st->consumed,
			       c->checkpoint_dir ? ckpt : "none");
			fflush(stdout);
		}
		if (slog)
			fclose(slog);
		MPI_Finalize();
		/* Not 0: the launcher relaunches, never takes it for
		 * the end of the training. */
		elastic_exit_event();
	}
}

/* The end of the training: rank 0 checkpoints the last step and prints
 * the summary and the losses. */
static void finish_training(const struct config *c, const struct dataset *ds,
			    const struct state *st, char *ckpt, size_t len)
{
	ckpt[0] = '\0';
	if (rank == 0 && c->checkpoint_dir && st->step > 0)
		save_checkpoint(c, c->checkpoint_dir, st, ckpt, len);
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		printf(PROG ": done: %d epochs, %lld steps, %lld samples, "
			    "checkpoint %s\n",
		       c->epochs, (long long)st->step, (long long)st->consumed,
		       ckpt[0] ? ckpt : "none");
		printf("initial loss %.6f\n", st->initial_loss);
		printf("final loss %.6f\n", full_loss(ds, st->w));
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	struct config c;
	struct dataset ds;
	struct state st;
	char ckpt[MAX_PATH_LEN] = "", sample_log[MAX_PATH_LEN];
	double *grad;
	long *order = NULL;
	int64_t total, order_epoch = -1;
	unsigned restart = 0;
	const char *env;
	FILE *slog = NULL;
	int nw;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world);
	if (elastic_init() != 0)
		die("ELASTIC_SIGNAL=%s: not a signal libelastic knows",
		    getenv("ELASTIC_SIGNAL") ? getenv("ELASTIC_SIGNAL") : "");
	parse_args(argc, argv, &c);
	env = getenv("ELASTIC_RESTART_COUNT");
	if (env && env[0])
		restart = (unsigned)strtoul(env, NULL, 10);

	nw = c.features + 1;
	make_dataset(&c, &ds);
	order = malloc(sizeof(long) * (size_t)c.samples);
	grad = malloc(sizeof(double) * (size_t)(nw + 1));
	if (!order || !grad)
		die("out of memory");
	memset(&st, 0, sizeof(st));
	st.initial_loss = full_loss(&ds, st.w);
	resume_newest(&c, &ds, &st, restart, ckpt, sizeof(ckpt));
	if (c.sample_log_dir)
		slog = open_sample_log(&c, sample_log, sizeof(sample_log));

	total = (int64_t)c.samples * c.epochs;
	while (st.consumed < total) {
		int64_t epoch = st.consumed / c.samples;
		long offset = (long)(st.consumed % c.samples), n, lo, hi;
		double sqerr;

		if (epoch != order_epoch) {
			epoch_order(&c, epoch, order);
			order_epoch = epoch;
		}
		/* A global step never crosses an epoch boundary. */
		n = c.samples - offset < c.batch ? c.samples - offset : c.batch;
		my_part(n, &lo, &hi);
		sqerr = sgd_step(&c, &ds, &st, order, offset + lo, offset + hi,
				 n, grad);
		if (c.step_sleep > 0)
			sleep_s(c.step_sleep);

		st.step++;
		st.consumed += n;
		if (slog)
			log_step_samples(slog, sample_log, &st, epoch, order,
					 offset + lo, offset + hi);
		log_step_loss(&c, &st, epoch, sqerr, n);
		stop_on_event(&c, &st, ckpt, sizeof(ckpt), slog);
		if (c.checkpoint_every && st.step % c.checkpoint_every == 0 &&
		    rank == 0 && c.checkpoint_dir)
			save_checkpoint(&c, c.checkpoint_dir, &st, ckpt,
					sizeof(ckpt));
	}

	finish_training(&c, &ds, &st, ckpt, sizeof(ckpt));
	if (slog)
		fclose(slog);
	free(order);
	free(grad);
	free(ds.x);
	free(ds.y);
	MPI_Finalize();
	return 0;
}
