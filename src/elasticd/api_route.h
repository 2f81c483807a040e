#ifndef ELASTICD_API_ROUTE_H
#define ELASTICD_API_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "account.h"
#include "groupinfo.h"

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
	ROUTE_REPORT,  /* POST /v1/groups/ID/report?generation=G[&exit_ms=M] */
	ROUTE_NOTIFY,  /* POST /v1/groups/ID/notify?event=E */
	ROUTE_SUSPECT, /* POST /v1/groups/ID/suspect?node=N&why=W */
	ROUTE_ACCOUNT, /* GET or POST /v1/groups/ID/account */
};

struct route {
	enum route_kind kind;
	uint32_t id;	   /* ROUTE_GROUP, _EVENTS, _RAISE, _REPORT: job id */
	const char *allow; /* the methods the path takes ("GET, HEAD") */
	bool method_ok;	   /* false: the path exists, not with this method */
};

/* GET and HEAD read; POST acts.  ID is a job id: 1 to 4294967295. */
void route_parse(const char *method, const char *path, struct route *ret);

#define REPORT_EXIT_MS_MAX 86400000 /* one day */

/* The report's query arguments (either may be NULL: missing): generation
 * 1..2^63, exit_ms 0..REPORT_EXIT_MS_MAX, decimal digits only.  0, or -1
 * with *why set to a static message naming the argument. */
int route_parse_report(const char *generation, const char *exit_ms,
		       struct launch_report *ret, const char **why);
/* Its relay argument (NULL: missing, an older launcher): "1" when the
 * launcher relays events, "0" when not.  0, or -1 with *why set. */
int route_parse_relay(const char *relay, struct launch_report *ret,
		      const char **why);

/* The suspect report's arguments: a node name (letters, digits, -_.; 1
 * to SUSPECT_NODE_MAX), and why: lost, hang or straggler.  0, or -1 with
 * *why set to a static message naming the argument. */
int route_parse_suspect(const char *node, const char *because,
			struct suspect_report *ret, const char **why);

/* spares_checked=JOB,...: at most max job ids (none for ""), into
 * out[*n].  0, or -1 with *why set to a static message. */
int route_parse_jobs(const char *v, uint32_t *out, size_t max, size_t *n,
		     const char **why);

/* What a notification says happened to job ID (elasticd(8),
 * NOTIFICATIONS): only logged and counted, elasticd reads the job. */
enum notify_event {
	NOTIFY_START,  /* the unit's program started */
	NOTIFY_SIGNAL, /* Slurm signalled it (preemption, time limit) */
	NOTIFY_END,    /* Slurm is ending it (a unit), or its launcher ends
			* (a base) */
	NOTIFY_FAULT,  /* the group's launcher saw Slurm take a member or
			* a node from its world (on the base) */
};
#define NOTIFY_EVENTS "start, signal, end, fault"
const char *notify_event_name(enum notify_event e);

/* The notification's event argument: 0, or -1 with *why set. */
int route_parse_notify(const char *event, enum notify_event *ret,
		       const char **why);

/*
 * A unit's start may carry its nodes (nodes=LIST, Slurm's compressed
 * form), which only root or SlurmUser may say (api.c checks who): NULL is
 * no list (0); a list with another event, empty, longer than
 * ROUTE_NODES_MAX or with a character no node name has is -1 with *why.
 */
#define ROUTE_NODES_MAX 512
int route_parse_nodes(enum notify_event ev, const char *nodes,
		      const char **why);

/*
 * The launcher's account report (POST /v1/groups/ID/account, the query
 * alone; elasticd-api(7)): get(cls, key) gives each argument's value
 * (NULL: missing).  Every number is decimal digits within its bound,
 * names are the contract's, and the causes add up (account_check).
 * 0, or -1 with err naming the argument (a cause's by its name,
 * common/acctnames.h).
 */
typedef const char *(*route_arg_fn)(void *cls, const char *key);
int route_parse_account(route_arg_fn get, void *cls, struct account_report *ret,
			elastic_error_t *err);

/* true for every path under /v1/ (they need a credential). */
bool route_needs_auth(const struct route *r);

#endif
