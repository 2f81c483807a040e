/* Whether a host accepts a connection (tcpprobe.h). */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "tcpprobe.h"

bool tcp_answers(const char *addr, unsigned port, int ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char p[16];
	bool up = true;
	int fd, rc;

	snprintf(p, sizeof(p), "%u", port);
	if (getaddrinfo(addr, p, &hints, &ai) != 0 || !ai)
		return true;
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd >= 0) {
		rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
		if (rc < 0 && errno == EINPROGRESS) {
			struct pollfd q = { fd, POLLOUT, 0 };
			socklen_t sl = sizeof(rc);

			rc = poll(&q, 1, ms) == 1 &&
				     getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc,
						&sl) == 0 &&
				     rc == 0
				 ? 0
				 : -1;
		}
		up = rc == 0;
		close(fd);
	}
	freeaddrinfo(ai);
	return up;
}

bool slurmd_answers(const char *node, int ms)
{
	node_info_msg_t *msg = NULL;
	char addr[256];
	unsigned port;

	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
		SLURM_SUCCESS ||
	    msg->record_count < 1) {
		if (msg)
			slurm_free_node_info_msg(msg);
		return true;
	}
	snprintf(addr, sizeof(addr), "%s",
		 msg->node_array[0].node_addr ? msg->node_array[0].node_addr
					      : node);
	port = msg->node_array[0].port ? msg->node_array[0].port : 6818;
	slurm_free_node_info_msg(msg);
	return tcp_answers(addr, port, ms);
}
