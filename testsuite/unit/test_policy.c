#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/policy.h"

static void defaults(void **state)
{
	struct elastic_policy p;

	policy_defaults(&p);
	assert_int_equal(p.max_nodes, ELASTIC_NODES_LIMIT);
	assert_int_equal(p.default_min_nodes, 1);
	assert_int_equal(p.default_max_nodes, 0);
}

static void empty_and_comments(void **state)
{
	struct elastic_policy p;
	elastic_error_t err;

	assert_int_equal(policy_parse(&p, "", "e.conf", &err), 0);
	assert_int_equal(p.max_nodes, ELASTIC_NODES_LIMIT);
	assert_int_equal(
	    policy_parse(&p, "# only a comment\n\n   \n", "e.conf", &err), 0);
	assert_int_equal(p.default_min_nodes, 1);
}

static void keys_values(void **state)
{
	struct elastic_policy p;
	elastic_error_t err;
	const char *text = "# site policy\n"
			   "MaxNodes=16\n"
			   "  defaultminnodes = 2   # case-insensitive keys\n"
			   "DefaultMaxNodes=8";

	assert_int_equal(policy_parse(&p, text, "e.conf", &err), 0);
	assert_int_equal(p.max_nodes, 16);
	assert_int_equal(p.default_min_nodes, 2);
	assert_int_equal(p.default_max_nodes, 8);
}

/* Each bad file fails with file:line and the key, and leaves *p alone. */
static void bad_files(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "Foo=1\n", "e.conf:1: unknown key 'Foo' (known: MaxNodes, "
			     "DefaultMinNodes, DefaultMaxNodes)" },
		{ "\nMaxNodes\n",
		  "e.conf:2: expected Key=Value, got 'MaxNodes'" },
		{ "MaxNodes=\n",
		  "e.conf:1: MaxNodes=: empty value (allowed: 1 to 65535)" },
		{ "MaxNodes=abc\n",
		  "e.conf:1: MaxNodes=abc: not a whole number "
		  "(allowed: 1 to 65535)" },
		{ "MaxNodes=0\n",
		  "e.conf:1: MaxNodes=0: out of range (allowed: 1 to 65535)" },
		{ "MaxNodes=65536\n", "e.conf:1: MaxNodes=65536: out of range "
				      "(allowed: 1 to 65535)" },
		{ "MaxNodes=99999999999999999999999\n",
		  "e.conf:1: MaxNodes=99999999999999999999999: out of range "
		  "(allowed: 1 to 65535)" },
		{ "MaxNodes=-4\n", "e.conf:1: MaxNodes=-4: not a whole number "
				   "(allowed: 1 to 65535)" },
		{ "MaxNodes=4\nDefaultMinNodes=5\n",
		  "e.conf: DefaultMinNodes=5 is above MaxNodes=4" },
		{ "MaxNodes=4\nDefaultMaxNodes=5\n",
		  "e.conf: DefaultMaxNodes=5 is above MaxNodes=4" },
		{ "DefaultMinNodes=3\nDefaultMaxNodes=2\n",
		  "e.conf: DefaultMaxNodes=2 is below DefaultMinNodes=3" },
		{ "=3\n", "e.conf:1: unknown key '' (known: MaxNodes, "
			  "DefaultMinNodes, DefaultMaxNodes)" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct elastic_policy p = { 7, 7, 7 };
		elastic_error_t err = { "" };

		assert_int_equal(
		    policy_parse(&p, cases[i].text, "e.conf", &err), -1);
		assert_string_equal(err.text, cases[i].msg);
		assert_int_equal(p.max_nodes, 7);
	}
}

static void long_line(void **state)
{
	struct elastic_policy p;
	elastic_error_t err;
	char *text = malloc(3000);

	memset(text, 'x', 2999);
	text[2999] = '\0';
	assert_int_equal(policy_parse(&p, text, "e.conf", &err), -1);
	assert_string_equal(err.text, "e.conf:1: line longer than 1024 bytes");
	free(text);
}

static void load_files(void **state)
{
	struct elastic_policy p;
	elastic_error_t err;
	char dir[] = "/tmp/test_policy.XXXXXX";
	char path[512];
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/elastic.conf", dir);

	/* missing file: the built-in policy */
	p.max_nodes = 3;
	assert_int_equal(policy_load(&p, path, &err), 0);
	assert_int_equal(p.max_nodes, ELASTIC_NODES_LIMIT);

	f = fopen(path, "w");
	assert_non_null(f);
	fputs("MaxNodes=12\n", f);
	fclose(f);
	assert_int_equal(policy_load(&p, path, &err), 0);
	assert_int_equal(p.max_nodes, 12);

	f = fopen(path, "w");
	fputs("MaxNodes=12\nBogus=1\n", f);
	fclose(f);
	assert_int_equal(policy_load(&p, path, &err), -1);
	assert_non_null(
	    strstr(err.text, "elastic.conf:2: unknown key 'Bogus'"));

	/* a NUL byte is garbage, not the end of the file */
	f = fopen(path, "w");
	fwrite("MaxNodes=2\0Bogus\n", 1, 17, f);
	fclose(f);
	assert_int_equal(policy_load(&p, path, &err), -1);
	assert_non_null(strstr(err.text, "contains a NUL byte"));

	/* a directory cannot be read as a file */
	assert_int_equal(policy_load(&p, dir, &err), -1);

	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(defaults),
		cmocka_unit_test(empty_and_comments),
		cmocka_unit_test(keys_values),
		cmocka_unit_test(bad_files),
		cmocka_unit_test(long_line),
		cmocka_unit_test(load_files),
	};
	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
