/* What the reconcile loop and the API's threads share, under api.lock:
 * the current view, held by reference so that a slow client never holds
 * up a publish, and the queues of raise requests and launchers' reports.
 * No I/O and no logging here. */
#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_impl.h"

/* The current view, with a reference the caller drops with api_view_put(). */
struct held_view *api_view_get(void)
{
	struct held_view *h;

	pthread_mutex_lock(&api.lock);
	h = api.cur;
	if (h)
		h->refs++;
	pthread_mutex_unlock(&api.lock);
	return h;
}

void api_view_put(struct held_view *h)
{
	unsigned left;

	if (!h)
		return;
	pthread_mutex_lock(&api.lock);
	left = --h->refs;
	pthread_mutex_unlock(&api.lock);
	if (left == 0) {
		view_free(h->v);
		free(h);
	}
}

/* Queue a raise of group id once; -1 if the queue is full. */
int api_queue_raise(uint32_t id)
{
	int rc = 0;

	pthread_mutex_lock(&api.lock);
	for (size_t i = 0; i < api.nraise; i++)
		if (api.raise[i] == id)
			goto out;
	if (api.nraise == API_RAISE_MAX)
		rc = -1;
	else
		api.raise[api.nraise++] = id;
out:
	pthread_mutex_unlock(&api.lock);
	return rc;
}

/* Queue a launcher's report; a newer one of the same group replaces it.
 * -1 if the queue is full. */
int api_queue_report(const struct launch_report *rep)
{
	int rc = 0;
	size_t i;

	pthread_mutex_lock(&api.lock);
	for (i = 0; i < api.nreport; i++)
		if (api.report[i].group == rep->group)
			break;
	if (i < api.nreport)
		api.report[i] = *rep;
	else if (api.nreport == API_RAISE_MAX)
		rc = -1;
	else
		api.report[api.nreport++] = *rep;
	pthread_mutex_unlock(&api.lock);
	return rc;
}

/* Add id to a queue of max ids, once; while it is full, ids are dropped
 * (the next read of Slurm, or the next request, brings them again). */
static void queue_once(uint32_t *q, size_t *n, size_t max, uint32_t id)
{
	pthread_mutex_lock(&api.lock);
	for (size_t i = 0; i < *n; i++)
		if (q[i] == id)
			goto out;
	if (*n < max)
		q[(*n)++] = id;
out:
	pthread_mutex_unlock(&api.lock);
}

/* A job id a caller asked about that no group has (or notified). */
void api_queue_lookup(uint32_t id)
{
	queue_once(api.lookup, &api.nlookup, API_LOOKUP_MAX, id);
}

/* A job to follow (api_take_follows()). */
void api_queue_follow(uint32_t id)
{
	queue_once(api.follow, &api.nfollow, API_LOOKUP_MAX, id);
}

/* A unit's start with its nodes, from root; a newer word on the same job
 * replaces the older.  While the queue is full, it becomes a lookup. */
void api_queue_started(uint32_t id, const char *nodes)
{
	size_t i;
	bool queued = true;

	pthread_mutex_lock(&api.lock);
	for (i = 0; i < api.nstarted && api.started[i].id != id; i++)
		;
	if (i == api.nstarted && api.nstarted == API_LOOKUP_MAX)
		queued = false;
	else {
		api.nstarted += i == api.nstarted;
		api.started[i].id = id;
		snprintf(api.started[i].nodes, sizeof(api.started[i].nodes),
			 "%s", nodes);
	}
	pthread_mutex_unlock(&api.lock);
	if (!queued)
		api_queue_lookup(id);
}

/* A notification: the loop runs a cycle at once.  Pending SIGUSR2s are
 * one: a burst of notifications is one cycle. */
void api_wake(void)
{
	pthread_mutex_lock(&api.lock);
	if (api.loop_set)
		pthread_kill(api.loop, SIGUSR2);
	pthread_mutex_unlock(&api.lock);
}

bool api_lookup_allowed(uint32_t uid, bool admin)
{
	struct timespec ts;

	if (admin)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return auth_lookup_take(&api.lookups, uid,
				(double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

void api_set_notify(enum policy_notify mode, pthread_t loop)
{
	pthread_mutex_lock(&api.lock);
	api.notify = mode;
	api.loop = loop;
	api.loop_set = true;
	pthread_mutex_unlock(&api.lock);
}

void api_notify_counts(uint64_t *notified, uint64_t *dropped)
{
	pthread_mutex_lock(&api.lock);
	*notified = api.notified;
	*dropped = api.notify_dropped;
	pthread_mutex_unlock(&api.lock);
}

/* Move up to max of a queue's oldest items (size bytes each) to out. */
static int take(void *out, void *queue, size_t *n, size_t max, size_t size)
{
	size_t k;

	pthread_mutex_lock(&api.lock);
	k = *n < max ? *n : max;
	memcpy(out, queue, k * size);
	memmove(queue, (char *)queue + k * size, (*n - k) * size);
	*n -= k;
	pthread_mutex_unlock(&api.lock);
	return (int)k;
}

int api_queue_suspect(const struct suspect_report *s)
{
	int rc = 0;

	pthread_mutex_lock(&api.lock);
	if (api.nsuspect == API_SUSPECT_MAX)
		rc = -1;
	else
		api.suspect[api.nsuspect++] = *s;
	pthread_mutex_unlock(&api.lock);
	return rc;
}

/* A group's launcher asked (once per group until taken; a full table
 * drops it: the next request notes it). */
void api_note_launcher(uint32_t id)
{
	queue_once(api.seen, &api.nseen, API_RAISE_MAX, id);
}

int api_take_seen(uint32_t *ids, size_t max)
{
	return take(ids, api.seen, &api.nseen, max, sizeof(ids[0]));
}

void api_note_spares(const struct spare_note *s)
{
	size_t i;

	pthread_mutex_lock(&api.lock);
	for (i = 0; i < api.nspares && api.spares[i].group != s->group; i++)
		;
	if (i < API_SUSPECT_MAX) {
		api.spares[i] = *s;
		api.nspares += i == api.nspares;
	}
	pthread_mutex_unlock(&api.lock);
}

int api_take_spare_notes(struct spare_note *out, size_t max)
{
	return take(out, api.spares, &api.nspares, max, sizeof(out[0]));
}

int api_take_suspects(struct suspect_report *out, size_t max)
{
	return take(out, api.suspect, &api.nsuspect, max, sizeof(out[0]));
}

int api_take_reports(struct launch_report *out, size_t max)
{
	return take(out, api.report, &api.nreport, max, sizeof(out[0]));
}

int api_take_raise_requests(uint32_t *ids, size_t max)
{
	return take(ids, api.raise, &api.nraise, max, sizeof(ids[0]));
}

int api_take_lookups(uint32_t *ids, size_t max)
{
	return take(ids, api.lookup, &api.nlookup, max, sizeof(ids[0]));
}

int api_take_follows(uint32_t *ids, size_t max)
{
	return take(ids, api.follow, &api.nfollow, max, sizeof(ids[0]));
}

int api_take_started(struct api_started *out, size_t max)
{
	return take(out, api.started, &api.nstarted, max, sizeof(out[0]));
}
