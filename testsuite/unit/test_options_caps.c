/* Unit tests of options.c against the site's elastic.conf: the node cap
 * that applies to a submitter (options_node_cap), the defaults filled in
 * for what the user did not give (options_apply_defaults), and
 * options_finalize, which adds the caps on nodes, grace, keep and
 * on-demand fallback to the relations options_check holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>

#include "options_fixture.h"

/* options_node_cap, options_apply_defaults */

static void node_cap(void **state)
{
	struct elastic_policy p = policy_of("MaxNodes=64\n"
					    "UserMaxNodes=alice:8,dave:128\n"
					    "AccountMaxNodes=physics:16\n");
	const struct {
		const char *user, *account;
		unsigned cap;
		const char *source;
	} cases[] = {
		{ "alice", "physics", 8, "UserMaxNodes" },
		{ "alice", "chem", 8, "UserMaxNodes" },
		{ "alice", NULL, 8, "UserMaxNodes" },
		{ "bob", "physics", 16, "AccountMaxNodes" },
		{ NULL, "physics", 16, "AccountMaxNodes" },
		{ "bob", "chem", 64, "MaxNodes" },
		{ "bob", NULL, 64, "MaxNodes" },
		{ NULL, NULL, 64, "MaxNodes" },
		/* The most specific cap applies, even above MaxNodes. */
		{ "dave", "physics", 128, "UserMaxNodes" },
	};
	const char *source = NULL;

	for (size_t i = 0; i < N(cases); i++) {
		struct elastic_submitter who = { cases[i].user,
						 cases[i].account };

		source = NULL;
		assert_int_equal(options_node_cap(&p, &who, &source),
				 cases[i].cap);
		assert_string_equal(source, cases[i].source);
	}
	assert_int_equal(options_node_cap(&p, NULL, &source), 64);
	assert_string_equal(source, "MaxNodes");
}

static void apply_builtin_defaults(void **state)
{
	struct elastic_policy p;
	struct elastic_opts o = { 0 };

	policy_defaults(&p);
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.given, 0);
	assert_int_equal(o.min, 1);
	assert_int_equal(o.max, POLICY_DEFAULT_MAX_NODES);
	assert_int_equal(o.step, 1);
	assert_int_equal(o.nsizes, 0);
	assert_int_equal(o.grace, 60);
	assert_int_equal(o.scale_delay, 30);
	assert_int_equal(o.fault_timeout, 60);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_NEVER);
	assert_int_equal(o.signal, SIGURG);
	assert_int_equal(o.keep, 3);
	assert_string_equal(o.checkpoint_dir, "%h/elastic-checkpoints/%j");
	assert_string_equal(o.size_config_path, "");
}

static const char site_text[] = "MaxNodes=64\n"
				"DefaultMinNodes=2\n"
				"DefaultMaxNodes=16\n"
				"DefaultStep=2\n"
				"DefaultGrace=120\n"
				"DefaultScaleDelay=10\n"
				"DefaultFaultTimeout=5\n"
				"OnDemand=yes\n"
				"DefaultOnDemand=always\n"
				"DefaultSignal=USR2\n"
				"DefaultKeep=7\n"
				"DefaultCheckpointDir=/ck/%u/%j\n";

static void apply_site_defaults(void **state)
{
	struct elastic_policy p = policy_of(site_text);
	struct elastic_opts o = { 0 };

	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 16);
	assert_int_equal(o.step, 2);
	assert_int_equal(o.grace, 120);
	assert_int_equal(o.scale_delay, 10);
	assert_int_equal(o.fault_timeout, 5);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_ALWAYS);
	assert_int_equal(o.signal, SIGUSR2);
	assert_int_equal(o.keep, 7);
	assert_string_equal(o.checkpoint_dir, "/ck/%u/%j");
}

