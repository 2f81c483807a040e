#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconcile_impl.h"

/* ------------------------------------------------------------ helpers */

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 8;
	void *q;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}

void action_list_clear(struct action_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->a[i].jobs);
	l->n = 0;
}

void action_list_free(struct action_list *l)
{
	action_list_clear(l);
	free(l->a);
	l->a = NULL;
	l->cap = 0;
}

static struct action *push(struct action_list *l, enum action_type type,
			   uint32_t group, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static struct action *vpush(struct action_list *l, enum action_type type,
			    uint32_t group, const char *fmt, va_list ap)
{
	struct action *a, *arr = grow(l->a, &l->cap, l->n + 1, sizeof(*a));

	if (!arr)
		return NULL;
	l->a = arr;
	a = &l->a[l->n++];
	memset(a, 0, sizeof(*a));
	a->type = type;
	a->group = group;
	vsnprintf(a->text, sizeof(a->text), fmt, ap);
	return a;
}

static struct action *push(struct action_list *l, enum action_type type,
			   uint32_t group, const char *fmt, ...)
{
	struct action *a;
	va_list ap;

	va_start(ap, fmt);
	a = vpush(l, type, group, fmt, ap);
	va_end(ap);
	return a;
}

/* A note given once per condition (a bit of group.noted): 0, or -1 when
 * out of memory. */
static int note_once(struct group *g, enum note_bit bit,
		     struct action_list *out, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int note_once(struct group *g, enum note_bit bit,
		     struct action_list *out, const char *fmt, ...)
{
	struct action *a;
	va_list ap;

	if (g->noted & bit)
		return 0;
	g->noted |= bit;
	va_start(ap, fmt);
	a = vpush(out, ACTION_NOTE, g->id, fmt, ap);
	va_end(ap);
	return a ? 0 : -1;
}

bool rec_live(const struct job_view *j)
{
	return j->phase == PHASE_PENDING || j->phase == PHASE_RUNNING;
}

static bool usable(const struct job_view *j)
{
	return j->phase == PHASE_RUNNING && !j->preempted;
}

static const char *end_words(const struct job_view *j)
{
	if (!j)
		return "gone";
	if (j->preempted || j->end == END_PREEMPTED)
		return "preempted";
	switch (j->end) {
	case END_COMPLETE:
		return "exited";
	case END_CANCELLED:
		return "cancelled";
	case END_FAILED:
		return "failed";
	default:
		break;
	}
	return j->phase == PHASE_PENDING ? "requeued" : "gone";
}

void reconcile_config_defaults(struct reconcile_config *c)
{
	c->expect_timeout_ms = 60000;
	c->cancel_retry_ms = 30000;
	c->min_unit_seconds = 120;
	c->max_submit_group = 8;
	c->max_submit_pass = 32;
	c->max_pending_user = 64;
}

/* ------------------------------------------------------------ groups */

static size_t hash(uint32_t id, size_t n)
{
	return (size_t)((id * 2654435761u) & (n - 1));
}

struct group *rec_find(const struct reconcile *r, uint32_t id)
{
	struct group *g;

	for (g = r->buckets[hash(id, r->nbuckets)]; g; g = g->next)
		if (g->id == id)
			return g;
	return NULL;
}

static int rehash(struct reconcile *r, size_t n)
{
	struct group **b = calloc(n, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < r->nbuckets; i++) {
		struct group *g = r->buckets[i], *next;

		for (; g; g = next) {
			size_t h = hash(g->id, n);

			next = g->next;
			g->next = b[h];
			b[h] = g;
		}
	}
	free(r->buckets);
	r->buckets = b;
	r->nbuckets = n;
	return 0;
}

struct group *rec_add_group(struct reconcile *r, uint32_t id)
{
	struct group *g;
	size_t h;

	if (r->ngroups + 1 > r->nbuckets && rehash(r, r->nbuckets * 2) < 0)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->id = id;
	g->state = GROUP_PENDING;
	g->last_exit_ms = -1;
	h = hash(id, r->nbuckets);
	g->next = r->buckets[h];
	r->buckets[h] = g;
	r->ngroups++;
	return g;
}

static void free_group(struct group *g)
{
	free(g->world);
	free(g->expect);
	free(g->rel);
	free(g->units);
	free(g);
}

static void drop_group(struct reconcile *r, struct group *g)
{
	struct group **pp = &r->buckets[hash(g->id, r->nbuckets)];

	for (; *pp; pp = &(*pp)->next) {
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	}
	r->ngroups--;
	r->dirty = true;
	free_group(g);
}

struct reconcile *reconcile_create(const struct reconcile_config *cfg)
{
	struct reconcile *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (cfg)
		r->cfg = *cfg;
	else
		reconcile_config_defaults(&r->cfg);
	r->nbuckets = 64;
	r->buckets = calloc(r->nbuckets, sizeof(*r->buckets));
	r->slots = calloc(GROUP_MAX_SLOTS, sizeof(*r->slots));
	r->items = calloc(GROUP_MAX_SLOTS, sizeof(*r->items));
	r->chosen = calloc(GROUP_MAX_SLOTS, sizeof(*r->chosen));
	r->nworld = calloc(GROUP_MAX_SLOTS + 1, sizeof(*r->nworld));
	if (!r->buckets || !r->slots || !r->items || !r->chosen || !r->nworld) {
		reconcile_destroy(r);
		return NULL;
	}
	return r;
}

void reconcile_destroy(struct reconcile *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbuckets && r->buckets; i++) {
		struct group *g = r->buckets[i], *next;

		for (; g; g = next) {
			next = g->next;
			free_group(g);
		}
	}
	free(r->buckets);
	free(r->orphans);
	free(r->cands);
	free(r->slots);
	free(r->items);
	free(r->chosen);
	free(r->bits);
	free(r->nworld);
	free(r);
}

size_t reconcile_ngroups(const struct reconcile *r)
{
	return r->ngroups;
}

static void add_event(struct group *g, int64_t now, enum event_cause cause,
		      const char *detail)
{
	struct event *e;
	size_t i = (g->event_head + g->nevents) % GROUP_MAX_EVENTS;

	if (g->nevents == GROUP_MAX_EVENTS) {
		i = g->event_head;
		g->event_head = (g->event_head + 1) % GROUP_MAX_EVENTS;
	} else {
		g->nevents++;
	}
	e = &g->events[i];
	e->at = now;
	e->cause = cause;
	e->generation = g->generation;
	e->nodes = g->world_nodes;
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
}

/* Remember a job to cancel at time at (now: at once).  Idempotent. */
static int release_at(struct group *g, uint32_t job, int64_t at)
{
	struct release *rel;

	for (size_t i = 0; i < g->nrel; i++) {
		if (g->rel[i].job == job) {
			if (at < g->rel[i].at)
				g->rel[i].at = at;
			return 0;
		}
	}
	rel = grow(g->rel, &g->caprel, g->nrel + 1, sizeof(*rel));
	if (!rel)
		return -1;
	g->rel = rel;
	g->rel[g->nrel++] = (struct release){ job, at, 0 };
	return 0;
}

const struct release *rec_released(const struct group *g, uint32_t job)
{
	for (size_t i = 0; i < g->nrel; i++)
		if (g->rel[i].job == job)
			return &g->rel[i];
	return NULL;
}

bool rec_in_world(const struct group *g, uint32_t job)
{
	for (size_t i = 0; i < g->nworld; i++)
		if (g->world[i].job == job)
			return true;
	return false;
}

/* Send the cancels that are due; forget those whose job is gone. */
static int send_releases(struct reconcile *r, struct group *g, int64_t now,
			 struct action_list *out)
{
	size_t w = 0;

	for (size_t i = 0; i < g->nrel; i++) {
		struct release *rel = &g->rel[i];
		const struct job_view *j = snapshot_find(r->snap, rel->job);

		if (!j || !rec_live(j))
			continue; /* done: forget it */
		g->rel[w++] = *rel;
		if (now < rel->at ||
		    (rel->sent && now - rel->sent < r->cfg.cancel_retry_ms))
			continue;
		if (!push(out, ACTION_CANCEL, g->id,
			  "group %u: cancel %s unit %u (%u node%s)%s", g->id,
			  unittag_kind_name(j->unit.kind), j->id, j->nnodes,
			  j->nnodes == 1 ? "" : "s", rel->sent ? " again" : ""))
			return -1;
		out->a[out->n - 1].job = rel->job;
		if (!rel->sent)
			r->units_cancelled++;
		g->rel[w - 1].sent = now;
	}
	g->nrel = w;
	return 0;
}

/* ------------------------------------------------------------ sizes */

/* The smallest allowed size >= n, or 0 if none. */
static unsigned next_allowed(const struct elastic_opts *o, unsigned n)
{
	if (o->nsizes) {
		for (unsigned i = 0; i < o->nsizes; i++)
			if (o->sizes[i] >= n && o->sizes[i] >= o->min &&
			    o->sizes[i] <= o->max)
				return o->sizes[i];
		return 0;
	}
	if (n <= o->min)
		return o->min;
	if (o->step > 1)
		n = o->min + (n - o->min + o->step - 1) / o->step * o->step;
	return n <= o->max ? n : 0;
}

/* The largest allowed size <= n, or 0 if none. */
static unsigned prev_allowed(const struct elastic_opts *o, unsigned n)
{
	if (n > o->max)
		n = o->max;
	if (n < o->min)
		return 0;
	if (o->nsizes) {
		for (unsigned i = o->nsizes; i-- > 0;)
			if (o->sizes[i] <= n && o->sizes[i] >= o->min)
				return o->sizes[i];
		return 0;
	}
	if (o->step > 1)
		n -= (n - o->min) % o->step;
	return n;
}

/*
 * The ladder of increments from the base's b nodes to the target: a
 * refill when b is not an allowed size (the base lost nodes), then one
 * slot per step or per gap between consecutive sizes.  Returns the count
 * and sets *target (the world the ladder reaches).
 */
static size_t ladder(const struct elastic_opts *o, unsigned cap, unsigned b,
		     struct slot *slots, unsigned *target)
{
	unsigned hi = prev_allowed(o, cap < o->max ? cap : o->max);
	unsigned at = next_allowed(o, b);
	size_t n = 0;

	*target = b;
	if (!at || !hi || at > hi)
		return 0;
	if (at > b)
		slots[n++].size = at - b;
	while (n < GROUP_MAX_SLOTS) {
		unsigned next = next_allowed(o, at + 1);

		if (!next || next > hi)
			break;
		slots[n++].size = next - at;
		at = next;
	}
	*target = at;
	return n;
}

/* ------------------------------------------------------------ world */

/*
 * The largest allowed world: the base (b nodes) plus a subset of items
 * (indices into cands, least preferred first), at most limit nodes.
 * Among equal sizes the subset keeps the most preferred items.  Marks
 * r->chosen[i] per item and returns the size, or 0 if even none fits.
 */
static unsigned choose_world(struct reconcile *r, const struct elastic_opts *o,
			     unsigned b, unsigned limit, size_t n)
{
	unsigned sum = b, cap, best = 0;
	size_t words, layer_bytes;

	for (size_t i = 0; i < n; i++) {
		r->chosen[i] = true;
		sum += r->cands[r->items[i]].nnodes;
	}
	if (sum <= limit && options_size_allowed(o, sum))
		return sum; /* the usual case: everything */
	for (size_t i = 0; i < n; i++)
		r->chosen[i] = false;
	if (b > limit)
		return options_size_allowed(o, b) ? b : 0;
	cap = limit - b;
	words = cap / 64 + 1;
	layer_bytes = words * sizeof(uint64_t);
	if ((n + 1) * layer_bytes <= DP_BUDGET_BYTES) {
		uint64_t *bits;
		unsigned t;

		bits = grow(r->bits, &r->capbits, (n + 1) * words,
			    sizeof(uint64_t));
		if (!bits)
			goto greedy;
		r->bits = bits;
		/* layer i: sums reachable with the first i items */
		memset(bits, 0, layer_bytes);
		bits[0] = 1;
		for (size_t i = 0; i < n; i++) {
			const uint64_t *src = bits + i * words;
			uint64_t *dst = bits + (i + 1) * words;
			unsigned s = r->cands[r->items[i]].nnodes;
			size_t ws = s / 64, bs = s % 64;

			memcpy(dst, src, layer_bytes);
			for (size_t w = words; w-- > ws;) {
				uint64_t v = src[w - ws] << bs;

				if (bs && w > ws)
					v |= src[w - ws - 1] >> (64 - bs);
				dst[w] |= v;
			}
		}
		for (t = cap + 1; t-- > 0;) {
			const uint64_t *top = bits + n * words;

			if ((top[t / 64] >> (t % 64) & 1) &&
			    options_size_allowed(o, b + t))
				break;
		}
		if (t == (unsigned)-1)
			return 0;
		best = b + t;
		/* Walk back, keeping the later (preferred) items. */
		for (size_t i = n; i-- > 0;) {
			const uint64_t *prev = bits + i * words;
			unsigned s = r->cands[r->items[i]].nnodes;

			if (t >= s &&
			    (prev[(t - s) / 64] >> ((t - s) % 64) & 1)) {
				r->chosen[i] = true;
				t -= s;
			}
		}
		return best;
	}
greedy:
	/* Too large to search: the preferred first, while allowed. */
	sum = b;
	best = options_size_allowed(o, b) ? b : 0;
	for (size_t i = n; i-- > 0;) {
		unsigned s = r->cands[r->items[i]].nnodes;

		if (sum + s > limit)
			continue;
		sum += s;
		r->chosen[i] = true;
		if (options_size_allowed(o, sum))
			best = sum;
	}
	if (best != sum) { /* drop what went past the last allowed size */
		unsigned acc = b;

		for (size_t i = n; i-- > 0;) {
			if (!r->chosen[i])
				continue;
			if (acc >= best)
				r->chosen[i] = false;
			else
				acc += r->cands[r->items[i]].nnodes;
		}
	}
	return best;
}

static void describe(char *buf, size_t len, const struct group *g,
		     const struct world_member *nw, size_t nn)
{
	size_t j = 0;
	const char *sep = "";

	buf[0] = '\0';
	for (size_t i = 1; i < nn && j + 16 < len; i++) {
		if (rec_in_world(g, nw[i].job))
			continue;
		j += snprintf(buf + j, len - j, "%s+%u", sep, nw[i].job);
		sep = " ";
	}
	for (size_t i = 1; i < g->nworld && j + 16 < len; i++) {
		bool kept = false;

		for (size_t k = 1; k < nn; k++)
			kept |= nw[k].job == g->world[i].job;
		if (kept)
			continue;
		j += snprintf(buf + j, len - j, "%s-%u", sep, g->world[i].job);
		sep = " ";
	}
	if (nn && g->nworld && nw[0].nnodes != g->world[0].nnodes &&
	    j + 32 < len)
		snprintf(buf + j, len - j, "%sbase %u->%u nodes", sep,
			 g->world[0].nnodes, nw[0].nnodes);
}

/*
 * Is job the group's own: its base, or a unit of it with its base's
 * owner?  A world restored from the state file is only what the file
 * says: elasticd signals no job Slurm does not show to be the group's.
 */
static bool own_job(const struct group *g, const struct job_view *j)
{
	if (j->id == g->id)
		return j->role == ROLE_BASE;
	return j->role == ROLE_UNIT && j->unit.group == g->id && g->base &&
	       j->uid == g->base->uid;
}

/* The event, in the old world's running jobs: their ranks checkpoint. */
static int raise_world(struct reconcile *r, const struct group *g,
		       const char *why, struct action_list *out)
{
	const struct elastic_opts *o = g->base->opts;
	struct action *a;
	size_t k = 0;

	a = push(out, ACTION_RAISE, g->id,
		 "group %u: raise %s in generation %" PRIu64 " (%u node%s)%s",
		 g->id, parse_signal_name(o->signal) ?: "?", g->generation,
		 g->world_nodes, g->world_nodes == 1 ? "" : "s", why);
	if (!a)
		return -1;
	a->signal = o->signal;
	a->jobs = malloc((g->nworld ? g->nworld : 1) * sizeof(*a->jobs));
	if (!a->jobs) {
		out->n--;
		return -1;
	}
	for (size_t i = 0; i < g->nworld; i++) {
		const struct job_view *j =
		    r->snap ? snapshot_find(r->snap, g->world[i].job) : NULL;

		if (j && j->phase == PHASE_RUNNING && own_job(g, j))
			a->jobs[k++] = j->id;
	}
	a->njobs = k;
	if (!k) { /* nobody to tell */
		free(a->jobs);
		out->n--;
	}
	return 0;
}

/* Is job a unit the pass matched to a slot (wanted, in the world or
 * not)? */
static bool matched(const struct reconcile *r, size_t nc, uint32_t job)
{
	for (size_t i = 0; i < nc; i++)
		if (r->cands[i].job == job)
			return r->cands[i].used;
	return false;
}

/* Old members left out that still run and fit no slot: released after
 * the grace (their ranks checkpoint first).  Preempted ones Slurm ends
 * itself; those that fit a slot wait for a world that can use them. */
static int release_left_out(struct reconcile *r, struct group *g,
			    const struct world_member *nw, size_t nn,
			    int64_t now)
{
	int64_t at = now + (int64_t)g->base->opts->grace * 1000;

	for (size_t i = 1; i < g->nworld; i++) {
		const struct job_view *j =
		    snapshot_find(r->snap, g->world[i].job);
		bool kept = false;

		for (size_t k = 1; k < nn; k++)
			kept |= nw[k].job == g->world[i].job;
		if (kept || !j || !usable(j) || matched(r, r->ncands, j->id))
			continue;
		if (release_at(g, j->id, at) < 0)
			return -1;
	}
	return 0;
}

/*
 * No allowed world is left (a preempted unit took the group below what
 * the base and the rest can make): the ranks are told, the world ends,
 * and a new one forms when units allow.
 */
static int lose_world(struct reconcile *r, struct group *g, int64_t now,
		      enum event_cause cause, const char *why,
		      struct action_list *out)
{
	if (raise_world(r, g, "", out) < 0 ||
	    release_left_out(r, g, NULL, 0, now) < 0)
		return -1;
	g->generation++;
	g->formed = false;
	g->nworld = 0;
	g->world_nodes = 0;
	g->change_since = g->loss_since = 0;
	g->last_change = now;
	g->resizing_until = now + (int64_t)g->base->opts->grace * 1000;
	r->dirty = true;
	add_event(g, now, cause, why);
	r->resizes[cause]++;
	return push(out, ACTION_NOTE, g->id,
		    "group %u: generation %" PRIu64 ": no world (%s)", g->id,
		    g->generation, why)
		   ? 0
		   : -1;
}

/*
 * Make nw (base first) the group's world: a new generation, the event
 * raised in the old world's running jobs, old members that are left out
 * released after the grace.
 */
static int apply_world(struct reconcile *r, struct group *g, int64_t now,
		       const struct world_member *nw, size_t nn, unsigned nodes,
		       enum event_cause cause, const char *why, bool raise,
		       struct action_list *out)
{
	const struct elastic_opts *o = g->base->opts;
	char detail[DETAIL_MAX], moved[DETAIL_MAX * 2];
	struct world_member *w;
	int64_t since = g->change_since ? g->change_since : now;

	if (g->loss_since && g->loss_since < since)
		since = g->loss_since;
	describe(moved, sizeof(moved), g, nw, nn);
	if (raise && g->formed && raise_world(r, g, "", out) < 0)
		return -1;
	if (release_left_out(r, g, nw, nn, now) < 0)
		return -1;
	w = realloc(g->world, (nn ? nn : 1) * sizeof(*w));
	if (!w)
		return -1;
	memcpy(w, nw, nn * sizeof(*w));
	g->world = w;
	g->nworld = nn;
	g->world_nodes = nodes;
	g->generation++;
	g->formed = true;
	g->restored = false;
	g->change_since = g->loss_since = 0;
	g->noted &= ~(NOTE_WAIT_FAULT | NOTE_BELOW_MIN);
	g->last_change = now;
	if (raise)
		g->resizing_until = now + (int64_t)o->grace * 1000;
	r->dirty = true;
	snprintf(detail, sizeof(detail), "%s%s%s", why, *moved ? ": " : "",
		 moved);
	add_event(g, now, cause, detail);
	r->resizes[cause]++;
	if (cause != CAUSE_START)
		r->resize_seconds_sum += (double)(now - since) / 1000.0;
	return push(out, ACTION_NOTE, g->id,
		    "group %u: generation %" PRIu64 ": %u node%s (%s)", g->id,
		    g->generation, nodes, nodes == 1 ? "" : "s", detail)
		   ? 0
		   : -1;
}

/* ------------------------------------------------------------ a group */

/* Units of uid pending now: in Slurm, and submitted but not seen yet. */
static unsigned count_pending(const struct reconcile *r, uid_t uid)
{
	size_t n = snapshot_count(r->snap);
	unsigned k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct job_view *j = snapshot_job(r->snap, i);

		if (j->role == ROLE_UNIT && j->uid == uid &&
		    j->phase == PHASE_PENDING)
			k++;
	}
	for (size_t bi = 0; bi < r->nbuckets; bi++)
		for (const struct group *g = r->buckets[bi]; g; g = g->next)
			if (g->uid == uid)
				for (size_t e = 0; e < g->nexpect; e++)
					k += !g->expect[e].job ||
					     !snapshot_find(r->snap,
							    g->expect[e].job);
	return k;
}

