/* Unit tests of safeopen.c: a root process opening a directory users own
 * follows no link a user made and never blocks on a FIFO. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safeopen.h"

static char dir[64];

static int setup(void **state)
{
	char p[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_safeopen.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(p, sizeof(p), "%s/real", dir);
	if (mkdir(p, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/real/sub", dir);
	return mkdir(p, 0755);
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Opens path (strict or not): true if it opened. */
static bool opens(const char *rel, bool strict, elastic_error_t *err)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	fd = safeopen_dir(p, strict, err);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void plain_dirs(void **state)
{
	elastic_error_t err;

	(void)state;
	assert_true(opens("real", true, &err));
	assert_true(opens("real/sub", true, &err));
	assert_true(opens("real//sub/.", true, &err));
	assert_true(opens("real/sub/..", true, &err));
	assert_false(opens("none", true, &err));
	assert_int_equal(errno, ENOENT);
	assert_false(opens("none", false, &err));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(safeopen_dir("tmp", true, &err), -1);
	assert_non_null(strstr(err.text, "not an absolute path"));
}

/* A FIFO where the directory should be: an error at once, no block. */
static void fifo(void **state)
{
	elastic_error_t err;
	char p[PATH_MAX];

	(void)state;
	snprintf(p, sizeof(p), "%s/fifo", dir);
	assert_int_equal(mkfifo(p, 0666), 0);
	assert_false(opens("fifo", true, &err));
	assert_int_equal(errno, ENOTDIR);
	assert_false(opens("fifo", false, &err));
}

/* Links: followed when not strict; when strict, only root's. */
static void links(void **state)
{
	elastic_error_t err;
	char p[PATH_MAX], t[PATH_MAX];

	(void)state;
	snprintf(p, sizeof(p), "%s/rel", dir);
	assert_int_equal(symlink("real", p), 0);
	snprintf(p, sizeof(p), "%s/abs", dir);
	snprintf(t, sizeof(t), "%s/real/sub", dir);
	assert_int_equal(symlink(t, p), 0);
	assert_true(opens("rel/sub", false, &err));
	assert_true(opens("abs", false, &err));
	if (geteuid() != 0) {
		/* Not root: the links are this user's, never followed. */
		assert_false(opens("rel/sub", true, &err));
		assert_int_equal(errno, ELOOP);
		return;
	}
	/* Root's own links are followed, relative and absolute. */
	assert_true(opens("rel/sub", true, &err));
	assert_true(opens("abs", true, &err));
	assert_true(opens("abs/..", true, &err));
	/* A user's link is not, wherever it is in the path. */
	snprintf(p, sizeof(p), "%s/rel", dir);
	assert_int_equal(lchown(p, 65534, 65534), 0);
	assert_false(opens("rel", true, &err));
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err.text, "owned by uid 65534, not followed"));
	assert_false(opens("rel/sub", true, &err));
	/* A loop of root's links ends. */
	snprintf(p, sizeof(p), "%s/loop", dir);
	assert_int_equal(symlink("loop", p), 0);
	assert_false(opens("loop", true, &err));
	assert_int_equal(errno, ELOOP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(plain_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(links, setup, teardown),
	};

	return cmocka_run_group_tests_name("safeopen", tests, NULL, NULL);
}
