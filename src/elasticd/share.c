/* Sharing idle nodes between groups (share.h): the weights, each unit's
 * nice, and which unit a rebalance moves.  Pure. */
#include "config.h"

#include "share.h"

unsigned share_weight(const struct elastic_policy *p, const char *account,
		      const char *qos)
{
	unsigned a =
	    account ? policy_caps_get(&p->account_weights, account) : 0;
	unsigned q = qos ? policy_caps_get(&p->qos_weights, qos) : 0;

	return (a ? a : 1) * (q ? q : 1);
}

unsigned share_nice(const struct elastic_policy *p, unsigned min, unsigned size,
		    unsigned weight)
{
	uint64_t nice = p->unit_nice;

	/* 1 above UnitNice at least: a group below its min goes first. */
	if (p->share_nice_step && size > min)
		nice += 1 + (uint64_t)p->share_nice_step * size /
				(weight ? weight : 1);
	return nice > SHARE_NICE_MAX ? SHARE_NICE_MAX : (unsigned)nice;
}

uint64_t share_level(unsigned nodes, unsigned weight)
{
	return (uint64_t)nodes * 1000 / (weight ? weight : 1);
}

/* The taker: below its min first, then the lowest level; waited a whole
 * interval.  n when none. */
static size_t taker(const struct share_group *g, size_t n, int64_t now_ms,
		    int64_t wait_ms)
{
	size_t best = n;

	for (size_t i = 0; i < n; i++) {
		bool below, best_below;

		if (!g[i].wait_since || now_ms - g[i].wait_since < wait_ms)
			continue;
		if (best == n) {
			best = i;
			continue;
		}
		below = g[i].nodes < g[i].min;
		best_below = g[best].nodes < g[best].min;
		if (below != best_below) {
			if (below)
				best = i;
			continue;
		}
		if (share_level(g[i].nodes, g[i].weight) <
			share_level(g[best].nodes, g[best].weight) ||
		    (share_level(g[i].nodes, g[i].weight) ==
			 share_level(g[best].nodes, g[best].weight) &&
		     g[i].wait_since < g[best].wait_since))
			best = i;
	}
	return best;
}

int share_rebalance(const struct share_group *g, size_t n, int64_t now_ms,
		    unsigned interval_s, size_t *from, size_t *to)
{
	size_t t = taker(g, n, now_ms, (int64_t)interval_s * 1000);
	size_t best = n;
	uint64_t floor, best_level = 0;

	if (t == n)
		return 0;
	floor = share_level(g[t].nodes, g[t].weight);
	for (size_t i = 0; i < n; i++) {
		uint64_t after;

		if (i == t || !g[i].shed || g[i].nodes < g[i].min + g[i].shed)
			continue;
		/* Still above the taker's level once it gave: otherwise
		 * the unit would be due back at the next interval. */
		after = share_level(g[i].nodes - g[i].shed, g[i].weight);
		if (after <= floor)
			continue;
		if (best == n || after > best_level)
			best = i, best_level = after;
	}
	if (best == n)
		return 0;
	*from = best;
	*to = t;
	return 1;
}
