/* Unit tests of the rank's progress record (src/common/progress_rec.c),
 * the same text the Python module writes (test_progress.py). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/progress_rec.h"

#define SPACES10 "          "
#define C_RECORD                                                               \
	"v1 2 120 98765 r 4242 3 1500" SPACES10 SPACES10 SPACES10 "     \n"

static void format_fixed(void **state)
{
	struct progress_rec r = { 2,	120, 98765, PROGRESS_STEPPING,
				  4242, 3,   1500 };
	char buf[PROGRESS_REC_LEN];

	(void)state;
	assert_int_equal(strlen(C_RECORD), PROGRESS_REC_LEN);
	assert_int_equal(progress_rec_format(&r, buf), 0);
	assert_memory_equal(buf, C_RECORD, PROGRESS_REC_LEN);
	r.step = UINT64_MAX;
	r.mono_ms = UINT64_MAX;
	r.restart = 4294967295u;
	r.pid = 2147483647;
	assert_int_equal(progress_rec_format(&r, buf), -1);
}

static void parse_round_trip(void **state)
{
	struct progress_rec r = { 0 },
			    w = { 9, 1u << 20, 5, PROGRESS_SAVING, 77, 0, 0 };
	char buf[PROGRESS_REC_LEN];

	(void)state;
	assert_int_equal(progress_rec_parse(C_RECORD, PROGRESS_REC_LEN, &r), 0);
	assert_int_equal(r.restart, 2);
	assert_int_equal(r.step, 120);
	assert_int_equal(r.mono_ms, 98765);
	assert_int_equal(r.state, PROGRESS_STEPPING);
	assert_int_equal(r.pid, 4242);
	assert_int_equal(r.sig, 3);
	assert_int_equal(r.save_ms, 1500);
	/* An older writer's record, without SAVE_MS: none known. */
	memset(buf, ' ', sizeof(buf));
	memcpy(buf, "v1 2 120 98765 r 4242 3", 23);
	buf[PROGRESS_REC_LEN - 1] = '\n';
	assert_int_equal(progress_rec_parse(buf, sizeof(buf), &r), 0);
	assert_int_equal(r.save_ms, 0);
	assert_int_equal(progress_rec_format(&w, buf), 0);
	assert_int_equal(progress_rec_parse(buf, sizeof(buf), &r), 0);
	assert_int_equal(r.step, 1u << 20);
	assert_int_equal(r.state, PROGRESS_SAVING);
}

/* A torn write, another file's text, a bad state or pid: refused, and
 * the record untouched. */
static void parse_bad(void **state)
{
	static const char *const bad[] = {
		"v2 2 120 98765 r 4242 3",	"v1 2 120 98765 x 4242 3",
		"v1 2 120 98765 r 0 3",		"v1 2 120 98765 r 4242 999",
		"v1 2 120 98765 r 4242 3 junk", "v1 2 120",
		"v1 2 120 98765 r 4242 3 -5",	"v1 2 120 98765 r 4242 3 5 6",
	};
	struct progress_rec r = { 1, 2, 3, PROGRESS_STEPPING, 4, 5, 6 },
			    before = r;

	(void)state;
	char buf[PROGRESS_REC_LEN];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(buf, ' ', sizeof(buf));
		memcpy(buf, bad[i], strlen(bad[i]));
		buf[PROGRESS_REC_LEN - 1] = '\n';
		assert_int_equal(progress_rec_parse(buf, sizeof(buf), &r), -1);
		assert_memory_equal(&r, &before, sizeof(r));
	}
	/* No newline at the end: torn. */
	memcpy(buf, C_RECORD, sizeof(buf));
	buf[PROGRESS_REC_LEN - 1] = 'x';
	assert_int_equal(progress_rec_parse(buf, sizeof(buf), &r), -1);
	assert_int_equal(progress_rec_parse(C_RECORD, PROGRESS_REC_LEN - 1, &r),
			 -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(format_fixed),
		cmocka_unit_test(parse_round_trip),
		cmocka_unit_test(parse_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
