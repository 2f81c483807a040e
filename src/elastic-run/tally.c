/* The launcher's ledger (tally.h): pure. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tally.h"

const char *tally_phase_name(enum tally_phase p)
{
	return acctnames_phase_name((enum acctnames_phase)p);
}

const char *tally_kind_name(enum tally_kind k)
{
	if (k == TALLY_SIGNAL)
		k = TALLY_PREEMPTION;
	else if (k == TALLY_CHANGE)
		k = TALLY_SHRINK;
	return acctnames_kind_name((enum acctnames_kind)k);
}

enum tally_kind tally_kind_of(const char *cause)
{
	static const struct {
		const char *cause;
		enum tally_kind kind;
	} map[] = {
		{ "node-lost", TALLY_CRASH },
		{ "member-exit", TALLY_CRASH },
		{ "split", TALLY_CRASH },
		{ "hang", TALLY_HANG },
		{ "straggler", TALLY_STRAGGLER },
		{ "membership", TALLY_CHANGE },
		{ "stale-steps", TALLY_CHANGE },
	};

	for (size_t i = 0; cause && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(cause, map[i].cause))
			return map[i].kind;
	return TALLY_SIGNAL; /* signal, raised, ranks-event */
}

static enum acctnames_cause tally_resize_cause(enum acctnames_path p)
{
	return p == ACCTNAMES_PATH_INPLACE ? ACCTNAMES_CAUSE_RESIZE_INPLACE
	       : p == ACCTNAMES_PATH_SWAP  ? ACCTNAMES_CAUSE_RESIZE_SWAP
					   : ACCTNAMES_CAUSE_RESIZE_RESTART;
}

void tally_init(struct tally *a, uint64_t t0, uint64_t merge_ms)
{
	memset(a, 0, sizeof(*a));
	a->t0 = a->t = t0;
	a->merge_ms = merge_ms;
	a->phase = TALLY_PH_WAITING;
}

/* The entry of world w in the training by size: a new one, or when the
 * table is full the nearest size's. */
static struct tally_at *tally_at_of(struct tally *a, unsigned w)
{
	size_t best = 0;

	for (size_t i = 0; i < a->nat; i++)
		if (a->at[i].world == w)
			return &a->at[i];
	if (a->nat < TALLY_AT_MAX) {
		a->at[a->nat].world = w;
		a->at[a->nat].nms = 0;
		return &a->at[a->nat++];
	}
	for (size_t i = 1; i < a->nat; i++) {
		unsigned d = a->at[i].world > w ? a->at[i].world - w
						: w - a->at[i].world;
		unsigned db = a->at[best].world > w ? a->at[best].world - w
						    : w - a->at[best].world;
		if (d < db)
			best = i;
	}
	return &a->at[best];
}

void tally_advance(struct tally *a, uint64_t t)
{
	uint64_t dt, h, w;

	if (a->phase == TALLY_PH_ENDED || t <= a->t)
		return;
	dt = t - a->t;
	a->t = t;
	w = a->world;
	h = a->held > a->world ? a->held : a->world;
	a->held_nms += h * dt;
	a->nms[ACCTNAMES_CAUSE_OUTSIDE] += (h - w) * dt;
	switch (a->phase) {
	case TALLY_PH_WAITING:
		a->nms[ACCTNAMES_CAUSE_WAITING] += w * dt;
		break;
	case TALLY_PH_TRAINING:
		a->nms[ACCTNAMES_CAUSE_TRAINING] += w * dt;
		if (w)
			tally_at_of(a, a->world)->nms += w * dt;
		a->seg_nms += w * dt;
		a->seg_wall += dt;
		a->train_wall_ms += dt;
		break;
	case TALLY_PH_RESIZE:
		a->nms[tally_resize_cause(a->path)] += w * dt;
		a->resize_nms += w * dt;
		break;
	case TALLY_PH_REDO:
		a->nms[ACCTNAMES_CAUSE_REDO] += w * dt;
		break;
	case TALLY_PH_ENDED:
		break;
	}
}

/* The last wall_ms of this world's training moved to cause (at most
 * what the world trained since it began). */
static void tally_untrain(struct tally *a, uint64_t wall_ms,
			  enum acctnames_cause cause)
{
	uint64_t nms;

	if (wall_ms > a->seg_wall)
		wall_ms = a->seg_wall;
	nms = (uint64_t)a->world * wall_ms;
	if (nms > a->seg_nms)
		nms = a->seg_nms;
	if (!nms)
		return;
	a->seg_wall -= wall_ms;
	a->seg_nms -= nms;
	a->train_wall_ms -= wall_ms;
	a->nms[ACCTNAMES_CAUSE_TRAINING] -= nms;
	tally_at_of(a, a->world)->nms -= nms;
	a->nms[cause] += nms;
}

