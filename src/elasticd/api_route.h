#ifndef ELASTICD_API_ROUTE_H
#define ELASTICD_API_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Which endpoint a request is for: pure string work on the method and the
 * path (without the query string), so that every path is unit-tested.
 */
enum route_kind {
	ROUTE_NOT_FOUND, /* no such path */
	ROUTE_HEALTHZ,	 /* GET /healthz */
	ROUTE_METRICS,	 /* GET /metrics */
	ROUTE_GROUPS,	 /* GET /v1/groups */
	ROUTE_GROUP,	 /* GET /v1/groups/ID */
	ROUTE_EVENTS,	 /* GET /v1/groups/ID/events */
	ROUTE_RAISE,	 /* POST /v1/groups/ID/raise */
};

struct route {
	enum route_kind kind;
	uint32_t id;	   /* ROUTE_GROUP, _EVENTS, _RAISE: the job id */
	const char *allow; /* the methods the path takes ("GET, HEAD") */
	bool method_ok;	   /* false: the path exists, not with this method */
};

/* GET and HEAD read; POST acts.  ID is a job id: 1 to 4294967295. */
void route_parse(const char *method, const char *path, struct route *ret);

/* true for every path under /v1/ (they need a credential). */
bool route_needs_auth(const struct route *r);

#endif
