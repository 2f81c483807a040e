#ifndef ELASTICD_API_IMPL_H
#define ELASTICD_API_IMPL_H

/*
 * What the API's files share: api.c (requests, munge, start and stop),
 * api_conn.c (the connections' deadlines), api_view.c (the view and the
 * queues between the loop and the server).  Private to libapi: elasticd.c
 * and the tests have api.h.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <microhttpd.h>

#include "common/policy.h"
#include "api.h"
#include "api_auth.h"

/* Limits on what clients can make us hold.  The CLI and Prometheus make
 * one short request at a time; these leave room for many of both. */
#define API_THREADS	     4
#define API_CONNECTIONS	     256	/* at once, over all threads */
#define API_PER_HOST	     8		/* at once from one address */
#define API_TIMEOUT	     10		/* seconds a connection may idle */
#define API_MEMORY	     (32 << 10) /* per connection: request headers */
#define API_RAISE_MAX	     1024	/* raise requests not yet taken */
#define API_SUSPECT_MAX	     64		/* suspect nodes not yet taken */
#define API_LOOKUP_MAX	     16		/* unknown ids asked about, a cycle */
#define API_ADMINS_REFRESH_S 60		/* re-resolve admin names */

/* A published view and the requests reading it. */
struct held_view {
	struct elasticd_view *v;
	unsigned refs; /* the api's own reference + one per request */
};

/* mhd and munge_socket change only while no server thread runs (in
 * api_start and api_stop); the lock guards the rest. */
struct api_state {
	pthread_mutex_t lock;
	struct MHD_Daemon *mhd;
	char *munge_socket;
	uint32_t slurm_user_uid;
	struct policy_list admins;
	uint32_t admin_uids[POLICY_LIST_MAX];
	size_t nadmin;
	time_t admins_resolved;
	struct held_view *cur;
	uint32_t raise[API_RAISE_MAX];
	size_t nraise;
	struct launch_report report[API_RAISE_MAX];
	size_t nreport;
	struct suspect_report suspect[API_SUSPECT_MAX];
	size_t nsuspect;
	struct spare_note spares[API_SUSPECT_MAX]; /* one per group */
	size_t nspares;
	/* Groups whose launcher asked since the last cycle (batchhost.h). */
	uint32_t seen[API_RAISE_MAX];
	size_t nseen;
	uint32_t lookup[API_LOOKUP_MAX];
	size_t nlookup;
	/* Jobs notified as ending or losing a member: read at every cycle
	 * for a while (slurmio_follow()). */
	uint32_t follow[API_LOOKUP_MAX];
	size_t nfollow;
	/* Units' starts as slurmstepd told them (api_take_started()). */
	struct api_started started[API_LOOKUP_MAX];
	size_t nstarted;
	/* Notifications: what to do with them, and how many came. */
	enum policy_notify notify;
	uint64_t notified, notify_dropped;
	/* The loop's thread, woken (SIGUSR2) when a notification comes. */
	pthread_t loop;
	bool loop_set; /* api_set_notify() was called */
	struct auth_lookup_limit lookups;
};
extern struct api_state api;

/* api_conn.c: each connection has API_HEADER_TIMEOUT_MS to send a whole
 * request; the reaper thread closes those that do not. */
void api_conn_notify(void *cls, struct MHD_Connection *conn,
		     void **socket_context,
		     enum MHD_ConnectionNotificationCode toe);
void api_conn_answered(struct MHD_Connection *conn);
int api_reaper_start(void);
void api_reaper_stop(void);

/* api_view.c, under api.lock. */
struct held_view *api_view_get(void);
void api_view_put(struct held_view *h);
int api_queue_raise(uint32_t id);
int api_queue_report(const struct launch_report *rep);
int api_queue_suspect(const struct suspect_report *s);
/* A group's checked spares, replacing what it said before (a full table
 * drops it: its launcher says it again at its next poll). */
void api_note_spares(const struct spare_note *s);
void api_note_launcher(uint32_t id);
void api_queue_lookup(uint32_t id);
void api_queue_follow(uint32_t id);
void api_queue_started(uint32_t id, const char *nodes);
/* api_account.c: the body and status of GET or POST
 * /v1/groups/ID/account (g: the group, NULL when the caller sees none
 * live), and of /metrics (the daemon's and the accounts'). */
char *api_account(struct MHD_Connection *conn, bool post, uint32_t id,
		  const struct group_info *g, const struct auth_caller *c,
		  unsigned *status);
char *api_metrics(const struct elasticd_view *v);

/* Under api.lock: may this caller cause a read now (auth_lookup_take)? */
bool api_lookup_allowed(uint32_t uid, bool admin);

#endif
