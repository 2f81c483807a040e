/* Which node of a launch fell silent (detect.h): pure. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "detect.h"

void detect_init(struct detect *d, double now, unsigned timeout_s)
{
	memset(d, 0, sizeof(*d));
	d->started = now;
	d->timeout = timeout_s;
}

void detect_free(struct detect *d)
{
	free(d->node);
	d->node = NULL;
	d->n = d->cap = 0;
}

static int detect_find(const struct detect *d, const char *name, size_t len)
{
	for (size_t i = 0; i < d->n; i++)
		if (strlen(d->node[i].name) == len &&
		    !memcmp(d->node[i].name, name, len))
			return (int)i;
	return -1;
}

int detect_add(struct detect *d, const char *node, uint32_t job)
{
	size_t len = strlen(node);

	if (len == 0 || len >= DETECT_NAME_MAX)
		return -1;
	if (detect_find(d, node, len) >= 0)
		return 0;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct detect_node *p = realloc(d->node, cap * sizeof(*p));

		if (!p)
			return -1;
		d->node = p;
		d->cap = cap;
	}
	memset(&d->node[d->n], 0, sizeof(d->node[d->n]));
	memcpy(d->node[d->n].name, node, len + 1);
	d->node[d->n].job = job;
	d->n++;
	return 0;
}

unsigned detect_interval_ms(unsigned timeout_s)
{
	unsigned ms = timeout_s * 1000 / 5;

	return ms < 200 ? 200 : ms > 10000 ? 10000 : ms;
}

/* The words after the name: "TERM", the task's probe port ("p=<PORT>",
 * into *port), ranks' progress ("r<N>=...", which pace.c reads) and a
 * probe's answer ("X=..." and "X+=...", split.c's).  1 with TERM, 0
 * without, -1 for another word. */
static int detect_words(const char *rest, unsigned *port)
{
	int term = 0;

	while (*rest == ' ') {
		size_t n = strcspn(++rest, " ");

		if (n == 4 && !strncmp(rest, "TERM", 4))
			term = 1;
		else if (n > 2 && n < 8 && !strncmp(rest, "p=", 2))
			*port = (unsigned)strtoul(rest + 2, NULL, 10);
		else if (!strncmp(rest, "X=", 2) || !strncmp(rest, "X+=", 3) ||
			 !strncmp(rest, "R=", 2))
			; /* a probe's answer, the ring's (ring.h) */
		else if (n < 3 || (rest[0] != 'r' && rest[0] != 's') ||
			 rest[1] < '0' || rest[1] > '9' ||
			 !memchr(rest, '=', n))
			return -1; /* r: a rank's progress, s: its save (pace.h)
				    */
		rest += n;
	}
	return *rest ? -1 : term;
}

int detect_heard(struct detect *d, const char *line, double now)
{
	size_t len = strcspn(line, " ");
	unsigned port = 0;
	int i, term = detect_words(line + len, &port);

	if (term < 0 || (i = detect_find(d, line, len)) < 0)
		return -1;
	if (port && port < 65536)
		d->node[i].port = port;
	d->node[i].heard = true;
	d->node[i].last = now;
	if (term)
		d->node[i].leaving = true;
	return i;
}

int detect_silent(const struct detect *d, double now, double *silent_s)
{
	double start =
	    d->timeout > DETECT_START_S ? d->timeout : DETECT_START_S;

	for (size_t i = 0; i < d->n; i++) {
		const struct detect_node *x = &d->node[i];
		double since = x->heard ? x->last : d->started;

		if (x->leaving ||
		    now - since <= (x->heard ? d->timeout : start))
			continue;
		*silent_s = now - since;
		return (int)i;
	}
	return -1;
}

int detect_unheard(const struct detect *d, double now)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct detect_node *x = &d->node[i];
		double since = x->probed > d->started ? x->probed : d->started;

		if (!x->heard && !x->leaving && now - since > d->timeout)
			return (int)i;
	}
	return -1;
}

void detect_probed(struct detect *d, size_t i, double now)
{
	if (i < d->n)
		d->node[i].probed = now;
}

void detect_defer(struct detect *d, size_t i, double now)
{
	if (i < d->n) {
		d->node[i].heard = true;
		d->node[i].last = now;
	}
}