static void tally_train(struct tally *a, uint64_t t)
{
	a->phase = TALLY_PH_TRAINING;
	a->seg_start = t;
	a->seg_nms = a->seg_wall = 0;
	a->changed = true;
}

void tally_sizes(struct tally *a, uint64_t t, unsigned held, unsigned world)
{
	tally_advance(a, t);
	if (a->phase == TALLY_PH_ENDED)
		return;
	if (world != a->world && a->phase == TALLY_PH_TRAINING)
		tally_train(a, t);
	a->held = held;
	a->world = world;
}

/* The kind a resize is known by, once its next world is. */
static enum tally_kind tally_named(const struct tally *a)
{
	if (a->kind != TALLY_SIGNAL && a->kind != TALLY_CHANGE)
		return a->kind;
	if (a->world > a->w_before)
		return TALLY_GROWTH;
	return a->kind == TALLY_SIGNAL ? TALLY_PREEMPTION : TALLY_SHRINK;
}

void tally_event(struct tally *a, uint64_t t, enum tally_kind kind)
{
	bool interrupted = a->phase == TALLY_PH_RESIZE;

	tally_advance(a, t);
	if (interrupted) {
		/* Another event before the resize's world stepped (a
		 * preemption right after a growth): the first is said,
		 * named by the world it reached; its resize, which never
		 * reached a first step, is not.  The new event is said at
		 * its own first step, not to take the one report's place. */
		if (!a->kind_said) {
			a->event_due = true;
			a->event_kind = tally_named(a);
		}
	} else if (a->phase != TALLY_PH_TRAINING && a->phase != TALLY_PH_REDO)
		return;
	a->phase = TALLY_PH_RESIZE;
	a->kind = kind;
	a->path = ACCTNAMES_PATH_RESTART;
	a->event_t = t;
	a->resize_nms = 0;
	a->w_before = a->world;
	a->redo_to = a->steps;
	a->provisional = false;
	a->changed = true;
	/* A signal is named by the next world. */
	a->kind_said =
	    !interrupted && kind != TALLY_SIGNAL && kind != TALLY_CHANGE;
	if (a->kind_said) {
		a->event_due = true;
		a->event_kind = kind;
	}
}

void tally_detect(struct tally *a, uint64_t t, uint64_t onset,
		  enum tally_kind kind)
{
	uint64_t from;

	tally_advance(a, t);
	if (a->phase == TALLY_PH_TRAINING) {
		from = onset > a->seg_start ? onset : a->seg_start;
		if (t > from)
			tally_untrain(a, t - from, ACCTNAMES_CAUSE_DETECT);
	}
	tally_event(a, t, kind);
}

void tally_path(struct tally *a, uint64_t t, enum acctnames_path path)
{
	tally_advance(a, t);
	if (a->phase != TALLY_PH_RESIZE || path == a->path)
		return;
	a->nms[tally_resize_cause(a->path)] -= a->resize_nms;
	a->nms[tally_resize_cause(path)] += a->resize_nms;
	a->path = path;
}

/* The steps from the world's last to step: those up to redo_to redone. */
static void tally_count(struct tally *a, uint64_t t, uint64_t step)
{
	uint64_t lo, hi;

	if (step <= a->last_step)
		return;
	lo = a->last_step < a->redo_to ? a->last_step : a->redo_to;
	hi = step < a->redo_to ? step : a->redo_to;
	a->redone += hi - lo;
	a->last_step = step;
	if (step > a->steps)
		a->steps = step;
	if (a->phase == TALLY_PH_REDO && step > a->redo_to)
		tally_train(a, t);
}

/* The world's first step at t (step 0: not known). */
static void tally_first(struct tally *a, uint64_t t, uint64_t step)
{
	if (a->phase == TALLY_PH_RESIZE) {
		if (!a->kind_said) {
			a->event_due = true;
			a->event_kind = tally_named(a);
		}
		a->done.kind = a->path == ACCTNAMES_PATH_SWAP ? TALLY_SPARE_SWAP
							      : tally_named(a);
		a->done.path = a->path;
		a->done.ms = t - a->event_t;
		a->done.seq = ++a->seq;
		a->resize_due = true;
	} else
		a->redo_to = 0;
	tally_train(a, t);
	if (!step)
		return;
	a->last_step = step - 1;
	if (step <= a->redo_to)
		a->phase = TALLY_PH_REDO;
	tally_count(a, t, step);
}

void tally_up(struct tally *a, uint64_t t)
{
	tally_advance(a, t);
	if (a->reporting ||
	    (a->phase != TALLY_PH_WAITING && a->phase != TALLY_PH_RESIZE))
		return;
	a->prov_cause = a->phase == TALLY_PH_WAITING
			    ? ACCTNAMES_CAUSE_WAITING
			    : tally_resize_cause(a->path);
	tally_first(a, t, 0);
	a->provisional = true;
}

