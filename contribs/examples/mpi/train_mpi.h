/*
 * What the parts of train_mpi share: train_mpi.c (the options and the
 * training loop), dataset.c (the synthetic data set, the model and its SGD
 * step) and checkpoint.c (checkpoints: save, load, the newest).  Private to
 * the program.
 */
#ifndef TRAIN_MPI_H
#define TRAIN_MPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROG	     "train_mpi"
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
	bool log_time; /* the step lines' wall-clock time */
	double step_sleep;
	double sample_sleep; /* per sample of the rank's share */
};

/* The training state: what a checkpoint holds and rank 0 broadcasts. */
struct state {
	int64_t step;	  /* global steps done */
	int64_t consumed; /* samples consumed over all epochs: the position */
	double initial_loss;
	double w[MAX_FEATURES + 1]; /* weights, then the bias */
	double v[MAX_FEATURES + 1]; /* momentum buffer */
};

struct dataset {
	long n;
	int d;
	double *x; /* n * d */
	double *y; /* n */
};

/* This process's rank and the world size, from MPI. */
extern int my_rank, n_ranks;

/* train_mpi.c: one line on stderr, then the whole world ends. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* dataset.c */
void make_dataset(const struct config *c, struct dataset *ds);
void epoch_order(const struct config *c, int64_t epoch, long *order);
double full_loss(const struct dataset *ds, const double *w);
double sgd_step(const struct config *c, const struct dataset *ds,
		struct state *st, const long *order, long from, long to, long n,
		double *grad);

/* checkpoint.c */
int mkdir_p(const char *path);
/* 0, or -1 after one line on stderr: the training goes on. */
int save_checkpoint(const struct config *c, const char *dir,
		    const struct state *st, char *out, size_t len);
void load_checkpoint(const struct config *c, const char *path,
		     struct state *st);
void newest_in(const char *path, long long *best_step, char *best, size_t len);

#endif
