/* Unit tests of options.c, one option at a time: each option's name,
 * what it allows and its lookup by either spelling; options_set with
 * every kind of value, good and bad, and the messages a user sees; and
 * the given bits.  The relations among options are test_options_check's,
 * the site's defaults and caps test_options_caps', the env and the
 * AdminComment tag test_options_tag's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "options_fixture.h"

static const struct {
	enum elastic_opt_id id;
	const char *name;
	const char *allowed;
} all_options[] = {
	{ ELASTIC_OPT_MIN, "elastic-min", "a node count from 1 to 65535" },
	{ ELASTIC_OPT_MAX, "elastic-max", "a node count from 1 to 65535" },
	{ ELASTIC_OPT_STEP, "elastic-step", "a node count from 1 to 65535" },
	{ ELASTIC_OPT_SIZES, "elastic-sizes",
	  "strictly increasing node counts, e.g. 1,2,4" },
	{ ELASTIC_OPT_GRACE, "elastic-grace", "seconds, 0 to 86400" },
	{ ELASTIC_OPT_SCALE_DELAY, "elastic-scale-delay",
	  "seconds, 0 to 86400" },
	{ ELASTIC_OPT_FAULT_TIMEOUT, "elastic-fault-timeout",
	  "seconds, 0 to 86400" },
	{ ELASTIC_OPT_ONDEMAND, "elastic-ondemand",
	  "never, below-min, always" },
	{ ELASTIC_OPT_SIGNAL, "elastic-signal",
	  "URG, WINCH, USR1, USR2, HUP, INT, TERM" },
	{ ELASTIC_OPT_CHECKPOINT_DIR, "elastic-checkpoint-dir",
	  "an absolute path; %j %u %h expand" },
	{ ELASTIC_OPT_KEEP, "elastic-keep", "a count from 1 to 1000" },
	{ ELASTIC_OPT_SIZE_CONFIG, "elastic-size-config",
	  "a readable file of per-size settings" },
	{ ELASTIC_OPT_RESUME_FROM, "elastic-resume-from",
	  "JOBID, JOBID@STEP, PATH, PATH@STEP (PATH absolute)" },
	{ ELASTIC_OPT_EVAL, "elastic-eval",
	  "a command line of up to 1024 characters" },
	{ ELASTIC_OPT_HEARTBEAT_TIMEOUT, "elastic-heartbeat-timeout",
	  "seconds, 2 to 3600, or 0 for none" },
	{ ELASTIC_OPT_HANG_TIMEOUT, "elastic-hang-timeout",
	  "seconds, 10 to 86400, or 0 for ten median steps (at least 60)" },
	{ ELASTIC_OPT_STRAGGLERS, "elastic-stragglers",
	  "report, evict or off" },
	{ ELASTIC_OPT_SPARES, "elastic-spares",
	  "a count of units from 0 to 64" },
};

/* options_set(id, value) must fail with msg, leaving o untouched. */
static void set_fails(enum elastic_opt_id id, const char *value,
		      const char *msg)
{
	struct elastic_opts o, before;
	elastic_error_t err = { "" };
	int rc;

	memset(&o, 0xa5, sizeof(o));
	o.given = 0;
	memcpy(&before, &o, sizeof(o));
	rc = options_set(&o, id, value, &err);
	if (rc != -1)
		fail_msg("options_set(%d, \"%s\") = %d, want -1", id, value,
			 rc);
	assert_string_equal(err.text, msg);
	assert_memory_equal(&o, &before, sizeof(o));
	if ((unsigned)id < ELASTIC_OPT_COUNT)
		assert_false(options_given(&o, id));
	assert_false(options_any(&o));
}

/* The message for a value refused with why. */
static const char *bad_msg(enum elastic_opt_id id, const char *value,
			   const char *why)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf), "--%s=%s: %s (allowed: %s)",
		 options_name(id), value, why, options_allowed(id));
	return buf;
}

/* options_name, options_allowed, options_lookup */

static void names_and_allowed(void **state)
{
	assert_int_equal(N(all_options), ELASTIC_OPT_COUNT);
	for (size_t i = 0; i < N(all_options); i++) {
		assert_string_equal(options_name(all_options[i].id),
				    all_options[i].name);
		assert_string_equal(options_allowed(all_options[i].id),
				    all_options[i].allowed);
	}
	assert_null(options_name(ELASTIC_OPT_COUNT));
	assert_null(options_name((enum elastic_opt_id) - 1));
	assert_null(options_allowed(ELASTIC_OPT_COUNT));
	assert_null(options_allowed((enum elastic_opt_id) - 1));
}

