#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "api_route.h"

#define GROUPS "/v1/groups"
#define GET    "GET, HEAD"
#define POST   "POST"

static bool is_get(const char *method)
{
	return !strcmp(method, "GET") || !strcmp(method, "HEAD");
}

static void route_set(struct route *r, enum route_kind kind, uint32_t id,
		      const char *allow, bool method_ok)
{
	r->kind = kind;
	r->id = id;
	r->allow = allow;
	r->method_ok = method_ok;
}

/* "ID" or "ID/rest": the id, and rest ("" when none).  0 on failure. */
static uint32_t parse_id(const char *s, const char **rest)
{
	char buf[16];
	const char *slash = strchr(s, '/');
	size_t len = slash ? (size_t)(slash - s) : strlen(s);
	unsigned long v;

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (parse_uint(buf, 1, UINT32_MAX, &v) != PARSE_OK)
		return 0;
	*rest = s + len;
	return (uint32_t)v;
}

void route_parse(const char *method, const char *path, struct route *ret)
{
	bool get = is_get(method), post = !strcmp(method, "POST");
	const char *rest;
	uint32_t id;

	route_set(ret, ROUTE_NOT_FOUND, 0, NULL, true);
	if (!strcmp(path, "/healthz"))
		return route_set(ret, ROUTE_HEALTHZ, 0, GET, get);
	if (!strcmp(path, "/metrics"))
		return route_set(ret, ROUTE_METRICS, 0, GET, get);
	if (strncmp(path, GROUPS, strlen(GROUPS)))
		return;
	path += strlen(GROUPS);
	if (!*path)
		return route_set(ret, ROUTE_GROUPS, 0, GET, get);
	if (*path != '/' || !(id = parse_id(path + 1, &rest)))
		return;
	if (!*rest)
		return route_set(ret, ROUTE_GROUP, id, GET, get);
	if (!strcmp(rest, "/events"))
		return route_set(ret, ROUTE_EVENTS, id, GET, get);
	if (!strcmp(rest, "/raise"))
		return route_set(ret, ROUTE_RAISE, id, POST, post);
	if (!strcmp(rest, "/report"))
		return route_set(ret, ROUTE_REPORT, id, POST, post);
	if (!strcmp(rest, "/notify"))
		return route_set(ret, ROUTE_NOTIFY, id, POST, post);
	if (!strcmp(rest, "/suspect"))
		return route_set(ret, ROUTE_SUSPECT, id, POST, post);
	if (!strcmp(rest, "/account"))
		return route_set(ret, ROUTE_ACCOUNT, id, GET ", " POST,
				 get || post);
}

static const char *const notify_names[] = {
	[NOTIFY_START] = "start",
	[NOTIFY_SIGNAL] = "signal",
	[NOTIFY_END] = "end",
	[NOTIFY_FAULT] = "fault",
};

const char *notify_event_name(enum notify_event e)
{
	return (unsigned)e <= NOTIFY_FAULT ? notify_names[e] : "?";
}

int route_parse_notify(const char *event, enum notify_event *ret,
		       const char **why)
{
	for (int i = 0; event && i <= NOTIFY_FAULT; i++) {
		if (!strcmp(event, notify_names[i])) {
			*ret = i;
			return 0;
		}
	}
	*why = "event: what happened to the job is required "
	       "(allowed: " NOTIFY_EVENTS ")";
	return -1;
}

int route_parse_nodes(enum notify_event ev, const char *nodes, const char **why)
{
	size_t n;

	if (!nodes)
		return 0;
	if (ev != NOTIFY_START) {
		*why = "nodes: only with event=start";
		return -1;
	}
	n = strlen(nodes);
	if (n == 0 || n > ROUTE_NODES_MAX ||
	    strspn(nodes, "abcdefghijklmnopqrstuvwxyz"
			  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,[]") != n) {
		*why = "nodes: a Slurm node list is required (allowed: 1 to "
		       "512 of letters, digits and -_.,[])";
		return -1;
	}
	return 0;
}

int route_parse_report(const char *generation, const char *exit_ms,
		       struct launch_report *ret, const char **why)
{
	unsigned long v;

	if (!generation ||
	    parse_uint(generation, 1, (1UL << 63), &v) != PARSE_OK) {
		*why = "generation: a world generation is required (allowed: "
		       "1 to 9223372036854775808)";
		return -1;
	}
	ret->generation = v;
	ret->exit_ms = -1;
	if (exit_ms) {
		if (parse_uint(exit_ms, 0, REPORT_EXIT_MS_MAX, &v) !=
		    PARSE_OK) {
			*why = "exit_ms: milliseconds the ranks took to exit "
			       "(allowed: 0 to 86400000)";
			return -1;
		}
		ret->exit_ms = (int64_t)v;
	}
	return 0;
}

int route_parse_relay(const char *relay, struct launch_report *ret,
		      const char **why)
{
	if (relay && strcmp(relay, "0") != 0 && strcmp(relay, "1") != 0) {
		*why = "relay: whether the launcher relays events is "
		       "required (allowed: 0, 1)";
		return -1;
	}
	ret->relay = relay && relay[0] == '1';
	return 0;
}

int route_parse_suspect(const char *node, const char *because,
			struct suspect_report *ret, const char **why)
{
	static const char *const kinds[] = SUSPECT_FAULT_NAMES;
	size_t n = node ? strlen(node) : 0;

	if (n == 0 || n > SUSPECT_NODE_MAX ||
	    strspn(node, "abcdefghijklmnopqrstuvwxyz"
			 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != n) {
		*why = "node: a node name is required (allowed: 1 to 64 "
		       "letters, digits and -_.)";
		return -1;
	}
	for (size_t i = 0; because && i < sizeof(kinds) / sizeof(kinds[0]);
	     i++) {
		if (!strcmp(because, kinds[i])) {
			memcpy(ret->node, node, n + 1);
			snprintf(ret->why, sizeof(ret->why), "%s", kinds[i]);
			ret->fault = (unsigned)i;
			return 0;
		}
	}
	*why = "why: what the node did is required (allowed: lost, hang, "
	       "straggler, spare-check)";
	return -1;
}

int route_parse_jobs(const char *v, uint32_t *out, size_t max, size_t *n,
		     const char **why)
{
	*n = 0;
	while (v && *v) {
		char *end;
		unsigned long long id;

		errno = 0;
		id = strtoull(v, &end, 10);
		if (!isdigit((unsigned char)*v) || errno || id == 0 ||
		    id > UINT32_MAX || (*end && (*end != ',' || !end[1])) ||
		    *n == max) {
			*why = "spares_checked: job ids separated by commas "
			       "(allowed: at most 64, each 1 to 4294967295)";
			return -1;
		}
		out[(*n)++] = (uint32_t)id;
		v = *end ? end + 1 : end;
	}
	return 0;
}

bool route_needs_auth(const struct route *r)
{
	return r->kind == ROUTE_GROUPS || r->kind == ROUTE_GROUP ||
	       r->kind == ROUTE_EVENTS || r->kind == ROUTE_RAISE ||
	       r->kind == ROUTE_REPORT || r->kind == ROUTE_NOTIFY ||
	       r->kind == ROUTE_SUSPECT || r->kind == ROUTE_ACCOUNT;
}
