/* Unit tests of options.c: a job's options, the site's defaults and caps,
 * the env Slurm forwards, the AdminComment tag. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/options.h"

#define N(a)   (sizeof(a) / sizeof((a)[0]))
#define BIT(o) (1u << (o))

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
};

/*
 * Options from "min=2 max=8 checkpoint-dir=/ck": each word is an option
 * name without "elastic-", set with options_set().
 */
static struct elastic_opts opts_of(const char *spec)
{
	struct elastic_opts o = { 0 };
	char buf[8192], *save = NULL, *w;

	assert_true(strlen(spec) < sizeof(buf));
	strcpy(buf, spec);
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char name[64];
		char *eq = strchr(w, '=');
		elastic_error_t err = { "" };
		int id;

		assert_non_null(eq);
		*eq = '\0';
		snprintf(name, sizeof(name), "elastic-%s", w);
		id = options_lookup(name);
		if (id < 0)
			fail_msg("no option %s", name);
		if (options_set(&o, id, eq + 1, &err) != 0)
			fail_msg("options_set(%s, %s): %s", name, eq + 1,
				 err.text);
	}
	return o;
}

/* A policy from elastic.conf text. */
static struct elastic_policy policy_of(const char *text)
{
	struct elastic_policy p;
	elastic_error_t err = { "" };

	if (policy_parse(&p, text, "e.conf", &err) != 0)
		fail_msg("policy_parse: %s", err.text);
	return p;
}

static struct size_config sizeconf_of(const char *text)
{
	struct size_config sc;
	elastic_error_t err = { "" };

	if (sizeconf_parse(&sc, text, "s.conf", &err) != 0)
		fail_msg("sizeconf_parse: %s", err.text);
	return sc;
}

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

/* Everything a finalized option set holds, field by field. */
static void assert_same_opts(const struct elastic_opts *a,
			     const struct elastic_opts *b)
{
	assert_int_equal(a->min, b->min);
	assert_int_equal(a->max, b->max);
	assert_int_equal(a->step, b->step);
	assert_int_equal(a->nsizes, b->nsizes);
	for (unsigned i = 0; i < a->nsizes; i++)
		assert_int_equal(a->sizes[i], b->sizes[i]);
	assert_int_equal(a->grace, b->grace);
	assert_int_equal(a->scale_delay, b->scale_delay);
	assert_int_equal(a->fault_timeout, b->fault_timeout);
	assert_int_equal(a->ondemand, b->ondemand);
	assert_int_equal(a->signal, b->signal);
	assert_int_equal(a->keep, b->keep);
	assert_string_equal(a->checkpoint_dir, b->checkpoint_dir);
	assert_string_equal(a->resume_from, b->resume_from);
	assert_string_equal(a->eval_cmd, b->eval_cmd);
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

/* A comma list of n sizes first, first+1, ..., in a static buffer. */
static const char *sizes_list(unsigned first, unsigned n)
{
	static char buf[1024];
	size_t j = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++)
		j += snprintf(buf + j, sizeof(buf) - j, "%s%u", i ? "," : "",
			      first + i);
	return buf;
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
	set_fails(ELASTIC_OPT_COUNT, "1", "unknown elastic option #14");
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
		    "size-config=f resume-from=12@3 eval=true");
	assert_int_equal(o.given, (BIT(ELASTIC_OPT_COUNT) - 1) &
				      ~BIT(ELASTIC_OPT_SIZES));
	o = opts_of("sizes=1");
	assert_int_equal(o.given, BIT(ELASTIC_OPT_SIZES));
}

/* options_check: relations among what the user gave */

static void check_fails(const struct elastic_opts *o,
			const struct size_config *sc, const char *msg)
{
	elastic_error_t err = { "" };

	assert_int_equal(options_check(o, sc, &err), -1);
	assert_string_equal(err.text, msg);
}

static void check_ok(const struct elastic_opts *o, const struct size_config *sc)
{
	elastic_error_t err = { "" };

	if (options_check(o, sc, &err) != 0)
		fail_msg("options_check: %s", err.text);
}

static void check_min_max(void **state)
{
	struct elastic_opts o;

	o = opts_of("min=5 max=2");
	check_fails(&o, NULL,
		    "--elastic-min=5 is greater than --elastic-max=2 (need "
		    "--elastic-min <= --elastic-max)");
	o = opts_of("min=5 max=5");
	check_ok(&o, NULL);
	o = opts_of("min=5");
	check_ok(&o, NULL);
	o = opts_of("max=1");
	check_ok(&o, NULL);
	o = (struct elastic_opts){ 0 };
	check_ok(&o, NULL);
}

static void check_step_sizes(void **state)
{
	struct elastic_opts o;

	o = opts_of("step=2 sizes=1,2");
	check_fails(&o, NULL,
		    "--elastic-step and --elastic-sizes cannot be used "
		    "together");
	o = opts_of("sizes=1,2 step=2");
	check_fails(&o, NULL,
		    "--elastic-step and --elastic-sizes cannot be used "
		    "together");
	o = opts_of("step=2 min=2 max=8");
	check_ok(&o, NULL);
	o = opts_of("sizes=2,4,8 min=2 max=8");
	check_ok(&o, NULL);
}