static void lookup(void **state)
{
	static const char *bad[] = {
		"",
		"elastic-mi",
		"elastic-minx",
		"min",
		"Elastic-min",
		"ELASTIC_MIN",
		"elastic",
		"elastic-",
		"-elastic-min",
		"elastic--min",
		"elastic-min ",
	};

	for (size_t i = 0; i < N(all_options); i++) {
		char under[64];

		assert_int_equal(options_lookup(all_options[i].name),
				 all_options[i].id);
		/* Slurm's env names have '_' for '-'. */
		strcpy(under, all_options[i].name);
		for (char *c = under; *c; c++)
			if (*c == '-')
				*c = '_';
		assert_int_equal(options_lookup(under), all_options[i].id);
	}
	assert_int_equal(options_lookup("elastic_scale-delay"),
			 ELASTIC_OPT_SCALE_DELAY);
	for (size_t i = 0; i < N(bad); i++)
		assert_int_equal(options_lookup(bad[i]), -1);
}

/* options_set */

static const struct {
	enum elastic_opt_id id;
	size_t off;
	unsigned long lo, hi;
} uint_options[] = {
	{ ELASTIC_OPT_MIN, offsetof(struct elastic_opts, min), 1, 65535 },
	{ ELASTIC_OPT_MAX, offsetof(struct elastic_opts, max), 1, 65535 },
	{ ELASTIC_OPT_STEP, offsetof(struct elastic_opts, step), 1, 65535 },
	{ ELASTIC_OPT_GRACE, offsetof(struct elastic_opts, grace), 0, 86400 },
	{ ELASTIC_OPT_SCALE_DELAY, offsetof(struct elastic_opts, scale_delay),
	  0, 86400 },
	{ ELASTIC_OPT_FAULT_TIMEOUT,
	  offsetof(struct elastic_opts, fault_timeout), 0, 86400 },
	{ ELASTIC_OPT_KEEP, offsetof(struct elastic_opts, keep), 1, 1000 },
	{ ELASTIC_OPT_SPARES, offsetof(struct elastic_opts, spares), 0, 64 },
};

static void set_uint_good(void **state)
{
	for (size_t i = 0; i < N(uint_options); i++) {
		const unsigned long v[] = { uint_options[i].lo,
					    uint_options[i].hi,
					    uint_options[i].lo + 1 };

		for (size_t j = 0; j < N(v); j++) {
			struct elastic_opts o = { 0 };
			elastic_error_t err = { "" };
			char val[32];

			snprintf(val, sizeof(val), "%lu", v[j]);
			assert_int_equal(
			    options_set(&o, uint_options[i].id, val, &err), 0);
			assert_int_equal(
			    *(unsigned *)((char *)&o + uint_options[i].off),
			    v[j]);
			assert_int_equal(o.given, BIT(uint_options[i].id));
			assert_true(options_any(&o));
		}
	}
	/* Leading zeros are still decimal. */
	{
		struct elastic_opts o = opts_of("min=010");

		assert_int_equal(o.min, 10);
	}
}

