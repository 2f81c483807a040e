/* elasticctl report's tests' documents (acct_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_fixture.h"
#include "common/parse.h"

void acct_fixture_doc(struct acct *a, const char *json)
{
	elastic_error_t err = { { 0 } };
	int rc = acct_parse(json, a, &err);

	if (rc)
		fprintf(stderr, "# %s\n", err.text);
	assert_int_equal(rc, 0);
}

void acct_fixture_story(struct acct *a)
{
	elastic_error_t err = { { 0 } };
	char *text = NULL;

	if (parse_read_file(ACCT_FIXTURE, 1 << 20, false, &text, &err))
		fprintf(stderr, "# %s\n", err.text);
	assert_non_null(text);
	acct_fixture_doc(a, text);
	free(text);
}

size_t acct_fixture_count(const char *haystack, const char *needle)
{
	size_t n = 0;

	for (const char *p = haystack; (p = strstr(p, needle)); p++)
		n++;
	return n;
}
