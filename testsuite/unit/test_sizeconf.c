/* Unit tests of sizeconf.c: per-size environment overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sizeconf.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void must_parse(struct size_config *sc, const char *text)
{
	elastic_error_t err = { "" };

	if (sizeconf_parse(sc, text, "s.conf", &err) != 0)
		fail_msg("sizeconf_parse(\"%.200s\"): %s", text, err.text);
}

/* text must fail with exactly msg, leaving the config untouched. */
static void must_fail(const char *text, const char *msg)
{
	struct size_config *sc = malloc(sizeof(*sc));
	struct size_config *before = malloc(sizeof(*before));
	elastic_error_t err = { "" };
	int rc;

	assert_non_null(sc);
	assert_non_null(before);
	memset(sc, 0xa5, sizeof(*sc));
	memcpy(before, sc, sizeof(*sc));
	rc = sizeconf_parse(sc, text, "s.conf", &err);
	if (rc != -1)
		fail_msg("sizeconf_parse(\"%.200s\") = %d, want -1", text, rc);
	assert_string_equal(err.text, msg);
	assert_memory_equal(sc, before, sizeof(*sc));
	free(sc);
	free(before);
}

/* The text of entry i, in a static buffer. */
static const char *entry_text(const struct size_config *sc, unsigned i)
{
	static char buf[SIZECONF_TEXT_MAX + 1];

	assert_true(i < sc->n);
	assert_true(sc->entry[i].off + sc->entry[i].len <= strlen(sc->text));
	snprintf(buf, sizeof(buf), "%.*s", (int)sc->entry[i].len,
		 sc->text + sc->entry[i].off);
	return buf;
}

static void file_form(void **state)
{
	struct size_config sc;

	memset(&sc, 0xa5, sizeof(sc));
	must_parse(&sc, "# per-size settings\n"
			"\n"
			"default BATCH_SIZE=256 LR=0.1\n"
			"   \t\n"
			"  4   BATCH_SIZE=64\tLR=0.025   # four nodes\n"
			"8 BATCH_SIZE=32\r\n"
			"# the end");
	assert_string_equal(sc.text, "default BATCH_SIZE=256 LR=0.1;"
				     "4 BATCH_SIZE=64 LR=0.025;"
				     "8 BATCH_SIZE=32");
	assert_int_equal(sc.n, 3);
	assert_int_equal(sc.entry[0].size, 0);
	assert_string_equal(entry_text(&sc, 0),
			    "default BATCH_SIZE=256 LR=0.1");
	assert_int_equal(sc.entry[1].size, 4);
	assert_string_equal(entry_text(&sc, 1), "4 BATCH_SIZE=64 LR=0.025");
	assert_int_equal(sc.entry[2].size, 8);
	assert_string_equal(entry_text(&sc, 2), "8 BATCH_SIZE=32");
}

static void empty(void **state)
{
	static const char *texts[] = { "", "\n", "# nothing\n\n", ";;", " ; " };

	for (size_t i = 0; i < N(texts); i++) {
		struct size_config sc;

		memset(&sc, 0xa5, sizeof(sc));
		must_parse(&sc, texts[i]);
		assert_int_equal(sc.n, 0);
		assert_string_equal(sc.text, "");
	}
}

/* ';' separates lines too; a size line may set nothing. */
static void canonical_form(void **state)
{
	struct size_config sc;

	must_parse(&sc, "default A=1 B=2;4 B=3;16;65535 C=x");
	assert_string_equal(sc.text, "default A=1 B=2;4 B=3;16;65535 C=x");
	assert_int_equal(sc.n, 4);
	assert_int_equal(sc.entry[1].size, 4);
	assert_int_equal(sc.entry[2].size, 16);
	assert_string_equal(entry_text(&sc, 2), "16");
	assert_int_equal(sc.entry[3].size, 65535);
	/* Blanks around ';' go. */
	must_parse(&sc, " default A=1 ; 4 B=3 ;");
	assert_string_equal(sc.text, "default A=1;4 B=3");
	/* No default line: fine. */
	must_parse(&sc, "2 A=1");
	assert_int_equal(sc.n, 1);
	assert_int_equal(sc.entry[0].size, 2);
	/* A value may be empty and hold '=' and punctuation. */
	must_parse(&sc, "default A= B=x=y C=a,b:c/d@e");
	assert_string_equal(sc.text, "default A= B=x=y C=a,b:c/d@e");
}