static void set_uint_bad(void **state)
{
	for (size_t i = 0; i < N(uint_options); i++) {
		enum elastic_opt_id id = uint_options[i].id;
		char below[32], above[32];
		const struct {
			const char *val;
			const char *why;
		} cases[] = {
			{ "", "empty value" },
			{ "two", "not a whole number" },
			{ "-2", "not a whole number" },
			{ "+2", "not a whole number" },
			{ " 2", "not a whole number" },
			{ "2 ", "not a whole number" },
			{ "2s", "not a whole number" },
			{ "0x2", "not a whole number" },
			{ "2.0", "not a whole number" },
			{ "4294967297", "out of range" },
			{ "99999999999999999999999999", "out of range" },
			{ above, "out of range" },
			{ uint_options[i].lo ? below : NULL, "out of range" },
		};

		snprintf(below, sizeof(below), "%lu", uint_options[i].lo - 1);
		snprintf(above, sizeof(above), "%lu", uint_options[i].hi + 1);
		for (size_t j = 0; j < N(cases) && cases[j].val; j++)
			set_fails(id, cases[j].val,
				  bad_msg(id, cases[j].val, cases[j].why));
	}
	/* Representative messages in full: they are user-facing. */
	set_fails(ELASTIC_OPT_MIN, "0",
		  "--elastic-min=0: out of range (allowed: a node count from "
		  "1 to 65535)");
	set_fails(ELASTIC_OPT_MAX, "4 ",
		  "--elastic-max=4 : not a whole number (allowed: a node "
		  "count from 1 to 65535)");
	set_fails(ELASTIC_OPT_GRACE, "86401",
		  "--elastic-grace=86401: out of range (allowed: seconds, 0 "
		  "to 86400)");
	set_fails(ELASTIC_OPT_SCALE_DELAY, "",
		  "--elastic-scale-delay=: empty value (allowed: seconds, 0 "
		  "to 86400)");
	set_fails(ELASTIC_OPT_FAULT_TIMEOUT, "1m",
		  "--elastic-fault-timeout=1m: not a whole number (allowed: "
		  "seconds, 0 to 86400)");
	set_fails(ELASTIC_OPT_KEEP, "0",
		  "--elastic-keep=0: out of range (allowed: a count from 1 to "
		  "1000)");
	set_fails(ELASTIC_OPT_STEP, "-1",
		  "--elastic-step=-1: not a whole number (allowed: a node "
		  "count from 1 to 65535)");
}

static void set_sizes_good(void **state)
{
	struct elastic_opts o;

	o = opts_of("sizes=1,2,4");
	assert_int_equal(o.nsizes, 3);
	assert_int_equal(o.sizes[0], 1);
	assert_int_equal(o.sizes[1], 2);
	assert_int_equal(o.sizes[2], 4);
	assert_int_equal(o.given, BIT(ELASTIC_OPT_SIZES));

	o = opts_of("sizes=65535");
	assert_int_equal(o.nsizes, 1);
	assert_int_equal(o.sizes[0], 65535);

	o = opts_of("sizes=1,65535");
	assert_int_equal(o.nsizes, 2);

	/* Exactly ELASTIC_MAX_SIZES entries. */
	{
		char spec[1100];

		snprintf(spec, sizeof(spec), "sizes=%s",
			 sizes_list(65535 - 63, 64));
		o = opts_of(spec);
		assert_int_equal(o.nsizes, ELASTIC_MAX_SIZES);
		assert_int_equal(o.sizes[0], 65472);
		assert_int_equal(o.sizes[63], 65535);
	}

	/* Given again, the later list replaces the earlier. */
	o = opts_of("sizes=1,2,3,4,5 sizes=8,16");
	assert_int_equal(o.nsizes, 2);
	assert_int_equal(o.sizes[0], 8);
	assert_int_equal(o.sizes[1], 16);
	/* Nothing stale (or uninitialised) is left past the last size. */
	for (unsigned i = 2; i < ELASTIC_MAX_SIZES; i++)
		assert_int_equal(o.sizes[i], 0);
}

static void set_sizes_bad(void **state)
{
	const enum elastic_opt_id id = ELASTIC_OPT_SIZES;
	static const struct {
		const char *val;
		const char *why;
	} cases[] = {
		{ "", "empty value" },
		{ "1,,2", "empty entry" },
		{ ",1", "empty entry" },
		{ "1,2,", "empty entry" },
		{ ",", "empty entry" },
		{ "2,1", "not strictly increasing" },
		{ "1,1", "not strictly increasing" },
		{ "1,4,3", "not strictly increasing" },
		{ "0,1", "out of range" },
		{ "1,65536", "out of range" },
		{ "1,99999999999999999999", "out of range" },
		{ "1,4294967297", "out of range" },
		{ "1,x", "not a whole number" },
		{ "1,-2", "not a whole number" },
		{ "1, 2", "not a whole number" },
		{ "1;2", "not a whole number" },
		{ "1-4", "not a whole number" },
	};

	for (size_t i = 0; i < N(cases); i++)
		set_fails(id, cases[i].val,
			  bad_msg(id, cases[i].val, cases[i].why));

	set_fails(id, "1,,2",
		  "--elastic-sizes=1,,2: empty entry (allowed: strictly "
		  "increasing node counts, e.g. 1,2,4)");
	set_fails(id, "4,2",
		  "--elastic-sizes=4,2: not strictly increasing (allowed: "
		  "strictly increasing node counts, e.g. 1,2,4)");

	/* 65 entries: one too many. */
	{
		char val[1024];

		strcpy(val, sizes_list(1, 65));
		set_fails(id, val, bad_msg(id, val, "more than 64 sizes"));
	}
}

