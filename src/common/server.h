#ifndef ELASTIC_COMMON_SERVER_H
#define ELASTIC_COMMON_SERVER_H

#include "error.h"
#include "policy.h"

/*
 * Where a client (elastic-run on a compute node, elasticctl anywhere)
 * reaches elasticd, which runs on another host.  One rule for both:
 *   1. the address given (an option or the environment) wins;
 *   2. else ElasticdServer in elastic.conf;
 *   3. else ElasticdListen, if the file sets it to an address other hosts
 *      can reach (not a wildcard, not loopback);
 *   4. else, if the file sets ElasticdListen, an error: set ElasticdServer;
 *   5. else no elasticd is configured.
 * A wildcard is never an address to connect to: it is refused, never
 * turned into this machine's loopback (another user's listener there
 * would receive our munge credentials).
 */
struct server_addr {
	char addr[POLICY_LISTEN_MAX + 1]; /* HOST:PORT, for messages */
	char url[POLICY_LISTEN_MAX + 16]; /* http://HOST:PORT, [V6] bracketed */
	/* "ElasticdServer", "ElasticdListen" or the caller's given_from */
	const char *from;
};

enum server_result {
	SERVER_CHOSEN = 0, /* *ret is filled */
	SERVER_NONE = 1,   /* neither given nor in elastic.conf */
};

/*
 * given: the address from an option or the environment ("HOST:PORT",
 * "[IPV6]:PORT", or a URL "http://HOST:PORT/..."), NULL if none;
 * given_from: its name for messages ("--server", "ELASTICCTL_SERVER"),
 * kept in ret->from.  p: elastic.conf as read (NULL: none read); conf: its
 * path, for messages (NULL: "elastic.conf").
 * Returns SERVER_CHOSEN or SERVER_NONE, or -1 with err naming the option
 * or key, the value and what to set; *ret is untouched unless chosen.
 */
int server_choose(const char *given, const char *given_from,
		  const struct elastic_policy *p, const char *conf,
		  struct server_addr *ret, elastic_error_t *err);

#endif
