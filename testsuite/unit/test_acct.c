/* Unit tests of elasticctl report's reading of elasticd's account
 * document (acct.c) and its text (acct_text.c): the story's document
 * (acct-story.json) and small ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_fixture.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The story as read: every field, the sizes sorted, the sum. */
static void story_read(void **state)
{
	struct acct a;
	double off;

	(void)state;
	acct_fixture_story(&a);
	assert_int_equal(a.id, 4242);
	assert_string_equal(a.user, "alice");
	assert_string_equal(a.account, "ml");
	assert_string_equal(a.partition, "batch");
	assert_true(a.ended);
	assert_float_equal(a.held_s, 4956.0, 1e-9);
	assert_float_equal(a.cause_s[ACCTNAMES_CAUSE_TRAINING], 4340.0, 1e-9);
	assert_float_equal(a.cause_s[ACCTNAMES_CAUSE_RESIZE_RESTART], 206.0,
			   1e-9);
	assert_float_equal(a.cause_s[ACCTNAMES_CAUSE_OUTSIDE], 174.0, 1e-9);
	assert_float_equal(acct_lost_s(&a), 616.0, 1e-9);
	assert_true(acct_adds_up(&a, &off));
	assert_float_equal(off, 0.0, 1e-9);
	assert_int_equal(a.nat, 4);
	for (size_t i = 0; i < a.nat; i++)
		assert_int_equal(a.at[i].world, i + 1);
	assert_float_equal(a.at[3].node_s, 1914.0, 1e-9);
	assert_int_equal(a.steps, 4370);
	assert_int_equal(a.redone, 60);
	assert_float_equal(a.goodput, 0.8757, 1e-9);
	assert_float_equal(a.ettr, 0.91, 1e-9);
	assert_int_equal(a.nseries, 187);
	assert_int_equal(a.series[4].world, 2);
	assert_string_equal(a.series[4].phase, "training");
	assert_int_equal(a.nevents, 16);
	assert_string_equal(a.events[0].kind, "growth");
	assert_string_equal(a.events[0].path, "");
	assert_string_equal(a.events[1].path, "restart");
	assert_float_equal(a.events[1].seconds, 6.2, 1e-9);
	assert_int_equal(a.events[15].seq, 8);
	acct_free(&a);
	acct_free(&a); /* emptied: again is harmless */
}

/* The story's text: each cause with its node-hours and share of held,
 * the sum, training by world size, the steps, events and resizes. */
static void story_text(void **state)
{
	static const char *const lines[] = {
		"job 4242 of alice (account ml, partition batch): ended\n",
		"started 2025-12-01 23:00:00 UTC, ended 2025-12-01 23:30:00 "
		"UTC\n",
		"held 30m00s, of it training 27m18s\n",
		"goodput 0.876 (node-time trained / held), ETTR 0.910 (time "
		"trained / held)\n",
		"\n                   node-hours   share\n",
		"\nheld                    1.377  100.0%\n",
		"\ntraining                1.206   87.6%\n",
		"\nlost                    0.171   12.4%\n",
		"\n  waiting               0.022    1.6%\n",
		"\n  resize_restart        0.057    4.2%\n",
		"\n  resize_inplace        0.002    0.2%\n",
		"\n  resize_swap           0.002    0.2%\n",
		"\n  detect                0.014    1.0%\n",
		"\n  redo                  0.017    1.2%\n",
		"\n  checkpoint            0.008    0.6%\n",
		"\n  outside               0.048    3.5%\n",
		"\nheld = training + lost: 4956.0 = 4340.0 + 616.0 "
		"node-seconds: adds up\n",
		"\n2           0.408   12m14s   33.8%\n",
		"\n4           0.532    7m59s   44.1%\n",
		"\nsteps 4370 done, 60 redone\n",
		"\nevents growth 2, preemption 1, crash 1, hang 1, straggler "
		"1, "
		"spare-swap 1, shrink 1\n",
		"\nresizes 8\n",
		"\ngrowth       restart      1      6.20      6.20\n",
		"\ncrash        restart      1     20.30     20.30\n",
		"\nspare-swap   swap         1      4.10      4.10\n",
	};
	struct acct a;
	char *text;

	(void)state;
	acct_fixture_story(&a);
	text = acct_text(&a);
	assert_non_null(text);
	for (size_t i = 0; i < N(lines); i++) {
		if (!strstr(text, lines[i]))
			fprintf(stderr, "# missing: %s# in:\n%s", lines[i],
				text);
		assert_non_null(strstr(text, lines[i]));
	}
	free(text);
	acct_free(&a);
}