static void check_sizes_within(void **state)
{
	struct elastic_opts o;

	o = opts_of("min=2 max=8 sizes=1,4");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=2 and --elastic-max=8");
	o = opts_of("min=2 max=8 sizes=4,9");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=2 and --elastic-max=8");
	/* Only one bound given: the sizes give the other. */
	o = opts_of("min=2 sizes=1,4");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=2 and --elastic-max=4");
	o = opts_of("max=3 sizes=1,4");
	check_fails(&o, NULL,
		    "--elastic-sizes: every size must be within "
		    "--elastic-min=1 and --elastic-max=3");
	/* Exact bounds pass. */
	o = opts_of("min=2 max=8 sizes=2,8");
	check_ok(&o, NULL);
	o = opts_of("sizes=2,8");
	check_ok(&o, NULL);
}

static void check_size_config(void **state)
{
	struct size_config sc = sizeconf_of("default A=1\n4 B=2\n8 B=3\n");
	struct size_config big = sizeconf_of("16 B=1");
	struct size_config def = sizeconf_of("default A=1");
	struct elastic_opts o;

	o = opts_of("min=2 max=8 step=2");
	check_ok(&o, &sc);
	o = opts_of("min=2 max=8 step=3");
	check_fails(&o, &sc,
		    "--elastic-size-config: size 4 is not a size this job can "
		    "take (between --elastic-min=2 and --elastic-max=8, on "
		    "--elastic-step=3)");
	o = opts_of("sizes=2,4,8");
	check_ok(&o, &sc);
	o = opts_of("sizes=2,8");
	check_fails(&o, &sc,
		    "--elastic-size-config: size 4 is not a size this job can "
		    "take (between --elastic-min=2 and --elastic-max=8, in "
		    "--elastic-sizes)");
	o = opts_of("min=2 max=8");
	check_fails(&o, &big,
		    "--elastic-size-config: size 16 is not a size this job "
		    "can take (between --elastic-min=2 and --elastic-max=8)");
	o = opts_of("min=5 max=8");
	check_fails(&o, &sc,
		    "--elastic-size-config: size 4 is not a size this job can "
		    "take (between --elastic-min=5 and --elastic-max=8)");
	/* The default line fits any size. */
	o = opts_of("min=2 max=2");
	check_ok(&o, &def);
	/* Without both bounds the client cannot judge: slurmctld will. */
	o = opts_of("min=2");
	check_ok(&o, &big);
	o = opts_of("max=8");
	check_ok(&o, &big);
}

/* The base job holds --elastic-min nodes: the smallest size. */
static void check_min_is_first_size(void **state)
{
	struct elastic_opts o = opts_of("min=1 sizes=2,4");

	check_fails(&o, NULL,
		    "--elastic-min=1 must be the smallest of --elastic-sizes "
		    "(2): the job starts at --elastic-min");
	o = opts_of("min=2 sizes=2,4");
	check_ok(&o, NULL);
	o = opts_of("sizes=2,4");
	check_ok(&o, NULL);
}

static void size_allowed(void **state)
{
	struct elastic_opts o;

	o = opts_of("min=2 max=10 step=4");
	assert_false(options_size_allowed(&o, 0));
	assert_false(options_size_allowed(&o, 1));
	assert_true(options_size_allowed(&o, 2));
	assert_false(options_size_allowed(&o, 3));
	assert_false(options_size_allowed(&o, 4));
	assert_true(options_size_allowed(&o, 6));
	assert_true(options_size_allowed(&o, 10));
	assert_false(options_size_allowed(&o, 11));
	assert_false(options_size_allowed(&o, 14));

	/* The max need not be on the step. */
	o = opts_of("min=1 max=8 step=3");
	assert_true(options_size_allowed(&o, 7));
	assert_false(options_size_allowed(&o, 8));

	o = opts_of("min=2 max=5");
	for (unsigned n = 2; n <= 5; n++)
		assert_true(options_size_allowed(&o, n));
	assert_false(options_size_allowed(&o, 1));
	assert_false(options_size_allowed(&o, 6));

	o = opts_of("sizes=2,3,8");
	o.min = 2;
	o.max = 8;
	assert_true(options_size_allowed(&o, 2));
	assert_true(options_size_allowed(&o, 3));
	assert_false(options_size_allowed(&o, 4));
	assert_true(options_size_allowed(&o, 8));
	assert_false(options_size_allowed(&o, 1));
	assert_false(options_size_allowed(&o, 9));
	/* min and max still bound a list. */
	o.min = 3;
	assert_false(options_size_allowed(&o, 2));
	assert_true(options_size_allowed(&o, 3));
}

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

static void finalize_ok(struct elastic_opts *o, const struct elastic_policy *p,
			const struct elastic_submitter *who,
			const struct size_config *sc)
{
	elastic_error_t err = { "" };

	if (options_finalize(o, p, who, sc, &err) != 0)
		fail_msg("options_finalize: %s", err.text);
}

/* Must fail with msg, leaving o untouched. */
static void finalize_fails(const struct elastic_opts *o,
			   const struct elastic_policy *p,
			   const struct elastic_submitter *who,
			   const struct size_config *sc, const char *msg)
{
	struct elastic_opts t = *o;
	elastic_error_t err = { "" };

	assert_int_equal(options_finalize(&t, p, who, sc, &err), -1);
	assert_string_equal(err.text, msg);
	/* Every member: the tail padding of a copy is undefined. */
	assert_memory_equal(&t, o,
			    offsetof(struct elastic_opts, size_config_path) +
				sizeof(t.size_config_path));
}

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