/* count_pending(), cached for the pass; NULL past the cache's room. */
static unsigned *pending_units(struct reconcile *r, uid_t uid, unsigned *tmp)
{
	for (size_t i = 0; i < r->npending; i++)
		if (r->pending[i].uid == uid)
			return &r->pending[i].n;
	*tmp = count_pending(r, uid);
	if (r->npending == sizeof(r->pending) / sizeof(r->pending[0]))
		return tmp;
	r->pending[r->npending].uid = uid;
	r->pending[r->npending].n = *tmp;
	return &r->pending[r->npending++].n;
}

/*
 * Within the bounds (reconcile_config): 0 if a unit may be submitted now,
 * 1 if it must wait for a later pass (noted once), -1 when out of memory.
 */
static int submit_bound(struct reconcile *r, struct group *g,
			struct action_list *out)
{
	const char *what = NULL;
	unsigned tmp;

	if (g->submitted >= r->cfg.max_submit_group)
		what = "units per group and pass";
	else if (r->submitted >= r->cfg.max_submit_pass) {
		what = "units per pass";
		if (!r->capped)
			r->next_start = hash(g->id, r->nbuckets);
		r->capped = true;
	} else if (*pending_units(r, g->uid, &tmp) >= r->cfg.max_pending_user)
		what = "pending units per user";
	if (!what)
		return 0;
	if (note_once(g, NOTE_SUBMIT_CAP, out,
		      "group %u: more units wait for a later pass "
		      "(bound on %s)",
		      g->id, what) < 0)
		return -1;
	return 1;
}

