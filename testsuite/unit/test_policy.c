/* Unit tests of policy.c: elastic.conf, every key, every relation. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "common/policy.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Parse text as "e.conf"; fail the test with the error if it fails. */
static void must_parse(struct elastic_policy *p, const char *text)
{
	elastic_error_t err = { "" };

	if (policy_parse(p, text, "e.conf", &err) != 0)
		fail_msg("policy_parse(\"%s\"): %s", text, err.text);
}

/* text must fail with exactly msg, leaving the policy untouched. */
static void must_fail(const char *text, const char *msg)
{
	struct elastic_policy *p = malloc(sizeof(*p));
	struct elastic_policy *before = malloc(sizeof(*before));
	elastic_error_t err = { "" };
	int rc;

	assert_non_null(p);
	assert_non_null(before);
	memset(p, 0xa5, sizeof(*p));
	memcpy(before, p, sizeof(*p));
	rc = policy_parse(p, text, "e.conf", &err);
	if (rc != -1)
		fail_msg("policy_parse(\"%s\") = %d, want -1", text, rc);
	assert_string_equal(err.text, msg);
	assert_memory_equal(p, before, sizeof(*p));
	free(p);
	free(before);
}

/* A name of n characters, in a static buffer. */
static const char *name_of(size_t n, char c)
{
	static char buf[POLICY_PATH_MAX + 2];

	assert_true(n < sizeof(buf));
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

static void defaults(void **state)
{
	struct elastic_policy p;

	memset(&p, 0xa5, sizeof(p));
	policy_defaults(&p);
	assert_int_equal(p.max_nodes, POLICY_DEFAULT_MAX_NODES);
	assert_int_equal(p.user_caps.n, 0);
	assert_int_equal(p.account_caps.n, 0);
	assert_int_equal(p.base_partitions.n, 0);
	assert_int_equal(p.preemptible_partitions.n, 0);
	assert_int_equal(p.ondemand_partitions.n, 0);
	assert_string_equal(p.base_qos, "");
	assert_string_equal(p.preemptible_qos, "");
	assert_string_equal(p.ondemand_qos, "");
	assert_false(p.ondemand_allowed);
	assert_int_equal(p.ondemand_users.n, 0);
	assert_int_equal(p.ondemand_accounts.n, 0);
	assert_int_equal(p.max_grace, 3600);
	assert_int_equal(p.max_keep, 100);
	assert_int_equal(p.unit_nice, 10000);
	assert_int_equal(p.default_min_nodes, 1);
	assert_int_equal(p.default_max_nodes, 0);
	assert_int_equal(p.default_step, 1);
	assert_int_equal(p.default_grace, 60);
	assert_int_equal(p.default_scale_delay, 30);
	assert_int_equal(p.default_fault_timeout, 60);
	assert_int_equal(p.default_ondemand, ELASTIC_ONDEMAND_NEVER);
	assert_int_equal(p.default_signal, SIGURG);
	assert_int_equal(p.default_keep, 3);
	assert_string_equal(p.default_checkpoint_dir,
			    "%h/elastic-checkpoints/%j");
	assert_string_equal(p.elasticd_server, "");
	assert_string_equal(p.elasticd_listen, "127.0.0.1:6830");
	assert_false(p.elasticd_listen_set);
	assert_int_equal(p.elasticd_poll_ms, 1000);
	assert_int_equal(p.elasticd_admins.n, 0);
	assert_string_equal(p.elasticd_munge_socket, "");
	assert_string_equal(p.elasticd_state_dir, "");
}

/* An empty file, or one of only comments and blanks, is the defaults. */
static void empty_and_comments(void **state)
{
	static const char *texts[] = {
		"",
		"\n",
		"# only a comment\n",
		"# only a comment\n\n   \n\t\n",
		"   # indented comment",
		"\r\n# CRLF\r\n\r\n",
		"#MaxNodes=3\n",
	};
	struct elastic_policy def, p;

	policy_defaults(&def);
	for (size_t i = 0; i < N(texts); i++) {
		memset(&p, 0xa5, sizeof(p));
		must_parse(&p, texts[i]);
		assert_memory_equal(&p, &def, sizeof(p));
	}
}

/* Blanks around keys and values, trailing comments, CRLF, no final \n. */
static void layout(void **state)
{
	struct elastic_policy p;

	must_parse(&p, "# site policy\n"
		       "\n"
		       "MaxNodes=16\n"
		       "  DefaultMinNodes = 2   # a comment after a value\n"
		       "\tDefaultMaxNodes\t=\t8\t\n"
		       "DefaultStep=2\r\n"
		       "BaseQOS=a#b\n"
		       "DefaultKeep=5");
	assert_int_equal(p.max_nodes, 16);
	assert_int_equal(p.default_min_nodes, 2);
	assert_int_equal(p.default_max_nodes, 8);
	assert_int_equal(p.default_step, 2);
	/* '#' starts a comment even inside a value. */
	assert_string_equal(p.base_qos, "a");
	assert_int_equal(p.default_keep, 5);
}

/* Every key of the table, each set to a value other than its default. */
static const char all_keys_text[] = "MaxNodes=64\n"
				    "UserMaxNodes=alice:16,bob:4\n"
				    "AccountMaxNodes=physics:32\n"
				    "BasePartitions=batch\n"
				    "PreemptiblePartitions=scavenger,spot\n"
				    "OnDemandPartitions=cloud\n"
				    "BaseQOS=normal\n"
				    "PreemptibleQOS=scavenger\n"
				    "OnDemandQOS=cloud-qos\n"
				    "EvalPartition=eval\n"
				    "OnDemand=yes\n"
				    "OnDemandUsers=alice,carol\n"
				    "OnDemandAccounts=physics\n"
				    "MaxGrace=600\n"
				    "MaxKeep=10\n"
				    "DefaultMinNodes=2\n"
				    "DefaultMaxNodes=8\n"
				    "DefaultStep=2\n"
				    "DefaultGrace=120\n"
				    "DefaultScaleDelay=45\n"
				    "DefaultFaultTimeout=90\n"
				    "DefaultOnDemand=below-min\n"
				    "DefaultSignal=USR1\n"
				    "DefaultKeep=5\n"
				    "DefaultCheckpointDir=/scratch/%u/ck/%j\n"
				    "ElasticdServer=ctl:7000\n"
				    "ElasticdListen=0.0.0.0:7000\n"
				    "ElasticdPollInterval=250\n"
				    "ElasticdAdmins=ops,slurm\n"
				    "ElasticdMungeSocket=/run/munge/m.sock\n"
				    "ElasticdStateDir=/var/lib/elasticd\n";

static void check_all_keys(const struct elastic_policy *p)
{
	assert_int_equal(p->max_nodes, 64);
	assert_int_equal(p->user_caps.n, 2);
	assert_string_equal(p->user_caps.cap[0].name, "alice");
	assert_int_equal(p->user_caps.cap[0].nodes, 16);
	assert_string_equal(p->user_caps.cap[1].name, "bob");
	assert_int_equal(p->user_caps.cap[1].nodes, 4);
	assert_int_equal(p->account_caps.n, 1);
	assert_string_equal(p->account_caps.cap[0].name, "physics");
	assert_int_equal(p->account_caps.cap[0].nodes, 32);
	assert_int_equal(p->base_partitions.n, 1);
	assert_string_equal(p->base_partitions.name[0], "batch");
	assert_int_equal(p->preemptible_partitions.n, 2);
	assert_string_equal(p->preemptible_partitions.name[0], "scavenger");
	assert_string_equal(p->preemptible_partitions.name[1], "spot");
	assert_int_equal(p->ondemand_partitions.n, 1);
	assert_string_equal(p->ondemand_partitions.name[0], "cloud");
	assert_string_equal(p->base_qos, "normal");
	assert_string_equal(p->preemptible_qos, "scavenger");
	assert_string_equal(p->ondemand_qos, "cloud-qos");
	assert_string_equal(p->eval_partition, "eval");
	assert_true(p->ondemand_allowed);
	assert_int_equal(p->ondemand_users.n, 2);
	assert_string_equal(p->ondemand_users.name[0], "alice");
	assert_string_equal(p->ondemand_users.name[1], "carol");
	assert_int_equal(p->ondemand_accounts.n, 1);
	assert_string_equal(p->ondemand_accounts.name[0], "physics");
	assert_int_equal(p->max_grace, 600);
	assert_int_equal(p->max_keep, 10);
	assert_int_equal(p->default_min_nodes, 2);
	assert_int_equal(p->default_max_nodes, 8);
	assert_int_equal(p->default_step, 2);
	assert_int_equal(p->default_grace, 120);
	assert_int_equal(p->default_scale_delay, 45);
	assert_int_equal(p->default_fault_timeout, 90);
	assert_int_equal(p->default_ondemand, ELASTIC_ONDEMAND_BELOW_MIN);
	assert_int_equal(p->default_signal, SIGUSR1);
	assert_int_equal(p->default_keep, 5);
	assert_string_equal(p->default_checkpoint_dir, "/scratch/%u/ck/%j");
	assert_string_equal(p->elasticd_server, "ctl:7000");
	assert_string_equal(p->elasticd_listen, "0.0.0.0:7000");
	assert_true(p->elasticd_listen_set);
	assert_int_equal(p->elasticd_poll_ms, 250);
	assert_int_equal(p->elasticd_admins.n, 2);
	assert_string_equal(p->elasticd_admins.name[0], "ops");
	assert_string_equal(p->elasticd_admins.name[1], "slurm");
	assert_string_equal(p->elasticd_munge_socket, "/run/munge/m.sock");
	assert_string_equal(p->elasticd_state_dir, "/var/lib/elasticd");
}

static void all_keys(void **state)
{
	struct elastic_policy p;

	must_parse(&p, all_keys_text);
	check_all_keys(&p);
}

/* Keys match in any case; values keep theirs. */
static void keys_case_insensitive(void **state)
{
	char lower[sizeof(all_keys_text)], upper[sizeof(all_keys_text)];
	struct elastic_policy p;

	/* Change the case of the keys only, not of the values. */
	memcpy(lower, all_keys_text, sizeof(lower));
	memcpy(upper, all_keys_text, sizeof(upper));
	for (size_t i = 0, key = 1; i < sizeof(lower); i++) {
		if (lower[i] == '=')
			key = 0;
		else if (lower[i] == '\n')
			key = 1;
		else if (key && lower[i] >= 'A' && lower[i] <= 'Z')
			lower[i] = (char)(lower[i] - 'A' + 'a');
		else if (key && upper[i] >= 'a' && upper[i] <= 'z')
			upper[i] = (char)(upper[i] - 'a' + 'A');
	}
	assert_non_null(strstr(lower, "defaultcheckpointdir=/scratch/%u/"));
	assert_non_null(strstr(upper, "USERMAXNODES=alice:16"));
	must_parse(&p, lower);
	check_all_keys(&p);
	must_parse(&p, upper);
	check_all_keys(&p);
	/* Messages name the key as documented, whatever case was used. */
	must_fail("maxnodes=0", "e.conf:1: MaxNodes=0: out of range "
				"(allowed: 1 to 65535)");
}

/* A key given twice: the later line wins. */
static void later_line_wins(void **state)
{
	struct elastic_policy p;

	must_parse(&p, "MaxNodes=4\nMaxNodes=8\n"
		       "BasePartitions=a,b,c\nBasePartitions=d\n"
		       "BaseQOS=x\nBaseQOS=\n"
		       "UserMaxNodes=a:1,b:2\nUserMaxNodes=\n");
	assert_int_equal(p.max_nodes, 8);
	assert_int_equal(p.base_partitions.n, 1);
	assert_string_equal(p.base_partitions.name[0], "d");
	/* An empty value unsets a name, a list or caps. */
	assert_string_equal(p.base_qos, "");
	assert_int_equal(p.user_caps.n, 0);
}

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
	{ "UnitNice", offsetof(struct elastic_policy, unit_nice), 0, 1000000,
	  "" },
	{ "MaxKeep", offsetof(struct elastic_policy, max_keep), 1, 1000,
	  "DefaultKeep=1\n" },
	{ "DefaultKeep", offsetof(struct elastic_policy, default_keep), 1, 1000,
	  "MaxKeep=1000\n" },
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
			must_parse(&p, text);
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
			must_fail(text, msg);
		}
	}
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
		must_parse(&p, text);
		assert_true(p.ondemand_allowed == good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		char text[64], msg[128];

		snprintf(text, sizeof(text), "OnDemand=%s", bad[i]);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: OnDemand=%s: not valid (allowed: yes, no)",
			 bad[i]);
		must_fail(text, msg);
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
		must_parse(&p, text);
		assert_int_equal(l->n, 3);
		assert_string_equal(l->name[0], "a");
		assert_string_equal(l->name[1], "b-1_c.d@e+f");
		assert_string_equal(l->name[2], "C");

		snprintf(text, sizeof(text), "%s=%s\n", list_keys[i].key,
			 name_of(POLICY_NAME_MAX, 'x'));
		must_parse(&p, text);
		assert_int_equal(l->n, 1);
		assert_int_equal(strlen(l->name[0]), POLICY_NAME_MAX);

		/* Exactly POLICY_LIST_MAX entries. */
		snprintf(text, sizeof(text), "%s=%s\n", list_keys[i].key,
			 list_of(POLICY_LIST_MAX, ""));
		must_parse(&p, text);
		assert_int_equal(l->n, POLICY_LIST_MAX);
		assert_string_equal(l->name[0], "n0");
		assert_string_equal(l->name[POLICY_LIST_MAX - 1], "n31");

		snprintf(text, sizeof(text), "%s=\n", list_keys[i].key);
		must_parse(&p, text);
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
		must_fail(text, msg);

		snprintf(text, sizeof(text), "%s=a,%s\n", key,
			 name_of(POLICY_NAME_MAX + 1, 'x'));
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '%s' must have 1 to 64 characters",
			 key, name_of(POLICY_NAME_MAX + 1, 'x'));
		must_fail(text, msg);

		snprintf(text, sizeof(text), "%s=a, ,b\n", key);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '' must have 1 to 64 characters",
			 key);
		must_fail(text, msg);

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
			must_fail(text, msg);
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
		must_parse(&p, text);
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
		must_parse(&p, text);
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
			must_fail(text, msg);
		}
		snprintf(text, sizeof(text), "%s=%s\n", key,
			 list_of(POLICY_LIST_MAX + 1, ":2"));
		snprintf(msg, sizeof(msg), "e.conf:1: %s: more than 32 entries",
			 key);
		must_fail(text, msg);
		snprintf(text, sizeof(text), "%s=%s:3\n", key,
			 name_of(POLICY_NAME_MAX + 1, 'u'));
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '%s' must have 1 to 64 characters",
			 key, name_of(POLICY_NAME_MAX + 1, 'u'));
		must_fail(text, msg);
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
		must_parse(&p, text);
		assert_string_equal(field, "normal-1_a.b@c+d");

		snprintf(text, sizeof(text), "%s=%s", key,
			 name_of(POLICY_NAME_MAX, 'q'));
		must_parse(&p, text);
		assert_int_equal(strlen(field), POLICY_NAME_MAX);

		snprintf(text, sizeof(text), "%s=", key);
		must_parse(&p, text);
		assert_string_equal(field, "");

		snprintf(text, sizeof(text), "%s=%s", key,
			 name_of(POLICY_NAME_MAX + 1, 'q'));
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: name '%s' must have 1 to 64 characters",
			 key, name_of(POLICY_NAME_MAX + 1, 'q'));
		must_fail(text, msg);

		snprintf(text, sizeof(text), "%s=a b", key);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: bad character in name 'a b' "
			 "(allowed: letters, digits, - _ . @ +)",
			 key);
		must_fail(text, msg);

		/* A QOS is one name, not a list. */
		snprintf(text, sizeof(text), "%s=a,b", key);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: %s: bad character in name 'a,b' "
			 "(allowed: letters, digits, - _ . @ +)",
			 key);
		must_fail(text, msg);
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
		must_parse(&p, text);
		assert_int_equal(p.default_ondemand, good[i].want);
	}
	/* "never" needs no OnDemand=yes. */
	must_parse(&p, "DefaultOnDemand=never");
	assert_int_equal(p.default_ondemand, ELASTIC_ONDEMAND_NEVER);
	for (size_t i = 0; i < N(bad); i++) {
		char text[128], msg[256];

		snprintf(text, sizeof(text), "OnDemand=yes\nDefaultOnDemand=%s",
			 bad[i]);
		snprintf(msg, sizeof(msg),
			 "e.conf:2: DefaultOnDemand=%s: not valid (allowed: "
			 "never, below-min, always)",
			 bad[i]);
		must_fail(text, msg);
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
		must_parse(&p, text);
		assert_int_equal(p.default_signal, good[i].want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		char text[128], msg[256];

		snprintf(text, sizeof(text), "DefaultSignal=%s", bad[i]);
		snprintf(msg, sizeof(msg),
			 "e.conf:1: DefaultSignal=%s: not valid (allowed: URG, "
			 "WINCH, USR1, USR2, HUP, INT, TERM)",
			 bad[i]);
		must_fail(text, msg);
	}
}

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
		{ "ElasticdAdmins=a b", "e.conf:1: ElasticdAdmins: bad "
					"character in name 'a b' (allowed: "
					"letters, digits, - _ . @ +)" },
	};
	struct elastic_policy p;
	char text[POLICY_PATH_MAX + 64];

	for (size_t i = 0; i < N(good_listen); i++) {
		snprintf(text, sizeof(text), "ElasticdListen=%s",
			 good_listen[i]);
		must_parse(&p, text);
		assert_string_equal(p.elasticd_listen, good_listen[i]);
		assert_true(p.elasticd_listen_set);
	}
	must_parse(&p, "ElasticdPollInterval=100");
	assert_int_equal(p.elasticd_poll_ms, 100);
	must_parse(&p, "ElasticdPollInterval=60000");
	assert_int_equal(p.elasticd_poll_ms, 60000);
	/* Empty paths and lists mean "none". */
	must_parse(&p, "ElasticdStateDir=/x\nElasticdStateDir=\n"
		       "ElasticdMungeSocket=\nElasticdAdmins=\n");
	assert_string_equal(p.elasticd_state_dir, "");
	assert_string_equal(p.elasticd_munge_socket, "");
	assert_int_equal(p.elasticd_admins.n, 0);
	/* A long path fits (the 1024-byte line is the bound). */
	snprintf(text, sizeof(text), "ElasticdStateDir=/%s", name_of(900, 's'));
	must_parse(&p, text);
	assert_int_equal(strlen(p.elasticd_state_dir), 901);
	for (size_t i = 0; i < N(bad); i++)
		must_fail(bad[i].text, bad[i].msg);
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
	must_fail(text, "e.conf:1: ElasticdListen: longer than 263 "
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
		must_parse(&p, text);
		assert_string_equal(p.elasticd_server, good[i]);
		/* The other key, untouched. */
		assert_string_equal(p.elasticd_listen, POLICY_DEFAULT_LISTEN);
		assert_false(p.elasticd_listen_set);
	}
	/* Empty: unset. */
	must_parse(&p, "ElasticdServer=ctl:1\nElasticdServer=\n");
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
		must_fail(text, want);
	}
	for (size_t i = 0; i < N(bad); i++) {
		snprintf(text, sizeof(text), "ElasticdServer=%s", bad[i].val);
		must_fail(text, bad[i].msg);
	}
	snprintf(text, sizeof(text), "ElasticdServer=%s:1",
		 name_of(POLICY_LISTEN_MAX, 'h'));
	must_fail(text, "e.conf:1: ElasticdServer: longer than 263 "
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
		must_parse(&p, text);
		assert_string_equal(p.default_checkpoint_dir, good[i]);
	}
	for (size_t i = 0; i < N(bad); i++) {
		char text[256];

		snprintf(text, sizeof(text), "DefaultCheckpointDir=%s",
			 bad[i].val);
		must_fail(text, bad[i].msg);
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

static void lines(void **state)
{
	char text[2100];

	must_fail("Foo=1\n", "e.conf:1: unknown key 'Foo' (see elastic.conf(5) "
			     "for the keys)");
	must_fail("MaxNode=1\n",
		  "e.conf:1: unknown key 'MaxNode' (see elastic.conf(5) "
		  "for the keys)");
	must_fail("=3\n", "e.conf:1: unknown key '' (see elastic.conf(5) for "
			  "the keys)");
	must_fail("\nMaxNodes\n",
		  "e.conf:2: expected Key=Value, got 'MaxNodes'");
	must_fail("MaxNodes 4", "e.conf:1: expected Key=Value, got "
				"'MaxNodes 4'");
	must_fail("MaxNodes: 4", "e.conf:1: expected Key=Value, got "
				 "'MaxNodes: 4'");
	/* '#' hides the '=' */
	must_fail("MaxNodes # =4", "e.conf:1: expected Key=Value, got "
				   "'MaxNodes'");
	/* Line numbers count comments and blank lines. */
	must_fail("# c\n\n   \nMaxNodes=4\n# c\nBogus=1\n",
		  "e.conf:6: unknown key 'Bogus' (see elastic.conf(5) for the "
		  "keys)");
	must_fail("MaxNodes=4\r\nMaxNodes=x\r\n",
		  "e.conf:2: MaxNodes=x: not a whole number (allowed: 1 to "
		  "65535)");
	/* Only the first error is reported. */
	must_fail("Foo=1\nBar=2\n", "e.conf:1: unknown key 'Foo' (see "
				    "elastic.conf(5) for the keys)");

	/* A line of exactly 1024 bytes passes, 1025 fails. */
	{
		struct elastic_policy p;
		size_t n;

		strcpy(text, "MaxNodes=7 #");
		n = strlen(text);
		memset(text + n, 'x', 1024 - n);
		strcpy(text + 1024, "\nDefaultStep=2\n");
		must_parse(&p, text);
		assert_int_equal(p.max_nodes, 7);
		assert_int_equal(p.default_step, 2);

		memmove(text + 1025, text + 1024, strlen(text + 1024) + 1);
		text[1024] = 'x';
		must_fail(text, "e.conf:1: line longer than 1024 bytes");
		/* Without a final newline too, and on a later line. */
		memset(text, 'x', 2000);
		text[2000] = '\0';
		must_fail(text, "e.conf:1: line longer than 1024 bytes");
		memcpy(text, "\n# c\n", 5);
		must_fail(text, "e.conf:3: line longer than 1024 bytes");
	}
}

/* The relations of check_policy: their exact bound passes, one past
 * fails, and the order of lines does not matter. */
static void relations(void **state)
{
	struct elastic_policy p;

	must_parse(&p, "DefaultMinNodes=8\nMaxNodes=8\n");
	assert_int_equal(p.default_min_nodes, 8);
	must_fail("MaxNodes=4\nDefaultMinNodes=5\n",
		  "e.conf: DefaultMinNodes=5 is above MaxNodes=4");
	must_fail("DefaultMinNodes=5\nMaxNodes=4\n",
		  "e.conf: DefaultMinNodes=5 is above MaxNodes=4");

	must_parse(&p, "DefaultMaxNodes=8\nMaxNodes=8\n");
	must_fail("MaxNodes=4\nDefaultMaxNodes=5\n",
		  "e.conf: DefaultMaxNodes=5 is above MaxNodes=4");

	must_parse(&p, "DefaultMaxNodes=3\nDefaultMinNodes=3\n");
	must_fail("DefaultMinNodes=3\nDefaultMaxNodes=2\n",
		  "e.conf: DefaultMaxNodes=2 is below DefaultMinNodes=3");

	must_parse(&p, "DefaultGrace=600\nMaxGrace=600\n");
	must_parse(&p, "DefaultGrace=0\nMaxGrace=0\n");
	must_fail("MaxGrace=600\nDefaultGrace=601\n",
		  "e.conf: DefaultGrace=601 is above MaxGrace=600");
	/* The built-in DefaultGrace (60) counts too. */
	must_fail("MaxGrace=59\n", "e.conf: DefaultGrace=60 is above "
				   "MaxGrace=59");

	must_parse(&p, "DefaultKeep=10\nMaxKeep=10\n");
	must_fail("MaxKeep=10\nDefaultKeep=11\n",
		  "e.conf: DefaultKeep=11 is above MaxKeep=10");
	must_fail("MaxKeep=2\n", "e.conf: DefaultKeep=3 is above MaxKeep=2");

	must_parse(&p, "DefaultOnDemand=always\nOnDemand=yes\n");
	must_fail("DefaultOnDemand=always\n",
		  "e.conf: DefaultOnDemand=always needs OnDemand=yes");
	must_fail("OnDemand=no\nDefaultOnDemand=below-min\n",
		  "e.conf: DefaultOnDemand=below-min needs OnDemand=yes");
	/* A later OnDemand=no takes it back. */
	must_fail("OnDemand=yes\nDefaultOnDemand=always\nOnDemand=no\n",
		  "e.conf: DefaultOnDemand=always needs OnDemand=yes");

	/* The first broken relation is the one reported. */
	must_fail("MaxNodes=1\nDefaultMinNodes=2\nMaxKeep=1\n",
		  "e.conf: DefaultMinNodes=2 is above MaxNodes=1");
}

/* Caps above MaxNodes are allowed: the most specific cap applies. */
static void caps_above_max_nodes(void **state)
{
	struct elastic_policy p;

	must_parse(&p, "MaxNodes=4\nUserMaxNodes=alice:16\n"
		       "AccountMaxNodes=physics:8\n");
	assert_int_equal(policy_caps_get(&p.user_caps, "alice"), 16);
	assert_int_equal(policy_caps_get(&p.account_caps, "physics"), 8);
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

	must_parse(&p, "OnDemandUsers=alice,bob\nUserMaxNodes=alice:2,bob:3");
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

/* policy_load */

static int tmp_setup(void **state)
{
	return tmp_make(state, "test_policy", "elastic.conf");
}

static void load_missing(void **state)
{
	struct tmp *t = *state;
	struct elastic_policy p, def;
	elastic_error_t err = { "" };
	bool found = true;

	policy_defaults(&def);
	memset(&p, 0xa5, sizeof(p));
	assert_int_equal(policy_load(&p, t->path, &found, &err), 0);
	assert_false(found);
	assert_memory_equal(&p, &def, sizeof(p));
	/* found may be NULL */
	memset(&p, 0xa5, sizeof(p));
	assert_int_equal(policy_load(&p, t->path, NULL, &err), 0);
	assert_memory_equal(&p, &def, sizeof(p));
}

static void load_present(void **state)
{
	struct tmp *t = *state;
	struct elastic_policy p;
	elastic_error_t err = { "" };
	bool found = false;

	write_file(t->path, all_keys_text, strlen(all_keys_text));
	assert_int_equal(policy_load(&p, t->path, &found, &err), 0);
	assert_true(found);
	check_all_keys(&p);

	/* An empty file exists: found, and the defaults. */
	write_file(t->path, "", 0);
	found = false;
	assert_int_equal(policy_load(&p, t->path, &found, &err), 0);
	assert_true(found);
	assert_int_equal(p.max_nodes, POLICY_DEFAULT_MAX_NODES);
}

static void load_invalid(void **state)
{
	struct tmp *t = *state;
	struct elastic_policy p, before;
	elastic_error_t err = { "" };
	char want[512];
	char *big;

	memset(&p, 0xa5, sizeof(p));
	memcpy(&before, &p, sizeof(p));

	write_file(t->path, "MaxNodes=12\nBogus=1\n", 20);
	assert_int_equal(policy_load(&p, t->path, NULL, &err), -1);
	snprintf(want, sizeof(want),
		 "%s:2: unknown key 'Bogus' (see elastic.conf(5) for the keys)",
		 t->path);
	assert_string_equal(err.text, want);
	assert_memory_equal(&p, &before, sizeof(p));

	write_file(t->path, "MaxNodes=4\nDefaultMinNodes=5\n", 29);
	assert_int_equal(policy_load(&p, t->path, NULL, &err), -1);
	snprintf(want, sizeof(want),
		 "%s: DefaultMinNodes=5 is above MaxNodes=4", t->path);
	assert_string_equal(err.text, want);
	assert_memory_equal(&p, &before, sizeof(p));

	/* A NUL byte is garbage, not the end of the file. */
	write_file(t->path, "MaxNodes=2\0Bogus\n", 17);
	assert_int_equal(policy_load(&p, t->path, NULL, &err), -1);
	snprintf(want, sizeof(want), "%s: contains a NUL byte", t->path);
	assert_string_equal(err.text, want);
	assert_memory_equal(&p, &before, sizeof(p));

	/* 256 KiB of comments pass, one byte more fails. */
	big = malloc(256 * 1024 + 1);
	assert_non_null(big);
	memset(big, '#', 256 * 1024 + 1);
	for (size_t i = 1000; i < 256 * 1024; i += 1000)
		big[i] = '\n';
	write_file(t->path, big, 256 * 1024);
	assert_int_equal(policy_load(&p, t->path, NULL, &err), 0);
	assert_int_equal(p.max_nodes, POLICY_DEFAULT_MAX_NODES);
	memcpy(&before, &p, sizeof(p));
	write_file(t->path, big, 256 * 1024 + 1);
	assert_int_equal(policy_load(&p, t->path, NULL, &err), -1);
	snprintf(want, sizeof(want), "%s: larger than 262144 bytes", t->path);
	assert_string_equal(err.text, want);
	assert_memory_equal(&p, &before, sizeof(p));
	free(big);

	/* A directory cannot be read as a file. */
	assert_int_equal(policy_load(&p, t->dir, NULL, &err), -1);
	snprintf(want, sizeof(want), "%s: cannot read: Is a directory", t->dir);
	assert_string_equal(err.text, want);
	assert_memory_equal(&p, &before, sizeof(p));
}

static void conf_path(void **state)
{
	char buf[64];

	policy_conf_path("/etc/slurm-llnl/slurm.conf", buf, sizeof(buf));
	assert_string_equal(buf, "/etc/slurm-llnl/elastic.conf");
	policy_conf_path("/slurm.conf", buf, sizeof(buf));
	assert_string_equal(buf, "/elastic.conf");
	policy_conf_path("slurm.conf", buf, sizeof(buf));
	assert_string_equal(buf, SLURM_SYSCONFDIR "/elastic.conf");
	policy_conf_path(NULL, buf, sizeof(buf));
	assert_string_equal(buf, SLURM_SYSCONFDIR "/elastic.conf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(empty_and_comments),
		cmocka_unit_test(layout),
		cmocka_unit_test(all_keys),
		cmocka_unit_test(keys_case_insensitive),
		cmocka_unit_test(later_line_wins),
		cmocka_unit_test(numeric_good),
		cmocka_unit_test(numeric_bad),
		cmocka_unit_test(bool_key),
		cmocka_unit_test(list_good),
		cmocka_unit_test(list_bad),
		cmocka_unit_test(caps_good),
		cmocka_unit_test(caps_bad),
		cmocka_unit_test(name_keys_good_and_bad),
		cmocka_unit_test(ondemand_key),
		cmocka_unit_test(signal_key),
		cmocka_unit_test(path_key),
		cmocka_unit_test(elasticd_keys),
		cmocka_unit_test(elasticd_server_key),
		cmocka_unit_test(check_path_length),
		cmocka_unit_test(lines),
		cmocka_unit_test(relations),
		cmocka_unit_test(caps_above_max_nodes),
		cmocka_unit_test(list_has_and_caps_get),
		cmocka_unit_test(list_join_bounded),
		cmocka_unit_test(ondemand_words),
		cmocka_unit_test(conf_path),
		cmocka_unit_test_setup_teardown(load_missing, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(load_present, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(load_invalid, tmp_setup,
						tmp_teardown),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