/* A user's option beats the policy's default, zero values included. */
static void apply_given_wins(void **state)
{
	struct elastic_policy p = policy_of(site_text);
	struct elastic_opts o = opts_of(
	    "min=3 max=5 step=1 grace=0 scale-delay=0 fault-timeout=0 "
	    "ondemand=never signal=TERM keep=1 checkpoint-dir=/mine/%j");
	const unsigned given = o.given;

	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.given, given);
	assert_int_equal(o.min, 3);
	assert_int_equal(o.max, 5);
	assert_int_equal(o.step, 1);
	assert_int_equal(o.grace, 0);
	assert_int_equal(o.scale_delay, 0);
	assert_int_equal(o.fault_timeout, 0);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_NEVER);
	assert_int_equal(o.signal, SIGTERM);
	assert_int_equal(o.keep, 1);
	assert_string_equal(o.checkpoint_dir, "/mine/%j");

	/* With sizes, no step is defaulted and the sizes give the bounds. */
	o = opts_of("sizes=4,8,12");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 4);
	assert_int_equal(o.max, 12);
	assert_int_equal(o.step, 0);
	o = opts_of("sizes=4,8,12 min=3");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 3);
	assert_int_equal(o.max, 12);
	o = opts_of("sizes=4,8,12 max=20");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 4);
	assert_int_equal(o.max, 20);
}

/* A default never contradicts a given value: it gives way. */
static void apply_never_contradicts(void **state)
{
	struct elastic_policy p = policy_of(site_text); /* min 2, max 16 */
	struct elastic_opts o;

	o = opts_of("max=8");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 8);
	o = opts_of("max=1");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 1);
	assert_int_equal(o.max, 1);
	o = opts_of("max=2");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 2);
	o = opts_of("min=4");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 4);
	assert_int_equal(o.max, 16);
	o = opts_of("min=32");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.min, 32);
	assert_int_equal(o.max, 32);
	o = opts_of("min=16");
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.max, 16);
}

/* DefaultMaxNodes unset means the submitter's cap; defaults stay within
 * that cap even when it is below DefaultMinNodes or DefaultMaxNodes. */
static void apply_caps(void **state)
{
	struct elastic_policy p = policy_of("MaxNodes=64\n"
					    "UserMaxNodes=alice:8\n"
					    "AccountMaxNodes=physics:16\n");
	struct elastic_policy q = policy_of("MaxNodes=64\n"
					    "DefaultMinNodes=4\n"
					    "DefaultMaxNodes=32\n"
					    "UserMaxNodes=alice:8,bob:2\n");
	const struct elastic_submitter alice = { "alice", "physics" };
	const struct elastic_submitter bob = { "bob", "physics" };
	const struct elastic_submitter carol = { "carol", "chem" };
	struct elastic_opts o;

	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &p, &alice);
	assert_int_equal(o.max, 8);
	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &p, &bob);
	assert_int_equal(o.max, 16);
	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &p, &carol);
	assert_int_equal(o.max, 64);
	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &p, NULL);
	assert_int_equal(o.max, 64);

	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &q, &alice);
	assert_int_equal(o.min, 4);
	assert_int_equal(o.max, 8);
	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &q, &bob);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 2);
	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &q, &carol);
	assert_int_equal(o.min, 4);
	assert_int_equal(o.max, 32);
}

/* options_finalize */
/* finalize fills what apply_defaults fills, and keeps the given bits. */
static void finalize_defaults(void **state)
{
	static const char *specs[] = { "",
				       "min=4",
				       "max=8",
				       "min=32",
				       "max=1",
				       "sizes=2,4",
				       "grace=0 keep=1 signal=HUP" };
	struct elastic_policy p = policy_of(site_text);

	for (size_t i = 0; i < N(specs); i++) {
		struct elastic_opts a = opts_of(specs[i]), b = a;

		options_apply_defaults(&a, &p, NULL);
		finalize_ok(&b, &p, NULL, NULL);
		assert_same_opts(&a, &b);
		assert_int_equal(a.given, b.given);
	}
}