/* Ask for a unit: 0, 1 when a bound makes it wait, -1 out of memory. */
static int submit(struct reconcile *r, struct group *g,
		  const struct elastic_policy *p, int64_t now,
		  enum unit_kind kind, unsigned size, uint32_t limit,
		  struct action_list *out)
{
	const struct job_view *base = g->base;
	const struct policy_list *parts = kind == UNIT_ONDEMAND
					      ? &p->ondemand_partitions
					      : &p->preemptible_partitions;
	const char *qos =
	    kind == UNIT_ONDEMAND ? p->ondemand_qos : p->preemptible_qos;
	struct expect *e;
	struct action *a;
	unsigned tmp;
	int rc = submit_bound(r, g, out);

	if (rc)
		return rc;
	e = grow(g->expect, &g->capexpect, g->nexpect + 1, sizeof(*e));
	if (!e)
		return -1;
	g->expect = e;
	a = push(out, ACTION_SUBMIT, g->id,
		 "group %u: submit %s unit of %u node%s to %s", g->id,
		 unittag_kind_name(kind), size, size == 1 ? "" : "s",
		 parts->name[0]);
	if (!a)
		return -1;
	a->token = ++g->next_token;
	a->unit.tag = (struct unit_tag){ g->id, kind, size, a->token };
	snprintf(a->unit.partition, sizeof(a->unit.partition), "%s",
		 parts->name[0]);
	snprintf(a->unit.qos, sizeof(a->unit.qos), "%s", qos);
	a->unit.time_limit = limit;
	a->unit.uid = base->uid;
	a->unit.gid = base->gid;
	a->unit.signal = base->opts->signal;
	a->unit.grace = base->opts->grace;
	a->unit.account = base->account;
	a->unit.tres_per_node = base->tres_per_node;
	a->unit.features = base->features;
	a->unit.nice = p->unit_nice;
	g->expect[g->nexpect++] =
	    (struct expect){ a->token, 0, kind, size, now };
	g->submitted++;
	r->submitted++;
	++*pending_units(r, g->uid, &tmp);
	return 0;
}

