/* Spot-availability traces (trace.h): parsing, the step function, the
 * mapping onto a cluster and the oracle.  Pure: trace_load() is in
 * trace_load.c. */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define NONE	  UINT32_MAX
#define QUOTE_MAX 80 /* of a field quoted in a message */

struct trace_node {
	char name[TRACE_NAME_MAX + 1];
	size_t line; /* of its last event, for messages */
	bool present;
};

struct trace {
	struct trace_event *ev;
	size_t nev, evcap;
	struct trace_node *node;
	size_t nnode, nodecap;
	/* Names to nodes while parsing: open addressing, node index + 1
	 * (0: empty), a power of two at least twice the nodes. */
	uint32_t *slot;
	size_t nslot;
	unsigned present;
	uint64_t end; /* the duration: a mapped trace's may pass its events */
	unsigned amin, amax;
	uint64_t node_ms;
};

static struct trace *trace_new(void)
{
	return calloc(1, sizeof(struct trace));
}

void trace_destroy(struct trace *t)
{
	int e = errno;

	if (t) {
		free(t->ev);
		free(t->node);
		free(t->slot);
		free(t);
	}
	errno = e;
}

/* p (n items of size, room for *cap) with room for one more: p itself,
 * a larger copy (*cap updated), or NULL out of memory (p untouched). */
static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 256;

	if (n < *cap)
		return p;
	p = realloc(p, ncap * size);
	if (p)
		*cap = ncap;
	return p;
}

static uint32_t hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The slot of name: its node's, or the empty one where it would go. */
static uint32_t *slot_of(const struct trace *t, const char *name, size_t len)
{
	size_t i = hash(name, len) & (t->nslot - 1);

	for (;; i = (i + 1) & (t->nslot - 1)) {
		uint32_t *s = &t->slot[i];

		if (!*s || (!strncmp(t->node[*s - 1].name, name, len) &&
			    !t->node[*s - 1].name[len]))
			return s;
	}
}

static int rehash(struct trace *t)
{
	size_t n = t->nslot ? t->nslot * 2 : 64;
	uint32_t *old = t->slot;

	t->slot = calloc(n, sizeof(*t->slot));
	if (!t->slot) {
		t->slot = old;
		return -1;
	}
	t->nslot = n;
	for (size_t i = 0; i < t->nnode; i++)
		*slot_of(t, t->node[i].name, strlen(t->node[i].name)) =
		    (uint32_t)i + 1;
	free(old);
	return 0;
}

/* Node index of name, or NONE. */
static uint32_t node_find(const struct trace *t, const char *name, size_t len)
{
	return t->nslot ? *slot_of(t, name, len) - 1 : NONE;
}

/* A new node named name (absent from t): its index, or NONE (memory). */
static uint32_t node_add(struct trace *t, const char *name, size_t len)
{
	struct trace_node *n;

	if ((t->nnode + 1) * 2 > t->nslot && rehash(t) < 0)
		return NONE;
	n = grow(t->node, t->nnode, &t->nodecap, sizeof(*t->node));
	if (!n)
		return NONE;
	t->node = n;
	n = &t->node[t->nnode];
	memset(n, 0, sizeof(*n));
	memcpy(n->name, name, len);
	*slot_of(t, name, len) = (uint32_t)++t->nnode;
	return (uint32_t)(t->nnode - 1);
}

/* Append an event that is valid (add of an absent node, remove of a
 * present one): 0, or -1 out of memory. */
static int push(struct trace *t, uint64_t ms, uint32_t node, bool add,
		size_t line)
{
	struct trace_event *e = grow(t->ev, t->nev, &t->evcap, sizeof(*t->ev));

	if (!e)
		return -1;
	t->ev = e;
	t->node[node].present = add;
	t->node[node].line = line;
	if (add)
		t->present++;
	else
		t->present--;
	e = &t->ev[t->nev++];
	e->ms = ms;
	e->node = node;
	e->add = add;
	e->available = t->present;
	return 0;
}

/* A's pieces of positive length, [from, to) at count. */
struct step {
	uint64_t from, to;
	unsigned count;
};

