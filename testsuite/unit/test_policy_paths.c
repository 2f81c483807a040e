/* Unit tests of policy.c on the keys that say where: elasticd's listen
 * address, the address every node reaches it at (ElasticdServer), its
 * poll interval, admins, munge socket and state dir, and
 * DefaultCheckpointDir, with policy_check_path's rules and bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "policy_fixture.h"

/* elasticd's keys: listen address, poll interval, paths. */
static void elasticd_keys(void **state)
{
	static const char *good_listen[] = {
		"127.0.0.1:6830", "*:1",     ":65535",
		"[::1]:6830",	  "[::]:80", "ctl-1.example.org:443",
		"host_x:9",
	};
	/* hostport_parse() says why (test_hostport); we add where. */
	static const char *bad_listen[] = {
		"127.0.0.1", "",	"h:0",	 "h:65536", "h:+80",
		"::1:80",    "[::1]80", "[]:80", "a/b:80",
	};
	static const struct {
		const char *text;
		const char *msg;
	} bad[] = {
		{ "ElasticdPollInterval=99",
		  "e.conf:1: ElasticdPollInterval=99: out of range (allowed: "
		  "100 to 60000 milliseconds)" },
		{ "ElasticdPollInterval=60001",
		  "e.conf:1: ElasticdPollInterval=60001: out of range "
		  "(allowed: 100 to 60000 milliseconds)" },
		{ "ElasticdPollInterval=1s",
		  "e.conf:1: ElasticdPollInterval=1s: not a whole number "
		  "(allowed: 100 to 60000 milliseconds)" },
		{ "ElasticdMungeSocket=run/munge.sock",
		  "e.conf:1: ElasticdMungeSocket=run/munge.sock: must be an "
		  "absolute path" },
		{ "ElasticdStateDir=var/lib",
		  "e.conf:1: ElasticdStateDir=var/lib: must be an absolute "
		  "path" },
		{ "ElasticdStateDir=/a\x01b",
		  "e.conf:1: ElasticdStateDir: control character in path" },
		{ "ElasticdReleaseLaunchHolds=11",
		  "e.conf:1: ElasticdReleaseLaunchHolds=11: out of range "
		  "(allowed: 0 to 10)" },
		{ "ElasticdReleaseLaunchHolds=-1",
		  "e.conf:1: ElasticdReleaseLaunchHolds=-1: not a whole "
		  "number (allowed: 0 to 10)" },
		{ "ElasticdAdmins=a b", "e.conf:1: ElasticdAdmins: bad "
					"character in name 'a b' (allowed: "
					"letters, digits, - _ . @ +)" },
	};
	struct elastic_policy p;
	char text[POLICY_PATH_MAX + 64];

	for (size_t i = 0; i < N(good_listen); i++) {
		snprintf(text, sizeof(text), "ElasticdListen=%s",
			 good_listen[i]);
		must_parse_policy(&p, text);
		assert_string_equal(p.elasticd_listen, good_listen[i]);
		assert_true(p.elasticd_listen_set);
	}
	must_parse_policy(&p, "ElasticdPollInterval=100");
	assert_int_equal(p.elasticd_poll_ms, 100);
	must_parse_policy(&p, "ElasticdPollInterval=60000");
	assert_int_equal(p.elasticd_poll_ms, 60000);
	/* Empty paths and lists mean "none". */
	must_parse_policy(&p, "ElasticdStateDir=/x\nElasticdStateDir=\n"
			      "ElasticdMungeSocket=\nElasticdAdmins=\n");
	assert_string_equal(p.elasticd_state_dir, "");
	assert_string_equal(p.elasticd_munge_socket, "");
	assert_int_equal(p.elasticd_admins.n, 0);
	/* A long path fits (the 1024-byte line is the bound). */
	snprintf(text, sizeof(text), "ElasticdStateDir=/%s", name_of(900, 's'));
	must_parse_policy(&p, text);
	assert_int_equal(strlen(p.elasticd_state_dir), 901);
	for (size_t i = 0; i < N(bad); i++)
		must_fail_policy(bad[i].text, bad[i].msg);
	for (size_t i = 0; i < N(bad_listen); i++) {
		elastic_error_t err = { "" };
		char want[128];

		snprintf(text, sizeof(text), "ElasticdListen=%s",
			 bad_listen[i]);
		policy_defaults(&p);
		assert_int_equal(policy_parse(&p, text, "e.conf", &err), -1);
		snprintf(want, sizeof(want), "e.conf:1: ElasticdListen=%s",
			 bad_listen[i]);
		if (strncmp(err.text, want, strlen(want)))
			fail_msg("%s: %s", text, err.text);
		assert_string_equal(p.elasticd_listen, "127.0.0.1:6830");
	}
	snprintf(text, sizeof(text), "ElasticdListen=%s:1",
		 name_of(POLICY_LISTEN_MAX, 'h'));
	must_fail_policy(text, "e.conf:1: ElasticdListen: longer than 263 "
			       "characters");
}

