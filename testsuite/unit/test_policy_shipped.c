/* The elastic.conf the packages install (etc/elastic.conf up to the
 * embedded cluster's settings, which etc/Makefile.am cuts off to make
 * elastic.conf.default) against policy.c: every "#Key=Value" line shows
 * the built-in default, so that an admin who uncomments one changes
 * nothing.  A key whose default is no value (an empty list, an unset
 * name or path: "Key=" parses to the defaults) may show an example
 * instead.  Without this, a default changed in the code leaves the
 * shipped file telling admins the old one. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/policy.h"

/* Where etc/Makefile.am cuts the file. */
#define CLUSTER_PART "## The embedded test cluster"

/* The file's text up to CLUSTER_PART (the whole file if there is none,
 * which the active settings then fail). */
static char *shipped_text(void)
{
	FILE *f = fopen(EXAMPLE_CONF, "r");
	char *text, *cut;
	size_t n;

	if (!f)
		fail_msg("%s: cannot open", EXAMPLE_CONF);
	text = calloc(1, 262145);
	assert_non_null(text);
	n = fread(text, 1, 262144, f);
	fclose(f);
	text[n] = '\0';
	cut = strstr(text, "\n" CLUSTER_PART);
	if (cut)
		cut[1] = '\0';
	return text;
}

/* One line "Key=Value" parsed alone: 0 and *p, or -1. */
static int parse_one(struct elastic_policy *p, const char *key,
		     const char *value)
{
	char line[1100];
	elastic_error_t err = { "" };

	snprintf(line, sizeof(line), "%s=%s\n", key, value);
	return policy_parse(p, line, "e.conf", &err);
}

static void commented_settings_are_defaults(void **state)
{
	struct elastic_policy *def = malloc(sizeof(*def));
	struct elastic_policy *p = malloc(sizeof(*p));
	char *text = shipped_text(), *line, *save = NULL;
	elastic_error_t err = { "" };
	unsigned shown = 0;

	(void)state;
	assert_non_null(def);
	assert_non_null(p);
	/* Parsed, not policy_defaults(): both sides take the same path. */
	if (policy_parse(def, "", "e.conf", &err) != 0)
		fail_msg("the empty file: %s", err.text);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		const char *eq = strchr(line, '=');
		size_t klen;

		if (line[0] != '#' || !eq)
			continue;
		klen = (size_t)(eq - line - 1);
		if (klen == 0 || klen >= sizeof(key) ||
		    strspn(line + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "abcdefghijklmnopqrstuvwxyz") != klen)
			continue; /* prose, not a setting commented out */
		memcpy(key, line + 1, klen);
		key[klen] = '\0';
		shown++;
		memset(p, 0, sizeof(*p));
		if (parse_one(p, key, eq + 1) != 0)
			fail_msg("%s: '%s': not a valid setting", EXAMPLE_CONF,
				 line);
		if (!memcmp(p, def, sizeof(*p)))
			continue;
		memset(p, 0, sizeof(*p));
		if (parse_one(p, key, "") == 0 && !memcmp(p, def, sizeof(*p)))
			continue; /* no default value: an example */
		fail_msg("%s: '%s' is not the built-in default: uncommented, "
			 "it would change the policy",
			 EXAMPLE_CONF, line);
	}
	/* The file still shows its settings this way. */
	assert_true(shown >= 30);
	free(text);
	free(def);
	free(p);
}

/* As installed: it parses, and to the defaults (nothing is active). */
static void shipped_is_defaults(void **state)
{
	struct elastic_policy *def = malloc(sizeof(*def));
	struct elastic_policy *p = malloc(sizeof(*p));
	char *text = shipped_text();
	elastic_error_t err = { "" };

	(void)state;
	assert_non_null(def);
	assert_non_null(p);
	assert_int_equal(policy_parse(def, "", "e.conf", &err), 0);
	if (policy_parse(p, text, EXAMPLE_CONF, &err) != 0)
		fail_msg("%s", err.text);
	assert_memory_equal(p, def, sizeof(*p));
	free(text);
	free(def);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commented_settings_are_defaults),
		cmocka_unit_test(shipped_is_defaults),
	};
	return cmocka_run_group_tests_name("policy_shipped", tests, NULL, NULL);
}
