/* Unit tests of policy.c on each kind of value elastic.conf holds:
 * numbers with their bounds, yes/no, lists of names, name:nodes caps,
 * single names, the on-demand mode and the signal, every class of bad
 * value with its message; and the helpers that read them back:
 * policy_list_join, policy_list_has, policy_caps_get and the on-demand
 * words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "policy_fixture.h"

/* nodes, seconds, keep: bounds and every class of bad value. */
static const struct {
	const char *key;
	size_t off;
	unsigned long lo, hi;
	const char *fix; /* lines that keep the relations true */
} numeric_keys[] = {
	{ "MaxNodes", offsetof(struct elastic_policy, max_nodes), 1, 65535,
	  "" },
	{ "DefaultMinNodes", offsetof(struct elastic_policy, default_min_nodes),
	  1, 65535, "MaxNodes=65535\n" },
	{ "DefaultMaxNodes", offsetof(struct elastic_policy, default_max_nodes),
	  1, 65535, "MaxNodes=65535\n" },
	{ "DefaultStep", offsetof(struct elastic_policy, default_step), 1,
	  65535, "MaxNodes=65535\n" },
	{ "MaxGrace", offsetof(struct elastic_policy, max_grace), 0, 86400,
	  "DefaultGrace=0\n" },
	{ "DefaultGrace", offsetof(struct elastic_policy, default_grace), 0,
	  86400, "MaxGrace=86400\n" },
	{ "DefaultScaleDelay",
	  offsetof(struct elastic_policy, default_scale_delay), 0, 86400, "" },
	{ "DefaultFaultTimeout",
	  offsetof(struct elastic_policy, default_fault_timeout), 0, 86400,
	  "" },
	{ "MinHeartbeatTimeout",
	  offsetof(struct elastic_policy, min_heartbeat_timeout), 0, 86400,
	  "DefaultHeartbeatTimeout=0\n" },
	{ "SuspectDrainsPerHour",
	  offsetof(struct elastic_policy, suspect_drains_per_hour), 0, 1000000,
	  "" },
	{ "UnitNice", offsetof(struct elastic_policy, unit_nice), 0, 1000000,
	  "" },
	{ "MaxKeep", offsetof(struct elastic_policy, max_keep), 1, 1000,
	  "DefaultKeep=1\n" },
	{ "DefaultKeep", offsetof(struct elastic_policy, default_keep), 1, 1000,
	  "MaxKeep=1000\n" },
	{ "MaxSpares", offsetof(struct elastic_policy, max_spares), 0, 64,
	  "DefaultSpares=0\n" },
	{ "DefaultSpares", offsetof(struct elastic_policy, default_spares), 0,
	  64, "MaxSpares=64\n" },
};

static void numeric_good(void **state)
{
	for (size_t i = 0; i < N(numeric_keys); i++) {
		const unsigned long v[] = { numeric_keys[i].lo,
					    numeric_keys[i].hi };

		for (size_t j = 0; j < N(v); j++) {
			struct elastic_policy p;
			char text[256];

			snprintf(text, sizeof(text), "%s=%lu\n%s",
				 numeric_keys[i].key, v[j],
				 numeric_keys[i].fix);
			must_parse_policy(&p, text);
			assert_int_equal(
			    *(unsigned *)((char *)&p + numeric_keys[i].off),
			    v[j]);
		}
	}
}

static void numeric_bad(void **state)
{
	for (size_t i = 0; i < N(numeric_keys); i++) {
		unsigned long lo = numeric_keys[i].lo, hi = numeric_keys[i].hi;
		char below[32], above[32];
		const struct {
			const char *val;
			const char *why;
		} cases[] = {
			{ "", "empty value" },
			{ "abc", "not a whole number" },
			{ "-1", "not a whole number" },
			{ "+1", "not a whole number" },
			{ "1.5", "not a whole number" },
			{ "0x10", "not a whole number" },
			{ "1 2", "not a whole number" },
			{ "4k", "not a whole number" },
			{ "99999999999999999999999", "out of range" },
			{ above, "out of range" },
			{ lo ? below : NULL, "out of range" },
		};

		snprintf(below, sizeof(below), "%lu", lo - 1);
		snprintf(above, sizeof(above), "%lu", hi + 1);
		for (size_t j = 0; j < N(cases) && cases[j].val; j++) {
			char text[256], msg[256];

			snprintf(text, sizeof(text), "%s=%s\n%s",
				 numeric_keys[i].key, cases[j].val,
				 numeric_keys[i].fix);
			snprintf(msg, sizeof(msg),
				 "e.conf:1: %s=%s: %s (allowed: %lu to %lu)",
				 numeric_keys[i].key, cases[j].val,
				 cases[j].why, lo, hi);
			must_fail_policy(text, msg);
		}
	}
}

