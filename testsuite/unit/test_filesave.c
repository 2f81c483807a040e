/* Unit tests of filesave.c: elasticd's state file and the eval index are
 * replaced whole or not at all, and a failure leaves nothing behind (nor
 * closes twice). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/filesave.h"
#include "fixture.h"

static char dir[64], path[PATH_MAX], tmp[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	if (scratch_make(dir, sizeof(dir), "test_filesave") < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/state", dir);
	snprintf(tmp, sizeof(tmp), "%s/state.new", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove(dir);
}

static void read_back(const char *p, char *out, size_t len)
{
	FILE *f = fopen(p, "r");
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, len - 1, f);
	out[n] = '\0';
	fclose(f);
}

static void saves_and_replaces(void **state)
{
	elastic_error_t err;
	struct stat st;
	char buf[64];

	(void)state;
	assert_int_equal(file_save_atomic(path, tmp, 0600, "one\n", 4, &err),
			 0);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "one\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(
	    file_save_atomic(path, tmp, 0600, "two, longer\n", 12, &err), 0);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "two, longer\n");
	assert_int_equal(access(tmp, F_OK), -1);
}

/* The rename fails (a directory is in the way): one close of the file,
 * the error names the step, and no .new file is left. */
static void rename_fails(void **state)
{
	elastic_error_t err;
	char sub[PATH_MAX + 8];

	(void)state;
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/x", path);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(file_save_atomic(path, tmp, 0600, "data\n", 5, &err),
			 -1);
	assert_non_null(strstr(err.text, "rename"));
	assert_non_null(strstr(err.text, path));
	assert_int_equal(access(tmp, F_OK), -1);
	assert_int_equal(access(sub, F_OK), 0);
}

/* Another's symlink at path.new is not followed. */
static void no_symlink(void **state)
{
	elastic_error_t err;
	char target[PATH_MAX + 8], buf[64];
	FILE *f;

	(void)state;
	snprintf(target, sizeof(target), "%s/target", dir);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("theirs\n", f);
	fclose(f);
	assert_int_equal(symlink(target, tmp), 0);
	assert_int_equal(file_save_atomic(path, tmp, 0600, "ours\n", 5, &err),
			 -1);
	read_back(target, buf, sizeof(buf));
	assert_string_equal(buf, "theirs\n");
	assert_int_equal(access(path, F_OK), -1);
}

/* The temporary file cannot be made: the error names it, path stays. */
static void tmp_not_made(void **state)
{
	elastic_error_t err;
	char none[PATH_MAX + 16];

	(void)state;
	snprintf(none, sizeof(none), "%s/none/state.new", dir);
	assert_int_equal(file_save_atomic(path, none, 0600, "x", 1, &err), -1);
	assert_non_null(strstr(err.text, none));
	assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(saves_and_replaces, setup,
						teardown),
		cmocka_unit_test_setup_teardown(rename_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(no_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(tmp_not_made, setup, teardown),
	};

	return cmocka_run_group_tests_name("filesave", tests, NULL, NULL);
}