static void finalize_caps(void **state)
{
	struct elastic_policy p = policy_of("MaxNodes=4");
	struct elastic_policy q = policy_of("MaxNodes=64\n"
					    "UserMaxNodes=alice:8,dave:128\n"
					    "AccountMaxNodes=physics:16\n");
	const struct elastic_submitter alice = { "alice", "physics" };
	const struct elastic_submitter bob = { "bob", "physics" };
	const struct elastic_submitter carol = { "carol", "chem" };
	const struct elastic_submitter dave = { "dave", "chem" };
	struct elastic_opts o;

	o = opts_of("min=1 max=4");
	finalize_ok(&o, &p, NULL, NULL);
	o = opts_of("max=5");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-max=5 is above this site's limit of 4 nodes "
		       "(MaxNodes in elastic.conf)");
	o = opts_of("min=4");
	finalize_ok(&o, &p, NULL, NULL);
	assert_int_equal(o.max, 4);
	o = opts_of("min=5");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-min=5 is above this site's limit of 4 nodes "
		       "(MaxNodes in elastic.conf)");
	o = opts_of("min=5 max=6");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-max=6 is above this site's limit of 4 nodes "
		       "(MaxNodes in elastic.conf)");

	/* user cap > account cap > MaxNodes, each named in the message */
	o = opts_of("max=8");
	finalize_ok(&o, &q, &alice, NULL);
	o = opts_of("max=9");
	finalize_fails(&o, &q, &alice, NULL,
		       "--elastic-max=9 is above this site's limit of 8 nodes "
		       "(UserMaxNodes in elastic.conf)");
	o = opts_of("max=16");
	finalize_ok(&o, &q, &bob, NULL);
	o = opts_of("max=17");
	finalize_fails(&o, &q, &bob, NULL,
		       "--elastic-max=17 is above this site's limit of 16 "
		       "nodes (AccountMaxNodes in elastic.conf)");
	o = opts_of("max=64");
	finalize_ok(&o, &q, &carol, NULL);
	o = opts_of("max=65");
	finalize_fails(&o, &q, &carol, NULL,
		       "--elastic-max=65 is above this site's limit of 64 "
		       "nodes (MaxNodes in elastic.conf)");
	o = opts_of("max=65");
	finalize_fails(&o, &q, NULL, NULL,
		       "--elastic-max=65 is above this site's limit of 64 "
		       "nodes (MaxNodes in elastic.conf)");
	o = opts_of("max=128");
	finalize_ok(&o, &q, &dave, NULL);
	o = opts_of("min=10");
	finalize_fails(&o, &q, &alice, NULL,
		       "--elastic-min=10 is above this site's limit of 8 "
		       "nodes (UserMaxNodes in elastic.conf)");

	/* A default from DefaultMaxNodes above the user's cap is capped,
	 * not blamed on the user. */
	{
		struct elastic_policy r = policy_of("MaxNodes=64\n"
						    "DefaultMinNodes=4\n"
						    "DefaultMaxNodes=32\n"
						    "UserMaxNodes=alice:8,"
						    "bob:2\n");
		const struct elastic_submitter b = { "bob", NULL };

		o = (struct elastic_opts){ 0 };
		finalize_ok(&o, &r, &alice, NULL);
		assert_int_equal(o.min, 4);
		assert_int_equal(o.max, 8);
		o = (struct elastic_opts){ 0 };
		finalize_ok(&o, &r, &b, NULL);
		assert_int_equal(o.min, 2);
		assert_int_equal(o.max, 2);
		o = opts_of("min=3");
		finalize_fails(&o, &r, &b, NULL,
			       "--elastic-min=3 is above this site's limit of "
			       "2 nodes (UserMaxNodes in elastic.conf)");
	}
}