/* DefaultHeartbeatTimeout: 0 or 2 to 3600, and not below the floor. */
static void heartbeat_keys(void **state)
{
	struct elastic_policy p;

	(void)state;
	must_parse_policy(&p, "DefaultHeartbeatTimeout=0\n");
	assert_int_equal(p.default_heartbeat_timeout, 0);
	must_parse_policy(&p, "DefaultHeartbeatTimeout=3600\n"
			      "MinHeartbeatTimeout=3600\n");
	assert_int_equal(p.default_heartbeat_timeout, 3600);
	assert_int_equal(p.min_heartbeat_timeout, 3600);
	must_fail_policy("DefaultHeartbeatTimeout=1\n",
			 "e.conf: DefaultHeartbeatTimeout=1: seconds of a "
			 "node's silence (allowed: 2 to 3600, or 0 for none)");
	must_fail_policy("DefaultHeartbeatTimeout=3601\n",
			 "e.conf: DefaultHeartbeatTimeout=3601: seconds of a "
			 "node's silence (allowed: 2 to 3600, or 0 for none)");
	must_fail_policy("MinHeartbeatTimeout=10\n",
			 "e.conf: DefaultHeartbeatTimeout=5 is below "
			 "MinHeartbeatTimeout=10");
}

/* DefaultStragglers, StragglerSteps, StragglerFactor (hundredths). */
static void straggler_keys(void **state)
{
	struct elastic_policy p;

	(void)state;
	must_parse_policy(&p, "");
	assert_int_equal(p.default_stragglers, POLICY_STRAGGLERS_REPORT);
	assert_int_equal(p.straggler_steps, 20);
	assert_int_equal(p.straggler_factor, 200);
	must_parse_policy(&p, "DefaultStragglers=evict\nStragglerSteps=5\n"
			      "StragglerFactor=1.25\n");
	assert_int_equal(p.default_stragglers, POLICY_STRAGGLERS_EVICT);
	assert_int_equal(p.straggler_steps, 5);
	assert_int_equal(p.straggler_factor, 125);
	must_parse_policy(&p, "StragglerFactor=3\nDefaultStragglers=off\n");
	assert_int_equal(p.straggler_factor, 300);
	assert_int_equal(p.default_stragglers, POLICY_STRAGGLERS_OFF);
	must_parse_policy(&p, "StragglerFactor=1.5\n");
	assert_int_equal(p.straggler_factor, 150);
	must_fail_policy(
	    "DefaultStragglers=drain\n",
	    "e.conf:1: DefaultStragglers=drain: not valid (allowed: "
	    "report, evict, off)");
	must_fail_policy("StragglerSteps=1\n",
			 "e.conf:1: StragglerSteps=1: steps of a window "
			 "(allowed: 2 to 100000)");
	static const char *const bad[] = { "1.1", "1.125", "x", "2.",
					   ".5",  "101",   "0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char conf[64], msg[160];

		snprintf(conf, sizeof(conf), "StragglerFactor=%s\n", bad[i]);
		snprintf(
		    msg, sizeof(msg),
		    "e.conf:1: StragglerFactor=%s: times the others' median "
		    "step (allowed: 1.2 to 100, two decimals at most)",
		    bad[i]);
		must_fail_policy(conf, msg);
	}
}

/* SpareCheck (an absolute path, none by default) and SpareCheckTimeout
 * (1 to 86400 s, 60 by default). */
