/* Test fixtures shared by the tests of policy.c (policy_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "policy_fixture.h"

void must_parse_policy(struct elastic_policy *p, const char *text)
{
	elastic_error_t err = { "" };

	if (policy_parse(p, text, "e.conf", &err) != 0)
		fail_msg("policy_parse(\"%s\"): %s", text, err.text);
}

void must_fail_policy(const char *text, const char *msg)
{
	struct elastic_policy *p = malloc(sizeof(*p));
	struct elastic_policy *before = malloc(sizeof(*before));
	elastic_error_t err = { "" };
	int rc;

	assert_non_null(p);
	assert_non_null(before);
	memset(p, 0xa5, sizeof(*p));
	memcpy(before, p, sizeof(*p));
	rc = policy_parse(p, text, "e.conf", &err);
	if (rc != -1)
		fail_msg("policy_parse(\"%s\") = %d, want -1", text, rc);
	assert_string_equal(err.text, msg);
	assert_memory_equal(p, before, sizeof(*p));
	free(p);
	free(before);
}

const char *name_of(size_t n, char c)
{
	static char buf[POLICY_PATH_MAX + 2];

	assert_true(n < sizeof(buf));
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}
