/* Unit tests of the accounting's words (src/common/acctnames.c): each
 * table read back by its names, its words' list as the tables say, every
 * name of a shape the report, the document and the picture take. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/acctnames.h"

/* One table seen through its functions. */
struct table {
	const char *(*name)(unsigned i);
	int (*find)(const char *name);
	unsigned n;
	const char *words; /* its *_WORDS */
	const char *chars; /* what its names may hold */
};

static const char *cause_at(unsigned i)
{
	return acctnames_cause_name((enum acctnames_cause)i);
}

static const char *kind_at(unsigned i)
{
	return acctnames_kind_name((enum acctnames_kind)i);
}

static const char *path_at(unsigned i)
{
	return acctnames_path_name((enum acctnames_path)i);
}

static const char *phase_at(unsigned i)
{
	return acctnames_phase_name((enum acctnames_phase)i);
}

/* Causes become keys (NAME_nms, node_seconds.NAME, a metric's label):
 * lower case and '_'.  The others are words of a document, a report and a
 * gnuplot label (elasticctl's acct.c takes [a-z0-9_-], at most 31). */
static const struct table tables[] = {
	{ cause_at, acctnames_cause_find, ACCTNAMES_NCAUSES,
	  ACCTNAMES_CAUSE_WORDS, "abcdefghijklmnopqrstuvwxyz_" },
	{ kind_at, acctnames_kind_find, ACCTNAMES_NKINDS, ACCTNAMES_KIND_WORDS,
	  "abcdefghijklmnopqrstuvwxyz-" },
	{ path_at, acctnames_path_find, ACCTNAMES_NPATHS, ACCTNAMES_PATH_WORDS,
	  "abcdefghijklmnopqrstuvwxyz-" },
	{ phase_at, acctnames_phase_find, ACCTNAMES_NPHASES,
	  ACCTNAMES_PHASE_WORDS, "abcdefghijklmnopqrstuvwxyz-" },
};

/* Every name is found again as its own value, and nothing else is. */
static void names_read_back(void **state)
{
	(void)state;
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		const struct table *tb = &tables[t];

		for (unsigned i = 0; i < tb->n; i++) {
			const char *s = tb->name(i);

			assert_non_null(s);
			assert_int_equal(tb->find(s), (int)i);
			assert_true(strlen(s) >= 1 && strlen(s) <= 31);
			assert_int_equal(strspn(s, tb->chars), strlen(s));
		}
		assert_string_equal(tb->name(tb->n), "?");
		assert_string_equal(tb->name(~0u), "?");
		assert_int_equal(tb->find(NULL), -1);
		assert_int_equal(tb->find(""), -1);
		assert_int_equal(tb->find("?"), -1);
		assert_int_equal(tb->find("Training"), -1);
	}
}

/* The lists the error messages give are the tables, in their order. */
static void words_are_the_tables(void **state)
{
	(void)state;
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		const struct table *tb = &tables[t];
		char buf[256] = "";

		for (unsigned i = 0; i < tb->n; i++) {
			assert_true(strlen(buf) + 2 + strlen(tb->name(i)) <
				    sizeof(buf));
			if (i)
				strcat(buf, ", ");
			strcat(buf, tb->name(i));
		}
		assert_string_equal(buf, tb->words);
	}
}

/* The contract's names as the man pages give them (elasticd(8),
 * elasticd-api(7)): a rename here is a change of the contract. */
static void the_contract(void **state)
{
	(void)state;
	assert_int_equal(ACCTNAMES_NCAUSES, 9);
	assert_string_equal(acctnames_cause_name(ACCTNAMES_CAUSE_TRAINING),
			    "training");
	assert_string_equal(
	    acctnames_cause_name(ACCTNAMES_CAUSE_RESIZE_INPLACE),
	    "resize_inplace");
	assert_string_equal(acctnames_cause_name(ACCTNAMES_CAUSE_OUTSIDE),
			    "outside");
	assert_int_equal(acctnames_kind_find("spare-swap"),
			 ACCTNAMES_KIND_SPARE_SWAP);
	assert_int_equal(acctnames_kind_find("spare_swap"), -1);
	assert_int_equal(acctnames_path_find("inplace"),
			 ACCTNAMES_PATH_INPLACE);
	assert_int_equal(acctnames_path_find("in-place"), -1);
	assert_int_equal(acctnames_phase_find("ended"), ACCTNAMES_PHASE_ENDED);
	assert_int_equal(ACCTNAMES_NPHASES, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_read_back),
		cmocka_unit_test(words_are_the_tables),
		cmocka_unit_test(the_contract),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