/* The next piece after p (zeroed at first; *i, 0 at first, is the next
 * event): true, or false after the last, p->count then A at the end. */
static bool step_next(const struct trace *t, size_t *i, struct step *p)
{
	p->from = p->to;
	while (*i < t->nev && t->ev[*i].ms == p->from)
		p->count = t->ev[(*i)++].available;
	if (p->from >= t->end)
		return false;
	p->to = *i < t->nev ? t->ev[*i].ms : t->end;
	return true;
}

static void finish(struct trace *t)
{
	struct step p = { 0 };
	size_t i = 0;
	bool more;

	t->amin = UINT_MAX;
	t->amax = 0;
	t->node_ms = 0;
	do {
		more = step_next(t, &i, &p);
		if (p.count < t->amin)
			t->amin = p.count;
		if (p.count > t->amax)
			t->amax = p.count;
		if (more)
			t->node_ms += (uint64_t)p.count * (p.to - p.from);
	} while (more);
}

/* "NAME:LINE: 'FIELD': why", the field cut at QUOTE_MAX. */
static int field_error(elastic_error_t *err, const char *name, size_t line,
		       const char *f, size_t len, const char *why)
{
	return elastic_errorf(err, "%s:%zu: '%.*s': %s", name, line,
			      (int)(len < QUOTE_MAX ? len : QUOTE_MAX), f, why);
}

/* Whole milliseconds, at most 13 digits (TRACE_MS_MAX has 13). */
static bool parse_ms(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len < 1 || len > 13)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > TRACE_MS_MAX)
		return false;
	*ret = v;
	return true;
}

/* [A-Za-z0-9._-], whatever the locale. */
static bool valid_name(const char *s, size_t len)
{
	if (len < 1 || len > TRACE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '.' || c == '_' ||
		      c == '-'))
			return false;
	}
	return true;
}

/* The node an add or remove of a valid name is about, checked against
 * what is present: its index (new if need be), or NONE with err set. */
static uint32_t event_node(struct trace *t, const char *s, size_t len, bool add,
			   const char *name, size_t line, elastic_error_t *err)
{
	uint32_t n = node_find(t, s, len);
	char why[96];

	if (n == NONE && !add) {
		field_error(err, name, line, s, len,
			    "removed while absent (never added)");
	} else if (n == NONE && t->nnode >= TRACE_NODES_MAX) {
		snprintf(why, sizeof(why),
			 "one node too many (allowed: at most %d distinct)",
			 TRACE_NODES_MAX);
		field_error(err, name, line, s, len, why);
	} else if (n == NONE) {
		n = node_add(t, s, len);
		if (n == NONE)
			elastic_errorf(err, "%s:%zu: out of memory", name,
				       line);
		return n;
	} else if (t->node[n].present == add) {
		snprintf(why, sizeof(why), "%s while %s (%s at line %zu)",
			 add ? "added" : "removed", add ? "present" : "absent",
			 add ? "added" : "removed", t->node[n].line);
		field_error(err, name, line, s, len, why);
	} else {
		return n;
	}
	return NONE;
}

