/* Unit tests of elasticd's suspect nodes (src/elasticd/suspect.c): drain
 * within the hourly cap, report beyond it or when the site says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "elasticd/suspect.h"

#define MIN_MS (60 * 1000)

static void cap_per_hour(void **state)
{
	struct suspect_window w;

	(void)state;
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < 3; i++)
		assert_int_equal(suspect_decide(&w, POLICY_SUSPECT_DRAIN, 3,
						(int64_t)i * MIN_MS),
				 SUSPECT_DRAIN);
	assert_int_equal(suspect_drains(&w), 3);
	/* A bug or a blip naming many nodes: the fourth in the hour is only
	 * reported. */
	assert_int_equal(
	    suspect_decide(&w, POLICY_SUSPECT_DRAIN, 3, 30 * MIN_MS),
	    SUSPECT_CAPPED);
	assert_int_equal(
	    suspect_decide(&w, POLICY_SUSPECT_DRAIN, 3, 60 * MIN_MS - 1),
	    SUSPECT_CAPPED);
	/* An hour after the first, one drain is free again. */
	assert_int_equal(
	    suspect_decide(&w, POLICY_SUSPECT_DRAIN, 3, 60 * MIN_MS),
	    SUSPECT_DRAIN);
	assert_int_equal(
	    suspect_decide(&w, POLICY_SUSPECT_DRAIN, 3, 60 * MIN_MS + 1),
	    SUSPECT_CAPPED);
	assert_int_equal(suspect_drains(&w), 3);
	/* Two hours on, all of them. */
	assert_int_equal(
	    suspect_decide(&w, POLICY_SUSPECT_DRAIN, 3, 200 * MIN_MS),
	    SUSPECT_DRAIN);
	assert_int_equal(suspect_drains(&w), 1);
}

static void report_and_zero(void **state)
{
	struct suspect_window w;

	(void)state;
	memset(&w, 0, sizeof(w));
	assert_int_equal(suspect_decide(&w, POLICY_SUSPECT_REPORT, 3, 0),
			 SUSPECT_REPORT);
	assert_int_equal(suspect_drains(&w), 0);
	assert_int_equal(suspect_decide(&w, POLICY_SUSPECT_DRAIN, 0, 0),
			 SUSPECT_CAPPED);
	assert_string_equal(suspect_action_name(SUSPECT_DRAIN), "drained");
	assert_string_equal(suspect_action_name(SUSPECT_REPORT), "reported");
	assert_string_equal(suspect_action_name(SUSPECT_ALREADY),
			    "drained already");
}

/* A cap beyond the window is the window. */
static void window_bound(void **state)
{
	struct suspect_window w;
	int i;

	(void)state;
	memset(&w, 0, sizeof(w));
	for (i = 0; i < SUSPECT_WINDOW_MAX; i++)
		assert_int_equal(
		    suspect_decide(&w, POLICY_SUSPECT_DRAIN, 1000000, i),
		    SUSPECT_DRAIN);
	assert_int_equal(suspect_decide(&w, POLICY_SUSPECT_DRAIN, 1000000, i),
			 SUSPECT_CAPPED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cap_per_hour),
		cmocka_unit_test(report_and_zero),
		cmocka_unit_test(window_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
