/* Slow nodes (straggle.h): pure. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "straggle.h"

void straggle_init(struct straggle *s, unsigned steps, double factor)
{
	memset(s, 0, sizeof(*s));
	s->steps = steps >= 2 ? steps : 2;
	s->factor = factor > 1.0 ? factor : STRAGGLE_FACTOR_DEFAULT;
}

void straggle_free(struct straggle *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}

static struct straggle_rank *straggle_rank(struct straggle *s, unsigned rank)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->r[i].rank == rank)
			return &s->r[i];
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct straggle_rank *r = realloc(s->r, cap * sizeof(*r));

		if (!r)
			return NULL;
		s->r = r;
		s->cap = cap;
	}
	memset(&s->r[s->n], 0, sizeof(s->r[s->n]));
	s->r[s->n].rank = rank;
	return &s->r[s->n++];
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of field (a double of struct straggle_rank) over the latest
 * windows of the ranks on nodes other than node. */
static double median_of(const struct straggle *s, size_t node, size_t field)
{
	double *v = s->n ? malloc(s->n * sizeof(*v)) : NULL;
	double m = 0;
	size_t k = 0;

	for (size_t i = 0; v && i < s->n; i++)
		if (s->r[i].measured && s->r[i].node != node)
			memcpy(&v[k++], (const char *)&s->r[i] + field,
			       sizeof(double));
	if (k) {
		qsort(v, k, sizeof(*v), by_value);
		/* The lower middle: an even count never takes the slow
		 * half's value for the norm. */
		m = v[(k - 1) / 2];
	}
	free(v);
	return m;
}

double straggle_median(const struct straggle *s, size_t node)
{
	return median_of(s, node, offsetof(struct straggle_rank, per_step));
}

/* A window closed for r: is it slow against the other nodes' ranks, and
 * slow for want of a CPU rather than for work of its own? */
static void straggle_judge(struct straggle *s, struct straggle_rank *r)
{
	double m = straggle_median(s, r->node);
	double mrun =
	    median_of(s, r->node, offsetof(struct straggle_rank, run_per_step));
	double share =
	    median_of(s, r->node, offsetof(struct straggle_rank, wait_share));
	/* What r would have waited at the others' share: on a loaded
	 * machine every rank waits in proportion to what it runs. */
	double fair = r->run_per_step * share;
	/* A rank that runs more than the others (rank 0's logging, a save
	 * nobody announced) also waits more than that share where the
	 * scheduler favours the others' short bursts: its waits say
	 * nothing of its node, whose other ranks are judged instead. */
	bool own = r->run_per_step - mrun >
		   (s->factor - 1) / 2 * mrun + STRAGGLE_FLOOR_MS;

	if (m > 0 && !own && r->per_step >= s->factor * m &&
	    r->per_step - m >= STRAGGLE_FLOOR_MS &&
	    r->wait_per_step - fair >= (r->per_step - m) / 2)
		r->slow_runs++;
	else if (m > 0)
		r->slow_runs = 0;
}

/* One rank's report: its step, whether it saves, its CPU time so far. */
static void straggle_report(struct straggle *s, struct straggle_rank *r,
			    size_t node, uint64_t step, bool saving,
			    uint64_t run, uint64_t wait)
{
	/* A new node, process or world for this number: start over. */
	if (r->ref && (node != r->node || step < r->ref_step ||
		       run < r->ref_run || wait < r->ref_wait))
		r->ref = false;
	r->node = node;
	if (saving) {
		r->ref = false;
		return;
	}
	if (!r->ref) {
		r->ref = true;
		r->ref_step = step;
		r->ref_run = run;
		r->ref_wait = wait;
		return;
	}
	if (step - r->ref_step < s->steps)
		return;
	r->wait_per_step =
	    (double)(wait - r->ref_wait) / (double)(step - r->ref_step);
	r->per_step =
	    (double)(run - r->ref_run) / (double)(step - r->ref_step) +
	    r->wait_per_step;
	r->run_per_step = r->per_step - r->wait_per_step;
	r->wait_share =
	    r->run_per_step > 0 ? r->wait_per_step / r->run_per_step : 0;
	r->measured = true;
	r->ref_step = step;
	r->ref_run = run;
	r->ref_wait = wait;
	straggle_judge(s, r);
}

int straggle_heard(struct straggle *s, size_t node, const char *line)
{
	for (const char *w = strchr(line, ' '); w; w = strchr(w + 1, ' ')) {
		unsigned rank;
		unsigned long long step, age, run, wait;
		char state;
		struct straggle_rank *r;

		if (sscanf(w + 1, "r%u=%llu/%llu/%c/%llu/%llu", &rank, &step,
			   &age, &state, &run, &wait) != 6 ||
		    (state != 'r' && state != 's'))
			continue;
		if (!(r = straggle_rank(s, rank)))
			return -1;
		straggle_report(s, r, node, step, state == 's', run, wait);
	}
	return 0;
}

int straggle_find(struct straggle *s, double *ratio)
{
	for (size_t i = 0; i < s->n; i++) {
		struct straggle_rank *r = &s->r[i];
		double m;

		if (r->named || r->slow_runs < STRAGGLE_WINDOWS)
			continue;
		m = straggle_median(s, r->node);
		/* Its node's other ranks are the same fault. */
		for (size_t j = 0; j < s->n; j++)
			if (s->r[j].node == r->node)
				s->r[j].named = true;
		*ratio = m > 0 ? r->per_step / m : 0;
		return (int)i;
	}
	return -1;
}