static const char resizes_doc[] =
    "{\"id\": 7, \"node_seconds\": {\"held\": 100, \"training\": 90, "
    "\"waiting\": 10}, \"events\": ["
    "{\"t\": 10, \"kind\": \"growth\"},"
    "{\"t\": 11, \"kind\": \"growth\", \"path\": \"restart\", "
    "\"seconds\": 1, \"seq\": 1},"
    "{\"t\": 20, \"kind\": \"growth\"},"
    "{\"t\": 25, \"kind\": \"growth\", \"path\": \"restart\", "
    "\"seconds\": 5, \"seq\": 2},"
    "{\"t\": 30, \"kind\": \"preemption\"},"
    "{\"t\": 32, \"kind\": \"preemption\", \"path\": \"restart\", "
    "\"seconds\": 2, \"seq\": 3},"
    "{\"t\": 40, \"kind\": \"growth\"},"
    "{\"t\": 43, \"kind\": \"growth\", \"path\": \"restart\", "
    "\"seconds\": 3, \"seq\": 4},"
    "{\"t\": 50, \"kind\": \"preemption\"},"
    "{\"t\": 54.5, \"kind\": \"preemption\", \"path\": \"restart\", "
    "\"seconds\": 4.5, \"seq\": 5},"
    "{\"t\": 60, \"kind\": \"growth\"},"
    "{\"t\": 62, \"kind\": \"growth\", \"path\": \"inplace\", "
    "\"seconds\": 2, \"seq\": 6}]}";

/* The resizes by kind and path: counts, medians (odd and even) and
 * maxima, in the order each pair first appears. */
static void resizes(void **state)
{
	struct acct a;
	struct acct_resize_stat r[12];
	char *text;

	(void)state;
	acct_fixture_doc(&a, resizes_doc);
	assert_int_equal(acct_text_resizes(&a, r), 3);
	assert_string_equal(r[0].kind, "growth");
	assert_string_equal(r[0].path, "restart");
	assert_int_equal(r[0].count, 3);
	assert_float_equal(r[0].median_s, 3.0, 1e-9);
	assert_float_equal(r[0].max_s, 5.0, 1e-9);
	assert_string_equal(r[1].kind, "preemption");
	assert_int_equal(r[1].count, 2);
	assert_float_equal(r[1].median_s, 3.25, 1e-9);
	assert_float_equal(r[1].max_s, 4.5, 1e-9);
	assert_string_equal(r[2].path, "inplace");
	assert_int_equal(r[2].count, 1);
	assert_float_equal(r[2].median_s, 2.0, 1e-9);
	text = acct_text(&a);
	assert_non_null(strstr(text, "\nevents growth 4, preemption 2\n"));
	assert_non_null(strstr(text, "\nresizes 6\n"));
	assert_non_null(strstr(
	    text, "\npreemption   restart      2      3.25      4.50\n"));
	free(text);
	acct_free(&a);
}

/* A running job, no events: the state now; "none", no table. */
static void running_quiet(void **state)
{
	struct acct a;
	char *text;

	(void)state;
	acct_fixture_doc(&a, "{\"id\": 9, \"user\": \"bob\", \"ended\": false, "
			     "\"phase\": \"training\", \"world\": 4, "
			     "\"held\": 5, \"node_seconds\": {\"held\": 0}}");
	text = acct_text(&a);
	assert_non_null(strstr(
	    text,
	    "job 9 of bob: running, training, world 4 of 5 nodes held\n"));
	assert_non_null(
	    strstr(text, "\nheld                    0.000       -\n"));
	assert_non_null(strstr(text, "\nevents none\n"));
	assert_non_null(strstr(text, "\nresizes 0\n"));
	assert_null(strstr(text, "median"));
	assert_null(strstr(text, "\nworld "));
	free(text);
	acct_free(&a);
}

/* Held = training + lost within a node-second, else the text says by
 * how much. */
