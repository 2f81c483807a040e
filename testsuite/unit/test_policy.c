/* Unit tests of policy.c on elastic.conf as a file: the defaults, its
 * layout (comments, blanks, CRLF, case of keys, a key given twice, long
 * lines), every key at once, the relations among keys, policy_load and
 * where the file is, and the check that lists every error at once
 * (policy_parse_all, policy_load_all).  Each kind of value is
 * test_policy_values', the addresses and paths test_policy_paths'. */
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

#include "fixture.h"
#include "policy_fixture.h"

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
	assert_false(p.expedited_requeue);
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
	assert_int_equal(p.default_heartbeat_timeout, 5);
	assert_int_equal(p.min_heartbeat_timeout, 0);
	assert_int_equal(p.default_ondemand, ELASTIC_ONDEMAND_NEVER);
	assert_int_equal(p.default_signal, SIGURG);
	assert_int_equal(p.default_keep, 3);
	assert_string_equal(p.default_checkpoint_dir,
			    "%h/elastic-checkpoints/%j");
	assert_string_equal(p.elasticd_server, "");
	assert_string_equal(p.elasticd_listen, "127.0.0.1:6830");
	assert_false(p.elasticd_listen_set);
	assert_int_equal(p.elasticd_poll_ms, 0);
	assert_int_equal(policy_poll_ms(&p, true), 60000);
	assert_int_equal(policy_poll_ms(&p, false), 1000);
	assert_int_equal(p.elasticd_admins.n, 0);
	assert_string_equal(p.elasticd_munge_socket, "");
	assert_string_equal(p.elasticd_state_dir, "");
	assert_int_equal(p.elasticd_release_holds, 2);
	assert_int_equal(p.elasticd_resync_s, 60);
	assert_int_equal(p.elasticd_queue_s, 3600);
	assert_int_equal(p.elasticd_notify, POLICY_NOTIFY_YES);
	assert_string_equal(p.elasticd_unit_program, "");
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
		must_parse_policy(&p, texts[i]);
		assert_memory_equal(&p, &def, sizeof(p));
	}
}