/* options_from_env, options_env_get */

#define OPT "_SLURM_SPANK_OPTION_elastic_"

static void from_env(void **state)
{
	char *env[] = {
		"SPANK_FOO=1",
		"_SLURM_SPANK_OPTION_other_elastic_min=9",
		"_SLURM_SPANK_OPTION_elasticx_elastic_min=9",
		"_SLURM_SPANK_OPTION_elastic",
		OPT "elastic_min=2",
		OPT "elastic_max=6",
		NULL,
		OPT "elastic_keep=5",
	};
	struct elastic_opts o = { 0 };
	elastic_error_t err = { "" };

	assert_int_equal(options_from_env(&o, env, N(env), &err), 0);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 6);
	assert_int_equal(o.given, BIT(ELASTIC_OPT_MIN) | BIT(ELASTIC_OPT_MAX));

	/* n bounds the scan, and a NULL entry ends it early */
	o = (struct elastic_opts){ 0 };
	assert_int_equal(options_from_env(&o, env, 5, &err), 0);
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 0);
	o = (struct elastic_opts){ 0 };
	assert_int_equal(options_from_env(&o, env, 4, &err), 0);
	assert_false(options_any(&o));
	assert_int_equal(options_from_env(&o, NULL, 0, &err), 0);
	assert_int_equal(options_from_env(&o, NULL, 5, &err), 0);
	assert_int_equal(options_from_env(&o, env, 0, &err), 0);
	assert_false(options_any(&o));
}

static void from_env_all_options(void **state)
{
	char *env[] = {
		OPT "elastic_min=2",
		OPT "elastic_max=8",
		OPT "elastic_sizes=2,4,8",
		OPT "elastic_grace=10",
		OPT "elastic_scale_delay=20",
		OPT "elastic_fault_timeout=30",
		OPT "elastic_ondemand=always",
		OPT "elastic_signal=USR1",
		OPT "elastic_checkpoint_dir=/ck/a b/%j",
		OPT "elastic_keep=4",
		OPT "elastic_size_config=/home/a/sizes.conf",
		OPT "elastic_resume_from=/ck/a b@40",
		OPT "elastic_eval=python3 eval.py --n 5",
	};
	char *step[] = { OPT "elastic-step=3" };
	struct elastic_opts o = { 0 };
	elastic_error_t err = { "" };

	assert_int_equal(options_from_env(&o, env, N(env), &err), 0);
	assert_int_equal(o.given,
			 (BIT(ELASTIC_OPT_COUNT) - 1) & ~BIT(ELASTIC_OPT_STEP));
	assert_int_equal(o.min, 2);
	assert_int_equal(o.max, 8);
	assert_int_equal(o.nsizes, 3);
	assert_int_equal(o.sizes[2], 8);
	assert_int_equal(o.grace, 10);
	assert_int_equal(o.scale_delay, 20);
	assert_int_equal(o.fault_timeout, 30);
	assert_int_equal(o.ondemand, ELASTIC_ONDEMAND_ALWAYS);
	assert_int_equal(o.signal, SIGUSR1);
	assert_string_equal(o.checkpoint_dir, "/ck/a b/%j");
	assert_int_equal(o.keep, 4);
	assert_string_equal(o.size_config_path, "/home/a/sizes.conf");
	assert_string_equal(o.resume_from, "/ck/a b@40");
	assert_string_equal(o.eval_cmd, "python3 eval.py --n 5");

	o = (struct elastic_opts){ 0 };
	assert_int_equal(options_from_env(&o, step, 1, &err), 0);
	assert_int_equal(o.step, 3);
	assert_int_equal(o.given, BIT(ELASTIC_OPT_STEP));
}

static void from_env_bad(void **state)
{
	char *bad_value[] = { OPT "elastic_max=x" };
	char *bad_sizes[] = { OPT "elastic_min=1", OPT "elastic_sizes=1,,2" };
	char *unknown[] = { OPT "elastic_min=1", OPT "elastic_color=red" };
	char *empty_name[] = { OPT "=red" };
	char *long_name[] = {
		OPT
		"elastic_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaa=1"
	};
	char *no_eq[] = { OPT "elastic_min" };
	struct elastic_opts o = { 0 };
	elastic_error_t err = { "" };

	assert_int_equal(options_from_env(&o, bad_value, 1, &err), -1);
	assert_string_equal(err.text, "--elastic-max=x: not a whole number "
				      "(allowed: a node count from 1 to "
				      "65535)");
	assert_int_equal(options_from_env(&o, bad_sizes, 2, &err), -1);
	assert_string_equal(err.text,
			    "--elastic-sizes=1,,2: empty entry (allowed: "
			    "strictly increasing node counts, e.g. 1,2,4)");
	assert_int_equal(options_from_env(&o, unknown, 2, &err), -1);
	assert_string_equal(err.text, "unknown elastic option "
				      "'elastic_color' (client and "
				      "controller plugins differ?)");
	assert_int_equal(options_from_env(&o, empty_name, 1, &err), -1);
	assert_string_equal(err.text, "unknown elastic option '' (client and "
				      "controller plugins differ?)");
	assert_int_equal(options_from_env(&o, long_name, 1, &err), -1);
	assert_string_equal(err.text, "unknown elastic option");

	o = (struct elastic_opts){ 0 };
	assert_int_equal(options_from_env(&o, no_eq, 1, &err), 0);
	assert_false(options_any(&o));
}

