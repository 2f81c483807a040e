/* The ranks' pace (pace.h): pure. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pace.h"

void pace_init(struct pace *p, double now, unsigned timeout_s)
{
	memset(p, 0, sizeof(*p));
	p->started = now;
	p->timeout_s = timeout_s;
}

void pace_free(struct pace *p)
{
	free(p->r);
	p->r = NULL;
	p->n = p->cap = 0;
}

static struct pace_rank *pace_find(struct pace *p, unsigned rank)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->r[i].rank == rank)
			return &p->r[i];
	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct pace_rank *r = realloc(p->r, cap * sizeof(*r));

		if (!r)
			return NULL;
		p->r = r;
		p->cap = cap;
	}
	memset(&p->r[p->n], 0, sizeof(p->r[p->n]));
	p->r[p->n].rank = rank;
	return &p->r[p->n++];
}

static void pace_ring_add(struct pace *p, double dt)
{
	p->ring[p->ring_i] = dt;
	p->ring_i = (p->ring_i + 1) % PACE_RING;
	if (p->ring_n < PACE_RING)
		p->ring_n++;
}

/* One rank's report: its step, written age_s ago on its node. */
static int pace_report(struct pace *p, unsigned rank, size_t node,
		       uint64_t step, double age_s, bool saving, char ps,
		       double now)
{
	struct pace_rank *r = pace_find(p, rank);
	double at = now - age_s;
	bool fresh;

	if (!r)
		return -1;
	/* A rank's number on another node, written before what we have:
	 * a record left by an earlier world there, not this rank. */
	if (r->changed != 0 && node != r->node && at < r->changed)
		return 0;
	fresh = r->changed == 0;
	if (!fresh && step > r->step && at > r->changed)
		pace_ring_add(p, (at - r->changed) / (double)(step - r->step));
	if (fresh || step != r->step || saving != r->saving) {
		r->watched = r->watched || !fresh || at >= p->started;
		r->step = step;
		r->changed = at;
	}
	if (r->saving && !saving && at > p->save_end)
		p->save_end = at;
	r->node = node;
	r->saving = saving;
	r->frozen = ps == 'T' || ps == 't' || ps == 'D';
	r->stopped = ps == 'T' || ps == 't';
	return 0;
}

int pace_heard(struct pace *p, size_t node, const char *line, double now)
{
	for (const char *w = strchr(line, ' '); w; w = strchr(w + 1, ' ')) {
		unsigned rank;
		unsigned long long step, age, run, wait;
		char state, ps = '?';
		int k = sscanf(w + 1, "r%u=%llu/%llu/%c/%llu/%llu/%c", &rank,
			       &step, &age, &state, &run, &wait, &ps);

		if (k <= 0 && sscanf(w + 1, "s%u=%llu", &rank, &step) == 2 &&
		    step > p->save_ms) {
			p->save_ms = step;
			p->save_rank = rank;
			continue;
		}
		if (k < 4 || (state != 'r' && state != 's'))
			continue;
		if (pace_report(p, rank, node, step, (double)age / 1000.0,
				state == 's', ps, now) < 0)
			return -1;
	}
	return 0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pace_median_step(const struct pace *p)
{
	double v[PACE_RING];

	if (!p->ring_n)
		return 0;
	memcpy(v, p->ring, p->ring_n * sizeof(v[0]));
	qsort(v, p->ring_n, sizeof(v[0]), by_value);
	return v[p->ring_n / 2];
}

double pace_timeout(const struct pace *p)
{
	double t = PACE_STEPS_TIMEOUT * pace_median_step(p);

	if (p->timeout_s)
		return p->timeout_s;
	return t > PACE_MIN_TIMEOUT_S ? t : PACE_MIN_TIMEOUT_S;
}

/* a fell further behind than b: frozen (stopped, or in a kernel wait
 * that never ends) while the others sleep in a collective; then the
 * lower step; then the longer silent.  A rank stopped just after its
 * report is level with its peers, who wait for it. */
static bool pace_behind(const struct pace_rank *a, const struct pace_rank *b)
{
	if (a->frozen != b->frozen)
		return a->frozen;
	if (a->step != b->step)
		return a->step < b->step;
	return a->changed < b->changed;
}

int pace_hung(const struct pace *p, double now, double *stalled_s)
{
	double timeout = pace_timeout(p);
	int best = -1;

	for (size_t i = 0; i < p->n; i++)
		if (p->r[i].saving)
			return -1;
	for (size_t i = 0; i < p->n; i++) {
		const struct pace_rank *r = &p->r[i];
		double since =
		    r->changed > p->save_end ? r->changed : p->save_end;

		if (!r->watched || now - since <= timeout)
			continue;
		if (best < 0 || pace_behind(r, &p->r[best]))
			best = (int)i;
	}
	/* The others wait for a stopped process: it is the one. */
	for (size_t i = 0; best >= 0 && !p->r[best].stopped && i < p->n; i++)
		if (p->r[i].stopped)
			best = (int)i;
	if (best >= 0)
		*stalled_s =
		    now - (p->r[best].changed > p->save_end ? p->r[best].changed
							    : p->save_end);
	return best;
}