static void set_ondemand(void **state)
{
	const enum elastic_opt_id id = ELASTIC_OPT_ONDEMAND;
	struct elastic_opts o;

	o = opts_of("ondemand=never");
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_NEVER);
	assert_int_equal(o.given, BIT(id));
	o = opts_of("ondemand=below-min");
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_BELOW_MIN);
	o = opts_of("ondemand=always");
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_ALWAYS);

	set_fails(id, "",
		  "--elastic-ondemand=: empty value (allowed: never, "
		  "below-min, always)");
	set_fails(id, "sometimes",
		  "--elastic-ondemand=sometimes: not valid (allowed: never, "
		  "below-min, always)");
	set_fails(id, "below_min", bad_msg(id, "below_min", "not valid"));
	set_fails(id, "yes", bad_msg(id, "yes", "not valid"));
}

static void set_signal(void **state)
{
	const enum elastic_opt_id id = ELASTIC_OPT_SIGNAL;
	static const struct {
		const char *val;
		int sig;
	} good[] = {
		{ "URG", SIGURG },	{ "winch", SIGWINCH },
		{ "SIGUSR1", SIGUSR1 }, { "usr2", SIGUSR2 },
		{ "SigHup", SIGHUP },	{ "INT", SIGINT },
		{ "sigterm", SIGTERM },
	};

	for (size_t i = 0; i < N(good); i++) {
		struct elastic_opts o = { 0 };
		elastic_error_t err = { "" };

		assert_int_equal(options_set(&o, id, good[i].val, &err), 0);
		assert_int_equal(o.signal, good[i].sig);
		assert_int_equal(o.given, BIT(id));
	}
	set_fails(id, "",
		  "--elastic-signal=: empty value (allowed: URG, "
		  "WINCH, USR1, USR2, HUP, INT, TERM)");
	set_fails(id, "KILL",
		  "--elastic-signal=KILL: not valid (allowed: "
		  "URG, WINCH, USR1, USR2, HUP, INT, TERM)");
	set_fails(id, "9", bad_msg(id, "9", "not valid"));
	set_fails(id, "SIGSTOP", bad_msg(id, "SIGSTOP", "not valid"));
}

static void set_checkpoint_dir(void **state)
{
	const enum elastic_opt_id id = ELASTIC_OPT_CHECKPOINT_DIR;
	static const char *good[] = { "/ck", "/scratch/%u/ck/%j", "%h/ck",
				      "/a b/100%%" };
	char path[ELASTIC_PATH_MAX + 2];

	for (size_t i = 0; i < N(good); i++) {
		struct elastic_opts o = { 0 };
		elastic_error_t err = { "" };

		assert_int_equal(options_set(&o, id, good[i], &err), 0);
		assert_string_equal(o.checkpoint_dir, good[i]);
		assert_int_equal(o.given, BIT(id));
	}
	set_fails(id, "", "--elastic-checkpoint-dir: empty path");
	set_fails(id, "ck/%j",
		  "--elastic-checkpoint-dir=ck/%j: must be an absolute path "
		  "or start with %h (home directory)");
	set_fails(id, "/ck/%x",
		  "--elastic-checkpoint-dir=/ck/%x: unknown %x (allowed: %j "
		  "job id, %u user, %h home, %%)");
	set_fails(id, "/ck\n/x",
		  "--elastic-checkpoint-dir: control character in path");

	/* 1024 characters fit, 1025 do not. */
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[ELASTIC_PATH_MAX] = '\0';
	{
		struct elastic_opts o = { 0 };
		elastic_error_t err = { "" };

		assert_int_equal(options_set(&o, id, path, &err), 0);
		assert_string_equal(o.checkpoint_dir, path);
	}
	path[ELASTIC_PATH_MAX] = 'a';
	path[ELASTIC_PATH_MAX + 1] = '\0';
	set_fails(id, path,
		  "--elastic-checkpoint-dir: value longer than 1024 "
		  "characters");
}