static void finalize_sizes_cap(void **state)
{
	struct elastic_policy p = policy_of("MaxNodes=64");
	struct elastic_opts o;

	o = opts_of("sizes=2,64");
	finalize_ok(&o, &p, NULL, NULL);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 64);
	o = opts_of("sizes=2,4,100");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-sizes: size 100 is above this site's limit "
		       "of 64 nodes (MaxNodes in elastic.conf)");
	o = opts_of("sizes=2,4,100 min=2");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-sizes: size 100 is above this site's limit "
		       "of 64 nodes (MaxNodes in elastic.conf)");
	o = opts_of("sizes=2,4,100 max=100");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-max=100 is above this site's limit of 64 "
		       "nodes (MaxNodes in elastic.conf)");
}

/* Spares: within MaxSpares, their nodes counted with max in the cap;
 * the site's default (3 here) as many as fit. */
static void finalize_spares(void **state)
{
	static const struct {
		const char *spec;
		bool site; /* MaxSpares=4, DefaultSpares=3 */
		unsigned spares, each;
		const char *msg; /* NULL: it passes */
	} cases[] = {
		{ "max=8", false, 0, 1, NULL },
		{ "max=60 step=2 spares=2", false, 2, 2, NULL },
		{ "sizes=8 spares=2", false, 2, 1, NULL },
		{ "max=16 step=4", true, 3, 4, NULL },
		{ "max=56 step=4", true, 2, 4, NULL },
		{ "max=64", true, 0, 1, NULL },
		{ "max=16 spares=0", true, 0, 1, NULL },
		{ "spares=3", false, 0, 0,
		  "--elastic-spares=3 is above this site's limit of 2 "
		  "(MaxSpares in elastic.conf)" },
		{ "max=62 step=2 spares=2", false, 0, 0,
		  "--elastic-spares=2: the spares' 4 nodes beside "
		  "--elastic-max=62 make 66, above this site's limit of 64 "
		  "nodes (MaxNodes in elastic.conf)" },
		{ "sizes=8,32,56 spares=1", true, 0, 0,
		  "--elastic-spares=1: the spares' 24 nodes beside "
		  "--elastic-max=56 make 80, above this site's limit of 64 "
		  "nodes (MaxNodes in elastic.conf)" },
	};
	struct elastic_policy p;
	struct elastic_policy q = policy_of("MaxSpares=4\nDefaultSpares=3\n");

	(void)state;
	policy_defaults(&p);
	for (size_t i = 0; i < N(cases); i++) {
		struct elastic_opts o = opts_of(cases[i].spec);
		const struct elastic_policy *pol = cases[i].site ? &q : &p;

		if (cases[i].msg) {
			finalize_fails(&o, pol, NULL, NULL, cases[i].msg);
			continue;
		}
		finalize_ok(&o, pol, NULL, NULL);
		assert_int_equal(o.spares, cases[i].spares);
		assert_int_equal(options_spare_nodes(&o), cases[i].each);
	}
}

static void finalize_grace_keep(void **state)
{
	struct elastic_policy p;
	struct elastic_policy q = policy_of("MaxGrace=0\nDefaultGrace=0\n"
					    "MaxKeep=1\nDefaultKeep=1\n");
	struct elastic_opts o;

	policy_defaults(&p);
	o = opts_of("grace=3600 keep=100");
	finalize_ok(&o, &p, NULL, NULL);
	o = opts_of("grace=3601");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-grace=3601 is above this site's limit of "
		       "3600 seconds (MaxGrace in elastic.conf)");
	o = opts_of("keep=101");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-keep=101 is above this site's limit of 100 "
		       "(MaxKeep in elastic.conf)");
	o = opts_of("grace=0 keep=1");
	finalize_ok(&o, &q, NULL, NULL);
	o = opts_of("grace=1");
	finalize_fails(&o, &q, NULL, NULL,
		       "--elastic-grace=1 is above this site's limit of 0 "
		       "seconds (MaxGrace in elastic.conf)");
	o = opts_of("keep=2");
	finalize_fails(&o, &q, NULL, NULL,
		       "--elastic-keep=2 is above this site's limit of 1 "
		       "(MaxKeep in elastic.conf)");
}