static void env_get(void **state)
{
	char *env[] = { "AB=2", "A=1", "C=", "D", "A=shadowed", NULL, "E=5" };

	assert_string_equal(options_env_get(env, N(env), "A"), "1");
	assert_string_equal(options_env_get(env, N(env), "AB"), "2");
	assert_string_equal(options_env_get(env, N(env), "C"), "");
	assert_null(options_env_get(env, N(env), "D"));
	assert_null(options_env_get(env, N(env), "B"));
	assert_null(options_env_get(env, N(env), "ABC"));
	assert_null(options_env_get(env, N(env), "E"));
	assert_null(options_env_get(env, 1, "A"));
	assert_string_equal(options_env_get(env, 2, "A"), "1");
	assert_null(options_env_get(env, 0, "AB"));
	assert_null(options_env_get(NULL, 3, "A"));
}

/* The AdminComment tag */

/* The tag does not judge: a policy that lets every value through. */
static const char permissive[] =
    "MaxNodes=65535\nMaxGrace=86400\nMaxKeep=1000\nOnDemand=yes\n"
    "SharedCheckpointDirs=yes\n";

static struct elastic_opts finalized(const char *spec)
{
	struct elastic_policy p = policy_of(permissive);
	struct elastic_opts o = opts_of(spec);

	finalize_ok(&o, &p, NULL, NULL);
	return o;
}

static void tag_format(void **state)
{
	struct elastic_opts o = finalized("min=2 max=8 step=2");
	const char *want = "elastic:v1 min=2 max=8 step=2 grace=60 delay=30 "
			   "fault=60 ondemand=never signal=URG keep=3 "
			   "ckpt=%25h/elastic-checkpoints/%25j";
	char buf[512], small[16];

	assert_int_equal(options_format_tag(&o, buf, sizeof(buf)),
			 (int)strlen(want));
	assert_string_equal(buf, want);
	/* snprintf-style: the length needed, the start of it written. */
	assert_int_equal(options_format_tag(&o, small, sizeof(small)),
			 (int)strlen(want));
	assert_string_equal(small, "elastic:v1 min=");
	assert_int_equal(options_format_tag(&o, NULL, 0), (int)strlen(want));

	o = finalized("sizes=1,2,4 grace=0 scale-delay=1 fault-timeout=2 "
		      "ondemand=never signal=SIGUSR1 keep=9 "
		      "checkpoint-dir=/ck/%j");
	assert_int_equal(options_format_tag(&o, buf, sizeof(buf)) > 0, 1);
	assert_string_equal(buf, "elastic:v1 min=1 max=4 sizes=1,2,4 grace=0 "
				 "delay=1 fault=2 ondemand=never signal=USR1 "
				 "keep=9 ckpt=/ck/%25j");
}

static void tag_round_trip(const struct elastic_opts *o)
{
	struct elastic_opts back;
	elastic_error_t err = { "" };
	char buf[ELASTIC_TAG_MAX];
	int n = options_format_tag(o, buf, sizeof(buf));

	assert_true(n > 0 && n < (int)sizeof(buf));
	memset(&back, 0xa5, sizeof(back));
	if (options_parse_tag(buf, &back, &err) != 0)
		fail_msg("options_parse_tag(%s): %s", buf, err.text);
	assert_same_opts(&back, o);
}

static void tag_round_trip_step(void **state)
{
	struct elastic_opts o, back;
	elastic_error_t err = { "" };
	char buf[512];

	o = finalized("");
	tag_round_trip(&o);
	o = finalized("min=1 max=65535 step=65535 grace=86400 "
		      "scale-delay=86400 fault-timeout=86400 "
		      "ondemand=below-min signal=WINCH keep=1000 "
		      "checkpoint-dir=/x");
	tag_round_trip(&o);
	o = finalized("min=2 max=8 step=2 ondemand=always signal=TERM");
	tag_round_trip(&o);
	/* Every option of the tag is given. */
	options_format_tag(&o, buf, sizeof(buf));
	assert_int_equal(options_parse_tag(buf, &back, &err), 0);
	assert_int_equal(back.given, (BIT(ELASTIC_OPT_COUNT) - 1) &
					 ~BIT(ELASTIC_OPT_SIZES) &
					 ~BIT(ELASTIC_OPT_SIZE_CONFIG) &
					 ~BIT(ELASTIC_OPT_RESUME_FROM) &
					 ~BIT(ELASTIC_OPT_EVAL));
	assert_int_equal(back.nsizes, 0);
}

static void tag_round_trip_sizes(void **state)
{
	struct elastic_opts o, back;
	elastic_error_t err = { "" };
	char buf[512];

	o = finalized("sizes=3");
	tag_round_trip(&o);
	o = finalized("sizes=1,2,4,8 min=1 max=9 ondemand=always");
	tag_round_trip(&o);
	o = finalized("sizes=1,2,4,8");
	tag_round_trip(&o);
	options_format_tag(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " sizes=1,2,4,8 "));
	assert_null(strstr(buf, "step="));
	assert_int_equal(options_parse_tag(buf, &back, &err), 0);
	assert_int_equal(back.nsizes, 4);
	assert_int_equal(back.step, 0);
	assert_true(options_given(&back, ELASTIC_OPT_SIZES));
	assert_false(options_given(&back, ELASTIC_OPT_STEP));
}

