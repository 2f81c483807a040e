#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>

#include "hostport.h"
#include "parse.h"

#define FORMS "HOST:PORT, [IPV6]:PORT or *:PORT, e.g. 127.0.0.1:6830"

static int host_char(char c, int v6)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '-')
		return 1;
	return v6 ? (c == ':' || c == '%') : c == '_';
}

int hostport_parse(const char *s, char host[HOSTPORT_HOST_MAX + 1],
		   unsigned *port, elastic_error_t *err)
{
	const char *h = s, *p, *colon;
	size_t hlen;
	unsigned long v;
	enum parse_result r;
	int v6 = 0;

	if (!s || !*s)
		return elastic_errorf(err, "empty address (want " FORMS ")");
	if (*s == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return elastic_errorf(err, "%s: not [IPV6]:PORT", s);
		v6 = 1;
		h = s + 1;
		hlen = (size_t)(close - h);
		p = close + 2;
		if (hlen == 0)
			return elastic_errorf(err, "%s: empty IPv6 address", s);
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return elastic_errorf(
			    err, "%s: no port (want " FORMS ")", s);
		if (memchr(s, ':', (size_t)(colon - s)))
			return elastic_errorf(
			    err,
			    "%s: write an IPv6 address in brackets, e.g. "
			    "[::1]:6830",
			    s);
		hlen = (size_t)(colon - s);
		p = colon + 1;
		if (hlen == 1 && *s == '*')
			hlen = 0;
	}
	if (hlen > HOSTPORT_HOST_MAX)
		return elastic_errorf(err, "%s: host name too long", s);
	for (size_t i = 0; i < hlen; i++)
		if (!host_char(h[i], v6))
			return elastic_errorf(
			    err,
			    "%s: not a host name or address (want " FORMS ")",
			    s);
	r = parse_uint(p, 1, 65535, &v);
	if (r != PARSE_OK)
		return elastic_errorf(err,
				      "%s: port '%s': %s (allowed: 1 to "
				      "65535)",
				      s, p, parse_strerror(r));
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	*port = (unsigned)v;
	return 0;
}

bool hostport_is_wildcard(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (!*host)
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return a4.s_addr == htonl(INADDR_ANY);
	return inet_pton(AF_INET6, host, &a6) == 1 &&
	       IN6_IS_ADDR_UNSPECIFIED(&a6);
}

int hostport_parse_server(const char *s, char host[HOSTPORT_HOST_MAX + 1],
			  unsigned *port, elastic_error_t *err)
{
	char h[HOSTPORT_HOST_MAX + 1];
	unsigned p;

	if (hostport_parse(s, h, &p, err) < 0)
		return -1;
	if (hostport_is_wildcard(h))
		return elastic_errorf(err, "%s: %s", s, HOSTPORT_WILDCARD_WHY);
	strcpy(host, h);
	*port = p;
	return 0;
}

bool hostport_is_loopback(const char *host)
{
	struct in6_addr a6;
	struct in_addr a4;
	size_t n = strlen(host);

	/* RFC 6761: localhost and every name under it. */
	if (!strcasecmp(host, "localhost") ||
	    (n > 10 && !strcasecmp(host + n - 10, ".localhost")))
		return true;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, host, &a6) != 1)
		return false;
	return IN6_IS_ADDR_LOOPBACK(&a6) ||
	       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
}
