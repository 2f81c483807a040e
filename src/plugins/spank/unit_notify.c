/* slurmstepd tells elasticd that a unit started (unit_notify.h). */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include "apiclient/apicred.h"
#include "common/hostport.h"
#include "common/server.h"
#include "unit_notify.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for events on fd until deadline (ms): 0, or -1 (errno set). */
static int wait_fd(int fd, short events, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		long long left = deadline - now_ms();
		int n;

		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

/* A connected socket to host:port before deadline, or -1 (err set). */
static int dial(const char *host, unsigned port, long long deadline,
		elastic_error_t *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV },
			*res = NULL, *a;
	char service[8];
	int fd = -1, rc, soerr = 0;
	socklen_t len = sizeof(soerr);

	snprintf(service, sizeof(service), "%u", port);
	if ((rc = getaddrinfo(host, service, &hints, &res)) != 0)
		return elastic_errorf(err, "%s: %s", host, gai_strerror(rc));
	for (a = res; a; a = a->ai_next) {
		fd = socket(a->ai_family,
			    a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    a->ai_protocol);
		if (fd < 0)
			continue;
		if ((connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
		     (errno == EINPROGRESS &&
		      wait_fd(fd, POLLOUT, deadline) == 0 &&
		      getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 &&
		      (errno = soerr) == 0)))
			break;
		rc = errno;
		close(fd);
		fd = -1;
		errno = rc;
	}
	freeaddrinfo(res);
	if (fd < 0)
		elastic_errorf(err, "cannot connect to %s:%u: %s", host, port,
			       strerror(errno));
	return fd;
}

/* All of buf to fd before deadline: 0, or -1 (errno set). */
static int send_all(int fd, const char *buf, size_t len, long long deadline)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			return -1;
		} else if (wait_fd(fd, POLLOUT, deadline) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The answer's status, from its first line, before deadline; -1. */
static long read_status(int fd, long long deadline)
{
	char buf[64];
	size_t got = 0;
	int code;

	while (got < sizeof(buf) - 1 && !memchr(buf, '\n', got)) {
		ssize_t n = recv(fd, buf + got, sizeof(buf) - 1 - got, 0);

		if (n > 0)
			got += (size_t)n;
		else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
		else if (wait_fd(fd, POLLIN, deadline) < 0)
			break;
	}
	buf[got] = '\0';
	if (sscanf(buf, "HTTP/1.%*1[01] %3d ", &code) != 1)
		return -1;
	return code;
}

/* target with the characters a query may not carry raw escaped. */
static void escape_target(const char *target, char *out, size_t len)
{
	size_t o = 0;

	for (; *target && o + 4 < len; target++) {
		if (*target == '[' || *target == ']')
			o += (size_t)snprintf(out + o, len - o, "%%%02X",
					      (unsigned char)*target);
		else
			out[o++] = *target;
	}
	out[o] = '\0';
}

int unit_notify_start(const struct elastic_policy *p, const char *conf,
		      uint32_t job, const char *nodes, unsigned timeout_ms,
		      elastic_error_t *err)
{
	char target[APIAUTH_TARGET_MAX], wire[3 * APIAUTH_TARGET_MAX];
	char host[HOSTPORT_HOST_MAX + 1], nonce[APIAUTH_NONCE_HEX + 1];
	long long deadline = now_ms() + timeout_ms;
	struct server_addr addr;
	char *cred = NULL, *req = NULL;
	uint32_t uid;
	unsigned port;
	long status;
	int fd, rc, n;

	if (p->elasticd_notify != POLICY_NOTIFY_YES)
		return 1;
	rc = server_choose(NULL, NULL, p, conf, &addr, err);
	if (rc != SERVER_CHOSEN)
		return rc == SERVER_NONE ? 1 : -1;
	if (hostport_parse_server(addr.addr, host, &port, err) < 0 ||
	    apicred_server_uid(p->elasticd_user, &uid, err) < 0)
		return -1;
	/* A list longer than elasticd takes: the start alone, which makes
	 * elasticd read the job. */
	n = snprintf(target, sizeof(target), "/v1/groups/%u/notify?event=start",
		     job);
	if (strlen(nodes) <= UNIT_NOTIFY_NODES_MAX)
		snprintf(target + n, sizeof(target) - (size_t)n, "&nodes=%s",
			 nodes);
	escape_target(target, wire, sizeof(wire));
	if (apicred_make(p->elasticd_munge_socket, uid, "POST", target, nonce,
			 &cred, err) < 0)
		return -1;
	n = asprintf(&req,
		     "POST %s HTTP/1.1\r\nHost: %s%s%s:%u\r\n"
		     "User-Agent: spank_elastic/" PACKAGE_VERSION "\r\n"
		     "Authorization: Munge %s\r\nContent-Length: 0\r\n"
		     "Connection: close\r\n\r\n",
		     wire, strchr(host, ':') ? "[" : "", host,
		     strchr(host, ':') ? "]" : "", port, cred);
	free(cred);
	if (n < 0)
		return elastic_errorf(err, "out of memory");
	if ((fd = dial(host, port, deadline, err)) < 0) {
		free(req);
		return -1;
	}
	if (send_all(fd, req, (size_t)n, deadline) < 0)
		rc = elastic_errorf(err, "elasticd at %s: %s", addr.addr,
				    strerror(errno));
	else if ((status = read_status(fd, deadline)) != 202)
		rc = elastic_errorf(err, "elasticd at %s answered %ld",
				    addr.addr, status);
	else
		rc = 0;
	close(fd);
	free(req);
	return rc;
}
