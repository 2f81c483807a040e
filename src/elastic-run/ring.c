/* The ring probe's rules (ring.h): pure. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ring.h"

/* "name=addr:port" into its three parts (w modified): 0, or -1. */
static int ring_word(char *w, char **name, char **addr, char **port)
{
	char *eq = strchr(w, '='), *colon = strrchr(w, ':');

	if (!eq || !colon || colon < eq || eq == w || colon == eq + 1 ||
	    !colon[1])
		return -1;
	*eq = *colon = '\0';
	*name = w;
	*addr = eq + 1;
	*port = colon + 1;
	return 0;
}

static void ring_peer_set(struct ring_peer *p, const char *name,
			  const char *addr, const char *port)
{
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	snprintf(p->port, sizeof(p->port), "%s", port);
	p->fails = 0;
}

int ring_parse(struct ring *r, const char *self, char *list)
{
	struct ring_peer first[RING_K]; /* before self: they follow the last */
	char *save = NULL, *tok;
	size_t nfirst = 0;
	bool found = false;

	memset(r, 0, sizeof(*r));
	for (tok = strtok_r(list, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save)) {
		char *name, *addr, *port;

		if (ring_word(tok, &name, &addr, &port) < 0 ||
		    strlen(name) >= DETECT_NAME_MAX ||
		    strlen(addr) >= RING_ADDR_MAX ||
		    strlen(port) >= RING_PORT_MAX)
			continue;
		if (!found && !strcmp(name, self))
			found = true;
		else if (!found && nfirst < RING_K)
			ring_peer_set(&first[nfirst++], name, addr, port);
		else if (found && r->n < RING_K)
			ring_peer_set(&r->peer[r->n++], name, addr, port);
	}
	if (!found)
		return -1; /* r->n is 0: peers are taken after self only */
	for (size_t i = 0; i < nfirst && r->n < RING_K; i++)
		r->peer[r->n++] = first[i];
	return 0;
}

bool ring_result(struct ring *r, size_t i, bool reached)
{
	bool cut = false;

	if (i >= r->n)
		return false;
	r->peer[i].fails = reached ? 0 : r->peer[i].fails + 1;
	for (size_t k = 0; k < r->n; k++)
		cut = cut || r->peer[k].fails >= RING_FAILS;
	if (cut == r->said)
		return false;
	r->said = cut;
	return true;
}

int ring_line(const struct ring *r, const char *self, char *buf, size_t len)
{
	int j = snprintf(buf, len, "%s R=", self);
	bool any = false;

	for (size_t k = 0; k < r->n && j > 0 && (size_t)j < len; k++)
		if (r->peer[k].fails >= RING_FAILS) {
			j += snprintf(buf + j, len - (size_t)j, "%s%s",
				      any ? "," : "", r->peer[k].name);
			any = true;
		}
	if (j > 0 && (size_t)j < len && !any)
		j += snprintf(buf + j, len - (size_t)j, "-");
	if (j <= 0 || (size_t)j + 1 >= len)
		return -1;
	buf[j++] = '\n';
	buf[j] = '\0';
	return j;
}