/* The checkpoint dir is %-encoded: space, '%', control characters. */
static void tag_ckpt_encoding(void **state)
{
	struct elastic_opts o = { 0 };
	struct elastic_policy p = policy_of(permissive);
	elastic_error_t err = { "" };
	char buf[512];

	assert_int_equal(options_set(&o, ELASTIC_OPT_CHECKPOINT_DIR,
				     "/scratch/my dir/100%%/%j", &err),
			 0);
	finalize_ok(&o, &p, NULL, NULL);
	options_format_tag(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " ckpt=/scratch/my%20dir/100%25%25/%25j"));
	/* The dir is last, so later keys cannot be confused with it. */
	assert_string_equal(strstr(buf, " ckpt="),
			    " ckpt=/scratch/my%20dir/100%25%25/%25j");
	tag_round_trip(&o);

	/* Decoding takes either case of hex digits, and any %XX. */
	{
		struct elastic_opts back;

		assert_int_equal(
		    options_parse_tag("elastic:v1 min=1 max=2 step=1 grace=0 "
				      "delay=0 fault=0 ondemand=never "
				      "signal=URG keep=1 ckpt=%2fa%2Fb%20c",
				      &back, &err),
		    0);
		assert_string_equal(back.checkpoint_dir, "/a/b c");
	}
}

/* The largest tag there can be fits job_submit's 4096-byte buffer and
 * parses back. */
static void tag_largest(void **state)
{
	struct elastic_opts o =
	    opts_of("grace=86400 scale-delay=86400 fault-timeout=86400 "
		    "ondemand=below-min signal=WINCH keep=1000");
	struct elastic_policy p = policy_of(permissive);
	elastic_error_t err = { "" };
	char dir[ELASTIC_PATH_MAX + 1], buf[8192];
	int n;

	/* 1024 characters, all but the first encoded in three. */
	memset(dir, ' ', ELASTIC_PATH_MAX);
	dir[0] = '/';
	dir[ELASTIC_PATH_MAX] = '\0';
	assert_int_equal(options_set(&o, ELASTIC_OPT_SIZES,
				     sizes_list(65535 - 63, 64), &err),
			 0);
	assert_int_equal(options_set(&o, ELASTIC_OPT_CHECKPOINT_DIR, dir, &err),
			 0);
	finalize_ok(&o, &p, NULL, NULL);
	n = options_format_tag(&o, buf, sizeof(buf));
	assert_true(n < 4096);
	assert_int_equal(n, (int)strlen(buf));
	tag_round_trip(&o);
}

static void tag_future_keys(void **state)
{
	struct elastic_opts o;
	elastic_error_t err = { "" };

	assert_int_equal(
	    options_parse_tag("elastic:v1 zone=eu min=1 max=2 color=%ZZ step=1 "
			      "grace=0 delay=0 fault=0 ondemand=never "
			      "signal=URG keep=1 ckpt=/c new= other=a=b",
			      &o, &err),
	    0);
	assert_int_equal(o.min, 1);
	assert_int_equal(o.max, 2);
	assert_string_equal(o.checkpoint_dir, "/c");
}

/* Must fail with msg, leaving o untouched. */
static void tag_fails(const char *tag, const char *msg)
{
	struct elastic_opts o, before;
	elastic_error_t err = { "" };

	memset(&o, 0xa5, sizeof(o));
	memcpy(&before, &o, sizeof(o));
	assert_int_equal(options_parse_tag(tag, &o, &err), -1);
	assert_string_equal(err.text, msg);
	assert_memory_equal(&o, &before, sizeof(o));
}

static const char *const tag_words[] = {
	"min=2",    "max=8",	      "step=2",	    "grace=60", "delay=30",
	"fault=60", "ondemand=never", "signal=URG", "keep=3",	"ckpt=/c",
};

/* A complete tag without word skip (-1: none), in a static buffer. */
static const char *tag_without(int skip)
{
	static char buf[512];

	strcpy(buf, ELASTIC_TAG_PREFIX);
	for (int i = 0; i < (int)N(tag_words); i++) {
		if (i == skip)
			continue;
		strcat(buf, " ");
		strcat(buf, tag_words[i]);
	}
	return buf;
}

static void tag_incomplete(void **state)
{
	struct elastic_opts o;
	elastic_error_t err = { "" };

	assert_int_equal(options_parse_tag(tag_without(-1), &o, &err), 0);
	for (int i = 0; i < (int)N(tag_words); i++)
		tag_fails(tag_without(i), "elastic tag: incomplete");
	tag_fails("elastic:v1 ", "elastic tag: incomplete");
	tag_fails("elastic:v1 min=1", "elastic tag: incomplete");
}