/* ElasticdServer: an address every node reaches, never a wildcard. */
static void elasticd_server_key(void **state)
{
	static const char *good[] = {
		"ctl:6830",	  "10.1.2.3:1",		"[fe80::1]:65535",
		"127.0.0.1:6830", "ctl.example.org:80",
	};
	static const char *wildcards[] = {
		"*:6830", ":6830", "0.0.0.0:6830", "[::]:6830", "[0:0::0]:6830",
	};
	static const struct {
		const char *val;
		const char *msg;
	} bad[] = {
		{ "ctl:0", "e.conf:1: ElasticdServer=ctl:0: port '0': out of "
			   "range (allowed: 1 to 65535)" },
		{ "ctl:65536", "e.conf:1: ElasticdServer=ctl:65536: port "
			       "'65536': out of range (allowed: 1 to 65535)" },
		{ "ctl", "e.conf:1: ElasticdServer=ctl: no port (want "
			 "HOST:PORT, [IPV6]:PORT or *:PORT, e.g. "
			 "127.0.0.1:6830)" },
	};
	struct elastic_policy p;
	char text[POLICY_PATH_MAX + 64], want[512];

	(void)state;
	for (size_t i = 0; i < N(good); i++) {
		snprintf(text, sizeof(text), "ElasticdServer=%s", good[i]);
		must_parse_policy(&p, text);
		assert_string_equal(p.elasticd_server, good[i]);
		/* The other key, untouched. */
		assert_string_equal(p.elasticd_listen, POLICY_DEFAULT_LISTEN);
		assert_false(p.elasticd_listen_set);
	}
	/* Empty: unset. */
	must_parse_policy(&p, "ElasticdServer=ctl:1\nElasticdServer=\n");
	assert_string_equal(p.elasticd_server, "");
	for (size_t i = 0; i < N(wildcards); i++) {
		snprintf(text, sizeof(text), "\n\nElasticdServer=%s",
			 wildcards[i]);
		snprintf(want, sizeof(want),
			 "e.conf:3: ElasticdServer=%s: a wildcard is where "
			 "elasticd listens, not an address to reach it "
			 "(allowed: HOST:PORT or [IPV6]:PORT that every node "
			 "resolves, e.g. ctl:6830)",
			 wildcards[i]);
		must_fail_policy(text, want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		snprintf(text, sizeof(text), "ElasticdServer=%s", bad[i].val);
		must_fail_policy(text, bad[i].msg);
	}
	snprintf(text, sizeof(text), "ElasticdServer=%s:1",
		 name_of(POLICY_LISTEN_MAX, 'h'));
	must_fail_policy(text, "e.conf:1: ElasticdServer: longer than 263 "
			       "characters");
}

static void path_key(void **state)
{
	static const char *good[] = {
		"/ck", "/scratch/%u/ck/%j", "%h/ck/%j",
		"%h",  "/a/100%%/b",	    "/a b/c",
	};
	static const struct {
		const char *val;
		const char *msg;
	} bad[] = {
		{ "", "e.conf:1: DefaultCheckpointDir: empty path" },
		{ "ck/%j", "e.conf:1: DefaultCheckpointDir=ck/%j: must be an "
			   "absolute path or start with %h (home directory)" },
		{ "~/ck", "e.conf:1: DefaultCheckpointDir=~/ck: must be an "
			  "absolute path or start with %h (home directory)" },
		{ "%u/ck", "e.conf:1: DefaultCheckpointDir=%u/ck: must be an "
			   "absolute path or start with %h (home directory)" },
		{ "/ck/%x", "e.conf:1: DefaultCheckpointDir=/ck/%x: unknown %x "
			    "(allowed: %j job id, %u user, %h home, %%)" },
		{ "/ck/%J", "e.conf:1: DefaultCheckpointDir=/ck/%J: unknown %J "
			    "(allowed: %j job id, %u user, %h home, %%)" },
		{ "/ck/%%%s", "e.conf:1: DefaultCheckpointDir=/ck/%%%s: "
			      "unknown %s (allowed: %j job id, %u user, %h "
			      "home, %%)" },
		{ "/a\tb", "e.conf:1: DefaultCheckpointDir: control character "
			   "in path" },
		{ "/a\x1b[0mb", "e.conf:1: DefaultCheckpointDir: control "
				"character in path" },
	};
	struct elastic_policy p;

	for (size_t i = 0; i < N(good); i++) {
		char text[256];

		/* "/ck" has no per-user part: a site that says so. */
		snprintf(text, sizeof(text),
			 "DefaultCheckpointDir=%s\nSharedCheckpointDirs=yes",
			 good[i]);
		must_parse_policy(&p, text);
		assert_string_equal(p.default_checkpoint_dir, good[i]);
	}
	for (size_t i = 0; i < N(bad); i++) {
		char text[256];

		snprintf(text, sizeof(text), "DefaultCheckpointDir=%s",
			 bad[i].val);
		must_fail_policy(text, bad[i].msg);
	}
	/* A lone '%' at the end. */
	{
		elastic_error_t err = { "" };

		assert_int_equal(policy_check_path("/ck/%", "W", &err), -1);
		assert_non_null(strstr(err.text, "W=/ck/%: unknown %"));
	}
}

/* policy_check_path on its own: the length bound. */
static void check_path_length(void **state)
{
	char path[POLICY_PATH_MAX + 2];
	elastic_error_t err = { "" };

	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[POLICY_PATH_MAX] = '\0';
	assert_int_equal(policy_check_path(path, "W", &err), 0);
	path[POLICY_PATH_MAX] = 'a';
	path[POLICY_PATH_MAX + 1] = '\0';
	assert_int_equal(policy_check_path(path, "W", &err), -1);
	assert_string_equal(err.text, "W: path longer than 1024 characters");
	assert_int_equal(policy_check_path("/ok/%j/%u/%%", "W", NULL), 0);
	assert_int_equal(policy_check_path("rel", "W", NULL), -1);
}

/* spank_elastic.so's plugstack.conf arguments: elastic_conf=PATH only. */
static void plugstack_args(void **state)
{
	char conf[POLICY_PATH_MAX + 1] = "stale", big[POLICY_PATH_MAX + 32];
	elastic_error_t err = { "" };
	char *none[] = { NULL };
	char *one[] = { "elastic_conf=/etc/slurm/elastic.conf" };
	char *two[] = { "elastic_conf=/a.conf", "elastic_conf=/b.conf" };
	char *bad[] = { "conf=/etc/slurm/elastic.conf" };
	char *rel[] = { "elastic_conf=elastic.conf" };
	char *empty[] = { "elastic_conf=" };
	char *ctl[] = { "elastic_conf=/etc/x\n.conf" };
	char *lng[] = { big };

	assert_int_equal(
	    policy_plugstack_args(0, none, conf, sizeof(conf), NULL, &err), 0);
	assert_string_equal(conf, "");
	assert_int_equal(
	    policy_plugstack_args(1, one, conf, sizeof(conf), NULL, &err), 0);
	assert_string_equal(conf, "/etc/slurm/elastic.conf");
	assert_int_equal(
	    policy_plugstack_args(2, two, conf, sizeof(conf), NULL, &err), 0);
	assert_string_equal(conf, "/b.conf"); /* the last one, as Slurm's */

	assert_int_equal(
	    policy_plugstack_args(1, bad, conf, sizeof(conf), NULL, &err), -1);
	assert_string_equal(
	    err.text, "plugstack.conf: spank_elastic.so: unknown argument "
		      "'conf=/etc/slurm/elastic.conf' (allowed: "
		      "elastic_conf=PATH, on_error=fail-job|drain)");
	assert_int_equal(
	    policy_plugstack_args(1, rel, conf, sizeof(conf), NULL, &err), -1);
	assert_string_equal(err.text,
			    "plugstack.conf: spank_elastic.so: "
			    "elastic_conf=elastic.conf: must be an absolute "
			    "path");
	assert_int_equal(
	    policy_plugstack_args(1, empty, conf, sizeof(conf), NULL, &err),
	    -1);
	assert_int_equal(
	    policy_plugstack_args(1, ctl, conf, sizeof(conf), NULL, &err), -1);
	assert_non_null(strstr(err.text, "control character"));
	snprintf(big, sizeof(big), "elastic_conf=/");
	memset(big + strlen(big), 'a', sizeof(big) - strlen(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(
	    policy_plugstack_args(1, lng, conf, sizeof(conf), NULL, &err), -1);
	assert_string_equal(err.text, "plugstack.conf: spank_elastic.so: "
				      "elastic_conf: path longer than 1024 "
				      "characters");
}

/* on_error=: fail-job (the default) or drain, the last one given. */
static void plugstack_on_error(void **state)
{
	char conf[POLICY_PATH_MAX + 1];
	elastic_error_t err = { "" };
	bool drain = true;
	char *none[] = { NULL };
	char *d[] = { "elastic_conf=/a.conf", "on_error=drain" };
	char *f[] = { "on_error=drain", "on_error=fail-job" };
	char *bad[] = { "on_error=reboot" };

	(void)state;
	assert_int_equal(
	    policy_plugstack_args(0, none, conf, sizeof(conf), &drain, &err),
	    0);
	assert_false(drain);
	assert_int_equal(
	    policy_plugstack_args(2, d, conf, sizeof(conf), &drain, &err), 0);
	assert_true(drain);
	assert_string_equal(conf, "/a.conf");
	assert_int_equal(
	    policy_plugstack_args(2, f, conf, sizeof(conf), &drain, &err), 0);
	assert_false(drain);
	assert_int_equal(
	    policy_plugstack_args(2, d, conf, sizeof(conf), NULL, &err), 0);
	assert_int_equal(
	    policy_plugstack_args(1, bad, conf, sizeof(conf), &drain, &err),
	    -1);
	assert_string_equal(err.text,
			    "plugstack.conf: spank_elastic.so: "
			    "on_error=reboot: not fail-job or drain (what an "
			    "error in slurmstepd does)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(path_key),
		cmocka_unit_test(elasticd_keys),
		cmocka_unit_test(elasticd_server_key),
		cmocka_unit_test(check_path_length),
		cmocka_unit_test(plugstack_args),
		cmocka_unit_test(plugstack_on_error),
	};
	return cmocka_run_group_tests_name("policy_paths", tests, NULL, NULL);
}