/* Parsing the canonical text again gives the same config. */
static void round_trip(void **state)
{
	static const char *texts[] = {
		"# c\ndefault A=1 B=2\n\n4 B=3 C=4 # c\n 8\tD=5\n",
		"2 X=1;default Y=2",
		"default A=1",
		"",
	};

	for (size_t i = 0; i < N(texts); i++) {
		struct size_config a, b;

		memset(&a, 0, sizeof(a));
		memset(&b, 0x5a, sizeof(b));
		must_parse(&a, texts[i]);
		must_parse(&b, a.text);
		assert_string_equal(b.text, a.text);
		assert_int_equal(b.n, a.n);
		for (unsigned j = 0; j < a.n; j++) {
			assert_int_equal(b.entry[j].size, a.entry[j].size);
			assert_int_equal(b.entry[j].off, a.entry[j].off);
			assert_int_equal(b.entry[j].len, a.entry[j].len);
		}
	}
}

/* A comment runs to the end of its line, whatever it holds. */
static void comments(void **state)
{
	struct size_config sc;

	must_parse(&sc, "default A=1 # batch; lr scaled\n4 B=2 #;#;\n");
	assert_string_equal(sc.text, "default A=1;4 B=2");
	must_parse(&sc, "#;;;\n8 C=3");
	assert_string_equal(sc.text, "8 C=3");
	/* A long comment is no long line. */
	{
		char *text = malloc(10000);

		assert_non_null(text);
		strcpy(text, "4 A=1 #");
		memset(text + 7, 'x', 9000);
		strcpy(text + 9007, "\n8 B=2");
		must_parse(&sc, text);
		assert_string_equal(sc.text, "4 A=1;8 B=2");
		free(text);
	}
}

static void first_word(void **state)
{
	struct size_config sc;

	must_parse(&sc, "1 A=1;65535 A=2");
	assert_int_equal(sc.entry[0].size, 1);
	assert_int_equal(sc.entry[1].size, 65535);
	must_fail("0 A=1", "s.conf:1: '0': a line starts with a node count "
			   "(1 to 65535) or 'default'");
	must_fail("65536 A=1", "s.conf:1: '65536': a line starts with a node "
			       "count (1 to 65535) or 'default'");
	must_fail("Default A=1", "s.conf:1: 'Default': a line starts with a "
				 "node count (1 to 65535) or 'default'");
	must_fail("-4 A=1", "s.conf:1: '-4': a line starts with a node count "
			    "(1 to 65535) or 'default'");
	must_fail("A=1", "s.conf:1: 'A=1': a line starts with a node count "
			 "(1 to 65535) or 'default'");
	must_fail("default A=1\n\n# c\nfour A=1",
		  "s.conf:4: 'four': a line starts with a node count (1 to "
		  "65535) or 'default'");
	must_fail("99999999999999999999 A=1",
		  "s.conf:1: '99999999999999999999': a line starts with a "
		  "node count (1 to 65535) or 'default'");
}

static void duplicates(void **state)
{
	must_fail("4 A=1\n4 B=2", "s.conf:2: second line for 4");
	must_fail("default A=1\n8 A=2\ndefault B=2",
		  "s.conf:3: second line for default");
	must_fail("4 A=1;004 B=2", "s.conf:2: second line for 004");
}

