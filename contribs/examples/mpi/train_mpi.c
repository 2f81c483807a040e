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
 *     step and every rank exits with elastic_exit_event(), so that the
 *     launcher can relaunch at the new size;
 *   - every rank reports each step done with elastic_progress(), and rank 0
 *     brackets each save with elastic_progress_saving(1)/(0), for
 *     elastic-run's hang detection (a rank that cannot report trains on);
 *   - a save that fails (a full disk) ends nothing: one line on stderr,
 *     "train_mpi: checkpoint not saved at step S: ERROR (the newest
 *     checkpoint stays NAME|none); training goes on", and a relaunch
 *     resumes from that older checkpoint;
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
 *     PATH|none, exiting
 *   initial loss L          (the loss of the untrained model)
 *   final loss L            (after the last step)
 *
 * The parts: the options and the training loop here; dataset.c, the
 * synthetic data set, the model and its SGD step; checkpoint.c, saving,
 * loading and finding the newest checkpoint; train_mpi.h, what they share.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "libelastic/elastic.h"
#include "train_mpi.h"

int my_rank, n_ranks;

/* One line on stderr, then the whole world ends. */
void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": rank %d: ", my_rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
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
		"  --log-time            ... with the wall-clock time, in "
		"seconds since the epoch\n"
		"  --step-sleep=SEC      simulated compute per step (0)\n"
		"  --sample-sleep=SEC    simulated compute per sample of the "
		"rank's share\n"
		"                        of each step (0): a larger world "
		"trains faster\n");
}

static long opt_long(const char *name, const char *v, long min, long max)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < min || n > max) {
		if (my_rank == 0)
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
		if (my_rank == 0)
			fprintf(stderr,
				PROG ": --%s=%s: not a number in %g..%g\n",
				name, v, min, max);
		MPI_Finalize();
		exit(2);
	}
	return x;
}

/* The options' defaults. */
static void config_defaults(struct config *c)
{
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
}

/* After the options: no operand; the checkpoint directory defaults to
 * ELASTIC_CHECKPOINT_DIR. */
static void finish_args(int argc, char **argv, struct config *c)
{
	if (optind < argc) {
		if (my_rank == 0)
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
		O_SAMPLE_SLEEP,
		O_LOG_TIME,
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
		{ "sample-sleep", required_argument, NULL, O_SAMPLE_SLEEP },
		{ "log-time", no_argument, NULL, O_LOG_TIME },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	config_defaults(c);
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
		case O_SAMPLE_SLEEP:
			c->sample_sleep =
			    opt_double("sample-sleep", optarg, 0, 60);
			break;
		case O_LOG_TIME:
			c->log_time = true;
			break;
		case 'h':
			if (my_rank == 0)
				usage(stdout);
			MPI_Finalize();
			exit(0);
		default:
			if (my_rank == 0)
				fprintf(stderr, PROG ": bad option (" PROG
						     " --help for more)\n");
			MPI_Finalize();
			exit(2);
		}
	}
	finish_args(argc, argv, c);
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
	long q = n / n_ranks, r = n % n_ranks;

	*lo = my_rank * q + (my_rank < r ? my_rank : r);
	*hi = *lo + q + (my_rank < r ? 1 : 0);
}

/* Rank 0 picks and reads the checkpoint (the newest of
 * ELASTIC_PREV_CHECKPOINT and the checkpoint dir; its path in ckpt, ""
 * for a fresh start); everyone gets its state. */
static void resume_newest(const struct config *c, const struct dataset *ds,
			  struct state *st, unsigned restart, char *ckpt,
			  size_t len)
{
	if (my_rank == 0) {
		long long best_step = -1;

		newest_in(getenv("ELASTIC_PREV_CHECKPOINT"), &best_step, ckpt,
			  len);
		newest_in(c->checkpoint_dir, &best_step, ckpt, len);
		if (ckpt[0])
			load_checkpoint(c, ckpt, st);
	}
	MPI_Bcast(st, (int)sizeof(*st), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (my_rank == 0) {
		printf(PROG ": world %d restart %u %s%s at step %lld, samples "
			    "consumed %lld, loss %.6f\n",
		       n_ranks, restart,
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
		 c->sample_log_dir, my_rank, n_ranks, (long)getpid());
	slog = fopen(path, "a");
	if (!slog)
		die("cannot write %s: %s", path, strerror(errno));
	return slog;
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
	if (my_rank == 0 && c->log_every && st->step % c->log_every == 0) {
		printf("step %lld epoch %lld samples %lld loss %.6f "
		       "world %d",
		       (long long)st->step, (long long)epoch,
		       (long long)st->consumed, sqerr / (double)n, n_ranks);
		if (c->log_time) {
			struct timespec t;

			clock_gettime(CLOCK_REALTIME, &t);
			printf(" time %lld.%03ld", (long long)t.tv_sec,
			       t.tv_nsec / 1000000);
		}
		putchar('\n');
		fflush(stdout);
	}
}

/* Rank 0's checkpoint of this step, announced to elastic-run: however
 * long the save takes, it is not a hang.  0, or -1 when it failed (said on
 * stderr; the training goes on). */
static int checkpoint_now(const struct config *c, const struct state *st,
			  char *ckpt, size_t len)
{
	int rc;

	elastic_progress_saving(1);
	rc = save_checkpoint(c, c->checkpoint_dir, st, ckpt, len);
	elastic_progress_saving(0);
	return rc;
}

/* If any rank saw an elastic event: rank 0 checkpoints this step and
 * every rank exits, for the launcher to relaunch at the new size (from an
 * older checkpoint when this save failed). */
static void stop_on_event(const struct config *c, const struct state *st,
			  char *ckpt, size_t len, FILE *slog)
{
	int flag, any;
	bool saved = false;

	/* All ranks agree whether any saw the event, so that they
	 * all stop after the same step. */
	flag = elastic_event_detected();
	MPI_Allreduce(&flag, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (any) {
		if (my_rank == 0 && c->checkpoint_dir)
			saved = checkpoint_now(c, st, ckpt, len) == 0;
		MPI_Barrier(MPI_COMM_WORLD);
		if (my_rank == 0) {
			printf(PROG ": elastic event at step %lld "
				    "(samples consumed %lld): "
				    "checkpoint %s, exiting\n",
			       (long long)st->step, (long long)st->consumed,
			       saved ? ckpt : "none");
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
	if (my_rank == 0 && c->checkpoint_dir && st->step > 0)
		checkpoint_now(c, st, ckpt, len);
	MPI_Barrier(MPI_COMM_WORLD);
	if (my_rank == 0) {
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
	MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n_ranks);
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
		if (c.sample_sleep > 0)
			sleep_s(c.sample_sleep * (double)(hi - lo));

		st.step++;
		st.consumed += n;
		/* The step's allreduce is done: report it (hang detection). */
		elastic_progress((unsigned long long)st.step);
		if (slog)
			log_step_samples(slog, sample_log, &st, epoch, order,
					 offset + lo, offset + hi);
		log_step_loss(&c, &st, epoch, sqerr, n);
		stop_on_event(&c, &st, ckpt, sizeof(ckpt), slog);
		if (c.checkpoint_every && st.step % c.checkpoint_every == 0 &&
		    my_rank == 0 && c.checkpoint_dir)
			checkpoint_now(&c, &st, ckpt, sizeof(ckpt));
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
