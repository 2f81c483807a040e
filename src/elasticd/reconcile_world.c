/* The sizes a group may take, and the world chosen and applied
 * (reconcile.h). */
#include "config.h"

#include "reconcile_impl.h"

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
size_t rec_ladder(const struct elastic_opts *o, unsigned cap, unsigned b,
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

/*
 * Spare slots after the ladder's n slots: --elastic-spares of
 * options_spare_nodes() each, as many as the cap leaves beside the
 * target.  Returns the new count of slots.
 */
size_t rec_spare_slots(const struct elastic_opts *o, unsigned cap,
		       unsigned target, struct slot *slots, size_t n)
{
	unsigned each = options_spare_nodes(o), k = o->spares;

	if (target >= cap)
		return n;
	if (k > (cap - target) / each)
		k = (cap - target) / each;
	while (k-- > 0 && n < GROUP_MAX_SLOTS)
		slots[n++].size = each;
	return n;
}

/*
 * The largest allowed world: the base (b nodes) plus a subset of items
 * (indices into cands, least preferred first), at most limit nodes.
 * Among equal sizes the subset keeps the most preferred items.  Marks
 * r->chosen[i] per item and returns the size, or 0 if even none fits.
 */
unsigned rec_choose_world(struct reconcile *r, const struct elastic_opts *o,
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

		bits = rec_grow(r->bits, &r->capbits, (n + 1) * words,
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

/* The old world's running jobs of g into jobs (g->nworld at most), the
 * base first when it runs: how many. */
static size_t world_running(const struct reconcile *r, const struct group *g,
			    uint32_t *jobs)
{
	size_t k = 0;

	for (size_t i = 0; i < g->nworld; i++) {
		const struct job_view *j =
		    r->snap ? snapshot_find(r->snap, g->world[i].job) : NULL;

		if (j && j->phase == PHASE_RUNNING && own_job(g, j))
			jobs[k++] = j->id;
	}
	return k;
}

/*
 * The event, in the old world's running jobs: their ranks checkpoint.
 * A launcher that relays (its report said so: elastic-run) hears the
 * signal on the base's steps and tells every other member's ranks over
 * its heartbeat steps, without slurmctld: then the base alone is
 * signalled, one RPC a group however many units it has (a rack
 * preempted must not send slurmctld a signal per job).  Otherwise, or
 * when the base is not running (no launcher to relay), every job.
 */
int rec_raise_world(struct reconcile *r, const struct group *g, const char *why,
		    struct action_list *out)
{
	const struct elastic_opts *o = g->base->opts;
	struct action *a;
	size_t k;
	bool relay;

	a = rec_push(out, ACTION_RAISE, g->id, "%s", "");
	if (!a)
		return -1;
	a->signal = o->signal;
	a->jobs = malloc((g->nworld ? g->nworld : 1) * sizeof(*a->jobs));
	if (!a->jobs) {
		out->n--;
		return -1;
	}
	k = world_running(r, g, a->jobs);
	relay = g->relays && k > 1 && a->jobs[0] == g->id;
	a->njobs = relay ? 1 : k;
	a->relayed = relay ? k - 1 : 0;
	if (!k) { /* nobody to tell */
		free(a->jobs);
		out->n--;
		return 0;
	}
	snprintf(a->text, sizeof(a->text),
		 "group %u: raise %s in generation %" PRIu64 " (%u node%s%s)%s",
		 g->id, parse_signal_name(o->signal) ?: "?", g->generation,
		 g->world_nodes, g->world_nodes == 1 ? "" : "s",
		 relay ? "; in the base, its launcher relays" : "", why);
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
		if (kept || !j || !rec_usable(j) ||
		    matched(r, r->ncands, j->id))
			continue;
		if (rec_release_at(g, j->id, at) < 0)
			return -1;
	}
	return 0;
}

/*
 * No allowed world is left (a preempted unit took the group below what
 * the base and the rest can make): the ranks are told, the world ends,
 * and a new one forms when units allow.
 */
int rec_lose_world(struct reconcile *r, struct group *g, int64_t now,
		   enum event_cause cause, const char *why,
		   struct action_list *out)
{
	if (rec_raise_world(r, g, "", out) < 0 ||
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
	rec_add_event(g, now, cause, why);
	r->resizes[cause]++;
	return rec_push(out, ACTION_NOTE, g->id,
			"group %u: generation %" PRIu64 ": no world (%s)",
			g->id, g->generation, why)
		   ? 0
		   : -1;
}

/*
 * Make nw (base first) the group's world: a new generation, the event
 * raised in the old world's running jobs, old members that are left out
 * released after the grace.
 */
int rec_apply_world(struct reconcile *r, struct group *g, int64_t now,
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
	if (raise && g->formed && rec_raise_world(r, g, "", out) < 0)
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
	rec_add_event(g, now, cause, detail);
	r->resizes[cause]++;
	if (cause != CAUSE_START)
		r->resize_seconds_sum += (double)(now - since) / 1000.0;
	return rec_push(out, ACTION_NOTE, g->id,
			"group %u: generation %" PRIu64 ": %u node%s (%s)",
			g->id, g->generation, nodes, nodes == 1 ? "" : "s",
			detail)
		   ? 0
		   : -1;
}