/* Blanks around keys and values, trailing comments, CRLF, no final \n. */
static void layout(void **state)
{
	struct elastic_policy p;

	must_parse_policy(&p,
			  "# site policy\n"
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
static const char all_keys_text[] =
    "MaxNodes=64\n"
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
    "ElasticdStateDir=/var/lib/elasticd\n"
    "ElasticdReleaseLaunchHolds=0\n"
    "ElasticdResyncInterval=60\n"
    "ElasticdQueueInterval=0\n"
    "ElasticdNotify=drop\n"
    "ElasticdUnitProgram=/opt/se/bin/elastic-run\n"
    "ExpeditedRequeue=yes\n";

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
	assert_int_equal(policy_poll_ms(p, true),
			 250); /* set: whatever the rest */
	assert_int_equal(p->elasticd_admins.n, 2);
	assert_string_equal(p->elasticd_admins.name[0], "ops");
	assert_string_equal(p->elasticd_admins.name[1], "slurm");
	assert_string_equal(p->elasticd_munge_socket, "/run/munge/m.sock");
	assert_string_equal(p->elasticd_state_dir, "/var/lib/elasticd");
	assert_int_equal(p->elasticd_release_holds, 0);
	assert_int_equal(p->elasticd_resync_s, 60);
	assert_int_equal(p->elasticd_queue_s, 0);
	assert_int_equal(p->elasticd_notify, POLICY_NOTIFY_DROP);
	assert_string_equal(p->elasticd_unit_program,
			    "/opt/se/bin/elastic-run");
	assert_true(p->expedited_requeue);
}

static void all_keys(void **state)
{
	struct elastic_policy p;

	must_parse_policy(&p, all_keys_text);
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
	must_parse_policy(&p, lower);
	check_all_keys(&p);
	must_parse_policy(&p, upper);
	check_all_keys(&p);
	/* Messages name the key as documented, whatever case was used. */
	must_fail_policy("maxnodes=0", "e.conf:1: MaxNodes=0: out of range "
				       "(allowed: 1 to 65535)");
	must_fail_policy("ElasticdNotify=maybe",
			 "e.conf:1: ElasticdNotify=maybe: not valid (allowed: "
			 "yes, no, drop)");
	must_fail_policy("ElasticdUnitProgram=bin/elastic-run",
			 "e.conf:1: ElasticdUnitProgram=bin/elastic-run: "
			 "must be an absolute path");
}

/* A key given twice: the later line wins. */
static void later_line_wins(void **state)
{
	struct elastic_policy p;

	must_parse_policy(&p, "MaxNodes=4\nMaxNodes=8\n"
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

static void lines(void **state)
{
	char text[2100];

	must_fail_policy("Foo=1\n",
			 "e.conf:1: unknown key 'Foo' (see elastic.conf(5) "
			 "for the keys)");
	must_fail_policy("MaxNode=1\n",
			 "e.conf:1: unknown key 'MaxNode' (see elastic.conf(5) "
			 "for the keys)");
	must_fail_policy("=3\n",
			 "e.conf:1: unknown key '' (see elastic.conf(5) for "
			 "the keys)");
	must_fail_policy("\nMaxNodes\n",
			 "e.conf:2: expected Key=Value, got 'MaxNodes'");
	must_fail_policy("MaxNodes 4", "e.conf:1: expected Key=Value, got "
				       "'MaxNodes 4'");
	must_fail_policy("MaxNodes: 4", "e.conf:1: expected Key=Value, got "
					"'MaxNodes: 4'");
	/* '#' hides the '=' */
	must_fail_policy("MaxNodes # =4", "e.conf:1: expected Key=Value, got "
					  "'MaxNodes'");
	/* Line numbers count comments and blank lines. */
	must_fail_policy(
	    "# c\n\n   \nMaxNodes=4\n# c\nBogus=1\n",
	    "e.conf:6: unknown key 'Bogus' (see elastic.conf(5) for the "
	    "keys)");
	must_fail_policy(
	    "MaxNodes=4\r\nMaxNodes=x\r\n",
	    "e.conf:2: MaxNodes=x: not a whole number (allowed: 1 to "
	    "65535)");
	/* Only the first error is reported. */
	must_fail_policy("Foo=1\nBar=2\n", "e.conf:1: unknown key 'Foo' (see "
					   "elastic.conf(5) for the keys)");

	/* A line of exactly 1024 bytes passes, 1025 fails. */
	{
		struct elastic_policy p;
		size_t n;

		strcpy(text, "MaxNodes=7 #");
		n = strlen(text);
		memset(text + n, 'x', 1024 - n);
		strcpy(text + 1024, "\nDefaultStep=2\n");
		must_parse_policy(&p, text);
		assert_int_equal(p.max_nodes, 7);
		assert_int_equal(p.default_step, 2);

		memmove(text + 1025, text + 1024, strlen(text + 1024) + 1);
		text[1024] = 'x';
		must_fail_policy(text, "e.conf:1: line longer than 1024 bytes");
		/* Without a final newline too, and on a later line. */
		memset(text, 'x', 2000);
		text[2000] = '\0';
		must_fail_policy(text, "e.conf:1: line longer than 1024 bytes");
		memcpy(text, "\n# c\n", 5);
		must_fail_policy(text, "e.conf:3: line longer than 1024 bytes");
	}
}

/* The relations of check_policy: their exact bound passes, one past
 * fails, and the order of lines does not matter. */
static void relations(void **state)
{
	struct elastic_policy p;

	must_parse_policy(&p, "DefaultMinNodes=8\nMaxNodes=8\n");
	assert_int_equal(p.default_min_nodes, 8);
	must_fail_policy("MaxNodes=4\nDefaultMinNodes=5\n",
			 "e.conf: DefaultMinNodes=5 is above MaxNodes=4");
	must_fail_policy("DefaultMinNodes=5\nMaxNodes=4\n",
			 "e.conf: DefaultMinNodes=5 is above MaxNodes=4");

	must_parse_policy(&p, "DefaultMaxNodes=8\nMaxNodes=8\n");
	must_fail_policy("MaxNodes=4\nDefaultMaxNodes=5\n",
			 "e.conf: DefaultMaxNodes=5 is above MaxNodes=4");

	must_parse_policy(&p, "DefaultMaxNodes=3\nDefaultMinNodes=3\n");
	must_fail_policy(
	    "DefaultMinNodes=3\nDefaultMaxNodes=2\n",
	    "e.conf: DefaultMaxNodes=2 is below DefaultMinNodes=3");

	must_parse_policy(&p, "DefaultGrace=600\nMaxGrace=600\n");
	must_parse_policy(&p, "DefaultGrace=0\nMaxGrace=0\n");
	must_fail_policy("MaxGrace=600\nDefaultGrace=601\n",
			 "e.conf: DefaultGrace=601 is above MaxGrace=600");
	/* The built-in DefaultGrace (60) counts too. */
	must_fail_policy("MaxGrace=59\n", "e.conf: DefaultGrace=60 is above "
					  "MaxGrace=59");

	must_parse_policy(&p, "DefaultKeep=10\nMaxKeep=10\n");
	must_fail_policy("MaxKeep=10\nDefaultKeep=11\n",
			 "e.conf: DefaultKeep=11 is above MaxKeep=10");
	must_fail_policy("MaxKeep=2\n",
			 "e.conf: DefaultKeep=3 is above MaxKeep=2");

	must_parse_policy(&p, "DefaultOnDemand=always\nOnDemand=yes\n");
	must_fail_policy("DefaultOnDemand=always\n",
			 "e.conf: DefaultOnDemand=always needs OnDemand=yes");
	must_fail_policy(
	    "OnDemand=no\nDefaultOnDemand=below-min\n",
	    "e.conf: DefaultOnDemand=below-min needs OnDemand=yes");
	/* A later OnDemand=no takes it back. */
	must_fail_policy("OnDemand=yes\nDefaultOnDemand=always\nOnDemand=no\n",
			 "e.conf: DefaultOnDemand=always needs OnDemand=yes");

	/* The first broken relation is the one reported. */
	must_fail_policy("MaxNodes=1\nDefaultMinNodes=2\nMaxKeep=1\n",
			 "e.conf: DefaultMinNodes=2 is above MaxNodes=1");
}

/* Caps above MaxNodes are allowed: the most specific cap applies. */
static void caps_above_max_nodes(void **state)
{
	struct elastic_policy p;

	must_parse_policy(&p, "MaxNodes=4\nUserMaxNodes=alice:16\n"
			      "AccountMaxNodes=physics:8\n");
	assert_int_equal(policy_caps_get(&p.user_caps, "alice"), 16);
	assert_int_equal(policy_caps_get(&p.account_caps, "physics"), 8);
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

/* What policy_parse_all handed on: the errors, one a line. */
struct faults {
	unsigned n;
	char text[1024];
};

static void note_fault(void *arg, const char *text)
{
	struct faults *f = arg;
	size_t len = strlen(f->text);

	f->n++;
	snprintf(f->text + len, sizeof(f->text) - len, "%s\n", text);
}

/* Every invalid line, each as policy_parse says it, in the file's order;
 * the relations only when the lines are valid; *p set only then. */
static void parse_all(void **state)
{
	static const char bad[] = "MaxNodes=abc\n"
				  "DefaultMinNodes=5\n"
				  "Bogus=1\n"
				  "no equals sign\n"
				  "DefaultOnDemand=sometimes\n";
	struct elastic_policy p, q, before;
	struct faults f = { 0, "" };
	elastic_error_t err;
	char first[400];

	(void)state;
	memset(&p, 0xa5, sizeof(p));
	before = p;
	assert_int_equal(policy_parse_all(&p, bad, "e.conf", note_fault, &f),
			 4);
	assert_int_equal(f.n, 4);
	assert_string_equal(
	    f.text,
	    "e.conf:1: MaxNodes=abc: not a whole number (allowed: 1 to 65535)\n"
	    "e.conf:3: unknown key 'Bogus' (see elastic.conf(5) for the "
	    "keys)\n"
	    "e.conf:4: expected Key=Value, got 'no equals sign'\n"
	    "e.conf:5: DefaultOnDemand=sometimes: not valid (allowed: never, "
	    "below-min, always)\n");
	assert_memory_equal(&p, &before, sizeof(p));
	/* policy_parse stops at the first, with the same words. */
	assert_int_equal(policy_parse(&p, bad, "e.conf", &err), -1);
	snprintf(first, sizeof(first), "%s\n", err.text);
	assert_memory_equal(f.text, first, strlen(first));

	/* Valid lines: the relations, once. */
	f.n = 0;
	f.text[0] = '\0';
	assert_int_equal(policy_parse_all(&p, "MaxNodes=4\nDefaultMinNodes=5\n",
					  "e.conf", note_fault, &f),
			 1);
	assert_string_equal(f.text,
			    "e.conf: DefaultMinNodes=5 is above MaxNodes=4\n");
	assert_memory_equal(&p, &before, sizeof(p));

	/* Valid: what policy_parse gives, and nothing handed on. */
	f.n = 0;
	assert_int_equal(
	    policy_parse_all(&p, all_keys_text, "e.conf", note_fault, &f), 0);
	assert_int_equal(f.n, 0);
	must_parse_policy(&q, all_keys_text);
	assert_memory_equal(&p, &q, sizeof(p));
}

/* A line too long is one error; the lines after it are still read. */
static void parse_all_long_line(void **state)
{
	struct elastic_policy p;
	struct faults f = { 0, "" };
	char *text = malloc(2100);

	(void)state;
	assert_non_null(text);
	memset(text, 'x', 1100);
	snprintf(text + 1100, 1000, "\nBogus=1\nMaxNodes=3\n");
	assert_int_equal(policy_parse_all(&p, text, "e.conf", note_fault, &f),
			 2);
	assert_string_equal(f.text, "e.conf:1: line longer than 1024 bytes\n"
				    "e.conf:2: unknown key 'Bogus' (see "
				    "elastic.conf(5) for the keys)\n");
	free(text);
}

static void load_all(void **state)
{
	struct tmp *t = *state;
	struct elastic_policy p, def;
	struct faults f = { 0, "" };
	char want[512];
	bool found = true;

	/* No file: the defaults, no error, not found. */
	policy_defaults(&def);
	memset(&p, 0xa5, sizeof(p));
	assert_int_equal(policy_load_all(&p, t->path, &found, note_fault, &f),
			 0);
	assert_false(found);
	assert_memory_equal(&p, &def, sizeof(p));

	write_text(t->path, "MaxNodes=0\nMaxGrace=x\nUnitNice=7\n");
	assert_int_equal(policy_load_all(&p, t->path, &found, note_fault, &f),
			 2);
	assert_true(found);
	snprintf(want, sizeof(want),
		 "%s:1: MaxNodes=0: out of range (allowed: 1 to 65535)\n"
		 "%s:2: MaxGrace=x: not a whole number (allowed: 0 to "
		 "86400)\n",
		 t->path, t->path);
	assert_string_equal(f.text, want);

	/* A file that cannot be read is one error. */
	f.n = 0;
	f.text[0] = '\0';
	assert_int_equal(policy_load_all(&p, t->dir, NULL, note_fault, &f), 1);
	snprintf(want, sizeof(want), "%s: cannot read: Is a directory\n",
		 t->dir);
	assert_string_equal(f.text, want);
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

/* --requeue=expedite for bases: wanted, in this Slurm, and enabled by
 * slurmctld (a word of SlurmctldParameters), or why not. */
static void expedite(void **state)
{
	const char *why = "stale";

	(void)state;
	assert_false(
	    policy_expedite(false, true, "enable_expedited_requeue", &why));
	assert_null(why);
	assert_true(
	    policy_expedite(true, true, "enable_expedited_requeue", &why));
	assert_null(why);
	assert_true(policy_expedite(
	    true, true, "preempt_send_user_signal,enable_expedited_requeue",
	    &why));
	assert_true(policy_expedite(true, true,
				    "enable_expedited_requeue,idle_on_node_"
				    "suspend",
				    &why));
	assert_false(
	    policy_expedite(true, false, "enable_expedited_requeue", &why));
	assert_non_null(strstr(why, "25.11"));
	assert_false(policy_expedite(true, true, NULL, &why));
	assert_non_null(strstr(why, "SlurmctldParameters="
				    "enable_expedited_requeue"));
	assert_false(
	    policy_expedite(true, true, "enable_expedited_requeuex", &why));
	assert_false(
	    policy_expedite(true, true, "xenable_expedited_requeue", &why));
	assert_false(policy_expedite(true, true, "", &why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(empty_and_comments),
		cmocka_unit_test(layout),
		cmocka_unit_test(all_keys),
		cmocka_unit_test(expedite),
		cmocka_unit_test(keys_case_insensitive),
		cmocka_unit_test(later_line_wins),
		cmocka_unit_test(lines),
		cmocka_unit_test(relations),
		cmocka_unit_test(caps_above_max_nodes),
		cmocka_unit_test(conf_path),
		cmocka_unit_test(parse_all),
		cmocka_unit_test(parse_all_long_line),
		cmocka_unit_test_setup_teardown(load_all, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(load_missing, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(load_present, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(load_invalid, tmp_setup,
						tmp_teardown),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
