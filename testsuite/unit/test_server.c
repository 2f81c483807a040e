/* Unit tests of server.c: where a client reaches elasticd, case by case,
 * and the address facts from hostport.c it stands on. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/hostport.h"
#include "common/policy.h"
#include "common/server.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define CONF "/etc/slurm/elastic.conf"

/* elastic.conf from text, as the clients read it. */
static struct elastic_policy conf(const char *text)
{
	struct elastic_policy p;
	elastic_error_t err = { "" };

	if (policy_parse(&p, text, "e.conf", &err) != 0)
		fail_msg("policy_parse(\"%s\"): %s", text, err.text);
	return p;
}

/* server_choose() must pick addr (from, url). */
static void chosen(const char *given, const char *given_from, const char *text,
		   const char *addr, const char *from, const char *url)
{
	struct elastic_policy p = conf(text);
	struct server_addr s;
	elastic_error_t err = { "" };
	int rc = server_choose(given, given_from, &p, CONF, &s, &err);

	if (rc != SERVER_CHOSEN)
		fail_msg("given %s, conf \"%s\": %d (%s), want %s", given, text,
			 rc, err.text, addr);
	assert_string_equal(s.addr, addr);
	assert_string_equal(s.from, from);
	assert_string_equal(s.url, url);
}

/* server_choose() must fail with msg, ret untouched. */
static void refused(const char *given, const char *given_from, const char *text,
		    const char *msg)
{
	struct elastic_policy p = conf(text);
	struct server_addr s, before;
	elastic_error_t err = { "" };

	memset(&s, 0xa5, sizeof(s));
	before = s;
	assert_int_equal(server_choose(given, given_from, &p, CONF, &s, &err),
			 -1);
	assert_string_equal(err.text, msg);
	assert_memory_equal(&s, &before, sizeof(s));
}

static void wildcard_and_loopback(void **state)
{
	static const char *wild[] = { "", "0.0.0.0", "::", "0:0::0" };
	static const char *loop[] = {
		"127.0.0.1", "127.1.2.3", "::1",	 "0:0:0:0:0:0:0:1",
		"localhost", "LocalHost", "a.localhost", "::ffff:127.0.0.1",
	};
	static const char *neither[] = {
		"10.0.0.1",	 "128.0.0.1", "ctl",
		"fe80::1",	 "::2",	      "localhost.org",
		"127.0.0.1.nip", "0.0.0.1",   "::ffff:10.0.0.1",
		"mylocalhost",
	};

	(void)state;
	for (size_t i = 0; i < N(wild); i++) {
		if (!hostport_is_wildcard(wild[i]))
			fail_msg("'%s' is a wildcard", wild[i]);
		assert_false(hostport_is_loopback(wild[i]));
	}
	for (size_t i = 0; i < N(loop); i++) {
		if (!hostport_is_loopback(loop[i]))
			fail_msg("'%s' is loopback", loop[i]);
		assert_false(hostport_is_wildcard(loop[i]));
	}
	for (size_t i = 0; i < N(neither); i++)
		if (hostport_is_wildcard(neither[i]) ||
		    hostport_is_loopback(neither[i]))
			fail_msg("'%s' is a plain address", neither[i]);
}

/* a. The address given wins over elastic.conf, loopback included. */
static void given_wins(void **state)
{
	(void)state;
	chosen("10.0.0.1:6830", "--server", "ElasticdServer=ctl:1\n",
	       "10.0.0.1:6830", "--server", "http://10.0.0.1:6830");
	chosen("127.0.0.1:7000", "ELASTICCTL_SERVER", "ElasticdListen=*:6830\n",
	       "127.0.0.1:7000", "ELASTICCTL_SERVER", "http://127.0.0.1:7000");
	chosen("[fe80::1]:9", "--elasticd", "", "[fe80::1]:9", "--elasticd",
	       "http://[fe80::1]:9");
	/* A URL, as curl is given. */
	chosen("http://head:80/v1/groups", "ELASTIC_RUN_ELASTICD", "",
	       "head:80", "ELASTIC_RUN_ELASTICD", "http://head:80");
	/* No elastic.conf read at all. */
	{
		struct server_addr s;
		elastic_error_t err = { "" };

		assert_int_equal(
		    server_choose("h:1", "--server", NULL, NULL, &s, &err),
		    SERVER_CHOSEN);
		assert_string_equal(s.url, "http://h:1");
	}
}

