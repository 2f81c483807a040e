/* Unit tests of the ring probe (src/elastic-run/ring.c): which peers a
 * node checks, and when it says one is unreachable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "elastic-run/ring.h"

static const char *WORLD = "n1=10.0.0.1:4001 n2=10.0.0.2:4002 "
			   "n3=10.0.0.3:4003 n4=10.0.0.4:4004";

/* The next RING_K nodes, wrapping past the end. */
static void peers_after_self(void **state)
{
	struct ring r;
	char list[256];

	(void)state;
	snprintf(list, sizeof(list), "%s", WORLD);
	assert_int_equal(ring_parse(&r, "n2", list), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.peer[0].name, "n3");
	assert_string_equal(r.peer[1].name, "n4");
	snprintf(list, sizeof(list), "%s", WORLD);
	assert_int_equal(ring_parse(&r, "n4", list), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.peer[0].name, "n1");
	assert_string_equal(r.peer[0].addr, "10.0.0.1");
	assert_string_equal(r.peer[0].port, "4001");
	assert_string_equal(r.peer[1].name, "n2");
	snprintf(list, sizeof(list), "%s", WORLD);
	assert_int_equal(ring_parse(&r, "n3", list), 0);
	assert_string_equal(r.peer[0].name, "n4");
	assert_string_equal(r.peer[1].name, "n1");
	assert_string_equal(r.peer[1].port, "4001");
	/* Two nodes: the other one only.  Not in the list: none. */
	snprintf(list, sizeof(list), "n1=a:1 n2=b:2");
	assert_int_equal(ring_parse(&r, "n1", list), 0);
	assert_int_equal(r.n, 1);
	snprintf(list, sizeof(list), "%s", WORLD);
	assert_int_equal(ring_parse(&r, "n9", list), -1);
	assert_int_equal(r.n, 0);
}

/* RING_FAILS misses in a row say the peer; one reach resets; the line
 * is said again only when it changes. */
static void said_on_change(void **state)
{
	struct ring r;
	char list[256], line[128];

	(void)state;
	snprintf(list, sizeof(list), "%s", WORLD);
	assert_int_equal(ring_parse(&r, "n1", list), 0);
	assert_false(ring_result(&r, 0, false));
	assert_false(ring_result(&r, 0, true)); /* a miss, then reached */
	assert_false(ring_result(&r, 0, false));
	assert_true(ring_result(&r, 0, false));
	assert_true(ring_line(&r, "n1", line, sizeof(line)) > 0);
	assert_string_equal(line, "n1 R=n2\n");
	assert_false(ring_result(&r, 1, true));
	assert_false(ring_result(&r, 0, false)); /* said already */
	assert_false(ring_result(&r, 1, false));
	assert_false(ring_result(&r, 1, false)); /* still cut: no change */
	assert_true(ring_line(&r, "n1", line, sizeof(line)) > 0);
	assert_string_equal(line, "n1 R=n2,n3\n");
	assert_false(ring_result(&r, 0, true));
	assert_true(ring_result(&r, 1, true));
	assert_true(ring_line(&r, "n1", line, sizeof(line)) > 0);
	assert_string_equal(line, "n1 R=-\n");
	assert_false(ring_result(&r, 5, false)); /* no such peer */
	assert_int_equal(ring_line(&r, "n1", line, 4), -1);
}

static void stray_words(void **state)
{
	struct ring r;
	char list[256];

	(void)state;
	snprintf(list, sizeof(list),
		 "=a:1 n1=:2 n2=b: n3 n4=c n1=d:4 n5=e:5 n6=f:6 n7=g:7");
	assert_int_equal(ring_parse(&r, "n1", list), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.peer[0].name, "n5");
	assert_string_equal(r.peer[1].name, "n6");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(peers_after_self),
		cmocka_unit_test(said_on_change),
		cmocka_unit_test(stray_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
