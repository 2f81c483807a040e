#ifndef ELASTIC_COMMON_HOSTPORT_H
#define ELASTIC_COMMON_HOSTPORT_H

#include <stdbool.h>

#include "error.h"

/*
 * elasticd's address, as ElasticdListen, ElasticdServer, --server and
 * ELASTICCTL_SERVER write it: "HOST:PORT", "[IPV6]:PORT", or "*:PORT" /
 * ":PORT" for every IPv4 address (then host is "").  HOST is a name or an
 * address; PORT is 1 to 65535.  Fills host (without brackets) and *port, both
 * untouched on failure; err starts with s.
 */
#define HOSTPORT_HOST_MAX 255
int hostport_parse(const char *s, char host[HOSTPORT_HOST_MAX + 1],
		   unsigned *port, elastic_error_t *err);

/* Why a wildcard is refused where a client needs an address. */
#define HOSTPORT_WILDCARD_WHY                                                  \
	"a wildcard is where elasticd listens, not an address to reach it "    \
	"(allowed: HOST:PORT or [IPV6]:PORT that every node resolves, e.g. "   \
	"ctl:6830)"

/* hostport_parse() for an address to connect to: a wildcard host is
 * refused too (err: "s: " HOSTPORT_WILDCARD_WHY). */
int hostport_parse_server(const char *s, char host[HOSTPORT_HOST_MAX + 1],
			  unsigned *port, elastic_error_t *err);

/* A host as hostport_parse() fills it: every address of the machine
 * ("" from "*:PORT" or ":PORT", 0.0.0.0, ::), where a daemon listens but
 * no client can connect to. */
bool hostport_is_wildcard(const char *host);

/* Only this machine: 127.0.0.0/8, ::1 (or ::ffff:127.x.y.z), localhost. */
bool hostport_is_loopback(const char *host);

#endif