static void spare_check_keys(void **state)
{
	struct elastic_policy p;

	(void)state;
	must_parse_policy(&p, "");
	assert_string_equal(p.spare_check, "");
	assert_int_equal(p.spare_check_timeout, 60);
	must_parse_policy(&p, "SpareCheck=/usr/local/sbin/gpu-health\n"
			      "SpareCheckTimeout=5\n");
	assert_string_equal(p.spare_check, "/usr/local/sbin/gpu-health");
	assert_int_equal(p.spare_check_timeout, 5);
	must_parse_policy(&p, "SpareCheck=/x\nSpareCheck=\n");
	assert_string_equal(p.spare_check, "");
	must_fail_policy("SpareCheck=gpu-health\n",
			 "e.conf:1: SpareCheck=gpu-health: must be an absolute "
			 "path");
	must_fail_policy("SpareCheckTimeout=0\n",
			 "e.conf: SpareCheckTimeout=0: seconds a spare's check "
			 "may take (allowed: 1 to 86400)");
	must_fail_policy("SpareCheckTimeout=86401\n",
			 "e.conf:1: SpareCheckTimeout=86401: out of range "
			 "(allowed: 0 to 86400)");
}

/* AccountRetention (days, 0 = forever, 30 by default) and AccountMaxJobs
 * (1 to 1000000, 10000 by default). */
static void account_keys(void **state)
{
	struct elastic_policy p;

	(void)state;
	must_parse_policy(&p, "");
	assert_int_equal(p.account_retention_days, 30);
	assert_int_equal(p.account_max_jobs, 10000);
	must_parse_policy(&p, "AccountRetention=0\nAccountMaxJobs=1\n");
	assert_int_equal(p.account_retention_days, 0);
	assert_int_equal(p.account_max_jobs, 1);
	must_fail_policy("AccountRetention=36501\n",
			 "e.conf:1: AccountRetention=36501: out of range "
			 "(allowed: 0 to 36500)");
	must_fail_policy("AccountMaxJobs=0\n",
			 "e.conf:1: AccountMaxJobs=0: out of range "
			 "(allowed: 1 to 1000000)");
	must_fail_policy("AccountMaxJobs=ten\n",
			 "e.conf:1: AccountMaxJobs=ten: not a whole number "
			 "(allowed: 1 to 1000000)");
}

/* SuspectNodes: drain (the default) or report. */
static void suspect_key(void **state)
{
	struct elastic_policy p;

	(void)state;
	must_parse_policy(&p, "");
	assert_int_equal(p.suspect_nodes, POLICY_SUSPECT_DRAIN);
	assert_int_equal(p.suspect_drains_per_hour, 4);
	must_parse_policy(&p, "SuspectNodes=report\n");
	assert_int_equal(p.suspect_nodes, POLICY_SUSPECT_REPORT);
	must_parse_policy(&p, "SuspectNodes=drain\n");
	assert_int_equal(p.suspect_nodes, POLICY_SUSPECT_DRAIN);
	must_fail_policy("SuspectNodes=yes\n",
			 "e.conf:1: SuspectNodes=yes: not valid (allowed: "
			 "drain, report)");
	must_fail_policy("SuspectNodes=\n",
			 "e.conf:1: SuspectNodes=: not valid (allowed: "
			 "drain, report)");
}

static void bool_key(void **state)
{
	static const struct {
		const char *val;
		bool want;
	} good[] = {
		{ "yes", true }, { "YES", true },    { "true", true },
		{ "1", true },	 { "no", false },    { "No", false },
		{ "0", false },	 { "false", false },
	};
	static const char *bad[] = { "", "maybe", "2", "y", "on" };

	for (size_t i = 0; i < N(good); i++) {
		struct elastic_policy p;
		char text[64];

		snprintf(text, sizeof(text), "OnDemand=%s", good[i].val);
		memset(&p, 0xa5, sizeof(p));
		must_parse_policy(&p, text);
		assert_true(p.ondemand_allowed == good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		char text[64], msg[128];

		snprintf(text, sizeof(text), "OnDemand=%s", bad[i]);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: OnDemand=%s: not valid (allowed: yes, no)",
			 bad[i]);
		must_fail_policy(text, msg);
	}
}

static const struct {
	const char *key;
	size_t off;
} list_keys[] = {
	{ "BasePartitions", offsetof(struct elastic_policy, base_partitions) },
	{ "PreemptiblePartitions",
	  offsetof(struct elastic_policy, preemptible_partitions) },
	{ "OnDemandPartitions",
	  offsetof(struct elastic_policy, ondemand_partitions) },
	{ "OnDemandUsers", offsetof(struct elastic_policy, ondemand_users) },
	{ "OnDemandAccounts",
	  offsetof(struct elastic_policy, ondemand_accounts) },
};

