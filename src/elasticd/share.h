#ifndef ELASTICD_SHARE_H
#define ELASTICD_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/policy.h"

/*
 * How idle nodes are shared between groups that all want them
 * (elasticd(8), Sharing): max-min fair on nodes, weighted.  Pure.
 *
 * elasticd does not place units, Slurm does: it starts pending jobs in
 * priority order.  So the order is put into each unit's nice when it is
 * asked for: the unit that brings a group to size s has the nice of
 * s / weight (ShareNiceStep per node of weighted size) above UnitNice, and
 * a unit that brings a group to its min or below has UnitNice itself.
 * Slurm then starts first the units of the groups with the smallest
 * weighted size, below-min groups before any other: water-filling, with
 * no knowledge of the idle nodes needed, and with the site's fairshare
 * (priority/multifactor) still counting within a step.
 *
 * A unit is never taken from a running group to grow another unless the
 * site asks for it (Rebalance=yes): then share_rebalance() names one unit
 * per RebalanceInterval to move, from the group furthest above its share
 * to the one that waited longest furthest below it, through the same
 * grace as a preemption.
 */

/* A group's weight: its account's times its QOS's (each 1 when not named
 * in AccountShareWeights, QOSShareWeights), at most
 * POLICY_WEIGHT_MAX^2. */
unsigned share_weight(const struct elastic_policy *p, const char *account,
		      const char *qos);

/* The nice of a unit that brings a group of the given min and weight to
 * size nodes; at most SHARE_NICE_MAX (within Slurm's bound on a nice). */
#define SHARE_NICE_MAX 2000000000u
unsigned share_nice(const struct elastic_policy *p, unsigned min, unsigned size,
		    unsigned weight);

/* A group's weighted size, in thousandths of a node: what max-min fair
 * sharing levels. */
uint64_t share_level(unsigned nodes, unsigned weight);

/* A group as rebalancing sees it. */
struct share_group {
	uint32_t id;
	unsigned weight;
	unsigned min;
	unsigned nodes;	    /* in its world now */
	int64_t wait_since; /* wants growth (below its target, a unit
			     * pending) since; 0: it does not */
	unsigned shed;	    /* nodes of the unit it could give without
			     * going below min; 0: none */
};

/*
 * Which unit moves now, if any: 1 with *from (the giver) and *to (the
 * group that grows) set, else 0.  Only a group that waited a whole
 * interval takes; a group below its min first, then the lowest level.
 * The giver is the group with the highest level that stays above the
 * taker's level after giving (no unit moves back and forth).
 */
int share_rebalance(const struct share_group *g, size_t n, int64_t now_ms,
		    unsigned interval_s, size_t *from, size_t *to);

#endif
