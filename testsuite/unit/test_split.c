/* Unit tests of the split rule (src/elastic-run/split.c): which side of
 * a split between compute nodes the world keeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "elastic-run/split.h"

static const char names[5][DETECT_NAME_MAX] = { "n1", "n2", "n3", "n4", "n5" };

static void table(struct split *s, size_t n)
{
	assert_int_equal(split_init(s, n, names), 0);
}

/* Everyone reaches everyone: no split. */
static void no_split(void **state)
{
	struct split s;
	bool keep[5];

	(void)state;
	table(&s, 5);
	for (size_t i = 0; i < 5; i++) {
		char line[80];

		snprintf(line, sizeof(line), "%.60s X=-", names[i]);
		assert_false(split_complete(&s));
		split_heard(&s, i, line);
	}
	assert_true(split_complete(&s));
	assert_int_equal(split_keep(&s, 0, keep), 0);
	for (size_t i = 0; i < 5; i++)
		assert_true(keep[i]);
	split_free(&s);
}

/* n3 cannot reach n2 (n1 is the batch host): both reach n1; the earlier
 * node in the world's order stays, n3 leaves.  Saying it one way is
 * enough. */
static void two_nodes_cut(void **state)
{
	struct split s;
	bool keep[3];

	(void)state;
	table(&s, 3);
	split_heard(&s, 0, "n1 X=-");
	split_heard(&s, 1, "n2 X=-");
	split_heard(&s, 2, "n3 X=n2");
	assert_int_equal(split_keep(&s, 0, keep), 1);
	assert_true(keep[0] && keep[1] && !keep[2]);
	split_free(&s);
}

/* {n1 n2 n4} | {n3 n5}, n3 and n5 still reaching n1: the larger side with
 * the batch host stays, whatever the order. */
static void larger_side(void **state)
{
	struct split s;
	bool keep[5];

	(void)state;
	table(&s, 5);
	split_heard(&s, 0, "n1 X=-");
	split_heard(&s, 1, "n2 X=n3,n5");
	split_heard(&s, 2, "n3 X+=n2");
	assert_false(s.answered[2]);
	split_heard(&s, 2, "n3 X=n4");
	split_heard(&s, 3, "n4 X=n3,n5");
	split_heard(&s, 4, "n5 X=n2,n4,nX");
	assert_int_equal(split_keep(&s, 0, keep), 2);
	assert_true(keep[0] && keep[1] && !keep[2] && keep[3] && !keep[4]);
	/* The batch host on the other side: its side stays (n1 reaches
	 * both). */
	assert_int_equal(split_keep(&s, 2, keep), 2);
	assert_true(keep[0] && !keep[1] && keep[2] && !keep[3] && keep[4]);
	split_free(&s);
}

/* A node that did not answer leaves; without the batch host's answer,
 * nothing is decided. */
static void silent_nodes(void **state)
{
	struct split s;
	bool keep[3];

	(void)state;
	table(&s, 3);
	split_heard(&s, 0, "n1 X=-");
	split_heard(&s, 1, "n2 X=-");
	split_heard(&s, 1, "n2 r0=5/0/r"); /* another line: ignored */
	assert_false(split_complete(&s));
	assert_int_equal(split_keep(&s, 0, keep), 1);
	assert_true(keep[0] && keep[1] && !keep[2]);
	assert_int_equal(split_keep(&s, 2, keep), 0);
	assert_true(keep[0] && keep[1] && keep[2]);
	/* Never heard before the probe: it stays, whatever was said. */
	split_heard(&s, 1, "n2 X=n3");
	split_unknown(&s, 2);
	assert_true(split_complete(&s));
	assert_int_equal(split_keep(&s, 0, keep), 0);
	split_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_split),
		cmocka_unit_test(two_nodes_cut),
		cmocka_unit_test(larger_side),
		cmocka_unit_test(silent_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