static void tag_bad(void **state)
{
	char buf[ELASTIC_TAG_MAX + 1024];

	tag_fails(NULL, "not an elastic tag");
	tag_fails("", "not an elastic tag");
	tag_fails("elastic:v1", "not an elastic tag");
	tag_fails("elastic:v2 min=2 max=8 step=2 grace=60 delay=30 fault=60 "
		  "ondemand=never signal=URG keep=3 ckpt=/c",
		  "not an elastic tag");
	tag_fails("elastic:v1min=2", "not an elastic tag");
	tag_fails("Elastic:v1 min=2", "not an elastic tag");
	tag_fails(" elastic:v1 min=2", "not an elastic tag");

	snprintf(buf, sizeof(buf), "%s junk", tag_without(-1));
	tag_fails(buf, "elastic tag: bad word 'junk'");
	tag_fails("elastic:v1 min=x max=8",
		  "--elastic-min=x: not a whole number (allowed: a node count "
		  "from 1 to 65535)");
	tag_fails("elastic:v1 min=3 max=2 step=1 grace=60 delay=30 fault=60 "
		  "ondemand=never signal=URG keep=3 ckpt=/c",
		  "--elastic-min=3 is greater than --elastic-max=2 (need "
		  "--elastic-min <= --elastic-max)");
	tag_fails("elastic:v1 min=2 max=8 step=2 sizes=2,4 grace=60 delay=30 "
		  "fault=60 ondemand=never signal=URG keep=3 ckpt=/c",
		  "--elastic-step and --elastic-sizes cannot be used together");
	tag_fails("elastic:v1 min=2 max=8 sizes=1,4 grace=60 delay=30 "
		  "fault=60 ondemand=never signal=URG keep=3 ckpt=/c",
		  "--elastic-sizes: every size must be within --elastic-min=2 "
		  "and --elastic-max=8");
	tag_fails("elastic:v1 ondemand=Always",
		  "--elastic-ondemand=Always: not valid (allowed: never, "
		  "below-min, always)");
	tag_fails("elastic:v1 ckpt=/a%2", "elastic tag: bad ckpt");
	tag_fails("elastic:v1 ckpt=/a%", "elastic tag: bad ckpt");
	tag_fails("elastic:v1 ckpt=/a%zz", "elastic tag: bad ckpt");
	tag_fails("elastic:v1 ckpt=/a%00b", "elastic tag: bad ckpt");
	tag_fails("elastic:v1 min=%", "elastic tag: bad min");
	tag_fails("elastic:v1 ckpt=rel",
		  "--elastic-checkpoint-dir=rel: must be an absolute path or "
		  "start with %h (home directory)");
	tag_fails("elastic:v1 ckpt=/a%09b",
		  "--elastic-checkpoint-dir: control character in path");
	tag_fails("elastic:v1 ckpt=/a/%25x",
		  "--elastic-checkpoint-dir=/a/%x: unknown %x (allowed: %j job "
		  "id, %u user, %h home, %%)");

	/* A value that decodes to more than a path holds. */
	strcpy(buf, "elastic:v1 ckpt=/");
	memset(buf + strlen(buf), 'a', 1100);
	buf[17 + 1100] = '\0';
	tag_fails(buf, "elastic tag: bad ckpt");

	/* Longer than any tag we write. */
	{
		size_t len = strlen(tag_without(-1));

		strcpy(buf, tag_without(-1));
		memset(buf + len, 'a', ELASTIC_TAG_MAX);
		buf[len + ELASTIC_TAG_MAX] = '\0';
		tag_fails(buf, "elastic tag too long");
	}
}

/* resume= and eval=: only when given, %-encoded, before ckpt=. */
static void tag_resume_eval(void **state)
{
	struct elastic_opts o, back;
	elastic_error_t err = { "" };
	char buf[ELASTIC_TAG_MAX];

	o = finalized("min=2 max=8 step=2 resume-from=4711@200 "
		      "eval=python3%20ev.py_--top=5");
	options_format_tag(&o, buf, sizeof(buf));
	assert_string_equal(buf, "elastic:v1 min=2 max=8 step=2 grace=60 "
				 "delay=30 fault=60 ondemand=never signal=URG "
				 "keep=3 resume=4711@200 "
				 "eval=python3%2520ev.py_--top=5 "
				 "ckpt=%25h/elastic-checkpoints/%25j");
	tag_round_trip(&o);

	o = finalized("min=1");
	assert_int_equal(options_set(&o, ELASTIC_OPT_EVAL,
				     "python3 /x/eval.py --ckpt \"$A\" 50%",
				     &err),
			 0);
	assert_int_equal(options_set(&o, ELASTIC_OPT_RESUME_FROM,
				     "/scratch/my ck/run@30", &err),
			 0);
	options_format_tag(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " resume=/scratch/my%20ck/run@30 eval="
				    "python3%20/x/eval.py%20--ckpt%20\"$A\"%20"
				    "50%25 ckpt="));
	assert_int_equal(options_parse_tag(buf, &back, &err), 0);
	assert_string_equal(back.resume_from, "/scratch/my ck/run@30");
	assert_string_equal(back.eval_cmd,
			    "python3 /x/eval.py --ckpt \"$A\" 50%");
	assert_true(options_given(&back, ELASTIC_OPT_RESUME_FROM));
	assert_true(options_given(&back, ELASTIC_OPT_EVAL));
	tag_round_trip(&o);

	/* A tag of an earlier release has neither. */
	assert_int_equal(options_parse_tag(tag_without(-1), &back, &err), 0);
	assert_string_equal(back.resume_from, "");
	assert_string_equal(back.eval_cmd, "");
	assert_false(options_given(&back, ELASTIC_OPT_RESUME_FROM));
	assert_false(options_given(&back, ELASTIC_OPT_EVAL));

	/* Checked like the options. */
	snprintf(buf, sizeof(buf), "%s resume=x", tag_without(-1));
	tag_fails(buf, "--elastic-resume-from=x: not a job id nor an absolute "
		       "path (allowed: JOBID, JOBID@STEP, PATH, PATH@STEP "
		       "(PATH absolute))");
	snprintf(buf, sizeof(buf), "%s eval=a%%0Ab", tag_without(-1));
	tag_fails(buf, "--elastic-eval: newline in the command (allowed: one "
		       "line)");
	snprintf(buf, sizeof(buf), "%s eval=", tag_without(-1));
	tag_fails(buf, "--elastic-eval=: empty value (allowed: a command "
		       "line)");
}

