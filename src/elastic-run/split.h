#ifndef ELASTIC_RUN_SPLIT_H
#define ELASTIC_RUN_SPLIT_H

/*
 * A split between compute nodes that all still reach the batch host (and
 * the controller): which nodes the world keeps.  After a probe, each
 * node's heartbeat task says which of the others it could not reach
 * ("NAME X=<node>,<node>" or "NAME X=-", after "NAME X+=..." lines for a
 * long list); two nodes are joined when neither said it could not reach
 * the other, and both answered.  The world keeps the side that holds the batch
 * host: grown from it, one node at a time, by the node joined to the most
 * others (ties: the earlier in the world's order, the base's nodes first), if
 * joined to every node kept so far.  Every other node leaves: no two worlds.
 * Pure: fed the answers, so that every rule is a unit test.
 */

#include <stdbool.h>
#include <stddef.h>

#include "detect.h"

struct split {
	size_t n;
	const char (*name)[DETECT_NAME_MAX]; /* the world's nodes, in order */
	bool *answered;			     /* [n] */
	bool *cut;			     /* [n * n]: i could not reach j */
};

/* A table for n nodes named name[0..n-1] (kept by the caller): 0, or -1
 * when memory is short. */
int split_init(struct split *s, size_t n, const char (*name)[DETECT_NAME_MAX]);
void split_free(struct split *s);

/* An answer line (without its newline) from node i: "NAME X=..." or
 * "NAME X+=..." (other lines are ignored).  Unknown names in the list
 * are ignored. */
void split_heard(struct split *s, size_t i, const char *line);

/* Node i's heartbeat was never heard before the probe (its step still
 * starting), or it did not answer: nothing is known of it here, and it
 * stays (joined to all); the heartbeats judge it. */
void split_unknown(struct split *s, size_t i);

/* Did every node answer? */
bool split_complete(const struct split *s);

/*
 * The nodes that leave, given the batch host's index: keep[i] false for
 * them.  Returns how many leave (0: no split).  keep has n entries.
 */
size_t split_keep(const struct split *s, size_t master, bool *keep);

#endif
