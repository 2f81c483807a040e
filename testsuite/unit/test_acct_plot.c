/* Unit tests of elasticctl report's picture (acct_plot.c): the gnuplot
 * data and script from the story's document (acct-story.json) and small
 * ones: each event yields a line and a label of its kind. */
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

/* "set label \"KIND\" at first X," for the event at x. */
static void assert_mark(const char *script, const char *kind, double x)
{
	char label[128], arrow[128];

	snprintf(label, sizeof(label), "set label \"%s\" at first %.6f,", kind,
		 x);
	snprintf(arrow, sizeof(arrow), "set arrow from first %.6f, graph 0", x);
	if (!strstr(script, label) || !strstr(script, arrow))
		fprintf(stderr, "# no mark \"%s\" at %.6f in:\n%s", kind, x,
			script);
	assert_non_null(strstr(script, label));
	assert_non_null(strstr(script, arrow));
}

/* The story: each of its eight events a line and a label of its kind at
 * its time (minutes since the start), each resize a band; the title;
 * both pictures. */
static void story_marks(void **state)
{
	struct acct a;
	char *script;
	size_t starts = 0;

	(void)state;
	acct_fixture_story(&a);
	script = acct_plot_script(&a, true, true);
	assert_non_null(script);
	for (size_t i = 0; i < a.nevents; i++) {
		if (a.events[i].path[0])
			continue;
		assert_mark(script, a.events[i].kind,
			    (a.events[i].t - a.start) / 60);
		starts++;
	}
	assert_int_equal(starts, 8);
	assert_int_equal(acct_fixture_count(script, "set label "), 8);
	assert_int_equal(acct_fixture_count(script, "set arrow "), 8);
	assert_int_equal(acct_fixture_count(script, "set object rect "), 8);
	/* The crash's resize: 20.3 s after it, 16:40 into the job. */
	assert_non_null(strstr(script, "set object rect from first 16.666667, "
				       "graph 0 to first 17.005000, graph 1"));
	assert_non_null(strstr(script, "set title \"job 4242: goodput 0.876, "
				       "ETTR 0.910, 4370 steps (60 redone), "
				       "ended\""));
	assert_non_null(strstr(script, "(min)\""));
	assert_non_null(strstr(script, "set xrange [0:30.008333]"));
	assert_non_null(strstr(script, "set terminal pngcairo "));
	assert_non_null(strstr(script, "set terminal png "));
	assert_non_null(strstr(script, "set output \"" ACCT_PLOT_PNG "\"\n"));
	assert_non_null(strstr(script, "set terminal svg "));
	assert_non_null(strstr(script, "set output \"" ACCT_PLOT_SVG "\"\n"));
	assert_int_equal(acct_fixture_count(script, "plot \"" ACCT_PLOT_DATA
						    "\" using 1:3 with steps"),
			 2);
	assert_non_null(strstr(script, "axes x1y2"));
	free(script);
	acct_free(&a);
}

/* An event the document lost (its resize's end alone) is marked where
 * the resize began; one before the start at the start. */
static void lost_start(void **state)
{
	struct acct a;
	char *script;

	(void)state;
	acct_fixture_doc(
	    &a, "{\"id\": 5, \"start\": 1000, \"node_seconds\": {\"held\": 1}, "
		"\"series\": [{\"t\": 1000, \"world\": 1, \"held\": 1}, "
		"{\"t\": 1200, \"world\": 2, \"held\": 2}], "
		"\"events\": [{\"t\": 990, \"kind\": \"hang\"}, "
		"{\"t\": 1100, \"kind\": \"crash\", \"path\": \"restart\", "
		"\"seconds\": 20, \"seq\": 1}, "
		"{\"t\": 1150, \"kind\": \"new-kind\"}]}");
	script = acct_plot_script(&a, true, false);
	assert_mark(script, "crash", 80);
	assert_mark(script, "hang", 0);
	assert_mark(script, "new-kind", 150);
	assert_int_equal(acct_fixture_count(script, "set label "), 3);
	assert_non_null(strstr(script, "(s)\""));
	assert_non_null(strstr(script, "set output \"" ACCT_PLOT_PNG "\"\n"));
	assert_null(strstr(script, ACCT_PLOT_SVG));
	assert_null(strstr(script, "set terminal svg"));
	free(script);
	script = acct_plot_script(&a, false, true);
	assert_null(strstr(script, ACCT_PLOT_PNG));
	assert_non_null(strstr(script, "set output \"" ACCT_PLOT_SVG "\"\n"));
	free(script);
	acct_free(&a);
}

/* The data: time in the axis' unit, world, held, steps and the step
 * rate since the point before (none across a restart of the count). */
static void data(void **state)
{
	struct acct a;
	char *d;

	(void)state;
	acct_fixture_doc(
	    &a, "{\"id\": 5, \"start\": 1000, \"node_seconds\": {\"held\": 1}, "
		"\"series\": [{\"t\": 1000, \"world\": 1, \"held\": 2}, "
		"{\"t\": 1010, \"world\": 2, \"held\": 2, \"steps\": 20}, "
		"{\"t\": 1020, \"world\": 2, \"held\": 3, \"steps\": 20}, "
		"{\"t\": 1030, \"world\": 2, \"held\": 3, \"steps\": 10}, "
		"{\"t\": 1030, \"world\": 2, \"held\": 3, \"steps\": 15}]}");
	d = acct_plot_data(&a);
	assert_string_equal(d, "# job 5: time (s), world, held, steps, "
			       "steps/s since the point before\n"
			       "0.000000 1 2 0 0.000000\n"
			       "10.000000 2 2 20 2.000000\n"
			       "20.000000 2 3 20 0.000000\n"
			       "30.000000 2 3 10 0.000000\n"
			       "30.000000 2 3 15 0.000000\n");
	free(d);
	acct_free(&a);
}

/* The time axis' unit suits the job's length. */
static void units(void **state)
{
	static const struct {
		const char *end, *unit;
	} cases[] = {
		{ "1200", "(s)" },	{ "1201", "(min)" },
		{ "18000", "(min)" },	{ "18001", "(h)" },
		{ "864001", "(days)" },
	};
	char doc[256];

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		struct acct a;
		char *script;

		snprintf(doc, sizeof(doc),
			 "{\"id\": 5, \"updated\": %s.0, "
			 "\"node_seconds\": {\"held\": 1}}",
			 cases[i].end);
		acct_fixture_doc(&a, doc);
		doc[0] = '\0';
		snprintf(doc, sizeof(doc), "time since the job's start %s",
			 cases[i].unit);
		script = acct_plot_script(&a, true, false);
		assert_non_null(strstr(script, doc));
		free(script);
		acct_free(&a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(story_marks),
		cmocka_unit_test(lost_start),
		cmocka_unit_test(data),
		cmocka_unit_test(units),
	};

	return cmocka_run_group_tests_name("acct_plot", tests, NULL, NULL);
}