/* With every value at its longest and all encoded, the tag still fits
 * ELASTIC_TAG_MAX and parses back. */
static void tag_largest_all(void **state)
{
	struct elastic_opts o =
	    opts_of("grace=86400 scale-delay=86400 fault-timeout=86400 "
		    "ondemand=below-min signal=WINCH keep=1000");
	struct elastic_policy p = policy_of(permissive);
	elastic_error_t err = { "" };
	char dir[ELASTIC_PATH_MAX + 1], cmd[ELASTIC_EVAL_MAX + 1];
	char buf[2 * ELASTIC_TAG_MAX];
	int n;

	memset(dir, ' ', ELASTIC_PATH_MAX);
	dir[0] = '/';
	dir[ELASTIC_PATH_MAX] = '\0';
	memset(cmd, '%', ELASTIC_EVAL_MAX);
	cmd[ELASTIC_EVAL_MAX] = '\0';
	assert_int_equal(options_set(&o, ELASTIC_OPT_SIZES,
				     sizes_list(65535 - 63, 64), &err),
			 0);
	assert_int_equal(options_set(&o, ELASTIC_OPT_CHECKPOINT_DIR, dir, &err),
			 0);
	assert_int_equal(options_set(&o, ELASTIC_OPT_RESUME_FROM, dir, &err),
			 0);
	assert_int_equal(options_set(&o, ELASTIC_OPT_EVAL, cmd, &err), 0);
	finalize_ok(&o, &p, NULL, NULL);
	n = options_format_tag(&o, buf, sizeof(buf));
	assert_true(n < ELASTIC_TAG_MAX);
	assert_int_equal(n, (int)strlen(buf));
	tag_round_trip(&o);
}

/* options_expand_path */

static void expand_path(void **state)
{
	static const struct {
		const char *pattern, *want;
	} cases[] = {
		{ "%h/ck/%j", "/home/alice/ck/42" },
		{ "/s/%u/%j", "/s/alice/42" },
		{ "/a/%%/100%%", "/a/%/100%" },
		{ "/a/%%j", "/a/%j" },
		{ "%j%j", "4242" },
		{ "/plain", "/plain" },
		{ "", "" },
	};
	char out[64];

	for (size_t i = 0; i < N(cases); i++) {
		memset(out, 'x', sizeof(out));
		assert_int_equal(options_expand_path(cases[i].pattern, "42",
						     "alice", "/home/alice",
						     out, sizeof(out)),
				 0);
		assert_string_equal(out, cases[i].want);
	}
	/* The owner's passwd entry could not be read: no user, no home.
	 * Fail closed: "%h/x" is never "/x". */
	assert_int_equal(
	    options_expand_path("%h/%u/x", "1", "", "", out, sizeof(out)), -1);
	assert_int_equal(
	    options_expand_path("%h/x", "1", "alice", "", out, sizeof(out)),
	    -1);
	assert_int_equal(
	    options_expand_path("/s/%u/x", "1", NULL, "/h", out, sizeof(out)),
	    -1);
	assert_int_equal(
	    options_expand_path("/s/%j", "", "alice", "/h", out, sizeof(out)),
	    -1);
	/* What the pattern does not use may be unknown. */
	assert_int_equal(
	    options_expand_path("/s/%j", "1", "", "", out, sizeof(out)), 0);
	assert_string_equal(out, "/s/1");
}

/* A checkpoint dir pattern must name a place of the user's own, unless
 * the site says its shared directories are safe. */
