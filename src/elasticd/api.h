#ifndef ELASTICD_API_H
#define ELASTICD_API_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "common/policy.h"
#include "api_route.h"
#include "groupinfo.h"

/*
 * elasticd's HTTP+JSON API and Prometheus metrics (elasticd-api(7)).
 *
 * The server runs in libmicrohttpd's own threads; the reconcile loop only
 * publishes a fresh view after each cycle and drains the requests users
 * made.  Requests render from the view current when they arrive; a view is
 * freed once it is replaced and no request still reads it.  None of these
 * functions logs: api_start() fills err, the rest cannot fail.
 */

/*
 * Listen on "HOST:PORT" ("[ADDR]:PORT" for IPv6; "*:PORT" for every IPv4
 * address).  munge_socket: munged's socket for verifying credentials, NULL
 * for libmunge's default.  Admins, who see and act on every group, are
 * uid 0, slurm_user_uid and the users named in admins (may be NULL; the
 * list is copied, names are resolved now and again on publish).
 * Returns 0, or -1 with err set (bad address, port in use, ...).
 */
int api_start(const char *listen, const char *munge_socket,
	      const struct policy_list *admins, uid_t slurm_user_uid,
	      elastic_error_t *err);

/*
 * Serve v from now on.  Takes ownership of v (allocated by view.c); the
 * previous view is freed with view_free() once no request reads it.
 * Until the first publish /v1 and /metrics answer 503, /healthz too.
 */
void api_publish(struct elasticd_view *v);

/* Stop serving, wait for requests in flight, free the view and any raise
 * requests not taken.  Safe to call when not started; api_start() may be
 * called again afterwards. */
void api_stop(void);

/*
 * The groups whose elastic event users asked for (POST
 * /v1/groups/ID/raise), oldest first, each once however often it was
 * asked: moves up to max base job ids into ids and returns how many.
 * The API checked that the caller may act on the group and that it was
 * running when asked; the daemon decides what raising means now.
 */
int api_take_raise_requests(uint32_t *ids, size_t max);

/*
 * The launchers' reports (POST /v1/groups/ID/report), the newest of each
 * group: moves up to max into out and returns how many.  The API checked
 * the caller may act on the group and the arguments' bounds.
 */
int api_take_reports(struct launch_report *out, size_t max);
/* The suspect nodes the groups' launchers named (POST
 * /v1/groups/ID/suspect), each checked to be a node of the group's. */
int api_take_suspects(struct suspect_report *out, size_t max);

/* What the groups' launchers said of their spares since the last take,
 * the last word of each. */
int api_take_spare_notes(struct spare_note *out, size_t max);

/* Groups whose launcher asked for them since the last take (each once):
 * moves up to max into ids, returns how many. */
int api_take_seen(uint32_t *ids, size_t max);

/*
 * Job ids that callers asked about (GET /v1/groups/ID and the like) and
 * no group has: maybe the base of a group not read yet.  Moves up to max
 * into ids and returns how many.
 */
int api_take_lookups(uint32_t *ids, size_t max);

/*
 * Jobs notified as ending (end) or as losing a member (fault): what Slurm
 * shows of them may change in the seconds after the notification (the
 * launcher ends before its job does; slurmctld excises a node from a job
 * while the launcher tells), so they are followed (slurmio_follow()).
 * Moves up to max into ids and returns how many.
 */
int api_take_follows(uint32_t *ids, size_t max);

/*
 * Units whose start slurmstepd told, as root, with the nodes slurmctld
 * gave them (POST /v1/groups/ID/notify?event=start&nodes=LIST from
 * spank_elastic): taken without a read of Slurm where elasticd knows the
 * job as a pending unit of that size (slurmio_started()).  Moves up to
 * max into out and returns how many.
 */
struct api_started {
	uint32_t id;
	char nodes[ROUTE_NODES_MAX + 1];
};
int api_take_started(struct api_started *out, size_t max);

/* Wake the loop (SIGUSR2) as a notification does, once api_set_notify()
 * named it; from any thread. */
void api_wake(void);

/*
 * Notifications (POST /v1/groups/ID/notify, from the units and the
 * launchers): with POLICY_NOTIFY_YES each one queues its job as a lookup
 * (end and fault: as one to follow) and wakes the
 * thread loop (SIGUSR2, which every thread blocks); with
 * POLICY_NOTIFY_DROP it is only counted.  Call before api_start().
 */
void api_set_notify(enum policy_notify mode, pthread_t loop);
/* The notifications taken and dropped since the start. */
void api_notify_counts(uint64_t *notified, uint64_t *dropped);

#endif
