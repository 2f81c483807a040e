/* Unit tests of options.c on the forms a job's options travel in: the
 * env Slurm forwards from the client to job_submit (options_from_env,
 * options_env_get), and the AdminComment tag job_submit writes and
 * elasticd reads back (options_format_tag, options_parse_tag): its
 * words, its %-encoding, its round trip and its largest size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "options_fixture.h"

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
		OPT "elastic_heartbeat_timeout=7",
		OPT "elastic_hang_timeout=70",
		OPT "elastic_stragglers=evict",
		OPT "elastic_spares=2",
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
	assert_int_equal(o.spares, 2);
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
	const char *want =
	    "elastic:v1 min=2 max=8 step=2 grace=60 delay=30 "
	    "fault=60 ondemand=never signal=URG keep=3 hb=5 hang=0 slow=report "
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
	assert_string_equal(buf,
			    "elastic:v1 min=1 max=4 sizes=1,2,4 grace=0 "
			    "delay=1 fault=2 ondemand=never signal=USR1 "
			    "keep=9 hb=5 hang=0 slow=report ckpt=/ck/%25j");
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
	assert_int_equal(
	    back.given, (BIT(ELASTIC_OPT_COUNT) - 1) & ~BIT(ELASTIC_OPT_SIZES) &
			    ~BIT(ELASTIC_OPT_SIZE_CONFIG) &
			    ~BIT(ELASTIC_OPT_RESUME_FROM) &
			    ~BIT(ELASTIC_OPT_EVAL) & ~BIT(ELASTIC_OPT_SPARES));
	assert_int_equal(back.nsizes, 0);
	/* Spares only when there are: tags stay as they were without. */
	assert_null(strstr(buf, "spares="));
	o = finalized("min=2 max=8 step=2 spares=2");
	tag_round_trip(&o);
	options_format_tag(&o, buf, sizeof(buf));
	assert_non_null(strstr(buf, " slow=report spares=2 ckpt="));
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

/* elasticd notes the group's account after " | " at its end: the tag
 * parses as without it, whatever follows (sacct shows both). */
static void tag_account_note(void **state)
{
	static const char tag[] = "elastic:v1 min=1 max=2 step=1 grace=0 "
				  "delay=0 fault=0 ondemand=never signal=URG "
				  "keep=1 ckpt=/c/%25j";
	char noted[sizeof(tag) + 128];
	struct elastic_opts o, plain;
	elastic_error_t err = { "" };

	(void)state;
	assert_int_equal(options_parse_tag(tag, &plain, &err), 0);
	snprintf(noted, sizeof(noted),
		 "%s | goodput=0.875 ettr=0.900 "
		 "held_s=2400",
		 tag);
	assert_int_equal(options_parse_tag(noted, &o, &err), 0);
	assert_memory_equal(&o, &plain, sizeof(o));
	assert_string_equal(o.checkpoint_dir, "/c/%j");
	/* What follows is never read, even a word that is no key=value. */
	snprintf(noted, sizeof(noted), "%s | max=9 oops", tag);
	assert_int_equal(options_parse_tag(noted, &o, &err), 0);
	assert_int_equal(o.max, 2);
	/* The prefix's space is no start of a note (the fuzzer's case: a
	 * copy of -1 bytes). */
	assert_int_equal(options_parse_tag("elastic:v1 | x", &o, &err), -1);
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
	/* A tag from before heartbeats: the built-in default. */
	assert_int_equal(o.heartbeat_timeout, POLICY_DEFAULT_HEARTBEAT_TIMEOUT);
	assert_false(options_given(&o, ELASTIC_OPT_HEARTBEAT_TIMEOUT));
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
	assert_string_equal(buf,
			    "elastic:v1 min=2 max=8 step=2 grace=60 "
			    "delay=30 fault=60 ondemand=never signal=URG "
			    "keep=3 hb=5 hang=0 slow=report resume=4711@200 "
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(from_env),
		cmocka_unit_test(from_env_all_options),
		cmocka_unit_test(from_env_bad),
		cmocka_unit_test(env_get),
		cmocka_unit_test(tag_format),
		cmocka_unit_test(tag_round_trip_step),
		cmocka_unit_test(tag_round_trip_sizes),
		cmocka_unit_test(tag_ckpt_encoding),
		cmocka_unit_test(tag_largest),
		cmocka_unit_test(tag_largest_all),
		cmocka_unit_test(tag_resume_eval),
		cmocka_unit_test(tag_future_keys),
		cmocka_unit_test(tag_account_note),
		cmocka_unit_test(tag_incomplete),
		cmocka_unit_test(tag_bad),
	};
	return cmocka_run_group_tests_name("options_tag", tests, NULL, NULL);
}