static void ckpt_dir_per_user(void **state)
{
	struct elastic_policy p = policy_of("MaxNodes=64\n");
	struct elastic_policy shared =
	    policy_of("MaxNodes=64\nSharedCheckpointDirs=yes\n");
	struct elastic_submitter alice = { "alice", NULL };
	struct elastic_submitter bob = { "bob", NULL };
	struct elastic_opts o;
	elastic_error_t err;

	(void)state;
	assert_true(policy_path_per_user("%h/ck/%j", NULL));
	assert_true(policy_path_per_user("/s/%u/%j", NULL));
	assert_true(policy_path_per_user("/s/ck-%u-%j", NULL));
	assert_false(policy_path_per_user("/s/%j", NULL));
	assert_false(policy_path_per_user("/s/%%u/%j", NULL));
	assert_true(policy_path_per_user("/scratch/alice/%j", "alice"));
	assert_true(policy_path_per_user("/scratch/alice", "alice"));
	assert_false(policy_path_per_user("/scratch/alice2/%j", "alice"));
	assert_false(policy_path_per_user("/scratch/xalice/%j", "alice"));
	assert_false(policy_path_per_user("/scratch/alice/%j", "bob"));

	o = opts_of("min=1 checkpoint-dir=/ck/%j");
	finalize_fails(&o, &p, &alice, NULL,
		       "--elastic-checkpoint-dir=/ck/%j: no per-user part, so "
		       "another user could make the job's directory first "
		       "(allowed: a path with %u, %h or your user name; "
		       "SharedCheckpointDirs=yes in elastic.conf allows any)");
	finalize_ok(&o, &shared, &alice, NULL);
	o = opts_of("min=1 checkpoint-dir=/ck/%u/%j");
	finalize_ok(&o, &p, &alice, NULL);
	o = opts_of("min=1 checkpoint-dir=/scratch/alice/%j");
	finalize_ok(&o, &p, &alice, NULL);
	o = opts_of("min=1 checkpoint-dir=/scratch/alice/%j");
	finalize_fails(&o, &p, &bob, NULL,
		       "--elastic-checkpoint-dir=/scratch/alice/%j: no "
		       "per-user part, so another user could make the job's "
		       "directory first (allowed: a path with %u, %h or your "
		       "user name; SharedCheckpointDirs=yes in elastic.conf "
		       "allows any)");
	/* The site's default must be per-user too, or declared shared. */
	assert_int_equal(policy_parse(&p, "DefaultCheckpointDir=/ck/%j\n",
				      "elastic.conf", &err),
			 -1);
	assert_string_equal(err.text,
			    "elastic.conf: DefaultCheckpointDir=/ck/%j has no "
			    "per-user part (%u or %h): another user could make "
			    "a job's directory first (or "
			    "SharedCheckpointDirs=yes)");
	assert_int_equal(policy_parse(&p,
				      "DefaultCheckpointDir=/ck/%j\n"
				      "SharedCheckpointDirs=yes\n",
				      "elastic.conf", &err),
			 0);
}

static void expand_path_errors(void **state)
{
	static const char *bad[] = { "/a/%x", "/a/%", "%J", "%H", "% j" };
	char out[64];

	for (size_t i = 0; i < N(bad); i++)
		assert_int_equal(options_expand_path(bad[i], "42", "alice",
						     "/home/alice", out,
						     sizeof(out)),
				 -1);

	/* "/home/alice/ck/42" is 17 characters: 18 bytes fit, 17 do not. */
	assert_int_equal(options_expand_path("%h/ck/%j", "42", "alice",
					     "/home/alice", out, 18),
			 0);
	assert_string_equal(out, "/home/alice/ck/42");
	assert_int_equal(options_expand_path("%h/ck/%j", "42", "alice",
					     "/home/alice", out, 17),
			 -1);
	assert_int_equal(options_expand_path("/plain", "1", "u", "/h", out, 7),
			 0);
	assert_int_equal(options_expand_path("/plain", "1", "u", "/h", out, 6),
			 -1);
	assert_int_equal(options_expand_path("%%", "1", "u", "/h", out, 1), -1);
	assert_int_equal(options_expand_path("%%", "1", "u", "/h", out, 2), 0);
	assert_string_equal(out, "%");
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
		cmocka_unit_test(set_too_long),
		cmocka_unit_test(set_unknown_id),
		cmocka_unit_test(given_bits),
		cmocka_unit_test(check_min_max),
		cmocka_unit_test(check_step_sizes),
		cmocka_unit_test(check_sizes_within),
		cmocka_unit_test(check_size_config),
		cmocka_unit_test(check_min_is_first_size),
		cmocka_unit_test(size_allowed),
		cmocka_unit_test(node_cap),
		cmocka_unit_test(apply_builtin_defaults),
		cmocka_unit_test(apply_site_defaults),
		cmocka_unit_test(apply_given_wins),
		cmocka_unit_test(apply_never_contradicts),
		cmocka_unit_test(apply_caps),
		cmocka_unit_test(finalize_defaults),
		cmocka_unit_test(finalize_caps),
		cmocka_unit_test(finalize_sizes_cap),
		cmocka_unit_test(finalize_grace_keep),
		cmocka_unit_test(finalize_ondemand),
		cmocka_unit_test(finalize_ondemand_default),
		cmocka_unit_test(finalize_relations),
		cmocka_unit_test(from_env),
		cmocka_unit_test(from_env_all_options),
		cmocka_unit_test(from_env_bad),
		cmocka_unit_test(env_get),
		cmocka_unit_test(tag_format),
		cmocka_unit_test(ckpt_dir_per_user),
		cmocka_unit_test(tag_round_trip_step),
		cmocka_unit_test(tag_round_trip_sizes),
		cmocka_unit_test(tag_ckpt_encoding),
		cmocka_unit_test(tag_largest),
		cmocka_unit_test(tag_largest_all),
		cmocka_unit_test(tag_resume_eval),
		cmocka_unit_test(tag_future_keys),
		cmocka_unit_test(tag_incomplete),
		cmocka_unit_test(tag_bad),
		cmocka_unit_test(expand_path),
		cmocka_unit_test(expand_path_errors),
	};
	return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