/* The site's default when not given; a floor for what is given, and 0
 * (no heartbeats) always allowed. */
static void finalize_heartbeat(void **state)
{
	struct elastic_policy p;
	struct elastic_policy q = policy_of("DefaultHeartbeatTimeout=20\n"
					    "MinHeartbeatTimeout=10\n");
	struct elastic_opts o;

	policy_defaults(&p);
	o = opts_of("min=1");
	finalize_ok(&o, &p, NULL, NULL);
	assert_int_equal(o.heartbeat_timeout, 5);
	finalize_ok(&o, &q, NULL, NULL);
	assert_int_equal(o.heartbeat_timeout, 20);
	o = opts_of("heartbeat-timeout=2");
	finalize_ok(&o, &p, NULL, NULL);
	assert_int_equal(o.heartbeat_timeout, 2);
	finalize_fails(&o, &q, NULL, NULL,
		       "--elastic-heartbeat-timeout=2 is below this site's "
		       "floor of 10 seconds (MinHeartbeatTimeout in "
		       "elastic.conf)");
	o = opts_of("heartbeat-timeout=0");
	finalize_ok(&o, &q, NULL, NULL);
	assert_int_equal(o.heartbeat_timeout, 0);
}

static void finalize_ondemand(void **state)
{
	struct elastic_policy off;
	struct elastic_policy all = policy_of("OnDemand=yes");
	struct elastic_policy users =
	    policy_of("OnDemand=yes\nOnDemandUsers=alice");
	struct elastic_policy accounts =
	    policy_of("OnDemand=yes\nOnDemandAccounts=physics");
	const struct elastic_submitter alice = { "alice", "chem" };
	const struct elastic_submitter bob = { "bob", "physics" };
	const struct elastic_submitter bob_chem = { "bob", "chem" };
	const struct elastic_submitter nobody = { NULL, NULL };
	struct elastic_opts o;

	policy_defaults(&off);
	o = opts_of("ondemand=never");
	finalize_ok(&o, &off, NULL, NULL);
	o = opts_of("ondemand=below-min");
	finalize_fails(&o, &off, &alice, NULL,
		       "--elastic-ondemand=below-min: this site does not allow "
		       "on-demand fallback (OnDemand in elastic.conf)");
	o = opts_of("ondemand=always");
	finalize_fails(&o, &off, &alice, NULL,
		       "--elastic-ondemand=always: this site does not allow "
		       "on-demand fallback (OnDemand in elastic.conf)");

	/* No lists: everyone. */
	o = opts_of("ondemand=always");
	finalize_ok(&o, &all, NULL, NULL);
	o = opts_of("ondemand=always");
	finalize_ok(&o, &all, &bob, NULL);

	/* A user list. */
	o = opts_of("ondemand=always");
	finalize_ok(&o, &users, &alice, NULL);
	finalize_fails(&o, &users, &bob, NULL,
		       "--elastic-ondemand=always: not allowed for user bob "
		       "account physics (OnDemandUsers, OnDemandAccounts in "
		       "elastic.conf)");
	finalize_fails(&o, &users, NULL, NULL,
		       "--elastic-ondemand=always: not allowed for user ? "
		       "account (default) (OnDemandUsers, OnDemandAccounts in "
		       "elastic.conf)");
	finalize_fails(&o, &users, &nobody, NULL,
		       "--elastic-ondemand=always: not allowed for user ? "
		       "account (default) (OnDemandUsers, OnDemandAccounts in "
		       "elastic.conf)");
	o = opts_of("ondemand=never");
	finalize_ok(&o, &users, &bob, NULL);

	/* An account list. */
	o = opts_of("ondemand=below-min");
	finalize_ok(&o, &accounts, &bob, NULL);
	finalize_fails(&o, &accounts, &bob_chem, NULL,
		       "--elastic-ondemand=below-min: not allowed for user bob "
		       "account chem (OnDemandUsers, OnDemandAccounts in "
		       "elastic.conf)");
}