/* A comma list of n names "n0,n1,...", in a static buffer. */
static const char *list_of(unsigned n, const char *suffix)
{
	static char buf[4096];
	size_t j = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++)
		j += snprintf(buf + j, sizeof(buf) - j, "%sn%u%s", i ? "," : "",
			      i, suffix);
	return buf;
}

static void list_good(void **state)
{
	for (size_t i = 0; i < N(list_keys); i++) {
		struct elastic_policy p;
		const struct policy_list *l =
		    (const void *)((char *)&p + list_keys[i].off);
		char text[4096];

		snprintf(text, sizeof(text), "%s= a , b-1_c.d@e+f ,C\n",
			 list_keys[i].key);
		must_parse_policy(&p, text);
		assert_int_equal(l->n, 3);
		assert_string_equal(l->name[0], "a");
		assert_string_equal(l->name[1], "b-1_c.d@e+f");
		assert_string_equal(l->name[2], "C");

		snprintf(text, sizeof(text), "%s=%s\n", list_keys[i].key,
			 name_of(POLICY_NAME_MAX, 'x'));
		must_parse_policy(&p, text);
		assert_int_equal(l->n, 1);
		assert_int_equal(strlen(l->name[0]), POLICY_NAME_MAX);

		/* Exactly POLICY_LIST_MAX entries. */
		snprintf(text, sizeof(text), "%s=%s\n", list_keys[i].key,
			 list_of(POLICY_LIST_MAX, ""));
		must_parse_policy(&p, text);
		assert_int_equal(l->n, POLICY_LIST_MAX);
		assert_string_equal(l->name[0], "n0");
		assert_string_equal(l->name[POLICY_LIST_MAX - 1], "n31");

		snprintf(text, sizeof(text), "%s=\n", list_keys[i].key);
		must_parse_policy(&p, text);
		assert_int_equal(l->n, 0);
	}
}

static void list_bad(void **state)
{
	for (size_t i = 0; i < N(list_keys); i++) {
		const char *key = list_keys[i].key;
		char text[4096], msg[2048];

		snprintf(text, sizeof(text), "%s=%s\n", key,
			 list_of(POLICY_LIST_MAX + 1, ""));
		snprintf(msg, sizeof(msg), "e.conf:1: %s: more than 32 entries",
			 key);
		must_fail_policy(text, msg);

		snprintf(text, sizeof(text), "%s=a,%s\n", key,
			 name_of(POLICY_NAME_MAX + 1, 'x'));
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '%s' must have 1 to 64 characters",
			 key, name_of(POLICY_NAME_MAX + 1, 'x'));
		must_fail_policy(text, msg);

		snprintf(text, sizeof(text), "%s=a, ,b\n", key);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '' must have 1 to 64 characters",
			 key);
		must_fail_policy(text, msg);

		static const char *bad_names[] = { "a b",  "a/b",	  "a:b",
						   "a;b",  "caf\xc3\xa9", "a*",
						   "$USER" };
		for (size_t j = 0; j < N(bad_names); j++) {
			snprintf(text, sizeof(text), "%s=ok,%s\n", key,
				 bad_names[j]);
			snprintf(msg, sizeof(msg),
				 "e.conf:1: %s: bad character in name '%s' "
				 "(allowed: letters, digits, - _ . @ +)",
				 key, bad_names[j]);
			must_fail_policy(text, msg);
		}
	}
}

static const struct {
	const char *key;
	size_t off;
} caps_keys[] = {
	{ "UserMaxNodes", offsetof(struct elastic_policy, user_caps) },
	{ "AccountMaxNodes", offsetof(struct elastic_policy, account_caps) },
};

static void caps_good(void **state)
{
	for (size_t i = 0; i < N(caps_keys); i++) {
		struct elastic_policy p;
		const struct policy_caps *c =
		    (const void *)((char *)&p + caps_keys[i].off);
		char text[4096];

		snprintf(text, sizeof(text), "%s= alice:16 , bob:1,carol:65535",
			 caps_keys[i].key);
		must_parse_policy(&p, text);
		assert_int_equal(c->n, 3);
		assert_string_equal(c->cap[0].name, "alice");
		assert_int_equal(c->cap[0].nodes, 16);
		assert_string_equal(c->cap[1].name, "bob");
		assert_int_equal(c->cap[1].nodes, 1);
		assert_string_equal(c->cap[2].name, "carol");
		assert_int_equal(c->cap[2].nodes, 65535);
		assert_int_equal(policy_caps_get(c, "alice"), 16);
		assert_int_equal(policy_caps_get(c, "carol"), 65535);

		snprintf(text, sizeof(text), "%s=%s", caps_keys[i].key,
			 list_of(POLICY_LIST_MAX, ":7"));
		must_parse_policy(&p, text);
		assert_int_equal(c->n, POLICY_LIST_MAX);
		assert_int_equal(policy_caps_get(c, "n31"), 7);
	}
}

