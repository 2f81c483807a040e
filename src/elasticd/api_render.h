#ifndef ELASTICD_API_RENDER_H
#define ELASTICD_API_RENDER_H

#include <stdint.h>
#include <time.h>

#include "api_auth.h"
#include "groupinfo.h"

/*
 * The API's bodies, rendered from a view: JSON (json-c) for /v1 and
 * Prometheus text for /metrics.  Pure: no locks, no I/O.  Every function
 * returns a malloc'd NUL-terminated string the caller frees, or NULL when
 * out of memory.  Field names are the API's contract (elasticd-api(7)).
 */

/* {"published": TIME, "groups": [GROUP...]}: the groups c may see. */
char *render_groups(const struct elasticd_view *v, const struct auth_caller *c);

/*
 * GROUP: {"id", "user", "uid", "account", "state", "min", "max",
 * "generation", "world_nodes", "master_addr", "members": [{"job_id",
 * "kind", "state", "nnodes", "nodes", "in_world"}...]}.
 */
char *render_group(const struct group_info *g);

/* {"id", "events": [{"time", "cause", "generation", "world_nodes",
 * "detail"}...]}, oldest first. */
char *render_events(const struct group_info *g);

/* {"id", "raise": "queued"} */
char *render_raise(uint32_t id);
/* {"id": ID, "report": "queued"} */
char *render_report(uint32_t id);
/* {"id": ID, "account": "kept"} */
char *render_account(uint32_t id);
/* {"id": ID, "suspect": NODE} */
char *render_suspect(uint32_t id, const char *node);
/* {"id": ID, "notify": EVENT} */
char *render_notify(uint32_t id, const char *event);

/* {"error": message, "status": status} */
char *render_error(int status, const char *message);

/* Prometheus text exposition format 0.0.4. */
char *render_metrics(const struct elasticd_view *v);

/* RFC 3339 in UTC with milliseconds: "2024-05-01T12:34:56.789Z". */
#define RENDER_TIME_MAX sizeof("-2147483648-12-31T23:59:59.999Z")
void render_time(const struct timespec *t, char buf[RENDER_TIME_MAX]);

/* A copy of s that is valid UTF-8: each byte of an invalid sequence
 * becomes U+FFFD.  NULL stays NULL (and so does out of memory). */
char *render_utf8(const char *s);

#endif