void tally_step(struct tally *a, uint64_t t, uint64_t step)
{
	tally_advance(a, t);
	if (a->phase == TALLY_PH_ENDED)
		return;
	if (!a->reporting) {
		a->reporting = true;
		/* The ranks started, but stepped only now. */
		if (a->provisional) {
			tally_untrain(a, a->seg_wall, a->prov_cause);
			a->seg_start = t;
		}
		a->provisional = false;
		a->last_step = step ? step - 1 : 0;
	}
	if (a->phase == TALLY_PH_WAITING || a->phase == TALLY_PH_RESIZE)
		tally_first(a, t, step);
	else
		tally_count(a, t, step);
}

void tally_save(struct tally *a, uint64_t t, uint64_t save_ms)
{
	uint64_t extra = save_ms;

	tally_advance(a, t);
	if (a->phase != TALLY_PH_TRAINING || !save_ms)
		return;
	if (a->save_t && t - a->save_t < a->merge_ms) {
		extra = save_ms > a->save_ms ? save_ms - a->save_ms : 0;
		if (save_ms > a->save_ms)
			a->save_ms = save_ms;
	} else {
		a->save_t = t;
		a->save_ms = save_ms;
	}
	tally_untrain(a, extra, ACCTNAMES_CAUSE_CHECKPOINT);
}

void tally_end(struct tally *a, uint64_t t)
{
	tally_advance(a, t);
	if (a->phase == TALLY_PH_ENDED)
		return;
	a->phase = TALLY_PH_ENDED;
	a->changed = true;
}

void tally_sent(struct tally *a)
{
	a->event_due = a->resize_due = a->changed = false;
}

void tally_tried(struct tally *a)
{
	a->changed = false;
}

uint64_t tally_causes_sum(const struct tally *a)
{
	uint64_t s = 0;

	for (size_t i = 0; i < ACCTNAMES_NCAUSES; i++)
		s += a->nms[i];
	return s;
}

double tally_goodput(const struct tally *a)
{
	return a->held_nms ? (double)a->nms[ACCTNAMES_CAUSE_TRAINING] /
				 (double)a->held_nms
			   : 0;
}

double tally_ettr(const struct tally *a)
{
	uint64_t wall = a->t - a->t0;

	return wall ? (double)a->train_wall_ms / (double)wall : 0;
}

/* snprintf into buf at *n: false once it no longer fits. */
static bool tally_put(char *buf, size_t len, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static bool tally_put(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return false;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= len - *n) {
		*n = len;
		return false;
	}
	*n += (size_t)k;
	return true;
}

/* at=W:NMS,... (sizes with no training left out). */
static void tally_put_at(const struct tally *a, char sep, char *buf, size_t len,
			 size_t *n)
{
	bool first = true;

	for (size_t i = 0; i < a->nat; i++) {
		if (!a->at[i].nms)
			continue;
		tally_put(buf, len, n, "%s%u:%llu", first ? "" : ",",
			  a->at[i].world, (unsigned long long)a->at[i].nms);
		first = false;
	}
	if (first)
		tally_put(buf, len, n, "%u:0", a->world ? a->world : 1);
	tally_put(buf, len, n, "%c", sep);
}

int tally_format(const struct tally *a, uint64_t unix_ms, char sep, bool final,
		 char *buf, size_t len)
{
	size_t n = 0;

	tally_put(buf, len, &n, "v=1%ct=%llu%cwall_ms=%llu%ctrain_wall_ms=%llu",
		  sep, (unsigned long long)unix_ms, sep,
		  (unsigned long long)(a->t - a->t0), sep,
		  (unsigned long long)a->train_wall_ms);
	tally_put(buf, len, &n, "%cheld_nms=%llu", sep,
		  (unsigned long long)a->held_nms);
	for (size_t i = 0; i < ACCTNAMES_NCAUSES; i++)
		tally_put(buf, len, &n, "%c%s_nms=%llu", sep,
			  acctnames_cause_name(i),
			  (unsigned long long)a->nms[i]);
	tally_put(buf, len, &n, "%cat=", sep);
	tally_put_at(a, sep, buf, len, &n);
	tally_put(buf, len, &n,
		  "steps=%llu%credone=%llu%cworld=%u%cheld=%u%cphase=%s",
		  (unsigned long long)a->steps, sep,
		  (unsigned long long)a->redone, sep, a->world, sep,
		  a->held > a->world ? a->held : a->world, sep,
		  tally_phase_name(a->phase));
	if (a->event_due)
		tally_put(buf, len, &n, "%cevent=%s", sep,
			  tally_kind_name(a->event_kind));
	if (a->resize_due)
		tally_put(buf, len, &n, "%cresize=%s:%s:%llu:%u", sep,
			  tally_kind_name(a->done.kind),
			  acctnames_path_name(a->done.path),
			  (unsigned long long)a->done.ms, a->done.seq);
	if (final)
		tally_put(buf, len, &n, "%cfinal=1", sep);
	return n < len ? (int)n : -1;
}
