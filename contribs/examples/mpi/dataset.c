/*
 * train_mpi's data and model (train_mpi.h).  Deterministic data: the same
 * on every rank, at any world size; each epoch's order of the sample ids;
 * the model's loss and its SGD step, whose gradient the ranks allreduce.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "train_mpi.h"

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

void make_dataset(const struct config *c, struct dataset *ds)
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
void epoch_order(const struct config *c, int64_t epoch, long *order)
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
double full_loss(const struct dataset *ds, const double *w)
{
	double s = 0;
	long i;

	for (i = 0; i < ds->n; i++) {
		double e = predict(ds, w, i) - ds->y[i];

		s += e * e;
	}
	return s / (double)ds->n;
}

/*
 * One SGD step over the global batch of n samples, this rank's part being
 * order[from..to): the weights and momentum of st updated with the mean
 * gradient.  Returns the global batch's sum of squared errors.
 */
double sgd_step(const struct config *c, const struct dataset *ds,
		struct state *st, const long *order, long from, long to, long n,
		double *grad)
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