/* Slack between Slurm's clock (a unit's submit time) and ours. */
#define SUBMIT_CLOCK_SLACK_MS 5000

/*
 * The unit a submission made, seen in Slurm before the submission's answer
 * reached us (submissions run beside the loop): the one of the group whose
 * tag carries the submission's number, submitted since.  Numbers start
 * again when elasticd does; the time tells an older unit with the same
 * number apart.  0 if none.
 */
static uint32_t submitted_unit(const struct group *g, const struct expect *e)
{
	for (size_t i = 0; i < g->nunits; i++) {
		const struct job_view *u = g->units[i];

		if (u->unit.request == e->token &&
		    (int64_t)u->submit_time * 1000 >=
			e->at - SUBMIT_CLOCK_SLACK_MS)
			return u->id;
	}
	return 0;
}

/* Is on-demand allowed for this group's owner by the policy now? */
static bool ondemand_permitted(const struct elastic_policy *p,
			       const struct job_view *base)
{
	struct elastic_submitter who = { base->user, base->account };

	if (!p->ondemand_allowed || !p->ondemand_partitions.n ||
	    base->opts->ondemand == ELASTIC_ONDEMAND_NEVER)
		return false;
	return options_ondemand_listed(p, &who);
}

/* For a slot: a member of the world, then a job Slurm shows (before a
 * submission not seen yet), then the oldest. */
static bool better(const struct cand *c, const struct cand *best)
{
	if (c->in_world != best->in_world)
		return c->in_world;
	if (!c->j != !best->j)
		return c->j != NULL;
	return c->job < best->job;
}

/* Pick the best unassigned candidate for a slot. */
static int pick_cand(struct reconcile *r, size_t nc, unsigned size,
		     enum unit_kind kind, bool running)
{
	int best = -1;

	for (size_t i = 0; i < nc; i++) {
		const struct cand *c = &r->cands[i];

		if (c->used || c->kind != kind || c->running != running ||
		    c->nnodes != size)
			continue;
		if (best < 0 || better(c, &r->cands[best]))
			best = (int)i;
	}
	if (best >= 0)
		r->cands[best].used = true;
	return best;
}

/* Units are ordered least preferred first (see choose_world()). */
static int item_class(const struct cand *c)
{
	return (c->kind == UNIT_PREEMPTIBLE) * 2 + c->in_world;
}

