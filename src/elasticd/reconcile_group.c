/* Groups and their records: the table, events, releases (reconcile.h). */
#include "config.h"

#include "reconcile_impl.h"

void *rec_grow(void *p, size_t *cap, size_t need, size_t size)
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

static struct action *vpush(struct action_list *l, enum action_type type,
			    uint32_t group, const char *fmt, va_list ap)
{
	struct action *a, *arr = rec_grow(l->a, &l->cap, l->n + 1, sizeof(*a));

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

struct action *rec_push(struct action_list *l, enum action_type type,
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

int rec_note_once(struct group *g, enum note_bit bit, struct action_list *out,
		  const char *fmt, ...)
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

bool rec_usable(const struct job_view *j)
{
	return j->phase == PHASE_RUNNING && !j->preempted;
}

bool rec_in_grace(const struct job_view *j)
{
	return j->phase == PHASE_RUNNING && j->preempted;
}

const char *rec_end_words(const struct job_view *j)
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
	c->release_launch_holds = 2;
}

size_t rec_hash(uint32_t id, size_t n)
{
	return (size_t)((id * 2654435761u) & (n - 1));
}

struct group *rec_find(const struct reconcile *r, uint32_t id)
{
	struct group *g;

	for (g = r->buckets[rec_hash(id, r->nbuckets)]; g; g = g->next)
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
			size_t h = rec_hash(g->id, n);

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
	h = rec_hash(id, r->nbuckets);
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

void rec_drop_group(struct reconcile *r, struct group *g)
{
	struct group **pp = &r->buckets[rec_hash(g->id, r->nbuckets)];

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
	free(r->shares);
	free(r->shed_jobs);
	free(r);
}

size_t reconcile_ngroups(const struct reconcile *r)
{
	return r->ngroups;
}

void rec_add_event(struct group *g, int64_t now, enum event_cause cause,
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

int reconcile_note(struct reconcile *r, uint32_t group, enum event_cause cause,
		   const char *detail, int64_t now)
{
	struct group *g = rec_find(r, group);

	if (!g)
		return -1;
	rec_add_event(g, now, cause, detail);
	return 0;
}

int reconcile_spares_checked(struct reconcile *r, uint32_t group,
			     const uint32_t *jobs, size_t n)
{
	struct group *g = rec_find(r, group);

	if (!g || n > ELASTIC_MAX_SPARES)
		return -1;
	if (n) /* jobs may be NULL when none is named */
		memcpy(g->checked, jobs, n * sizeof(*jobs));
	g->nchecked = n;
	g->checks = true;
	return 0;
}

bool rec_group_in_grace(const struct group *g)
{
	for (size_t i = 0; i < g->nunits; i++)
		if (rec_in_grace(g->units[i]))
			return true;
	return false;
}

bool rec_unchecked(const struct group *g, uint32_t job)
{
	size_t i;

	if (!g->checks)
		return false;
	for (i = 0; i < g->nspare && g->spare[i] != job; i++)
		;
	if (i == g->nspare)
		return false;
	for (i = 0; i < g->nchecked; i++)
		if (g->checked[i] == job)
			return false;
	return true;
}

/* Remember a job to cancel at time at (now: at once).  Idempotent. */
int rec_release_at(struct group *g, uint32_t job, int64_t at)
{
	struct release *rel;

	for (size_t i = 0; i < g->nrel; i++) {
		if (g->rel[i].job == job) {
			if (at < g->rel[i].at)
				g->rel[i].at = at;
			return 0;
		}
	}
	rel = rec_grow(g->rel, &g->caprel, g->nrel + 1, sizeof(*rel));
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
int rec_send_releases(struct reconcile *r, struct group *g, int64_t now,
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
		if (!rec_push(out, ACTION_CANCEL, g->id,
			      "group %u: cancel %s unit %u (%u node%s)%s",
			      g->id, unittag_kind_name(j->unit.kind), j->id,
			      j->nnodes, j->nnodes == 1 ? "" : "s",
			      rel->sent ? " again" : ""))
			return -1;
		out->a[out->n - 1].job = rel->job;
		if (!rel->sent)
			r->units_cancelled++;
		g->rel[w - 1].sent = now;
	}
	g->nrel = w;
	return 0;
}