static void set_size_config(void **state)
{
	const enum elastic_opt_id id = ELASTIC_OPT_SIZE_CONFIG;
	char path[ELASTIC_PATH_MAX + 2];
	struct elastic_opts o;

	o = opts_of("size-config=sizes.conf");
	assert_string_equal(o.size_config_path, "sizes.conf");
	assert_int_equal(o.given, BIT(id));
	set_fails(id, "",
		  "--elastic-size-config=: empty value (allowed: a "
		  "readable file of per-size settings)");

	/* The path field holds 1024 characters: 1025 are refused, not
	 * written one byte past it. */
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	path[ELASTIC_PATH_MAX] = '\0';
	{
		elastic_error_t err = { "" };

		memset(&o, 0, sizeof(o));
		assert_int_equal(options_set(&o, id, path, &err), 0);
		assert_string_equal(o.size_config_path, path);
	}
	path[ELASTIC_PATH_MAX] = 'a';
	path[ELASTIC_PATH_MAX + 1] = '\0';
	set_fails(id, path,
		  "--elastic-size-config: value longer than 1024 characters");
}

/* Every option refuses a value longer than the longest path. */
/* --elastic-resume-from: the syntax only (ckpt.c resolves it). */
static void set_resume_from(void **state)
{
	static const char *const good[] = {
		"123",
		"123@50",
		"/scratch/ck/123",
		"/scratch/ck@v2/123@7",
		"/ck/ckpt-40.pt",
	};
	struct elastic_opts o;
	elastic_error_t err = { "" };

	for (size_t i = 0; i < N(good); i++) {
		o = (struct elastic_opts){ 0 };
		if (options_set(&o, ELASTIC_OPT_RESUME_FROM, good[i], &err))
			fail_msg("%s: %s", good[i], err.text);
		assert_string_equal(o.resume_from, good[i]);
		assert_true(options_given(&o, ELASTIC_OPT_RESUME_FROM));
	}
	set_fails(ELASTIC_OPT_RESUME_FROM, "",
		  bad_msg(ELASTIC_OPT_RESUME_FROM, "", "empty value"));
	set_fails(ELASTIC_OPT_RESUME_FROM, "ck/1",
		  bad_msg(ELASTIC_OPT_RESUME_FROM, "ck/1",
			  "not a job id nor an absolute path"));
	set_fails(ELASTIC_OPT_RESUME_FROM, "123@x",
		  bad_msg(ELASTIC_OPT_RESUME_FROM, "123@x",
			  "a step after '@' is a whole number"));
	set_fails(ELASTIC_OPT_RESUME_FROM, "/a\tb",
		  "--elastic-resume-from: control character in value");
}

static void set_eval(void **state)
{
	struct elastic_opts o = { 0 };
	elastic_error_t err = { "" };

	assert_int_equal(options_set(&o, ELASTIC_OPT_EVAL,
				     "python3 eval.py --ckpt \"$X\" 100%",
				     &err),
			 0);
	assert_string_equal(o.eval_cmd, "python3 eval.py --ckpt \"$X\" 100%");
	assert_true(options_given(&o, ELASTIC_OPT_EVAL));
	set_fails(ELASTIC_OPT_EVAL, "",
		  "--elastic-eval=: empty value (allowed: a command line)");
	set_fails(ELASTIC_OPT_EVAL, "a\nb",
		  "--elastic-eval: newline in the command (allowed: one "
		  "line)");
}