static int by_preference(const void *a, const void *b, void *arg)
{
	const struct reconcile *r = arg;
	const struct cand *x = &r->cands[*(const int *)a];
	const struct cand *y = &r->cands[*(const int *)b];
	int cx = item_class(x), cy = item_class(y);

	if (cx != cy)
		return cx - cy;
	return (x->job < y->job) - (x->job > y->job); /* older later */
}

/* One running group's pass, shared by its steps (step_running). */
struct run {
	struct reconcile *r;
	struct group *g;
	const struct elastic_policy *p;
	const struct job_view *base;
	const struct elastic_opts *o;
	int64_t now;
	struct action_list *out;
	unsigned b;	 /* the base's nodes */
	unsigned target; /* the size the group aims at */
	bool discrete;	 /* --elastic-sizes */
	size_t nslots;	 /* r->slots: the sizes up to the target */
	size_t nc;	 /* r->cands */
	size_t frontier; /* the first slot no running unit holds */
	bool preempted;	 /* the world lost a preempted member */
	bool failed;	 /* ... or a failed one */
	char lost[DETAIL_MAX];
	size_t lj; /* strlen(lost) */
	bool can_submit;
	uint32_t time_limit; /* of new units, minutes (0: the partition's) */
	unsigned nodes;	     /* the best world from what runs (0: none) */
	size_t nn;	     /* its members, in r->nworld */
	bool same;	     /* it is the world already */
};

/* Candidates: live units not being released, and submissions not seen
 * yet. */
static int run_candidates(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	int64_t now = x->now;

	{
		struct cand *c = grow(r->cands, &r->capcands,
				      g->nunits + g->nexpect + 1, sizeof(*c));

		if (!c)
			return -1;
		r->cands = c;
	}
	for (size_t i = 0; i < g->nunits; i++) {
		const struct job_view *u = g->units[i];

		if (!rec_live(u) ||
		    (u->phase == PHASE_RUNNING && u->preempted) ||
		    rec_released(g, u->id))
			continue;
		r->cands[x->nc++] = (struct cand){
			u->id,	   u->unit.nodes,	   u->unit.kind,
			usable(u), rec_in_world(g, u->id), false,
			u,
		};
		if (usable(u))
			r->cands[x->nc - 1].nnodes = u->nnodes;
	}
	{
		size_t w = 0;

		for (size_t i = 0; i < g->nexpect; i++) {
			struct expect *e = &g->expect[i];
			const struct job_view *j;

			if (!e->job && (e->job = submitted_unit(g, e))) {
				g->submit_failures = 0;
				r->units_submitted++;
			}
			j = e->job ? snapshot_find(r->snap, e->job) : NULL;

			if (j ||
			    now - e->at > (int64_t)r->cfg.expect_timeout_ms)
				continue; /* seen (a unit now) or lost */
			g->expect[w++] = *e;
			r->cands[x->nc++] = (struct cand){
				e->job, e->nnodes, e->kind, false,
				false,	false,	   NULL,
			};
		}
		g->nexpect = w;
	}

	r->ncands = x->nc;
	return 0;
}

/* Match units to slots: preemptible first, running before pending; then
 * on-demand units where no preemptible one runs. */
static void run_match(struct run *x)
{
	struct reconcile *r = x->r;

	for (size_t i = 0; i < x->nslots; i++) {
		struct slot *s = &r->slots[i];

		s->p_run = pick_cand(r, x->nc, s->size, UNIT_PREEMPTIBLE, true);
		if (s->p_run < 0)
			s->p_pend = pick_cand(r, x->nc, s->size,
					      UNIT_PREEMPTIBLE, false);
	}
	for (size_t i = 0; i < x->nslots; i++) {
		struct slot *s = &r->slots[i];

		if (s->p_run >= 0)
			continue;
		s->od_run = pick_cand(r, x->nc, s->size, UNIT_ONDEMAND, true);
		if (s->od_run < 0)
			s->od_pend =
			    pick_cand(r, x->nc, s->size, UNIT_ONDEMAND, false);
	}
	for (x->frontier = 0; x->frontier < x->nslots; x->frontier++)
		if (r->slots[x->frontier].p_run < 0 &&
		    r->slots[x->frontier].od_run < 0)
			break;
}

/* Units that fit no slot, and preempted units, are released. */
static int run_releases(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;

	/* Units that fit no slot: released, now unless they are in the
	 * world (then at its next change). */
	for (size_t i = 0; i < x->nc; i++) {
		const struct cand *c = &r->cands[i];

		if (c->used || !c->j || c->in_world)
			continue;
		if (release_at(g, c->job, now) < 0)
			return -1;
	}

	/*
	 * Preempted units: Slurm ends them at the end of its GraceTime (and
	 * KillWait), but their ranks need only --elastic-grace to
	 * checkpoint; cancelling them then lets the preemptor start sooner.
	 * One that was in no world, or whose ranks have all left (no step
	 * of its own runs), holds nothing of the group's: at once.  The
	 * time is set when the preemption is first seen (the world drops
	 * the unit in the same pass); later, its steps ending bring it
	 * forward.
	 */
	for (size_t i = 0; i < g->nunits; i++) {
		const struct job_view *u = g->units[i];
		bool seen;

		if (u->phase != PHASE_RUNNING || !u->preempted)
			continue;
		seen = rec_released(g, u->id) != NULL;
		if (seen && !u->steps_gone)
			continue;
		if (release_at(g, u->id,
			       u->steps_gone || !rec_in_world(g, u->id)
				   ? now
				   : now + (int64_t)o->grace * 1000) < 0)
			return -1;
	}
	return 0;
}

/* Losses: members of the world that are no longer usable. */
static void run_losses(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;

	if (g->formed) {
		if (x->b < g->world[0].nnodes) {
			x->failed = true;
			x->lj += snprintf(
			    x->lost + x->lj, sizeof(x->lost) - x->lj,
			    "base lost %u node%s", g->world[0].nnodes - x->b,
			    g->world[0].nnodes - x->b == 1 ? "" : "s");
		}
		for (size_t i = 1; i < g->nworld; i++) {
			const struct job_view *j =
			    snapshot_find(r->snap, g->world[i].job);

			if (j && usable(j))
				continue;
			if (j && (j->preempted || j->end == END_PREEMPTED))
				x->preempted = true;
			else
				x->failed = true;
			if (x->lj + 40 < sizeof(x->lost))
				x->lj += snprintf(
				    x->lost + x->lj, sizeof(x->lost) - x->lj,
				    "%sunit %u %s", x->lj ? ", " : "",
				    g->world[i].job, end_words(j));
		}
	}
}