/* a. A wildcard or a bad address given is an error naming the option. */
static void given_bad(void **state)
{
	(void)state;
	refused("*:6830", "--server", "ElasticdServer=ctl:1\n",
		"--server=*:6830: a wildcard is where elasticd listens, not "
		"an address to reach it (allowed: HOST:PORT or [IPV6]:PORT "
		"that every node resolves, e.g. ctl:6830)");
	refused("http://0.0.0.0:6830/", "ELASTIC_RUN_ELASTICD", "",
		"ELASTIC_RUN_ELASTICD=0.0.0.0:6830: a wildcard is where "
		"elasticd listens, not an address to reach it (allowed: "
		"HOST:PORT or [IPV6]:PORT that every node resolves, e.g. "
		"ctl:6830)");
	refused("[::]:1", "--elasticd", "",
		"--elasticd=[::]:1: a wildcard is where elasticd listens, not "
		"an address to reach it (allowed: HOST:PORT or [IPV6]:PORT "
		"that every node resolves, e.g. ctl:6830)");
	refused(":6830", "ELASTICCTL_SERVER", "",
		"ELASTICCTL_SERVER=:6830: a wildcard is where elasticd "
		"listens, not an address to reach it (allowed: HOST:PORT or "
		"[IPV6]:PORT that every node resolves, e.g. ctl:6830)");
	refused("head:0", "--server", "",
		"--server=head:0: port '0': out of range (allowed: 1 to "
		"65535)");
	refused("", "--server", "ElasticdServer=ctl:1\n",
		"--server: empty address (want HOST:PORT, [IPV6]:PORT or "
		"*:PORT, e.g. 127.0.0.1:6830)");
	{
		char big[400];

		memset(big, 'h', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		refused(big, "--server", "",
			"--server: longer than 263 characters");
	}
}

/* b. ElasticdServer, whatever ElasticdListen says. */
static void elasticd_server(void **state)
{
	(void)state;
	chosen(NULL, "--server", "ElasticdServer=ctl:6830\n", "ctl:6830",
	       "ElasticdServer", "http://ctl:6830");
	chosen(NULL, "--server",
	       "ElasticdListen=*:6830\nElasticdServer=[fd00::5]:6830\n",
	       "[fd00::5]:6830", "ElasticdServer", "http://[fd00::5]:6830");
	chosen(NULL, "--server",
	       "ElasticdServer=127.0.0.1:16850\n"
	       "ElasticdListen=127.0.0.1:16850\n",
	       "127.0.0.1:16850", "ElasticdServer", "http://127.0.0.1:16850");
}

/* c. ElasticdListen when it names an address every host reaches. */
static void elasticd_listen_reachable(void **state)
{
	(void)state;
	chosen(NULL, "--server", "ElasticdListen=10.1.0.5:6830\n",
	       "10.1.0.5:6830", "ElasticdListen", "http://10.1.0.5:6830");
	chosen(NULL, "--server", "ElasticdListen=ctl.example.org:6830\n",
	       "ctl.example.org:6830", "ElasticdListen",
	       "http://ctl.example.org:6830");
	chosen(NULL, "--server", "ElasticdListen=[fd00::5]:1\n", "[fd00::5]:1",
	       "ElasticdListen", "http://[fd00::5]:1");
}

/* d. ElasticdListen set, but only this host reaches it: say what to set. */
static void elasticd_listen_unreachable(void **state)
{
	static const char *listen[] = {
		"*:6830",	  ":6830",	    "0.0.0.0:6830",
		"[::]:6830",	  "127.0.0.1:6830", "[::1]:6830",
		"localhost:6830", "127.0.1.1:6830",
	};
	char text[128], msg[512];

	(void)state;
	for (size_t i = 0; i < N(listen); i++) {
		snprintf(text, sizeof(text), "ElasticdListen=%s\n", listen[i]);
		snprintf(msg, sizeof(msg),
			 "no ElasticdServer in " CONF ", and ElasticdListen=%s "
			 "is not an address other hosts can reach: set "
			 "ElasticdServer=HOST:PORT (elasticd's host as every "
			 "node resolves it, e.g. ctl:6830)",
			 listen[i]);
		refused(NULL, "--server", text, msg);
	}
	/* The conf's name defaults. */
	{
		struct elastic_policy p = conf("ElasticdListen=*:1\n");
		struct server_addr s;
		elastic_error_t err = { "" };

		assert_int_equal(server_choose(NULL, NULL, &p, NULL, &s, &err),
				 -1);
		assert_non_null(strstr(err.text, "no ElasticdServer in "
						 "elastic.conf, and "
						 "ElasticdListen=*:1 "));
	}
}

/* e. Neither key (or no elastic.conf): no elasticd configured. */
static void none(void **state)
{
	struct elastic_policy p = conf("# nothing\nMaxNodes=4\n");
	struct server_addr s, before;
	elastic_error_t err = { "" };

	(void)state;
	memset(&s, 0xa5, sizeof(s));
	before = s;
	assert_int_equal(server_choose(NULL, "--server", &p, CONF, &s, &err),
			 SERVER_NONE);
	assert_int_equal(server_choose(NULL, "--server", NULL, CONF, &s, &err),
			 SERVER_NONE);
	/* The built-in listen address is elasticd's, not the clients'. */
	policy_defaults(&p);
	assert_int_equal(server_choose(NULL, "--server", &p, CONF, &s, &err),
			 SERVER_NONE);
	assert_memory_equal(&s, &before, sizeof(s));
	/* An empty ElasticdServer is no ElasticdServer. */
	p = conf("ElasticdServer=\n");
	assert_int_equal(server_choose(NULL, "--server", &p, CONF, &s, &err),
			 SERVER_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wildcard_and_loopback),
		cmocka_unit_test(given_wins),
		cmocka_unit_test(given_bad),
		cmocka_unit_test(elasticd_server),
		cmocka_unit_test(elasticd_listen_reachable),
		cmocka_unit_test(elasticd_listen_unreachable),
		cmocka_unit_test(none),
	};

	return cmocka_run_group_tests_name("server", tests, NULL, NULL);
}