/* One line of text (len bytes, without its end) into t: 0 or -1. */
static int parse_line(struct trace *t, const char *s, size_t len,
		      const char *name, size_t line, elastic_error_t *err)
{
	const char *c1 = memchr(s, ',', len);
	const char *c2 =
	    c1 ? memchr(c1 + 1, ',', len - (size_t)(c1 + 1 - s)) : NULL;
	const char *ev, *node;
	size_t evlen, nodelen;
	uint64_t ms;
	uint32_t n;
	bool add;

	if (!c2 || memchr(c2 + 1, ',', len - (size_t)(c2 + 1 - s)))
		return field_error(
		    err, name, line, s, len,
		    "not <milliseconds>,<add|remove>,<node name>");
	ev = c1 + 1;
	evlen = (size_t)(c2 - ev);
	node = c2 + 1;
	nodelen = len - (size_t)(node - s);
	if (!parse_ms(s, (size_t)(c1 - s), &ms))
		return field_error(err, name, line, s, (size_t)(c1 - s),
				   "not a time (allowed: whole milliseconds, "
				   "0 to 1000000000000)");
	if (t->nev && ms < t->ev[t->nev - 1].ms) {
		char why[128];

		snprintf(why, sizeof(why),
			 "before the previous event's %llu (allowed: times "
			 "that never decrease)",
			 (unsigned long long)t->ev[t->nev - 1].ms);
		return field_error(err, name, line, s, (size_t)(c1 - s), why);
	}
	if (evlen == 3 && !memcmp(ev, "add", 3))
		add = true;
	else if (evlen == 6 && !memcmp(ev, "remove", 6))
		add = false;
	else
		return field_error(err, name, line, ev, evlen,
				   "not add or remove");
	if (!valid_name(node, nodelen))
		return field_error(err, name, line, node, nodelen,
				   "not a node name (allowed: 1 to 64 of "
				   "A-Z a-z 0-9 . _ -)");
	if (t->nev >= TRACE_EVENTS_MAX)
		return elastic_errorf(err,
				      "%s:%zu: one event too many (allowed: "
				      "at most %d)",
				      name, line, TRACE_EVENTS_MAX);
	n = event_node(t, node, nodelen, add, name, line, err);
	if (n == NONE)
		return -1;
	if (push(t, ms, n, add, line) < 0)
		return elastic_errorf(err, "%s:%zu: out of memory", name, line);
	return 0;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

struct trace *trace_parse(const char *text, const char *name,
			  elastic_error_t *err)
{
	struct trace *t = trace_new();
	const char *p = text;

	if (!t) {
		elastic_errorf(err, "%s: out of memory", name);
		return NULL;
	}
	for (size_t line = 1; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *next = nl ? nl + 1 : p + len;

		if (len && p[len - 1] == '\r')
			len--;
		if (blank(p, len) && !*next)
			break;
		if (blank(p, len)) {
			elastic_errorf(err,
				       "%s:%zu: a blank line (allowed: only "
				       "as the last line)",
				       name, line);
			goto fail;
		}
		if (parse_line(t, p, len, name, line, err) < 0)
			goto fail;
		p = next;
	}
	if (!t->nev) {
		elastic_errorf(err,
			       "%s: no events (one a line: "
			       "<milliseconds>,<add|remove>,<node name>)",
			       name);
		goto fail;
	}
	t->end = t->ev[t->nev - 1].ms;
	finish(t);
	return t;
fail:
	trace_destroy(t);
	return NULL;
}

size_t trace_event_count(const struct trace *t)
{
	return t->nev;
}

const struct trace_event *trace_event(const struct trace *t, size_t i)
{
	return &t->ev[i];
}

size_t trace_node_count(const struct trace *t)
{
	return t->nnode;
}

const char *trace_node_name(const struct trace *t, size_t i)
{
	return t->node[i].name;
}

uint64_t trace_duration_ms(const struct trace *t)
{
	return t->end;
}

unsigned trace_available_at(const struct trace *t, uint64_t ms)
{
	size_t lo = 0, hi = t->nev; /* the first event after ms */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->ev[mid].ms <= ms)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? t->ev[lo - 1].available : 0;
}

unsigned trace_available_min(const struct trace *t)
{
	return t->amin;
}

unsigned trace_available_max(const struct trace *t)
{
	return t->amax;
}

uint64_t trace_node_ms(const struct trace *t)
{
	return t->node_ms;
}

double trace_available_mean(const struct trace *t)
{
	uint64_t d = trace_duration_ms(t);

	return d ? (double)t->node_ms / (double)d
		 : (double)trace_available_at(t, 0);
}

/*
 * trace_map()'s state when slots are reused (trace.h): lists of indices
 * linked through arrays, so that each event costs O(1).
 */
struct ilist {
	uint32_t *prev, *next;
	uint32_t head, tail;
};

static void ilist_append(struct ilist *l, uint32_t i)
{
	l->prev[i] = l->tail;
	l->next[i] = NONE;
	if (l->tail != NONE)
		l->next[l->tail] = i;
	else
		l->head = i;
	l->tail = i;
}