static void reserved_names(void **state)
{
	static const char *reserved[] = {
		"RANK",
		"LOCAL_RANK",
		"WORLD_SIZE",
		"LOCAL_WORLD_SIZE",
		"GROUP_RANK",
		"MASTER_ADDR",
		"MASTER_PORT",
		"PATH",
		"HOME",
		"USER",
		"SHELL",
		"SLURM_JOB_ID",
		"SLURM_",
		"ELASTIC_NNODES",
		"ELASTIC_X",
		"LD_PRELOAD",
		"LD_LIBRARY_PATH",
		"SPANK_X",
		"_SLURM_SPANK_OPTION_x",
	};
	static const char *fine[] = { "RANKS",		"MY_RANK", "rank",
				      "SLURM",		"ELASTIC", "LDX",
				      "PATHS",		"Path",	   "NCCL_DEBUG",
				      "OMP_NUM_THREADS" };

	for (size_t i = 0; i < N(reserved); i++) {
		char text[128], msg[256];

		snprintf(text, sizeof(text), "4 A=1 %s=2", reserved[i]);
		snprintf(msg, sizeof(msg),
			 "s.conf:1: %s is set by Slurm or slurm-elastic and "
			 "cannot be overridden",
			 reserved[i]);
		must_fail(text, msg);
		snprintf(text, sizeof(text), "default %s=2", reserved[i]);
		must_fail(text, msg);
	}
	for (size_t i = 0; i < N(fine); i++) {
		struct size_config sc;
		char text[128];

		snprintf(text, sizeof(text), "4 %s=2", fine[i]);
		must_parse(&sc, text);
	}
}

static void bad_names(void **state)
{
	char text[256], name[80];
	struct size_config sc;

	must_fail("4 1A=2", "s.conf:1: '1A' is not a variable name (letters, "
			    "digits, _)");
	must_fail("4 A-B=2", "s.conf:1: 'A-B' is not a variable name "
			     "(letters, digits, _)");
	must_fail("4 A.B=2", "s.conf:1: 'A.B' is not a variable name "
			     "(letters, digits, _)");
	must_fail("4 =2", "s.conf:1: '=2' is not NAME=VALUE");
	must_fail("4 A", "s.conf:1: 'A' is not NAME=VALUE");
	must_fail("default A=1 B", "s.conf:1: 'B' is not NAME=VALUE");
	must_parse(&sc, "4 _A=1 a9=2 A_b_9=3");

	/* 64 characters pass, 65 fail. */
	memset(name, 'N', 64);
	name[64] = '\0';
	snprintf(text, sizeof(text), "4 %s=1", name);
	must_parse(&sc, text);
	memset(name, 'N', 65);
	name[65] = '\0';
	snprintf(text, sizeof(text), "4 %s=1", name);
	must_fail(text, "s.conf:1: variable name longer than 64");
}

/* A value is one word: no blank, ';', '#' or control character. */
static void bad_values(void **state)
{
	char text[512], value[300];
	struct size_config sc;

	/* A blank ends the value: what follows is no NAME=VALUE. */
	must_fail("4 A=x y", "s.conf:1: 'y' is not NAME=VALUE");
	/* ';' ends the line: what follows is no line. */
	must_fail("4 A=x;y", "s.conf:2: 'y': a line starts with a node count "
			     "(1 to 65535) or 'default'");
	/* '#' starts a comment. */
	must_parse(&sc, "4 A=x#y B=z");
	assert_string_equal(sc.text, "4 A=x");
	/* Other control characters and non-ASCII bytes are refused. */
	must_fail("4 A=x\vy", "s.conf:1: value of A has a space, ';', '#' or "
			      "control character");
	must_fail("4 A=x\fy", "s.conf:1: value of A has a space, ';', '#' or "
			      "control character");
	must_fail("4 A=\x1b[0m", "s.conf:1: value of A has a space, ';', '#' "
				 "or control character");
	must_fail("4 LONG_NAME=caf\xc3\xa9",
		  "s.conf:1: value of LONG_NAME has a space, ';', '#' or "
		  "control character");

	/* 256 characters pass, 257 fail. */
	memset(value, 'v', 256);
	value[256] = '\0';
	snprintf(text, sizeof(text), "4 A=%s", value);
	must_parse(&sc, text);
	memset(value, 'v', 257);
	value[257] = '\0';
	snprintf(text, sizeof(text), "4 A=%s", value);
	must_fail(text, "s.conf:1: value of A longer than 256");
}

