/* A group's batch host lost (batchhost.h): pure. */
#include "config.h"

#include <string.h>

#include "batchhost.h"
#include "common/options.h"

static struct bh_entry *bh_find(struct bh_table *t, uint32_t group, bool add)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].group == group)
			return &t->e[i];
	if (!add)
		return NULL;
	if (t->n == BH_MAX) {
		/* Full: the longest silent makes room. */
		size_t old = 0;

		for (size_t i = 1; i < t->n; i++)
			if (t->e[i].seen < t->e[old].seen)
				old = i;
		t->e[old] = t->e[--t->n];
	}
	memset(&t->e[t->n], 0, sizeof(t->e[t->n]));
	t->e[t->n].group = group;
	return &t->e[t->n++];
}

void bh_seen(struct bh_table *t, uint32_t group, int64_t now)
{
	struct bh_entry *e = bh_find(t, group, true);

	if (e)
		e->seen = now;
}

static int64_t bh_silence_ms(const struct job_view *j)
{
	int64_t ms = j->opts ? 2000 * (int64_t)j->opts->heartbeat_timeout : 0;

	return ms > BH_MIN_SILENCE_MS ? ms : BH_MIN_SILENCE_MS;
}

enum bh_action bh_decide(struct bh_table *t, const struct job_view *j,
			 int64_t now)
{
	struct bh_entry *e = bh_find(t, j->id, false);

	/* Never heard from this elasticd's start: nothing to judge by. */
	if (!e || !e->seen)
		return BH_NONE;
	if (e->downed && j->restarts > e->restarts) {
		/* Requeued: until bh_begun(), or already started again. */
		if (j->phase == PHASE_PENDING)
			return BH_BEGIN;
		e->downed = false;
		e->seen = now; /* the new launcher's silence counts from now */
		return BH_NONE;
	}
	if (e->downed || j->phase != PHASE_RUNNING || !j->nodes || !*j->nodes)
		return BH_NONE;
	return now - e->seen > bh_silence_ms(j) ? BH_PROBE : BH_NONE;
}

void bh_answered(struct bh_table *t, uint32_t group, int64_t now)
{
	bh_seen(t, group, now);
}

void bh_downed(struct bh_table *t, uint32_t group, uint32_t restarts)
{
	struct bh_entry *e = bh_find(t, group, false);

	if (e) {
		e->downed = true;
		e->restarts = restarts;
	}
}

void bh_begun(struct bh_table *t, uint32_t group, int64_t now)
{
	struct bh_entry *e = bh_find(t, group, false);

	if (e) {
		e->downed = false;
		e->seen = now;
	}
}

void bh_forget(struct bh_table *t, uint32_t group)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].group == group) {
			t->e[i] = t->e[--t->n];
			return;
		}
}