static void caps_bad(void **state)
{
	static const struct {
		const char *val;
		const char *why; /* after "e.conf:1: KEY: " */
	} cases[] = {
		{ "alice", "'alice' is not name:nodes" },
		{ "alice:4,bob", "'bob' is not name:nodes" },
		{ "alice=4", "'alice=4' is not name:nodes" },
		{ "alice:", "alice:: empty value (allowed: 1 to 65535)" },
		{ "alice:0", "alice:0: out of range (allowed: 1 to 65535)" },
		{ "alice:65536",
		  "alice:65536: out of range (allowed: 1 to 65535)" },
		{ "alice:99999999999999999999",
		  "alice:99999999999999999999: out of range (allowed: 1 to "
		  "65535)" },
		{ "alice:x", "alice:x: not a whole number (allowed: 1 to "
			     "65535)" },
		{ "alice:-1", "alice:-1: not a whole number (allowed: 1 to "
			      "65535)" },
		{ "alice: 4", "alice: 4: not a whole number (allowed: 1 to "
			      "65535)" },
		{ "alice:4:5", "alice:4:5: not a whole number (allowed: 1 to "
			       "65535)" },
		{ ":4", "name '' must have 1 to 64 characters" },
		{ "al ice:4", "bad character in name 'al ice' (allowed: "
			      "letters, digits, - _ . @ +)" },
		{ "al/ice:4", "bad character in name 'al/ice' (allowed: "
			      "letters, digits, - _ . @ +)" },
	};

	for (size_t i = 0; i < N(caps_keys); i++) {
		const char *key = caps_keys[i].key;
		char text[4096], msg[2048];

		for (size_t j = 0; j < N(cases); j++) {
			snprintf(text, sizeof(text), "%s=%s\n", key,
				 cases[j].val);
			snprintf(msg, sizeof(msg), "e.conf:1: %s: %s", key,
				 cases[j].why);
			must_fail_policy(text, msg);
		}
		snprintf(text, sizeof(text), "%s=%s\n", key,
			 list_of(POLICY_LIST_MAX + 1, ":2"));
		snprintf(msg, sizeof(msg), "e.conf:1: %s: more than 32 entries",
			 key);
		must_fail_policy(text, msg);
		snprintf(text, sizeof(text), "%s=%s:3\n", key,
			 name_of(POLICY_NAME_MAX + 1, 'u'));
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '%s' must have 1 to 64 characters",
			 key, name_of(POLICY_NAME_MAX + 1, 'u'));
		must_fail_policy(text, msg);
	}
}

static const struct {
	const char *key;
	size_t off;
} name_keys[] = {
	{ "BaseQOS", offsetof(struct elastic_policy, base_qos) },
	{ "PreemptibleQOS", offsetof(struct elastic_policy, preemptible_qos) },
	{ "OnDemandQOS", offsetof(struct elastic_policy, ondemand_qos) },
	{ "EvalPartition", offsetof(struct elastic_policy, eval_partition) },
};

static void name_keys_good_and_bad(void **state)
{
	for (size_t i = 0; i < N(name_keys); i++) {
		const char *key = name_keys[i].key;
		struct elastic_policy p;
		const char *field = (char *)&p + name_keys[i].off;
		char text[2048], msg[2048];

		snprintf(text, sizeof(text), "%s= normal-1_a.b@c+d \n", key);
		must_parse_policy(&p, text);
		assert_string_equal(field, "normal-1_a.b@c+d");

		snprintf(text, sizeof(text), "%s=%s", key,
			 name_of(POLICY_NAME_MAX, 'q'));
		must_parse_policy(&p, text);
		assert_int_equal(strlen(field), POLICY_NAME_MAX);

		snprintf(text, sizeof(text), "%s=", key);
		must_parse_policy(&p, text);
		assert_string_equal(field, "");

		snprintf(text, sizeof(text), "%s=%s", key,
			 name_of(POLICY_NAME_MAX + 1, 'q'));
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '%s' must have 1 to 64 characters",
			 key, name_of(POLICY_NAME_MAX + 1, 'q'));
		must_fail_policy(text, msg);

		snprintf(text, sizeof(text), "%s=a b", key);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: bad character in name 'a b' "
			 "(allowed: letters, digits, - _ . @ +)",
			 key);
		must_fail_policy(text, msg);

		/* A QOS is one name, not a list. */
		snprintf(text, sizeof(text), "%s=a,b", key);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: bad character in name 'a,b' "
			 "(allowed: letters, digits, - _ . @ +)",
			 key);
		must_fail_policy(text, msg);
	}
}

