/* A group's unit submissions (reconcile_impl.h): the bounds per user, per
 * group and per pass, the request as an action, and the unit an answer
 * made.  Pure: actions out, nothing sent. */
#include "config.h"

#include "reconcile_impl.h"

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

/* Units of g pending now: in Slurm, and submitted but not seen yet. */
static unsigned group_pending(const struct reconcile *r, const struct group *g)
{
	unsigned k = 0;

	for (size_t i = 0; i < g->nunits; i++)
		k += g->units[i]->phase == PHASE_PENDING &&
		     !rec_released(g, g->units[i]->id);
	for (size_t e = 0; e < g->nexpect; e++)
		k += !g->expect[e].job ||
		     !snapshot_find(r->snap, g->expect[e].job);
	return k;
}

/* A group's part of its owner's pending units: the bound per user shared
 * by the owner's running groups (at least one each), so that the groups a
 * pass steps first do not take it all and leave the others none. */
static unsigned group_pending_bound(const struct reconcile *r, uid_t uid)
{
	unsigned n = 0;

	for (size_t bi = 0; bi < r->nbuckets; bi++)
		for (const struct group *g = r->buckets[bi]; g; g = g->next)
			n += g->uid == uid && g->pass == r->pass && g->base &&
			     g->base->phase == PHASE_RUNNING;
	return n > 1 && r->cfg.max_pending_user / n > 1
		   ? r->cfg.max_pending_user / n
	       : n > 1 ? 1
		       : r->cfg.max_pending_user;
}

int rec_trim_pending(struct reconcile *r, struct group *g, int64_t now)
{
	unsigned tmp, part, have;

	if (*pending_units(r, g->uid, &tmp) < r->cfg.max_pending_user)
		return 0;
	part = group_pending_bound(r, g->uid);
	have = group_pending(r, g);
	/* The youngest first: the last of the ladder, the highest nice. */
	while (have > part) {
		const struct job_view *y = NULL;

		for (size_t i = 0; i < g->nunits; i++) {
			const struct job_view *u = g->units[i];

			if (u->phase == PHASE_PENDING &&
			    !rec_released(g, u->id) && (!y || u->id > y->id))
				y = u;
		}
		if (!y)
			break;
		if (rec_release_at(g, y->id, now) < 0)
			return -1;
		have--;
		--*pending_units(r, g->uid, &tmp);
	}
	return 0;
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
			r->next_start = rec_hash(g->id, r->nbuckets);
		r->capped = true;
	} else if (*pending_units(r, g->uid, &tmp) >= r->cfg.max_pending_user)
		what = "pending units per user";
	else if (group_pending(r, g) >= group_pending_bound(r, g->uid))
		what = "pending units per user, shared by the user's groups";
	if (!what)
		return 0;
	if (rec_note_once(g, NOTE_SUBMIT_CAP, out,
			  "group %u: more units wait for a later pass "
			  "(bound on %s)",
			  g->id, what) < 0)
		return -1;
	return 1;
}

/* Ask for a unit: 0, 1 when a bound makes it wait, -1 out of memory. */
int rec_submit_unit(struct reconcile *r, struct group *g,
		    const struct elastic_policy *p, int64_t now,
		    enum unit_kind kind, unsigned size, unsigned after,
		    uint32_t limit, bool spare, struct action_list *out)
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
	/* A spare where Slurm takes it first, when the site says where. */
	if (spare && p->spare_partitions.n)
		parts = &p->spare_partitions;
	if (spare && p->spare_qos[0])
		qos = p->spare_qos;
	e = rec_grow(g->expect, &g->capexpect, g->nexpect + 1, sizeof(*e));
	if (!e)
		return -1;
	g->expect = e;
	a = rec_push(out, ACTION_SUBMIT, g->id,
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
	a->unit.nice = share_nice(p, base->opts->min, after, g->weight);
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
uint32_t rec_submitted_unit(const struct group *g, const struct expect *e)
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
