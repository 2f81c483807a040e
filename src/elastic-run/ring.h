#ifndef ELASTIC_RUN_RING_H
#define ELASTIC_RUN_RING_H

/*
 * The ring probe: each node's heartbeat task opens, every heartbeat, a
 * connection to the probe port of the next RING_K nodes of the world (in
 * the world's order, wrapping), so that a split between compute nodes
 * that all still reach the batch host is seen at the heartbeats' pace,
 * not at the ranks' collective or hang timeout; the launcher then asks
 * for the full probe (split.h), which decides.  N * RING_K connections
 * per heartbeat, where the full probe costs N * N.  A peer unreachable
 * RING_FAILS times in a row is said on a line "SELF R=<name>,<name>",
 * and "SELF R=-" once all are reached again.  Pure: the list, the
 * results come in, so that every rule is a unit test.
 */

#include <stdbool.h>
#include <stddef.h>

#include "detect.h"

#define RING_K	      2
#define RING_FAILS    2
#define RING_ADDR_MAX 64
#define RING_PORT_MAX 8

struct ring_peer {
	char name[DETECT_NAME_MAX];
	char addr[RING_ADDR_MAX];
	char port[RING_PORT_MAX];
	unsigned fails; /* in a row */
};

struct ring {
	size_t n; /* peers: min(RING_K, nodes - 1) */
	struct ring_peer peer[RING_K];
	bool said; /* the last line said a peer unreachable */
};

/* From the words of a "RING name=addr:port ..." line (the world's nodes
 * in order; list is modified) and this node's name: the peers after it.
 * 0, or -1 when self is not in the list (then r->n is 0). */
int ring_parse(struct ring *r, const char *self, char *list);

/* Peer i reached, or not, this heartbeat: true when the node's line
 * changes (a peer now unreachable RING_FAILS times in a row, or every
 * peer reached again after one was said). */
bool ring_result(struct ring *r, size_t i, bool reached);

/* The line "SELF R=a,b\n" (or "SELF R=-\n"): its length, or -1. */
int ring_line(const struct ring *r, const char *self, char *buf, size_t len);

#endif
