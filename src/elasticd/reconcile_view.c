/* The view a pass publishes to the API (reconcile.h). */
#include "config.h"

#include "reconcile_impl.h"

/* A group's state and world, for the caller. */
int reconcile_group_status(const struct reconcile *r, uint32_t group,
			   struct reconcile_group_status *ret, uint32_t *world,
			   size_t max)
{
	const struct group *g = rec_find(r, group);

	if (!g)
		return -1;
	ret->state = g->state;
	ret->generation = g->generation;
	ret->world_nodes = g->formed ? g->world_nodes : 0;
	ret->nworld = g->formed ? g->nworld : 0;
	for (size_t i = 0; i < ret->nworld && i < max; i++)
		world[i] = g->world[i].job;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* The group's own fields: who, its bounds, its world, its launcher's last
 * report, its share (a name that cannot be copied stays NULL: unknown,
 * as before). */
static void view_fields(const struct group *g, struct group_info *gi,
			int64_t now)
{
	gi->base_job_id = g->id;
	gi->user_id = g->uid;
	gi->user = dup_or_null(g->user);
	gi->account = dup_or_null(g->account);
	gi->partition = g->base ? dup_or_null(g->base->partition) : NULL;
	gi->state = g->state;
	gi->min = g->min;
	gi->max = g->max;
	gi->generation = g->generation;
	gi->world_nodes = g->formed ? g->world_nodes : 0;
	gi->last_exit_ms = g->last_exit_ms;
	gi->grace_warning = g->grace_warning;
	gi->relay = g->relays;
	gi->grace = g->base && g->base->opts ? g->base->opts->grace : 0;
	gi->weight = g->weight ? g->weight : 1;
	gi->growth_wait_ms = g->grow_since ? now - g->grow_since : -1;
	gi->held =
	    g->base && g->base->phase == PHASE_RUNNING ? g->held : HELD_NONE;
}

static int view_group(const struct reconcile *r, const struct group *g,
		      struct group_info *gi, struct elasticd_view *v,
		      int64_t now)
{
	size_t nm = 0;

	view_fields(g, gi, now);
	if (g->base && g->base->phase == PHASE_RUNNING && g->base->nodes[0]) {
		gi->master_addr = nodelist_first_host(g->base->nodes);
		if (!gi->master_addr)
			return -1;
	}
	gi->members = calloc(g->nunits + 1, sizeof(*gi->members));
	if (!gi->members)
		return -1;
	if (g->base && rec_live(g->base)) {
		struct member_info *m = &gi->members[nm++];
		bool running = g->base->phase == PHASE_RUNNING;

		m->job_id = g->id;
		m->kind = MEMBER_BASE;
		m->state = running ? MEMBER_RUNNING : MEMBER_PENDING;
		m->nnodes = g->base->nnodes;
		m->in_world = g->formed;
		if (running) {
			v->nodes_base += g->base->nnodes;
			if (g->base->nodes[0] &&
			    !(m->nodes = strdup(g->base->nodes)))
				return -1;
		}
	}
	for (size_t i = 0; i < g->nunits; i++) {
		const struct job_view *u = g->units[i];
		const struct release *rel = rec_released(g, u->id);
		struct member_info *m;

		if (!rec_live(u))
			continue;
		m = &gi->members[nm++];
		m->job_id = u->id;
		m->kind = u->unit.kind == UNIT_ONDEMAND ? MEMBER_ONDEMAND
							: MEMBER_PREEMPTIBLE;
		m->nnodes = u->nnodes;
		m->in_world = g->formed && rec_in_world(g, u->id);
		for (size_t k = 0; k < g->nspare && !m->in_world; k++)
			m->spare |= g->spare[k] == u->id;
		if (u->phase == PHASE_PENDING)
			m->state = MEMBER_PENDING;
		else if (u->preempted)
			m->state = MEMBER_PREEMPTED;
		else if (rel && (rel->sent || rel->at > now))
			m->state = MEMBER_RELEASING;
		else
			m->state = MEMBER_RUNNING;
		if (u->phase == PHASE_RUNNING) {
			if (m->kind == MEMBER_ONDEMAND)
				v->nodes_ondemand += u->nnodes;
			else
				v->nodes_preemptible += u->nnodes;
			if (m->spare) {
				gi->spares++;
				v->nodes_spare += u->nnodes;
			}
			if (u->nodes[0] && !(m->nodes = strdup(u->nodes)))
				return -1;
		}
	}
	gi->nmembers = nm;
	gi->events = calloc(g->nevents ? g->nevents : 1, sizeof(*gi->events));
	if (!gi->events)
		return -1;
	for (size_t i = 0; i < g->nevents; i++) {
		const struct event *e =
		    &g->events[(g->event_head + i) % GROUP_MAX_EVENTS];
		struct event_info *ei = &gi->events[i];

		ei->time.tv_sec = (time_t)(e->at / 1000);
		ei->time.tv_nsec = (long)(e->at % 1000) * 1000000;
		ei->cause = e->cause;
		ei->generation = e->generation;
		ei->world_nodes = e->nodes;
		gi->nevents = i + 1;
		if (e->detail[0] && !(ei->detail = strdup(e->detail)))
			return -1;
	}
	return 0;
}

/* Each group's part of the nodes in all groups' worlds. */
static void view_shares(struct elasticd_view *v)
{
	uint64_t all = 0;

	for (size_t i = 0; i < v->ngroups; i++)
		all += v->groups[i].world_nodes;
	for (size_t i = 0; i < v->ngroups; i++)
		v->groups[i].share =
		    all ? (double)v->groups[i].world_nodes / (double)all : 0;
}

static int by_group_id(const void *a, const void *b)
{
	const struct group_info *x = a, *y = b;

	return (x->base_job_id > y->base_job_id) -
	       (x->base_job_id < y->base_job_id);
}

struct elasticd_view *reconcile_view(const struct reconcile *r,
				     const struct snapshot *s, int64_t now)
{
	struct elasticd_view *v = calloc(1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return NULL;
	v->published.tv_sec = (time_t)(now / 1000);
	v->published.tv_nsec = (long)(now % 1000) * 1000000;
	v->groups = calloc(r->ngroups ? r->ngroups : 1, sizeof(*v->groups));
	if (!v->groups)
		goto fail;
	for (size_t bi = 0; bi < r->nbuckets; bi++)
		for (const struct group *g = r->buckets[bi]; g; g = g->next) {
			v->ngroups = k + 1;
			if (view_group(r, g, &v->groups[k++], v, now) < 0)
				goto fail;
		}
	view_shares(v);
	qsort(v->groups, v->ngroups, sizeof(*v->groups), by_group_id);
	memcpy(v->metrics.resizes, r->resizes, sizeof(r->resizes));
	v->metrics.resize_seconds_sum = r->resize_seconds_sum;
	v->metrics.units_submitted = r->units_submitted;
	v->metrics.units_cancelled = r->units_cancelled;
	v->metrics.swaps = r->swaps;
	return v;
fail:
	view_free(v);
	return NULL;
}