static void ondemand_key(void **state)
{
	static const struct {
		const char *val;
		enum elastic_ondemand want;
	} good[] = {
		{ "never", ELASTIC_ONDEMAND_NEVER },
		{ "below-min", ELASTIC_ONDEMAND_BELOW_MIN },
		{ "always", ELASTIC_ONDEMAND_ALWAYS },
	};
	static const char *bad[] = { "", "sometimes", "below_min", "yes", "1" };
	struct elastic_policy p;

	for (size_t i = 0; i < N(good); i++) {
		char text[128];

		snprintf(text, sizeof(text), "OnDemand=yes\nDefaultOnDemand=%s",
			 good[i].val);
		must_parse_policy(&p, text);
		assert_int_equal(p.default_ondemand, good[i].want);
	}
	/* "never" needs no OnDemand=yes. */
	must_parse_policy(&p, "DefaultOnDemand=never");
	assert_int_equal(p.default_ondemand, ELASTIC_ONDEMAND_NEVER);
	for (size_t i = 0; i < N(bad); i++) {
		char text[128], msg[256];

		snprintf(text, sizeof(text), "OnDemand=yes\nDefaultOnDemand=%s",
			 bad[i]);
		snprintf(msg, sizeof(msg),
			 "e.conf:2: DefaultOnDemand=%s: not valid (allowed: "
			 "never, below-min, always)",
			 bad[i]);
		must_fail_policy(text, msg);
	}
}

