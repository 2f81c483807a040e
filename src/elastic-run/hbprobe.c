/*
 * A heartbeat task's probes (hbtask.c): it listens on a port of its own,
 * which it prints in every heartbeat line ("p=<PORT>"), and, asked
 * "PROBE <NAME>=<ADDR>:<PORT> ...", connects to every other node's task
 * at once and says which it could not reach within HB_PROBE_WAIT_MS
 * ("<NODE> X=<NAME>,<NAME>" or "<NODE> X=-"; a long list goes first in
 * "X+=" lines).  The launcher decides (split.h).  Only a connection is
 * made: nothing is sent, nothing read.
 */
#include "config.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "elastic-run.h"
#include "detect.h"

#define HB_PROBE_WAIT_MS 1000
#define HB_PROBE_MAX	 4096 /* peers probed at most */
#define HB_ANSWER_CHUNK	 800  /* of a line: under slurmstepd's chunk */

int probe_listen(unsigned *port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	socklen_t len = sizeof(a);
	int fd =
	    socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int off = 0;

	*port = 0;
	if (fd < 0)
		return -1;
	/* Both families on one socket: peers name IPv4 addresses too. */
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    listen(fd, 128) != 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(a.sin6_port);
	return fd;
}

void probe_accept(int fd)
{
	int c;

	while ((c = accept4(fd, NULL, NULL, SOCK_CLOEXEC)) >= 0)
		close(c);
}

/* A connection to addr:port begun (non-blocking): its socket, or -1. */
int probe_connect(const char *addr, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int fd = -1;

	if (getaddrinfo(addr, port, &hints, &ai) != 0 || !ai)
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

/* Say the names not reached, in lines of at most HB_ANSWER_CHUNK: all
 * but the last as "X+=", the last as "X=" (the answer is complete). */
static void probe_say(const char *self, char *const *cut, size_t ncut)
{
	char line[HB_ANSWER_CHUNK + DETECT_NAME_MAX * 2];
	size_t i = 0;

	do {
		size_t start = i, len = 0;
		int j;

		/* How many names fit this line. */
		while (i < ncut && len < HB_ANSWER_CHUNK)
			len += strnlen(cut[i++], DETECT_NAME_MAX) + 1;
		j = snprintf(line, sizeof(line), "%s X%s", self,
			     i < ncut ? "+=" : "=");
		for (size_t k = start; k < i; k++)
			j += snprintf(line + j, sizeof(line) - (size_t)j,
				      "%s%.*s", k > start ? "," : "",
				      DETECT_NAME_MAX, cut[k]);
		if (start == ncut)
			j += snprintf(line + j, sizeof(line) - (size_t)j, "-");
		line[j++] = '\n';
		if (write(1, line, (size_t)j) != j)
			return;
	} while (i < ncut);
}

void probe_answer(const char *self, char *list)
{
	static int fd[HB_PROBE_MAX];
	static char *name[HB_PROBE_MAX], *cut[HB_PROBE_MAX];
	struct pollfd p[HB_PROBE_MAX];
	double deadline = now_s() + HB_PROBE_WAIT_MS / 1000.0;
	size_t n = 0, ncut = 0, open_n = 0;
	char *save = NULL;

	for (char *w = strtok_r(list, " ", &save); w && n < HB_PROBE_MAX;
	     w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '='), *colon = strrchr(w, ':');

		if (!eq || !colon || colon < eq)
			continue;
		*eq = *colon = '\0';
		if (!strcmp(w, self))
			continue;
		name[n] = w;
		fd[n] = probe_connect(eq + 1, colon + 1);
		open_n += fd[n] >= 0;
		n++;
	}
	while (open_n && now_s() < deadline) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (fd[i] >= 0)
				p[k++] = (struct pollfd){ fd[i], POLLOUT, 0 };
		if (poll(p, k, (int)((deadline - now_s()) * 1000) + 1) <= 0)
			break;
		for (size_t i = 0, m = 0; i < n; i++) {
			int err = 0;
			socklen_t sl = sizeof(err);

			if (fd[i] < 0 || !p[m++].revents)
				continue;
			getsockopt(fd[i], SOL_SOCKET, SO_ERROR, &err, &sl);
			close(fd[i]);
			/* Reached: no longer pending; refused counts as cut. */
			fd[i] = err ? -2 : -3;
			open_n--;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (fd[i] >= 0)
			close(fd[i]);
		if (fd[i] != -3)
			cut[ncut++] = name[i];
	}
	probe_say(self, cut, ncut);
}
