#ifndef ELASTIC_COMMON_TRACE_H
#define ELASTIC_COMMON_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * A spot-availability trace, the input of the goodput benchmark: which
 * nodes a cloud gave and took back, and when.  One event a line,
 *
 *     <milliseconds since start>,<add|remove>,<node name>
 *
 * e.g. "3000,remove,node7".  Times are whole milliseconds, never
 * decreasing; a node is added only while absent and removed only while
 * present: an event out of turn is an error naming its line (a trace
 * that has one is wrong, and a replay of it would be).  CRLF line ends
 * and a blank last line are accepted; nothing else is (no comments, no
 * blanks around fields).
 *
 * The availability is a step function: A(t) is the number of nodes
 * present once every event at a time <= t has happened (0 before the
 * first event).  The trace lasts from 0 to its last event's time.
 */
#define TRACE_EVENTS_MAX 1000000
#define TRACE_NODES_MAX	 65536		  /* distinct node names in a trace */
#define TRACE_NAME_MAX	 64		  /* [A-Za-z0-9._-], at least one */
#define TRACE_MS_MAX	 1000000000000ULL /* about 31.7 years */
/* The longest line (13 digits, ",remove,", a name, CRLF) times the events. */
#define TRACE_FILE_MAX                                                         \
	((size_t)TRACE_EVENTS_MAX * (13 + 8 + TRACE_NAME_MAX + 2))

/* Time compression factors accepted (trace time / speed). */
#define TRACE_SPEED_MIN 0.001
#define TRACE_SPEED_MAX 1000000.0

struct trace; /* opaque */

struct trace_event {
	uint64_t ms;	    /* trace time */
	uint32_t node;	    /* index, see trace_node_name() */
	uint32_t available; /* nodes present after this event */
	bool add;	    /* else remove */
};

/*
 * Parse a trace from text; name is used in messages ("trace.csv:12:
 * 'remov': not add or remove").  Returns a new trace (the caller frees
 * it with trace_destroy()), or NULL with err set.
 */
struct trace *trace_parse(const char *text, const char *name,
			  elastic_error_t *err);

/* The same from the file at path (at most TRACE_FILE_MAX bytes), named by
 * path in messages.  trace_load.c: what calls it links libcommonio. */
struct trace *trace_load(const char *path, elastic_error_t *err);

/* NULL is fine; errno is kept. */
void trace_destroy(struct trace *t);

size_t trace_event_count(const struct trace *t);
/* Event i (i < trace_event_count()), owned by t. */
const struct trace_event *trace_event(const struct trace *t, size_t i);
/* Distinct nodes, numbered 0.. in order of first appearance. */
size_t trace_node_count(const struct trace *t);
/* Node i's name (i < trace_node_count()), owned by t. */
const char *trace_node_name(const struct trace *t, size_t i);

/* The last event's time (for a parsed trace). */
uint64_t trace_duration_ms(const struct trace *t);
/* A(ms), the step function above. */
unsigned trace_available_at(const struct trace *t, uint64_t ms);
/* The least and most A(t) over [0, duration]. */
unsigned trace_available_min(const struct trace *t);
unsigned trace_available_max(const struct trace *t);
/* The integral of A over [0, duration], exact, and its mean (A(0) for
 * a trace whose events are all at time 0). */
uint64_t trace_node_ms(const struct trace *t);
double trace_available_mean(const struct trace *t);

/*
 * The trace on a cluster of `nodes` nodes (1..TRACE_NODES_MAX), as a new
 * trace (the caller destroys it) whose node i is cluster node i, named
 * by its decimal index; times and the duration are unchanged (its last
 * event may come before the end).  With D distinct trace
 * nodes and M = trace_available_max():
 *
 * - D <= nodes: trace node i is cluster node i, event for event.
 * - otherwise the cluster's count is K(A) = A when M <= nodes, else A *
 *   nodes / M rounded half up, capped at nodes; each trace event moves K
 *   by at most one, so a cluster event is one node up or down.  A cluster
 *   node that is up is held by a present trace node:
 *   - an add that raises K raises the cluster node that went down last
 *     (at first, the lowest-numbered never used), held by the added
 *     node; one that does not leaves the added node waiting in line;
 *   - a remove that lowers K takes down the removed node's cluster node
 *     if it holds one, else the one raised last (its holder joins the
 *     end of the line); one that does not lower K hands the removed
 *     node's cluster node, if any, to the first node in line.
 *   With M <= nodes every present trace node holds a cluster node, so
 *   the cluster loses the node the trace removes; with M > nodes the
 *   trace's node lifetimes still decide which cluster node goes.
 *
 * Returns NULL with err set (nodes out of range, out of memory).
 */
struct trace *trace_map(const struct trace *t, unsigned nodes,
			elastic_error_t *err);

/*
 * Time compression: trace time ms at speed (TRACE_SPEED_MIN..MAX) is
 * ms / speed of replay time, here rounded to the nearest millisecond.
 * trace_check_speed() returns 0, or -1 with err set.
 */
int trace_check_speed(double speed, elastic_error_t *err);
uint64_t trace_at_speed_ms(uint64_t ms, double speed);

/*
 * The oracle: an ideal system that uses every available node of t (map
 * it first for a cluster) at rate samples per second per node, with free
 * transitions and no lost work, over the trace compressed by speed.
 */
struct trace_oracle {
	double seconds;	     /* the trace's duration at speed */
	double node_seconds; /* integral of A over it */
	double samples;	     /* node_seconds * rate */
};

/* Returns 0 and fills *ret, or -1 with err set (speed, or rate not a
 * positive finite number) and *ret untouched. */
int trace_oracle(const struct trace *t, double speed, double rate,
		 struct trace_oracle *ret, elastic_error_t *err);

/*
 * When the oracle has processed `samples` (>= 0): returns 1 with the
 * seconds since the start at speed in *ret_seconds, 0 if the trace ends
 * first ("never"; *ret_seconds untouched), -1 with err set.
 */
int trace_oracle_time_to(const struct trace *t, double speed, double rate,
			 double samples, double *ret_seconds,
			 elastic_error_t *err);

#endif