/* 0 is off; 1 would take a loaded node for a lost one. */
static void set_heartbeat(void **state)
{
	struct elastic_opts o = { 0 };
	elastic_error_t err;

	(void)state;
	assert_int_equal(options_set(&o, ELASTIC_OPT_HEARTBEAT_TIMEOUT, "0",
				     &err),
			 0);
	assert_int_equal(o.heartbeat_timeout, 0);
	assert_true(options_given(&o, ELASTIC_OPT_HEARTBEAT_TIMEOUT));
	assert_int_equal(options_set(&o, ELASTIC_OPT_HEARTBEAT_TIMEOUT, "2",
				     &err),
			 0);
	assert_int_equal(o.heartbeat_timeout, 2);
	assert_int_equal(options_set(&o, ELASTIC_OPT_HEARTBEAT_TIMEOUT, "3600",
				     &err),
			 0);
	assert_int_equal(o.heartbeat_timeout, 3600);
	set_fails(ELASTIC_OPT_HEARTBEAT_TIMEOUT, "1",
		  "--elastic-heartbeat-timeout=1: too short (allowed: "
		  "seconds, 2 to 3600, or 0 for none)");
	set_fails(ELASTIC_OPT_HEARTBEAT_TIMEOUT, "3601",
		  "--elastic-heartbeat-timeout=3601: out of range (allowed: "
		  "seconds, 2 to 3600, or 0 for none)");
	assert_int_equal(options_set(&o, ELASTIC_OPT_HANG_TIMEOUT, "0", &err),
			 0);
	assert_int_equal(options_set(&o, ELASTIC_OPT_HANG_TIMEOUT, "10", &err),
			 0);
	assert_int_equal(o.hang_timeout, 10);
	set_fails(ELASTIC_OPT_HANG_TIMEOUT, "9",
		  "--elastic-hang-timeout=9: too short (allowed: seconds, 10 "
		  "to 86400, or 0 for ten median steps (at least 60))");
	assert_int_equal(options_set(&o, ELASTIC_OPT_STRAGGLERS, "evict",
				     &err),
			 0);
	assert_int_equal(o.stragglers, POLICY_STRAGGLERS_EVICT);
	assert_int_equal(options_set(&o, ELASTIC_OPT_STRAGGLERS, "off", &err),
			 0);
	assert_int_equal(o.stragglers, POLICY_STRAGGLERS_OFF);
	set_fails(ELASTIC_OPT_STRAGGLERS, "kill",
		  "--elastic-stragglers=kill: not valid (allowed: report, "
		  "evict or off)");
	set_fails(ELASTIC_OPT_HEARTBEAT_TIMEOUT, "5s",
		  "--elastic-heartbeat-timeout=5s: not a whole number "
		  "(allowed: seconds, 2 to 3600, or 0 for none)");
}

static void set_too_long(void **state)
{
	char val[ELASTIC_PATH_MAX + 2];

	memset(val, '1', sizeof(val) - 1);
	val[sizeof(val) - 1] = '\0';
	for (size_t i = 0; i < N(all_options); i++) {
		char msg[128];

		snprintf(msg, sizeof(msg),
			 "--%s: value longer than 1024 characters",
			 all_options[i].name);
		set_fails(all_options[i].id, val, msg);
	}
}

static void set_unknown_id(void **state)
{
	set_fails(ELASTIC_OPT_COUNT, "1", "unknown elastic option #18");
	set_fails((enum elastic_opt_id) - 1, "1", "unknown elastic option #-1");
}

/* given: one bit per option, set only on success. */
static void given_bits(void **state)
{
	struct elastic_opts o = { 0 };
	elastic_error_t err = { "" };

	assert_false(options_any(&o));
	assert_int_equal(options_set(&o, ELASTIC_OPT_MAX, "x", &err), -1);
	assert_false(options_any(&o));
	assert_int_equal(options_set(&o, ELASTIC_OPT_GRACE, "0", &err), 0);
	assert_true(options_any(&o));
	assert_true(options_given(&o, ELASTIC_OPT_GRACE));
	assert_false(options_given(&o, ELASTIC_OPT_MAX));
	/* A failure later leaves the earlier value and bit alone. */
	assert_int_equal(options_set(&o, ELASTIC_OPT_GRACE, "x", &err), -1);
	assert_int_equal(o.grace, 0);
	assert_true(options_given(&o, ELASTIC_OPT_GRACE));

	o = opts_of("min=1 max=2 step=1 grace=1 scale-delay=1 fault-timeout=1 "
		    "ondemand=never signal=URG checkpoint-dir=/c keep=1 "
		    "size-config=f resume-from=12@3 eval=true "
		    "heartbeat-timeout=3 hang-timeout=30 stragglers=off "
		    "spares=0");
	assert_int_equal(o.given, (BIT(ELASTIC_OPT_COUNT) - 1) &
				      ~BIT(ELASTIC_OPT_SIZES));
	o = opts_of("sizes=1");
	assert_int_equal(o.given, BIT(ELASTIC_OPT_SIZES));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_allowed),
		cmocka_unit_test(lookup),
		cmocka_unit_test(set_uint_good),
		cmocka_unit_test(set_uint_bad),
		cmocka_unit_test(set_sizes_good),
		cmocka_unit_test(set_sizes_bad),
		cmocka_unit_test(set_ondemand),
		cmocka_unit_test(set_signal),
		cmocka_unit_test(set_checkpoint_dir),
		cmocka_unit_test(set_size_config),
		cmocka_unit_test(set_resume_from),
		cmocka_unit_test(set_eval),
		cmocka_unit_test(set_heartbeat),
		cmocka_unit_test(set_too_long),
		cmocka_unit_test(set_unknown_id),
		cmocka_unit_test(given_bits),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