static void ilist_unlink(struct ilist *l, uint32_t i)
{
	if (l->prev[i] != NONE)
		l->next[l->prev[i]] = l->next[i];
	else
		l->head = l->next[i];
	if (l->next[i] != NONE)
		l->prev[l->next[i]] = l->prev[i];
	else
		l->tail = l->prev[i];
}

struct slots {
	uint32_t *down;	   /* cluster nodes down, a stack */
	size_t ndown;	   /* its top: the node that went down last */
	uint32_t *holder;  /* cluster node -> trace node, or NONE */
	uint32_t *holds;   /* trace node -> cluster node, or NONE */
	struct ilist up;   /* cluster nodes up, in the order raised */
	struct ilist line; /* present trace nodes holding none */
	unsigned k;	   /* cluster nodes up */
	uint32_t *mem;
};

static int slots_init(struct slots *s, uint32_t nodes, uint32_t tnodes)
{
	size_t n = nodes, tn = tnodes;

	/* down, holder, up.prev, up.next; holds, line.prev, line.next */
	s->mem = malloc((4 * n + 3 * tn) * sizeof(uint32_t));
	if (!s->mem)
		return -1;
	s->down = s->mem;
	s->holder = s->down + n;
	s->up.prev = s->holder + n;
	s->up.next = s->up.prev + n;
	s->holds = s->up.next + n;
	s->line.prev = s->holds + tn;
	s->line.next = s->line.prev + tn;
	s->up.head = s->up.tail = s->line.head = s->line.tail = NONE;
	for (size_t i = 0; i < n; i++) {
		s->down[i] = (uint32_t)(n - 1 - i);
		s->holder[i] = NONE;
	}
	s->ndown = n;
	for (size_t i = 0; i < tn; i++)
		s->holds[i] = NONE;
	s->k = 0;
	return 0;
}

static void slots_hold(struct slots *s, uint32_t c, uint32_t x)
{
	s->holder[c] = x;
	s->holds[x] = c;
}

/* Name cluster nodes up to c in m (they appear in order): 0 or -1. */
static int cluster_node(struct trace *m, uint32_t c)
{
	while (m->nnode <= c) {
		char name[24];

		snprintf(name, sizeof(name), "%zu", m->nnode);
		if (node_add(m, name, strlen(name)) == NONE)
			return -1;
	}
	return 0;
}

/* One trace event e (node x) on the cluster: the cluster event it makes,
 * if any, into m.  k is the cluster's count after e.  0 or -1. */
static int slots_event(struct slots *s, struct trace *m,
		       const struct trace_event *e, unsigned k)
{
	uint32_t x = e->node, c = s->holds[x], y;

	if (e->add && k > s->k) {
		c = s->down[--s->ndown];
		slots_hold(s, c, x);
		ilist_append(&s->up, c);
	} else if (e->add) {
		ilist_append(&s->line, x);
	} else if (k < s->k) {
		if (c == NONE) {
			ilist_unlink(&s->line, x);
			c = s->up.tail;
			y = s->holder[c];
			s->holds[y] = NONE;
			ilist_append(&s->line, y);
		}
		ilist_unlink(&s->up, c);
		s->holder[c] = NONE;
		s->holds[x] = NONE;
		s->down[s->ndown++] = c;
	} else if (c != NONE) {
		/* K <= A: with K unchanged after a remove, a node waits. */
		y = s->line.head;
		ilist_unlink(&s->line, y);
		s->holds[x] = NONE;
		slots_hold(s, c, y);
	} else {
		ilist_unlink(&s->line, x);
	}
	if (k == s->k)
		return 0;
	s->k = k;
	if (cluster_node(m, c) < 0)
		return -1;
	return push(m, e->ms, c, e->add, 0);
}

/* K(A) of trace.h. */
static unsigned cluster_count(unsigned a, unsigned nodes, unsigned max)
{
	uint64_t k = a;

	if (max > nodes)
		k = ((uint64_t)a * nodes * 2 + max) / ((uint64_t)max * 2);
	return k < nodes ? (unsigned)k : nodes;
}

