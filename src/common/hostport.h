#ifndef ELASTIC_COMMON_HOSTPORT_H
#define ELASTIC_COMMON_HOSTPORT_H

#include "error.h"

/*
 * elasticd's address, as ElasticdListen, --server and ELASTICCTL_SERVER
 * write it: "HOST:PORT", "[IPV6]:PORT", or "*:PORT" / ":PORT" for every
 * IPv4 address (then host is "").  HOST is a name or an address; PORT is
 * 1 to 65535.  Fills host (without brackets) and *port, both untouched
 * on failure; err starts with s.
 */
#define HOSTPORT_HOST_MAX 255
int hostport_parse(const char *s, char host[HOSTPORT_HOST_MAX + 1],
		   unsigned *port, elastic_error_t *err);

#endif