/* May units be asked for now (time left, partitions, back-off)? */
static int run_can_submit(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_policy *p = x->p;
	const struct job_view *base = x->base;
	int64_t now = x->now;
	struct action_list *out = x->out;

	if (base->time_limit) {
		int64_t left = (int64_t)base->end_time - now / 1000;

		x->time_limit = left > 0 ? (uint32_t)(left / 60) : 0;
		x->can_submit = left >= (int64_t)r->cfg.min_unit_seconds;
		if (!x->can_submit &&
		    note_once(g, NOTE_NO_TIME, out,
			      "group %u: base has less than %u s left: "
			      "no more units",
			      g->id, r->cfg.min_unit_seconds) < 0)
			return -1;
	} else {
		x->can_submit = true;
	}
	if (x->nslots && !p->preemptible_partitions.n) {
		x->can_submit = false;
		if (note_once(g, NOTE_NO_PARTITION, out,
			      "group %u: no PreemptiblePartitions in "
			      "elastic.conf: no units",
			      g->id) < 0)
			return -1;
	}
	/* A base its owner moved out of BasePartitions (while it was
	 * pending: job_submit checked the partition only at submission)
	 * gets no units: the policy applies where it is known. */
	if (x->nslots && p->base_partitions.n &&
	    !(base->partition &&
	      policy_list_has(&p->base_partitions, base->partition))) {
		x->can_submit = false;
		if (note_once(g, NOTE_BASE_PARTITION, out,
			      "group %u: base in partition %s, not one of "
			      "BasePartitions in elastic.conf: no units",
			      g->id,
			      base->partition ? base->partition : "?") < 0)
			return -1;
	}
	if (now < g->submit_after)
		x->can_submit = false;
	return 0;
}

/* Preemptible units for every slot lacking one (with --elastic-sizes only
 * up to the first slot not held). */
static int run_submit_preemptible(struct run *x)
{
	struct reconcile *r = x->r;
	int rc;

	for (size_t i = 0; i < x->nslots; i++) {
		struct slot *s = &r->slots[i];

		if (x->discrete && i > x->frontier)
			break;
		if (s->p_run >= 0 || s->p_pend >= 0)
			continue;
		rc = submit(r, x->g, x->p, x->now, UNIT_PREEMPTIBLE, s->size,
			    x->time_limit, x->out);
		if (rc < 0)
			return -1;
		if (rc)
			break;
		s->p_pend = (int)x->nc; /* a placeholder: not a cand */
	}
	return 0;
}

/* On-demand when the preemptible units did not bring the group to the
 * threshold within the scale delay. */
static int run_submit_ondemand(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_policy *p = x->p;
	const struct job_view *base = x->base;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;
	int rc;

	if (ondemand_permitted(p, base)) {
		unsigned threshold =
		    base->opts->ondemand == ELASTIC_ONDEMAND_ALWAYS ? x->target
								    : o->min;
		unsigned have = x->b;

		for (size_t i = 0; i < x->nslots; i++) {
			const struct slot *s = &r->slots[i];

			if (s->p_run >= 0 || s->od_run >= 0 || s->od_pend >= 0)
				have += s->size;
		}
		if (have >= threshold) {
			g->shortfall_since = 0;
		} else if (!g->shortfall_since) {
			g->shortfall_since = now;
		}
		if (g->shortfall_since && x->can_submit &&
		    now - g->shortfall_since >=
			(int64_t)o->scale_delay * 1000) {
			for (size_t i = 0; i < x->nslots && have < threshold;
			     i++) {
				struct slot *s = &r->slots[i];

				if (x->discrete && i > x->frontier)
					break;
				if (s->p_run >= 0 || s->od_run >= 0 ||
				    s->od_pend >= 0)
					continue;
				rc = submit(r, g, p, now, UNIT_ONDEMAND,
					    s->size, x->time_limit, out);
				if (rc < 0)
					return -1;
				if (rc)
					break;
				have += s->size;
			}
			g->shortfall_since = 0;
		}
	} else {
		g->shortfall_since = 0;
	}
	return 0;
}

/* The best world from what runs now, into r->nworld. */
static void run_best_world(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	size_t nitems = 0;
	unsigned limit;

	for (size_t i = 0; i < x->nslots; i++) {
		const struct slot *s = &r->slots[i];
		int c = s->p_run >= 0 ? s->p_run : s->od_run;

		if (c >= 0)
			r->items[nitems++] = c;
	}
	qsort_r(r->items, nitems, sizeof(*r->items), by_preference, r);
	limit = x->target > g->world_nodes ? x->target : g->world_nodes;
	x->nodes = choose_world(r, o, x->b, limit, nitems);
	if (x->nodes) {
		r->nworld[x->nn++] =
		    (struct world_member){ g->id, x->b, MEMBER_BASE };
		for (size_t i = 0; i < nitems; i++) {
			const struct cand *c = &r->cands[r->items[i]];

			if (!r->chosen[i])
				continue;
			r->nworld[x->nn++] = (struct world_member){
				c->job,
				c->nnodes,
				c->kind == UNIT_ONDEMAND ? MEMBER_ONDEMAND
							 : MEMBER_PREEMPTIBLE,
			};
		}
		x->same = g->formed && x->nn == g->nworld &&
			  g->world[0].nnodes == x->b;
		for (size_t i = 1; x->same && i < x->nn; i++)
			x->same = rec_in_world(g, r->nworld[i].job);
	}
}

/* A group without a world yet: form it. */
static int run_first_world(struct run *x, bool adopt)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct job_view *base = x->base;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;

	/* Nothing to wait for when no unit runs or can come (no
	 * PreemptiblePartitions, no time left for one): the base at
	 * min is the world, at once. */
	bool complete = x->nodes && (x->nodes >= x->target ||
				     (!x->can_submit && x->nc == 0));

	if (x->nodes && adopt) {
		/* elasticd restarted: what runs is the world. */
		if (apply_world(r, g, now, r->nworld, x->nn, x->nodes,
				CAUSE_START, "rebuilt after elasticd restarted",
				false, out) < 0)
			return -1;
	} else if (x->nodes &&
		   (complete || now - (int64_t)base->start_time * 1000 >=
				    (int64_t)o->scale_delay * 1000)) {
		if (apply_world(r, g, now, r->nworld, x->nn, x->nodes,
				CAUSE_START,
				g->generation ? "world formed" : "first world",
				false, out) < 0)
			return -1;
	}
	return 0;
}

/* Members preempted: on at once without them. */
static int run_preempted(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	int64_t now = x->now;
	struct action_list *out = x->out;

	if (x->nodes ? apply_world(r, g, now, r->nworld, x->nn, x->nodes,
				   CAUSE_PREEMPT, x->lost, true, out)
		     : lose_world(r, g, now, CAUSE_PREEMPT, x->lost, out))
		return -1;
	return 0;
}