/* The site's default on-demand mode applies to whom it is allowed; for
 * others the default is never, and their job is accepted. */
static void finalize_ondemand_default(void **state)
{
	struct elastic_policy p = policy_of("OnDemand=yes\n"
					    "DefaultOnDemand=below-min\n"
					    "OnDemandUsers=alice\n");
	struct elastic_policy everyone = policy_of("OnDemand=yes\n"
						   "DefaultOnDemand=always\n");
	const struct elastic_submitter alice = { "alice", "chem" };
	const struct elastic_submitter bob = { "bob", "chem" };
	struct elastic_opts o;

	o = (struct elastic_opts){ 0 };
	finalize_ok(&o, &p, &alice, NULL);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_BELOW_MIN);
	o = (struct elastic_opts){ 0 };
	finalize_ok(&o, &p, &bob, NULL);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_NEVER);
	o = (struct elastic_opts){ 0 };
	options_apply_defaults(&o, &p, &bob);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_NEVER);
	o = (struct elastic_opts){ 0 };
	finalize_ok(&o, &everyone, &bob, NULL);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_ALWAYS);
	/* Asking for it is still refused. */
	o = opts_of("ondemand=below-min");
	finalize_fails(&o, &p, &bob, NULL,
		       "--elastic-ondemand=below-min: not allowed for user bob "
		       "account chem (OnDemandUsers, OnDemandAccounts in "
		       "elastic.conf)");
}

static void finalize_relations(void **state)
{
	struct elastic_policy p = policy_of("DefaultStep=2");
	struct size_config sc = sizeconf_of("default A=1;4 B=2");
	struct size_config odd = sizeconf_of("3 B=2");
	struct elastic_opts o;

	o = opts_of("min=5 max=2");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-min=5 is greater than --elastic-max=2 (need "
		       "--elastic-min <= --elastic-max)");
	o = opts_of("step=2 sizes=2,4");
	finalize_fails(&o, &p, NULL, NULL,
		       "--elastic-step and --elastic-sizes cannot be used "
		       "together");
	o = opts_of("min=2 max=8");
	finalize_ok(&o, &p, NULL, &sc);
	assert_int_equal(o.step, 2);
	/* Only the policy's step shows that 3 is not a size of 2..8. */
	o = opts_of("min=2 max=8");
	finalize_fails(&o, &p, NULL, &odd,
		       "--elastic-size-config: size 3 is not a size this job "
		       "can take (between --elastic-min=2 and "
		       "--elastic-max=8, on --elastic-step=2)");
	o = opts_of("min=2");
	finalize_fails(&o, &p, NULL, &odd,
		       "--elastic-size-config: size 3 is not a size this job "
		       "can take (between --elastic-min=2 and "
		       "--elastic-max=64, on --elastic-step=2)");
	o = opts_of("min=1 max=8");
	finalize_ok(&o, &p, NULL, &odd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(node_cap),
		cmocka_unit_test(apply_builtin_defaults),
		cmocka_unit_test(apply_site_defaults),
		cmocka_unit_test(apply_given_wins),
		cmocka_unit_test(apply_never_contradicts),
		cmocka_unit_test(apply_caps),
		cmocka_unit_test(finalize_defaults),
		cmocka_unit_test(finalize_caps),
		cmocka_unit_test(finalize_sizes_cap),
		cmocka_unit_test(finalize_spares),
		cmocka_unit_test(finalize_grace_keep),
		cmocka_unit_test(finalize_heartbeat),
		cmocka_unit_test(finalize_ondemand),
		cmocka_unit_test(finalize_ondemand_default),
		cmocka_unit_test(finalize_relations),
	};
	return cmocka_run_group_tests_name("options_caps", tests, NULL, NULL);
}