static void adds_up(void **state)
{
	struct acct a;
	double off;
	char *text;

	(void)state;
	acct_fixture_doc(&a, "{\"id\": 7, \"node_seconds\": {\"held\": 100, "
			     "\"training\": 90, \"redo\": 9.1}}");
	assert_true(acct_adds_up(&a, &off));
	assert_float_equal(off, 0.9, 1e-9);
	acct_free(&a);
	acct_fixture_doc(&a, "{\"id\": 7, \"node_seconds\": {\"held\": 100, "
			     "\"training\": 90, \"waiting\": 5}}");
	assert_false(acct_adds_up(&a, &off));
	assert_float_equal(off, 5.0, 1e-9);
	text = acct_text(&a);
	assert_non_null(strstr(text, "held = training + lost: 100.0 != 90.0 + "
				     "5.0 node-seconds: does NOT add up (off "
				     "by 5.0)\n"));
	free(text);
	acct_free(&a);
}

/* Each wrong document fails, naming the field. */
static void errors(void **state)
{
	static const struct {
		const char *doc, *error;
	} cases[] = {
		{ "not json", "account: not JSON" },
		{ "[1]", "account: not a JSON object" },
		{ "{}", "account: id: missing" },
		{ "{\"id\": 0, \"node_seconds\": {\"held\": 1}}",
		  "account: id: 0: not a job id" },
		{ "{\"id\": \"7\"}", "account: id: not a number" },
		{ "{\"id\": 7}", "account: node_seconds: missing" },
		{ "{\"id\": 7, \"node_seconds\": []}",
		  "account: node_seconds: not an object" },
		{ "{\"id\": 7, \"node_seconds\": {}}",
		  "account: node_seconds.held: missing" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": -1}}",
		  "account: node_seconds.held: -1: not from 0 to" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1, \"redo\": "
		  "\"x\"}}",
		  "account: node_seconds.redo: not a number" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, "
		  "\"training_at\": {\"0\": 1}}",
		  "account: training_at: \"0\": not a world size" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, "
		  "\"training_at\": {\"x2\": 1}}",
		  "account: training_at: \"x2\": not a world size" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, "
		  "\"training_at\": {\"2\": true}}",
		  "account: training_at.2: not a number" },
		{ "{\"id\": 7, \"steps\": 1.5, \"node_seconds\": {\"held\": "
		  "1}}",
		  "account: steps: 1.5: not a whole number" },
		{ "{\"id\": 7, \"goodput\": -0.5, \"node_seconds\": "
		  "{\"held\": 1}}",
		  "account: goodput: -0.5: not from 0 to 1000" },
		{ "{\"id\": 7, \"ettr\": \"0.9\", \"node_seconds\": "
		  "{\"held\": 1}}",
		  "account: ettr: not a number" },
		{ "{\"id\": 7, \"ended\": \"yes\", \"node_seconds\": "
		  "{\"held\": 1}}",
		  "account: ended: not true or false" },
		{ "{\"id\": 7, \"user\": \"a\\u001bb\", \"node_seconds\": "
		  "{\"held\": 1}}",
		  "account: user: \"a\\x1bb\": not a name" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, \"events\": "
		  "[{\"t\": 1, \"kind\": \"gr\\\"owth\"}]}",
		  "account: events[0].kind: " },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, \"events\": "
		  "[{\"t\": 1, \"kind\": \"GROWTH\"}]}",
		  "account: events[0].kind: \"GROWTH\": not a word" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, \"events\": "
		  "[{\"t\": 1}]}",
		  "account: events[0].kind: missing" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, \"events\": "
		  "{}}",
		  "account: events: not an array" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, \"series\": "
		  "[{\"t\": 1}, {\"world\": 2}]}",
		  "account: series[1].t: missing" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, \"series\": "
		  "[1]}",
		  "account: series[0]: not an object" },
		{ "{\"id\": 7, \"node_seconds\": {\"held\": 1}, \"series\": "
		  "[{\"t\": 1, \"world\": 65537}]}",
		  "account: series[0].world: 65537: not from 0 to 65536" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		elastic_error_t err = { { 0 } };
		struct acct a;
		int rc = acct_parse(cases[i].doc, &a, &err);

		if (rc != -1 || !strstr(err.text, cases[i].error))
			fprintf(stderr, "# %s: got %d, \"%s\"\n", cases[i].doc,
				rc, err.text);
		assert_int_equal(rc, -1);
		assert_non_null(strstr(err.text, cases[i].error));
		assert_null(a.series);
		assert_null(a.events);
		assert_null(a.at);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(story_read), cmocka_unit_test(story_text),
		cmocka_unit_test(resizes),    cmocka_unit_test(running_quiet),
		cmocka_unit_test(adds_up),    cmocka_unit_test(errors),
	};

	return cmocka_run_group_tests_name("acct", tests, NULL, NULL);
}
