/* The ring probe in a node's heartbeat task (ring.h): every heartbeat,
 * a connection to each of the next RING_K nodes' probe ports; one that
 * fails, or is not made within HBRING_WAIT_S, is a miss. */
#include "config.h"

#include <sys/socket.h>

#include "elastic-run.h"
#include "ring.h"

#define HBRING_WAIT_S 1.0

static struct {
	struct ring r;
	int fd[RING_K]; /* a check under way: -1 once over */
	double started;
} hr;

/* Peer i's check over: reached or not; the node's line when it changes. */
static void hbring_result(size_t i, bool reached, const char *self)
{
	char line[RING_K * DETECT_NAME_MAX + DETECT_NAME_MAX + 16];
	int len;

	if (hr.fd[i] >= 0) {
		close(hr.fd[i]);
		hr.fd[i] = -1;
	}
	if (ring_result(&hr.r, i, reached) &&
	    (len = ring_line(&hr.r, self, line, sizeof(line))) > 0 &&
	    write(1, line, (size_t)len) != len)
		return;
}

/* A check is under way while a connection is. */
static bool hbring_busy(void)
{
	for (size_t i = 0; i < hr.r.n; i++)
		if (hr.fd[i] >= 0)
			return true;
	return false;
}

void hbring_set(const char *self, char *list)
{
	/* Checks under way are of the old list's peers. */
	for (size_t i = 0; i < hr.r.n; i++)
		if (hr.fd[i] >= 0)
			close(hr.fd[i]);
	for (size_t i = 0; i < RING_K; i++)
		hr.fd[i] = -1;
	ring_parse(&hr.r, self, list);
}

void hbring_start(double now, const char *self)
{
	if (!hr.r.n || hbring_busy())
		return;
	hr.started = now;
	for (size_t i = 0; i < hr.r.n; i++) {
		hr.fd[i] = probe_connect(hr.r.peer[i].addr, hr.r.peer[i].port);
		/* Refused at once (no route): a miss now. */
		if (hr.fd[i] < 0)
			hbring_result(i, false, self);
	}
}

size_t hbring_fds(struct pollfd *p, size_t max)
{
	size_t k = 0;

	for (size_t i = 0; i < hr.r.n && k < max; i++)
		if (hr.fd[i] >= 0)
			p[k++] = (struct pollfd){ hr.fd[i], POLLOUT, 0 };
	return k;
}

void hbring_done(const struct pollfd *p, size_t n, double now, const char *self)
{
	for (size_t i = 0; i < hr.r.n; i++) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (hr.fd[i] < 0)
			continue;
		for (size_t k = 0; k < n; k++)
			if (p[k].fd == hr.fd[i] && p[k].revents) {
				if (getsockopt(hr.fd[i], SOL_SOCKET, SO_ERROR,
					       &err, &len) != 0)
					err = errno;
				hbring_result(i, err == 0, self);
				break;
			}
	}
	for (size_t i = 0; i < hr.r.n; i++)
		if (hr.fd[i] >= 0 && now - hr.started > HBRING_WAIT_S)
			hbring_result(i, false, self);
}