static void too_many(void **state)
{
	char text[8192];
	size_t j;
	struct size_config sc;

	/* 32 variables on a line pass, 33 fail. */
	j = (size_t)snprintf(text, sizeof(text), "4");
	for (int i = 0; i < 32; i++)
		j += (size_t)snprintf(text + j, sizeof(text) - j, " V%d=1", i);
	must_parse(&sc, text);
	assert_int_equal(sc.n, 1);
	snprintf(text + j, sizeof(text) - j, " V32=1");
	must_fail(text, "s.conf:1: more than 32 variables");

	/* 65 lines (default and 64 sizes) pass, 66 fail. */
	j = (size_t)snprintf(text, sizeof(text), "default A=1\n");
	for (int i = 1; i <= 64; i++)
		j += (size_t)snprintf(text + j, sizeof(text) - j, "%d\n", i);
	must_parse(&sc, text);
	assert_int_equal(sc.n, SIZECONF_ENTRIES_MAX);
	snprintf(text + j, sizeof(text) - j, "65\n");
	must_fail(text, "s.conf:66: more than 65 lines");
}

/* The canonical text holds 4096 bytes; comments and blanks do not count. */
static void canonical_too_large(void **state)
{
	char *text = malloc(SIZECONF_FILE_MAX);
	char value[300];
	size_t j = 0;
	struct size_config sc;

	assert_non_null(text);
	memset(value, 'v', 250);
	value[250] = '\0';
	/* 16 lines "k A=<250 v>": 9 of 254 bytes, 7 of 255, 15 ';'. */
	for (int k = 1; k <= 16; k++)
		j += (size_t)snprintf(text + j, SIZECONF_FILE_MAX - j,
				      "  %d  A=%s   # comment\n", k, value);
	/* 4086 so far: "17 B=xxxx" brings it to 4096 exactly. */
	strcpy(text + j, "17 B=xxxx\n");
	must_parse(&sc, text);
	assert_int_equal(strlen(sc.text), SIZECONF_TEXT_MAX);
	assert_int_equal(sc.n, 17);
	strcpy(text + j, "17 B=xxxxx\n");
	must_fail(text, "s.conf: too large (at most 4096 bytes once comments "
			"and blanks are removed)");
	strcpy(text + j, "17\n");
	must_parse(&sc, text);
	strcpy(text + j, "170000\n");
	must_fail(text, "s.conf:17: '170000': a line starts with a node count "
			"(1 to 65535) or 'default'");

	/* One line longer than the canonical text can be. */
	memset(text, 'x', 5000);
	memcpy(text, "4 A=", 4);
	text[5000] = '\0';
	must_fail(text, "s.conf:1: line too long");
	free(text);
}

/* sizeconf_foreach */

struct seen {
	unsigned n;
	char var[SIZECONF_VARS_MAX * 2]
		[SIZECONF_NAME_MAX + SIZECONF_VALUE_MAX + 2];
	unsigned stop_at; /* return 7 at this call (1-based), 0: never */
};

static int record(const char *name, const char *value, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < N(s->var));
	snprintf(s->var[s->n], sizeof(s->var[0]), "%s=%s", name, value);
	s->n++;
	return s->n == s->stop_at ? 7 : 0;
}

/* The variables at size, joined with ' ', in a static buffer. */
static const char *vars_at(const struct size_config *sc, unsigned size)
{
	static char buf[SIZECONF_TEXT_MAX * 2];
	static struct seen s;
	size_t j = 0;

	memset(&s, 0, sizeof(s));
	assert_int_equal(sizeconf_foreach(sc, size, record, &s), 0);
	buf[0] = '\0';
	for (unsigned i = 0; i < s.n; i++)
		j += (size_t)snprintf(buf + j, sizeof(buf) - j, "%s%s",
				      i ? " " : "", s.var[i]);
	return buf;
}

static void foreach_merge(void **state)
{
	struct size_config sc;

	must_parse(&sc, "default A=1 B=2 C=3\n"
			"4 B=20 D=40\n"
			"8 A=100 B=200 C=300\n"
			"16\n");
	/* The default's variables not overridden, then the size's own. */
	assert_string_equal(vars_at(&sc, 4), "A=1 C=3 B=20 D=40");
	assert_string_equal(vars_at(&sc, 8), "A=100 B=200 C=300");
	/* A size with an empty line: the default's. */
	assert_string_equal(vars_at(&sc, 16), "A=1 B=2 C=3");
	/* A size without a line: the default's. */
	assert_string_equal(vars_at(&sc, 2), "A=1 B=2 C=3");
	assert_string_equal(vars_at(&sc, 65535), "A=1 B=2 C=3");
}