static int map_slots(struct trace *m, const struct trace *t, unsigned nodes)
{
	struct slots s;
	int rc = 0;

	if (slots_init(&s, nodes, (uint32_t)t->nnode) < 0)
		return -1;
	for (size_t i = 0; i < t->nev && rc == 0; i++)
		rc = slots_event(
		    &s, m, &t->ev[i],
		    cluster_count(t->ev[i].available, nodes, t->amax));
	free(s.mem);
	return rc;
}

static int map_identity(struct trace *m, const struct trace *t)
{
	if (t->nnode && cluster_node(m, (uint32_t)t->nnode - 1) < 0)
		return -1;
	for (size_t i = 0; i < t->nev; i++)
		if (push(m, t->ev[i].ms, t->ev[i].node, t->ev[i].add, 0) < 0)
			return -1;
	return 0;
}

struct trace *trace_map(const struct trace *t, unsigned nodes,
			elastic_error_t *err)
{
	struct trace *m;
	int rc;

	if (nodes < 1 || nodes > TRACE_NODES_MAX) {
		elastic_errorf(err,
			       "%u cluster nodes: out of range (allowed: 1 "
			       "to %d)",
			       nodes, TRACE_NODES_MAX);
		return NULL;
	}
	m = trace_new();
	if (!m) {
		elastic_errorf(err, "trace mapping: out of memory");
		return NULL;
	}
	rc = t->nnode <= nodes ? map_identity(m, t) : map_slots(m, t, nodes);
	if (rc < 0) {
		elastic_errorf(err, "trace mapping: out of memory");
		trace_destroy(m);
		return NULL;
	}
	m->end = t->end;
	finish(m);
	return m;
}

int trace_check_speed(double speed, elastic_error_t *err)
{
	if (speed >= TRACE_SPEED_MIN && speed <= TRACE_SPEED_MAX)
		return 0;
	return elastic_errorf(err,
			      "speed %g: not a time compression factor "
			      "(allowed: %.10g to %.10g)",
			      speed, TRACE_SPEED_MIN, TRACE_SPEED_MAX);
}

uint64_t trace_at_speed_ms(uint64_t ms, double speed)
{
	return (uint64_t)((double)ms / speed + 0.5);
}

static int check_oracle(double speed, double rate, elastic_error_t *err)
{
	if (trace_check_speed(speed, err) < 0)
		return -1;
	if (rate > 0 && rate <= DBL_MAX)
		return 0;
	return elastic_errorf(err,
			      "rate %g: not a throughput (allowed: samples "
			      "per second per node, above 0)",
			      rate);
}

int trace_oracle(const struct trace *t, double speed, double rate,
		 struct trace_oracle *ret, elastic_error_t *err)
{
	if (check_oracle(speed, rate, err) < 0)
		return -1;
	ret->seconds = (double)trace_duration_ms(t) / 1000.0 / speed;
	ret->node_seconds = (double)t->node_ms / 1000.0 / speed;
	ret->samples = ret->node_seconds * rate;
	return 0;
}

int trace_oracle_time_to(const struct trace *t, double speed, double rate,
			 double samples, double *ret_seconds,
			 elastic_error_t *err)
{
	struct step p = { 0 };
	size_t i = 0;
	double need, done = 0; /* node-milliseconds of trace time */

	if (check_oracle(speed, rate, err) < 0)
		return -1;
	if (!(samples >= 0 && samples <= DBL_MAX))
		return elastic_errorf(err,
				      "%g samples: not an amount of training "
				      "(allowed: 0 or more)",
				      samples);
	need = samples / rate * 1000.0 * speed;
	if (need == 0) {
		*ret_seconds = 0;
		return 1;
	}
	while (step_next(t, &i, &p)) {
		double piece = (double)p.count * (double)(p.to - p.from);

		if (p.count && done + piece >= need) {
			*ret_seconds =
			    ((double)p.from + (need - done) / p.count) /
			    1000.0 / speed;
			return 1;
		}
		done += piece;
	}
	return 0;
}