/* Members failed: wait the fault timeout for a replacement. */
static int run_failed(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;

	if (!g->loss_since) {
		g->loss_since = now;
		if (!push(out, ACTION_NOTE, g->id,
			  "group %u: %s: waiting up to %u s for a "
			  "replacement",
			  g->id, x->lost, o->fault_timeout))
			return -1;
	}
	if (x->nodes && x->nodes >= g->world_nodes) {
		if (apply_world(r, g, now, r->nworld, x->nn, x->nodes,
				CAUSE_FAIL, "replaced", true, out) < 0)
			return -1;
	} else if (now - g->loss_since >= (int64_t)o->fault_timeout * 1000) {
		if (x->nodes) {
			/* Room for all of it: the event keeps what fits. */
			char why[DETAIL_MAX + 48];

			snprintf(why, sizeof(why),
				 "%s; no replacement within %u s", x->lost,
				 o->fault_timeout);
			if (apply_world(r, g, now, r->nworld, x->nn, x->nodes,
					CAUSE_FAIL, why, true, out) < 0)
				return -1;
		} else if (!x->nodes &&
			   note_once(g, NOTE_BELOW_MIN, out,
				     "group %u: below --elastic-min=%u: "
				     "waiting for units",
				     g->id, o->min) < 0) {
			return -1;
		}
	}
	return 0;
}

/* A better world runs (growth, a cap, on-demand in or out): after the
 * scale delay. */
static int run_change(struct run *x)
{
	struct reconcile *r = x->r;
	struct group *g = x->g;
	const struct elastic_opts *o = x->o;
	int64_t now = x->now;
	struct action_list *out = x->out;

	bool od_in = false, od_out = false;

	for (size_t i = 1; i < x->nn; i++)
		od_in |= r->nworld[i].kind == MEMBER_ONDEMAND &&
			 !rec_in_world(g, r->nworld[i].job);
	for (size_t i = 1; i < g->nworld; i++) {
		bool kept = false;

		for (size_t k = 1; k < x->nn; k++)
			kept |= r->nworld[k].job == g->world[i].job;
		od_out |= !kept && g->world[i].kind == MEMBER_ONDEMAND;
	}
	if (!g->change_since)
		g->change_since = now;
	if (now - g->change_since >= (int64_t)o->scale_delay * 1000) {
		enum event_cause cause =
		    x->nodes > g->world_nodes
			? (od_in ? CAUSE_ONDEMAND : CAUSE_GROW)
		    : od_out ? CAUSE_RETURN
			     : CAUSE_GROW;
		const char *why =
		    x->nodes < g->world_nodes ? "policy lowered the cap"
		    : cause == CAUSE_ONDEMAND ? "on-demand units started"
		    : cause == CAUSE_RETURN   ? "back to preemptible units"
					      : "units started";

		if (apply_world(r, g, now, r->nworld, x->nn, x->nodes, cause,
				why, true, out) < 0)
			return -1;
	}
	return 0;
}

/* The base runs: keep its group between min and its target. */
static int step_running(struct reconcile *r, struct group *g,
			const struct elastic_policy *p, int64_t now, bool adopt,
			struct action_list *out)
{
	const struct job_view *base = g->base;
	struct elastic_submitter who = { base->user, base->account };
	const char *cap_key;
	unsigned cap = options_node_cap(p, &who, &cap_key);
	struct run run = {
		.r = r, .g = g, .p = p, .base = base, .o = base->opts,
		.now = now, .out = out, .b = base->nnodes,
		.discrete = base->opts->nsizes > 0, .same = true,
	}, *x = &run;
	int rc;

	x->nslots = ladder(x->o, cap, x->b, r->slots, &x->target);
	for (size_t i = 0; i < x->nslots; i++)
		r->slots[i].p_run = r->slots[i].p_pend = r->slots[i].od_run =
		    r->slots[i].od_pend = -1;
	if (run_candidates(x) < 0)
		return -1;
	run_match(x);
	if (run_releases(x) < 0)
		return -1;
	run_losses(x);
	if (run_can_submit(x) < 0)
		return -1;
	if (x->can_submit && run_submit_preemptible(x) < 0)
		return -1;
	if (run_submit_ondemand(x) < 0)
		return -1;
	run_best_world(x);
	if (!g->formed)
		rc = run_first_world(x, adopt);
	else if (x->preempted)
		rc = run_preempted(x);
	else if (x->failed)
		rc = run_failed(x);
	else if (x->nodes && !x->same)
		rc = run_change(x);
	else
		g->change_since = 0, rc = 0;
	if (rc < 0)
		return -1;

	if (!g->formed)
		g->state = x->b < x->o->min && !x->nodes ? GROUP_DEGRADED
							 : GROUP_STARTING;
	else if (g->loss_since)
		g->state = GROUP_DEGRADED;
	else if (g->change_since || now < g->resizing_until)
		g->state = GROUP_RESIZING;
	else
		g->state = GROUP_RUNNING;
	return send_releases(r, g, now, out);
}

/* The base is pending or has ended: its units go. */
static int step_stopped(struct reconcile *r, struct group *g, int64_t now,
			struct action_list *out)
{
	const struct job_view *base = g->base;
	bool ended = !base || !rec_live(base);

	for (size_t i = 0; i < g->nunits; i++)
		if (rec_live(g->units[i]) &&
		    release_at(g, g->units[i]->id, now) < 0)
			return -1;
	if (ended && !g->end_noted) {
		g->end_noted = true;
		add_event(g, now, CAUSE_END, base ? end_words(base) : "gone");
		r->resizes[CAUSE_END]++;
		if (!push(out, ACTION_NOTE, g->id,
			  "group %u: base %s: releasing its units", g->id,
			  base ? end_words(base) : "gone"))
			return -1;
	}
	if (g->formed) {
		/* Requeued or ended: the world is over; a requeued base
		 * starts a new one above the same generation. */
		g->formed = false;
		g->nworld = 0;
		g->world_nodes = 0;
		r->dirty = true;
	}
	g->change_since = g->loss_since = g->shortfall_since = 0;
	g->state = ended ? GROUP_COMPLETING : GROUP_PENDING;
	return send_releases(r, g, now, out);
}

/* ------------------------------------------------------------ a pass */

/*
 * A group found running at startup with no saved state: its generation
 * must exceed any an earlier elasticd gave it.  No group changes more
 * than once per pass, passes are 100 ms apart or more, so ms since its
 * base started / 50 + 3 is above them all.
 */
static void adopt_generation(struct group *g, int64_t now)
{
	int64_t start = (int64_t)g->base->start_time * 1000;
	int64_t gen = now > start ? (now - start) / ADOPT_MS_PER_GEN + 3 : 3;

	if ((uint64_t)gen > g->generation)
		g->generation = (uint64_t)gen - 1; /* apply_world adds 1 */
}