static void foreach_no_default(void **state)
{
	struct size_config sc;

	must_parse(&sc, "4 B=20;8 C=30");
	assert_string_equal(vars_at(&sc, 4), "B=20");
	assert_string_equal(vars_at(&sc, 8), "C=30");
	assert_string_equal(vars_at(&sc, 2), "");
	must_parse(&sc, "");
	assert_string_equal(vars_at(&sc, 4), "");
	/* The line order in the file does not matter. */
	must_parse(&sc, "4 B=20;default A=1 B=2");
	assert_string_equal(vars_at(&sc, 4), "A=1 B=20");
	assert_string_equal(vars_at(&sc, 5), "A=1 B=2");
}

/* Overriding goes by whole names, not prefixes. */
static void foreach_names(void **state)
{
	struct size_config sc;

	must_parse(&sc, "default A=1 AB=2 ABC=3 B=\n4 AB=20 B=x\n");
	assert_string_equal(vars_at(&sc, 4), "A=1 ABC=3 AB=20 B=x");
	must_parse(&sc, "default AB=1\n4 A=2 ABC=3\n");
	assert_string_equal(vars_at(&sc, 4), "AB=1 A=2 ABC=3");
	/* Values that look like names do not override. */
	must_parse(&sc, "default A=1 B=2\n4 C=A=9\n");
	assert_string_equal(vars_at(&sc, 4), "A=1 B=2 C=A=9");
	/* An empty value still overrides. */
	must_parse(&sc, "default A=1\n4 A=\n");
	assert_string_equal(vars_at(&sc, 4), "A=");
}

/* The longest names and values come through whole. */
static void foreach_long(void **state)
{
	char name[SIZECONF_NAME_MAX + 1], value[SIZECONF_VALUE_MAX + 1];
	char text[512], want[512];
	struct size_config sc;

	memset(name, 'N', SIZECONF_NAME_MAX);
	name[SIZECONF_NAME_MAX] = '\0';
	memset(value, 'v', SIZECONF_VALUE_MAX);
	value[SIZECONF_VALUE_MAX] = '\0';
	snprintf(text, sizeof(text), "default %s=%s", name, value);
	must_parse(&sc, text);
	snprintf(want, sizeof(want), "%s=%s", name, value);
	assert_string_equal(vars_at(&sc, 3), want);
}

static void foreach_stop(void **state)
{
	struct size_config sc;
	struct seen s;

	must_parse(&sc, "default A=1 B=2 C=3\n4 D=4 E=5\n");
	/* Stop in the default's variables... */
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	assert_int_equal(sizeconf_foreach(&sc, 4, record, &s), 7);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.var[1], "B=2");
	/* ...and in the size's own. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 4;
	assert_int_equal(sizeconf_foreach(&sc, 4, record, &s), 7);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.var[3], "D=4");
	/* Running to the end returns 0. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 99;
	assert_int_equal(sizeconf_foreach(&sc, 4, record, &s), 0);
	assert_int_equal(s.n, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_form),
		cmocka_unit_test(empty),
		cmocka_unit_test(canonical_form),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(comments),
		cmocka_unit_test(first_word),
		cmocka_unit_test(duplicates),
		cmocka_unit_test(reserved_names),
		cmocka_unit_test(bad_names),
		cmocka_unit_test(bad_values),
		cmocka_unit_test(too_many),
		cmocka_unit_test(canonical_too_large),
		cmocka_unit_test(foreach_merge),
		cmocka_unit_test(foreach_no_default),
		cmocka_unit_test(foreach_names),
		cmocka_unit_test(foreach_long),
		cmocka_unit_test(foreach_stop),
	};
	return cmocka_run_group_tests_name("sizeconf", tests, NULL, NULL);
}
