#include "config.h"

#include <stdio.h>
#include <string.h>

#include "hostport.h"
#include "server.h"

/* addr as the address to connect to: into *ret, or err as "from=addr: why"
 * ("from: why" when addr is empty). */
static int server_take(const char *addr, const char *from,
		       struct server_addr *ret, elastic_error_t *err)
{
	char host[HOSTPORT_HOST_MAX + 1];
	const char *sep = *addr ? "=" : ": ";
	elastic_error_t e;
	unsigned port;

	if (strlen(addr) > POLICY_LISTEN_MAX)
		return elastic_errorf(err, "%s: longer than %d characters",
				      from, POLICY_LISTEN_MAX);
	if (hostport_parse_server(addr, host, &port, &e) < 0)
		return elastic_errorf(err, "%s%s%s", from, sep, e.text);
	snprintf(ret->addr, sizeof(ret->addr), "%s", addr);
	snprintf(ret->url, sizeof(ret->url),
		 strchr(host, ':') ? "http://[%s]:%u" : "http://%s:%u", host,
		 port);
	ret->from = from;
	return SERVER_CHOSEN;
}

/* A URL, as a browser or curl is given, is accepted: its HOST:PORT. */
static int server_take_given(const char *given, const char *from,
			     struct server_addr *ret, elastic_error_t *err)
{
	char addr[POLICY_LISTEN_MAX + 2];
	size_t n;

	if (!strncmp(given, "http://", 7))
		given += 7;
	n = strcspn(given, "/");
	if (n >= sizeof(addr))
		return elastic_errorf(err, "%s: longer than %d characters",
				      from, POLICY_LISTEN_MAX);
	memcpy(addr, given, n);
	addr[n] = '\0';
	return server_take(addr, from, ret, err);
}

int server_choose(const char *given, const char *given_from,
		  const struct elastic_policy *p, const char *conf,
		  struct server_addr *ret, elastic_error_t *err)
{
	char host[HOSTPORT_HOST_MAX + 1];
	unsigned port;

	if (!conf)
		conf = "elastic.conf";
	if (given)
		return server_take_given(given, given_from, ret, err);
	if (p && p->elasticd_server[0])
		return server_take(p->elasticd_server, "ElasticdServer", ret,
				   err);
	if (!p || !p->elasticd_listen_set)
		return SERVER_NONE;
	/* Where elasticd listens is where every host reaches it only when
	 * it names one address that is not this host's loopback. */
	if (hostport_parse(p->elasticd_listen, host, &port, NULL) == 0 &&
	    !hostport_is_wildcard(host) && !hostport_is_loopback(host))
		return server_take(p->elasticd_listen, "ElasticdListen", ret,
				   err);
	return elastic_errorf(err,
			      "no ElasticdServer in %s, and ElasticdListen=%s "
			      "is not an address other hosts can reach: set "
			      "ElasticdServer=HOST:PORT (elasticd's host as "
			      "every node resolves it, e.g. ctl:6830)",
			      conf, p->elasticd_listen);
}