static int orphan(struct reconcile *r, const struct job_view *u, int64_t now,
		  const char *why, struct action_list *out)
{
	struct release *rel = NULL;

	for (size_t i = 0; i < r->norphans; i++)
		if (r->orphans[i].job == u->id)
			rel = &r->orphans[i];
	if (rel && now - rel->sent < (int64_t)r->cfg.cancel_retry_ms)
		return 0;
	if (!rel) {
		struct release *o = grow(r->orphans, &r->caporphans,
					 r->norphans + 1, sizeof(*o));

		if (!o)
			return -1;
		r->orphans = o;
		rel = &r->orphans[r->norphans++];
		rel->job = u->id;
		r->units_cancelled++;
	}
	rel->at = rel->sent = now;
	if (!push(out, ACTION_CANCEL, 0, "unit %u of group %u: %s: cancel",
		  u->id, u->unit.group, why))
		return -1;
	out->a[out->n - 1].job = u->id;
	return 0;
}

static int add_unit(struct group *g, const struct job_view *u)
{
	const struct job_view **a =
	    grow(g->units, &g->capunits, g->nunits + 1, sizeof(*a));

	if (!a)
		return -1;
	g->units = a;
	g->units[g->nunits++] = u;
	return 0;
}

int reconcile_pass(struct reconcile *r, const struct snapshot *s,
		   const struct elastic_policy *p, int64_t now,
		   struct action_list *out, elastic_error_t *err)
{
	size_t n = snapshot_count(s), ended;
	bool first = r->pass == 0;

	action_list_clear(out);
	r->pass++;
	r->snap = s;

	/* Bases: a group for each pending or running one. */
	for (size_t i = 0; i < n; i++) {
		const struct job_view *j = snapshot_job(s, i);
		struct group *g;

		if (j->role != ROLE_BASE || !j->opts)
			continue;
		g = rec_find(r, j->id);
		if (!g && !rec_live(j))
			continue;
		if (!g && !(g = rec_add_group(r, j->id)))
			goto oom;
		g->pass = r->pass;
		g->base = j;
		g->nunits = 0;
		g->uid = j->uid;
		snprintf(g->user, sizeof(g->user), "%s",
			 j->user ? j->user : "");
		snprintf(g->account, sizeof(g->account), "%s",
			 j->account ? j->account : "");
		g->min = j->opts->min;
		g->max = j->opts->max;
	}
	/* Units: to their group, or cancelled as orphans. */
	{
		size_t w = 0;

		for (size_t i = 0; i < r->norphans; i++) {
			const struct job_view *j =
			    snapshot_find(s, r->orphans[i].job);

			if (j && rec_live(j))
				r->orphans[w++] = r->orphans[i];
		}
		r->norphans = w;
	}
	for (size_t i = 0; i < n; i++) {
		const struct job_view *u = snapshot_job(s, i);
		struct group *g;

		if (u->role != ROLE_UNIT)
			continue;
		g = rec_find(r, u->unit.group);
		if (g && g->pass != r->pass) {
			g->pass = r->pass; /* base gone from slurmctld */
			g->base = NULL;
			g->nunits = 0;
		}
		if (g && g->base && g->base->uid != u->uid) {
			if (rec_live(u) &&
			    orphan(r, u, now, "owner differs from its base's",
				   out) < 0)
				goto oom;
			continue;
		}
		if (g) {
			if (add_unit(g, u) < 0)
				goto oom;
		} else if (rec_live(u) &&
			   orphan(r, u, now, "its base is not running", out) <
			       0) {
			goto oom;
		}
	}
	/* Each group, from the first that a bound on the last pass's
	 * submissions made wait. */
	ended = 0;
	r->submitted = 0;
	r->capped = false;
	r->npending = 0;
	for (size_t k = 0, n0 = r->nbuckets; k < n0; k++) {
		size_t bi = (r->start_bucket + k) % n0;
		struct group *g = r->buckets[bi], *next;

		for (; g; g = next) {
			bool any_live = false;

			next = g->next;
			g->submitted = 0;
			if (g->pass != r->pass) {
				g->base = NULL;
				g->nunits = 0;
			}
			if (g->base && g->base->phase == PHASE_RUNNING) {
				bool adopt = first && !g->formed;

				g->ended_at = 0;
				if (adopt && !g->restored)
					adopt_generation(g, now);
				if (step_running(r, g, p, now, adopt, out) < 0)
					goto oom;
				continue;
			}
			if (step_stopped(r, g, now, out) < 0)
				goto oom;
			for (size_t i = 0; i < g->nunits; i++)
				any_live |= rec_live(g->units[i]);
			if (any_live || (g->base && rec_live(g->base))) {
				g->ended_at = 0;
				continue;
			}
			/* Ended: kept a while for its status and events. */
			if (!g->ended_at)
				g->ended_at = now;
			g->state = GROUP_ENDED;
			if (now - g->ended_at >=
				(int64_t)RECONCILE_ENDED_KEEP_S * 1000 ||
			    ++ended > RECONCILE_ENDED_MAX)
				drop_group(r, g);
		}
	}
	if (r->capped)
		r->start_bucket = r->next_start;
	return 0;
oom:
	return elastic_errorf(err, "reconcile: out of memory");
}

void reconcile_submitted(struct reconcile *r, uint32_t group, uint32_t token,
			 uint32_t job_id, int64_t now)
{
	struct group *g = rec_find(r, group);

	if (!g)
		return;
	for (size_t i = 0; i < g->nexpect; i++) {
		if (g->expect[i].token != token)
			continue;
		if (job_id) {
			g->expect[i].job = job_id;
			g->submit_failures = 0;
			r->units_submitted++;
		} else {
			unsigned f =
			    g->submit_failures < 16 ? g->submit_failures : 16;
			int64_t wait = (int64_t)SUBMIT_BACKOFF_MS << f;

			g->expect[i] = g->expect[--g->nexpect];
			g->submit_failures++;
			g->submit_after = now + (wait < SUBMIT_BACKOFF_MAX
						     ? wait
						     : SUBMIT_BACKOFF_MAX);
		}
		return;
	}
}

int reconcile_raise_request(struct reconcile *r, uint32_t group,
			    struct action_list *out)
{
	struct group *g = rec_find(r, group);

	if (!g || !g->formed || !g->base || g->base->phase != PHASE_RUNNING)
		return -1;
	return raise_world(r, g, " (asked through the API)", out);
}

int reconcile_report(struct reconcile *r, const struct launch_report *rep,
		     int64_t now)
{
	struct group *g = rec_find(r, rep->group);
	unsigned grace;
	char why[128];

	if (!g || !g->formed || !g->base || !g->base->opts)
		return -1;
	/* Its ranks run in the current world: the resize is over, whatever
	 * is left of the grace. */
	if (rep->generation == g->generation)
		g->resizing_until = 0;
	if (rep->exit_ms < 0)
		return 0;
	grace = g->base->opts->grace;
	g->last_exit_ms = rep->exit_ms;
	g->grace_warning = grace && rep->exit_ms * 2 >= (int64_t)grace * 1000;
	if (g->grace_warning) {
		snprintf(why, sizeof(why),
			 "ranks took %.1f s of the %u s grace to checkpoint "
			 "and exit",
			 (double)rep->exit_ms / 1000.0, grace);
		add_event(g, now, CAUSE_GRACE_WARNING, why);
	}
	return 0;
}
