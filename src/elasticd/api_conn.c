/* The connections' deadlines for elasticd's API: the slots of the open
 * connections, the reaper thread that cuts those that send no whole
 * request in time, and libmicrohttpd's notification that fills the
 * slots.  It only ever shuts a connection down: the server closes it. */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "api_impl.h"

/* A request's headers come in one go from any client of ours: a
 * connection that has not sent a whole request within this long after it
 * opened (or after its last answer) is closed, however slowly it trickles
 * bytes.  Past API_CROWDED connections, each new one closes the one
 * waited on longest, so that clients from many hosts cannot fill the
 * table with connections that never finish a request. */
#define API_HEADER_TIMEOUT_MS 5000
#define API_CROWDED	      (API_CONNECTIONS * 3 / 4)
#define API_REAP_MS	      500

/* The open connections and since when each waits for a request.  A slot's
 * fd stays valid while it is in the table: libmicrohttpd notifies a
 * connection's close before it closes the socket, and the notification
 * takes this lock; so a shutdown() under the lock never hits another
 * file. */
struct conn_slot {
	int fd;		/* -1: free */
	uint64_t since; /* ms (CLOCK_MONOTONIC) */
};
static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct conn_slot slot[API_CONNECTIONS];
	bool stop;
	bool reaping;
	pthread_t reaper;
} conns = { .lock = PTHREAD_MUTEX_INITIALIZER,
	    .wake = PTHREAD_COND_INITIALIZER };

static uint64_t conn_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Close a connection that has not sent its request: the server's own
 * thread sees the end of the stream and drops it.  Under conns.lock. */
static void conn_cut(struct conn_slot *c)
{
	(void)shutdown(c->fd, SHUT_RDWR);
	c->since = UINT64_MAX; /* cut once */
}

/* Under conns.lock: cut every connection past its deadline and, while the
 * table is crowded, the one waiting longest. */
static void conns_reap(const struct conn_slot *keep)
{
	uint64_t t = conn_clock_ms();
	unsigned i, live = 0;
	struct conn_slot *oldest = NULL;

	for (i = 0; i < API_CONNECTIONS; i++) {
		struct conn_slot *c = &conns.slot[i];

		if (c->fd < 0 || c->since == UINT64_MAX)
			continue;
		if (t - c->since >= API_HEADER_TIMEOUT_MS) {
			conn_cut(c);
			continue;
		}
		live++;
		if (c != keep && (!oldest || c->since < oldest->since))
			oldest = c;
	}
	if (live > API_CROWDED && oldest)
		conn_cut(oldest);
}

void api_conn_notify(void *cls, struct MHD_Connection *conn,
		     void **socket_context,
		     enum MHD_ConnectionNotificationCode toe)
{
	const union MHD_ConnectionInfo *ci;
	struct conn_slot *c = *socket_context;
	unsigned i;

	(void)cls;
	pthread_mutex_lock(&conns.lock);
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (c)
			c->fd = -1;
		*socket_context = NULL;
	} else if ((ci = MHD_get_connection_info(
			conn, MHD_CONNECTION_INFO_CONNECTION_FD))) {
		for (i = 0; i < API_CONNECTIONS; i++)
			if (conns.slot[i].fd < 0)
				break;
		/* Never more than the server's own limit: a slot is free. */
		if (i < API_CONNECTIONS) {
			c = &conns.slot[i];
			c->fd = ci->connect_fd;
			c->since = conn_clock_ms();
			*socket_context = c;
			conns_reap(c);
		}
	}
	pthread_mutex_unlock(&conns.lock);
}

/* A request came in whole: the connection has another deadline for its
 * next one. */
void api_conn_answered(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	struct conn_slot *c = ci ? ci->socket_context : NULL;

	if (!c)
		return;
	pthread_mutex_lock(&conns.lock);
	if (c->since != UINT64_MAX)
		c->since = conn_clock_ms();
	pthread_mutex_unlock(&conns.lock);
}

/* The deadlines hold without new connections coming in too. */
static void *reaper_run(void *arg)
{
	struct timespec ts;

	(void)arg;
	pthread_mutex_lock(&conns.lock);
	while (!conns.stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += API_REAP_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		(void)pthread_cond_timedwait(&conns.wake, &conns.lock, &ts);
		if (!conns.stop)
			conns_reap(NULL);
	}
	pthread_mutex_unlock(&conns.lock);
	return NULL;
}

int api_reaper_start(void)
{
	pthread_condattr_t ca;
	unsigned i;
	int rc;

	pthread_mutex_lock(&conns.lock);
	for (i = 0; i < API_CONNECTIONS; i++)
		conns.slot[i].fd = -1;
	conns.stop = false;
	pthread_mutex_unlock(&conns.lock);
	/* The wait is timed on the monotonic clock, as the deadlines. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&conns.wake);
	pthread_cond_init(&conns.wake, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&conns.reaper, NULL, reaper_run, NULL);
	conns.reaping = !rc;
	return rc;
}

void api_reaper_stop(void)
{
	if (!conns.reaping)
		return;
	pthread_mutex_lock(&conns.lock);
	conns.stop = true;
	pthread_cond_signal(&conns.wake);
	pthread_mutex_unlock(&conns.lock);
	pthread_join(conns.reaper, NULL);
	conns.reaping = false;
}
