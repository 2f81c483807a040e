/* A group's account (account.h): the add-up check, its
 * figures, series and events.  Pure. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "account.h"

static uint64_t gap(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

const char *account_check(const struct account_report *r)
{
	uint64_t sum = 0, at = 0;

	for (unsigned c = 0; c < ACCTNAMES_NCAUSES; c++)
		sum += r->nms[c];
	if (gap(sum, r->held_nms) > ACCOUNT_SLACK_NMS)
		return "account: causes do not add up to held";
	for (size_t i = 0; i < r->nat; i++)
		at += r->at_nms[i];
	if (r->nat &&
	    gap(at, r->nms[ACCTNAMES_CAUSE_TRAINING]) > ACCOUNT_SLACK_NMS)
		return "at: the sums by world size do not add up to "
		       "training_nms";
	return NULL;
}

double account_goodput(const struct account_report *r)
{
	return r->held_nms ? (double)r->nms[ACCTNAMES_CAUSE_TRAINING] /
				 (double)r->held_nms
			   : 0;
}

double account_ettr(const struct account_report *r)
{
	return r->wall_ms ? (double)r->train_wall_ms / (double)r->wall_ms : 0;
}

static void copy_name(char *dst, const char *src)
{
	snprintf(dst, ACCOUNT_NAME_MAX + 1, "%s", src ? src : "");
}

struct account *account_create(uint32_t id, uint32_t uid, const char *user,
			       const char *account, const char *partition)
{
	struct account *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->events = calloc(ACCOUNT_EVENTS_MAX, sizeof(*a->events));
	if (!a->events) {
		free(a);
		return NULL;
	}
	a->id = id;
	a->uid = uid;
	copy_name(a->user, user);
	copy_name(a->account, account);
	copy_name(a->partition, partition);
	return a;
}

void account_destroy(struct account *a)
{
	if (!a)
		return;
	free(a->series);
	free(a->events);
	free(a);
}

/* Room for one more point: the array grows to ACCOUNT_SERIES_MAX, then
 * every other point of the older half goes. */
static int series_room(struct account *a)
{
	size_t half = a->npoints / 2, k = 0;

	if (a->npoints < a->cap)
		return 0;
	if (a->cap < ACCOUNT_SERIES_MAX) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct account_point *p;

		if (cap > ACCOUNT_SERIES_MAX)
			cap = ACCOUNT_SERIES_MAX;
		p = realloc(a->series, cap * sizeof(*p));
		if (!p)
			return -1;
		a->series = p;
		a->cap = cap;
		return 0;
	}
	for (size_t i = 0; i < half; i += 2)
		a->series[k++] = a->series[i];
	memmove(a->series + k, a->series + half,
		(a->npoints - half) * sizeof(*a->series));
	a->npoints = k + a->npoints - half;
	return 0;
}

static void add_event(struct account *a, const struct account_event *e)
{
	if (a->nevents == ACCOUNT_EVENTS_MAX) {
		memmove(a->events, a->events + 1,
			(ACCOUNT_EVENTS_MAX - 1) * sizeof(*a->events));
		a->nevents--;
	}
	a->events[a->nevents++] = *e;
}

int account_apply(struct account *a, const struct account_report *r)
{
	struct account_point *p;

	if (series_room(a) < 0)
		return -1;
	p = &a->series[a->npoints++];
	p->t_ms = (int64_t)r->t_ms;
	p->world = r->world;
	p->held = r->held;
	p->steps = r->steps;
	p->phase = r->phase;
	if (r->event >= 0) {
		struct account_event e = { .t_ms = (int64_t)r->t_ms,
					   .kind =
					       (enum acctnames_kind)r->event };

		add_event(a, &e);
	}
	if (r->resized) {
		struct account_event e = {
			.t_ms = (int64_t)r->t_ms,
			.kind = r->resize_kind,
			.end = true,
			.path = r->resize_path,
			.ms = r->resize_ms,
			.seq = r->resize_seq,
		};

		add_event(a, &e);
	}
	a->last = *r;
	a->reported = true;
	return 0;
}