static void signal_key(void **state)
{
	static const struct {
		const char *val;
		int want;
	} good[] = {
		{ "URG", SIGURG },	{ "WINCH", SIGWINCH },
		{ "USR1", SIGUSR1 },	{ "usr2", SIGUSR2 },
		{ "SIGHUP", SIGHUP },	{ "sigint", SIGINT },
		{ "SigTerm", SIGTERM },
	};
	static const char *bad[] = { "", "KILL", "SIGKILL", "9", "SIG" };
	struct elastic_policy p;

	for (size_t i = 0; i < N(good); i++) {
		char text[128];

		snprintf(text, sizeof(text), "DefaultSignal=%s", good[i].val);
		must_parse_policy(&p, text);
		assert_int_equal(p.default_signal, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		char text[128], msg[256];

		snprintf(text, sizeof(text), "DefaultSignal=%s", bad[i]);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: DefaultSignal=%s: not valid (allowed: URG, "
			 "WINCH, USR1, USR2, HUP, INT, TERM)",
			 bad[i]);
		must_fail_policy(text, msg);
	}
}

/* The join of a list is bounded by its buffer, whatever the list holds:
 * 32 names of 64 characters are 2 KiB. */
static void list_join_bounded(void **state)
{
	struct policy_list l = { 0 };
	char out[1024], small[16];
	size_t n;

	(void)state;
	assert_int_equal(policy_list_join(&l, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	l.n = 2;
	strcpy(l.name[0], "base");
	strcpy(l.name[1], "gpu");
	assert_int_equal(policy_list_join(&l, out, sizeof(out)), 9);
	assert_string_equal(out, "base, gpu");
	/* "base, gpu" and its end take 10 bytes exactly. */
	assert_int_equal(policy_list_join(&l, small, 10), 9);
	assert_string_equal(small, "base, gpu");
	/* With a third name in 12 bytes: the first and the mark. */
	l.n = 3;
	strcpy(l.name[2], "cpu");
	n = policy_list_join(&l, small, 12);
	assert_string_equal(small, "base, ...");
	assert_int_equal(n, strlen(small));

	memset(&l, 0, sizeof(l));
	l.n = POLICY_LIST_MAX;
	for (unsigned i = 0; i < l.n; i++)
		memset(l.name[i], 'a' + i % 26, POLICY_NAME_MAX);
	memset(out, 'X', sizeof(out));
	n = policy_list_join(&l, out, sizeof(out));
	assert_true(n < sizeof(out));
	assert_int_equal(strlen(out), n);
	assert_string_equal(out + n - 5, ", ...");
	/* Not even one name fits: only the mark. */
	n = policy_list_join(&l, small, sizeof(small));
	assert_string_equal(small, "...");
	assert_int_equal(policy_list_join(&l, small, 0), 0);
}

static void list_has_and_caps_get(void **state)
{
	struct elastic_policy p;

	must_parse_policy(
	    &p, "OnDemandUsers=alice,bob\nUserMaxNodes=alice:2,bob:3");
	assert_true(policy_list_has(&p.ondemand_users, "alice"));
	assert_true(policy_list_has(&p.ondemand_users, "bob"));
	assert_false(policy_list_has(&p.ondemand_users, "carol"));
	assert_false(policy_list_has(&p.ondemand_users, "Alice"));
	assert_false(policy_list_has(&p.ondemand_users, "ali"));
	assert_false(policy_list_has(&p.ondemand_users, "alicex"));
	assert_false(policy_list_has(&p.ondemand_users, ""));
	assert_false(policy_list_has(&p.ondemand_accounts, "alice"));

	assert_int_equal(policy_caps_get(&p.user_caps, "alice"), 2);
	assert_int_equal(policy_caps_get(&p.user_caps, "bob"), 3);
	assert_int_equal(policy_caps_get(&p.user_caps, "carol"), 0);
	assert_int_equal(policy_caps_get(&p.user_caps, "BOB"), 0);
	assert_int_equal(policy_caps_get(&p.user_caps, NULL), 0);
	assert_int_equal(policy_caps_get(&p.account_caps, "alice"), 0);
}

static void ondemand_words(void **state)
{
	static const struct {
		const char *word;
		enum elastic_ondemand m;
	} words[] = {
		{ "never", ELASTIC_ONDEMAND_NEVER },
		{ "below-min", ELASTIC_ONDEMAND_BELOW_MIN },
		{ "always", ELASTIC_ONDEMAND_ALWAYS },
	};
	static const char *bad[] = { "",      "sometimes", "below_min",
				     "below", "always ",   " never",
				     "never," };
	enum elastic_ondemand m;

	for (size_t i = 0; i < N(words); i++) {
		m = (enum elastic_ondemand)77;
		assert_string_equal(policy_ondemand_name(words[i].m),
				    words[i].word);
		assert_int_equal(policy_parse_ondemand(words[i].word, &m), 0);
		assert_int_equal(m, words[i].m);
	}
	assert_string_equal(policy_ondemand_name((enum elastic_ondemand)3),
			    "?");
	assert_string_equal(policy_ondemand_name((enum elastic_ondemand) - 1),
			    "?");
	for (size_t i = 0; i < N(bad); i++) {
		m = ELASTIC_ONDEMAND_ALWAYS;
		assert_int_equal(policy_parse_ondemand(bad[i], &m), -1);
		assert_int_equal(m, ELASTIC_ONDEMAND_ALWAYS);
	}
	assert_string_equal(ELASTIC_ONDEMAND_WORDS, "never, below-min, always");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numeric_good),
		cmocka_unit_test(numeric_bad),
		cmocka_unit_test(heartbeat_keys),
		cmocka_unit_test(suspect_key),
		cmocka_unit_test(bool_key),
		cmocka_unit_test(list_good),
		cmocka_unit_test(list_bad),
		cmocka_unit_test(caps_good),
		cmocka_unit_test(caps_bad),
		cmocka_unit_test(name_keys_good_and_bad),
		cmocka_unit_test(ondemand_key),
		cmocka_unit_test(signal_key),
		cmocka_unit_test(list_has_and_caps_get),
		cmocka_unit_test(list_join_bounded),
		cmocka_unit_test(ondemand_words),
		cmocka_unit_test(straggler_keys),
		cmocka_unit_test(spare_check_keys),
		cmocka_unit_test(account_keys),
	};
	return cmocka_run_group_tests_name("policy_values", tests, NULL, NULL);
}
