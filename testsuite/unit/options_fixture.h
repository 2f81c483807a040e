#ifndef ELASTIC_TEST_OPTIONS_FIXTURE_H
#define ELASTIC_TEST_OPTIONS_FIXTURE_H

/* What the tests of options.c share: option sets, policies and size
 * configs from text, the finalize step that must pass or fail, and the
 * field-by-field comparison of two option sets. */
#include "common/options.h"

#define N(a)   (sizeof(a) / sizeof((a)[0]))
#define BIT(o) (1u << (o))

/*
 * Options from "min=2 max=8 checkpoint-dir=/ck": each word is an option
 * name without "elastic-", set with options_set().
 */
struct elastic_opts opts_of(const char *spec);
/* A policy from elastic.conf text. */
struct elastic_policy policy_of(const char *text);
/* A size config from its text. */
struct size_config sizeconf_of(const char *text);
/* Everything a finalized option set holds, field by field. */
void assert_same_opts(const struct elastic_opts *a,
		      const struct elastic_opts *b);
/* A comma list of n sizes first, first+1, ..., in a static buffer. */
const char *sizes_list(unsigned first, unsigned n);
/* options_finalize must pass (the test fails with its error if not). */
void finalize_ok(struct elastic_opts *o, const struct elastic_policy *p,
		 const struct elastic_submitter *who,
		 const struct size_config *sc);
/* Must fail with msg, leaving o untouched. */
void finalize_fails(const struct elastic_opts *o,
		    const struct elastic_policy *p,
		    const struct elastic_submitter *who,
		    const struct size_config *sc, const char *msg);

#endif
