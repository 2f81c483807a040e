#ifndef ELASTIC_TEST_POLICY_FIXTURE_H
#define ELASTIC_TEST_POLICY_FIXTURE_H

/* What the tests of policy.c share: elastic.conf text that must parse,
 * or must fail with one message, and names of a given length. */
#include <stddef.h>

#include "common/policy.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Parse text as "e.conf"; fail the test with the error if it fails. */
void must_parse_policy(struct elastic_policy *p, const char *text);
/* text must fail with exactly msg, leaving the policy untouched. */
void must_fail_policy(const char *text, const char *msg);
/* A name of n characters, in a static buffer. */
const char *name_of(size_t n, char c);

#endif
