/* Unit tests of safeopen.c: a root process opening a directory users own
 * follows no link a user made and never blocks on a FIFO; a user's
 * process opens only a directory of its own, through no link of another
 * user's. */
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
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/safeopen.h"
#include "fixture.h"

static char dir[64];

static int setup(void **state)
{
	char p[PATH_MAX];

	(void)state;
	if (scratch_make(dir, sizeof(dir), "test_safeopen") < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/real", dir);
	if (mkdir(p, 0755))
		return -1;
	snprintf(p, sizeof(p), "%s/real/sub", dir);
	return mkdir(p, 0755);
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove(dir);
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

/* The user of the "as its owner" tests: nobody when we are root. */
static uid_t U;
static gid_t G;

/* safeopen_dir_owned(dir/rel) as U, in a child: 0 when it opened, else
 * the errno it failed with. */
static int owned_opens(const char *rel)
{
	char p[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	pid = fork();
	if (pid == 0) {
		elastic_error_t err;
		int fd;

		if (geteuid() == 0 &&
		    (setgroups(0, NULL) || setgid(G) || setuid(U)))
			_exit(100);
		fd = safeopen_dir_owned(p, U, G, &err);
		if (fd < 0)
			fprintf(stderr, "# %s: %s\n", rel, err.text);
		_exit(fd >= 0 ? 0 : errno);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void mkdir_as(const char *rel, mode_t mode, uid_t uid, gid_t gid)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(mkdir(p, mode), 0);
	assert_int_equal(chmod(p, mode), 0); /* whatever the umask */
	if (geteuid() == 0)
		assert_int_equal(chown(p, uid, gid), 0);
}

static void link_as(const char *rel, const char *target, uid_t uid)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(symlink(target, p), 0);
	if (geteuid() == 0)
		assert_int_equal(lchown(p, uid, uid), 0);
}

/*
 * A launcher opening its job's checkpoint dir as the job's user: only a
 * dir of the user's own that no one else can write, through no link of
 * another user's.
 */
static void as_owner(void **state)
{
	struct stat st = { .st_uid = 1000, .st_gid = 1000, .st_mode = 0755 };

	(void)state;
	/* The rule on a stat. */
	assert_true(safeopen_owned(&st, 1000, 1000));
	st.st_mode = 0775;
	assert_true(safeopen_owned(&st, 1000, 1000)); /* her private group */
	assert_false(safeopen_owned(&st, 1000, 100)); /* a shared group */
	st.st_mode = 0757;
	assert_false(safeopen_owned(&st, 1000, 1000));
	st.st_mode = 01777;
	assert_false(safeopen_owned(&st, 1000, 1000));
	st.st_mode = 0700;
	assert_false(safeopen_owned(&st, 1001, 1000));

	U = geteuid() == 0 ? 65534 : geteuid();
	G = geteuid() == 0 ? 65534 : getegid();
	assert_int_equal(chmod(dir, 0755), 0);
	mkdir_as("mine", 0755, U, G);
	mkdir_as("mine/ckpt", 0700, U, G);
	mkdir_as("mine/open", 0777, U, G);
	mkdir_as("mine/grp", 0770, U, G);
	link_as("mine/here", "ckpt", U);
	assert_int_equal(owned_opens("mine/ckpt"), 0);
	assert_int_equal(owned_opens("mine/grp"), 0);
	assert_int_equal(owned_opens("mine/here"), 0); /* her own link */
	assert_int_equal(owned_opens("mine/open"), EPERM);
	assert_int_equal(owned_opens("mine/none"), ENOENT);
	if (geteuid() != 0)
		return;
	/* Another user's directory where hers is looked for, and another
	 * user's link to hers: neither is used. */
	mkdir_as("mine/theirs", 0755, 54321, 54321);
	link_as("mine/trap", "ckpt", 54321);
	link_as("via", "mine", 54321);
	assert_int_equal(owned_opens("mine/theirs"), EPERM);
	assert_int_equal(owned_opens("mine/trap"), ELOOP);
	assert_int_equal(owned_opens("via/ckpt"), ELOOP);
	/* Root's links are the system's: followed. */
	link_as("sys", "mine", 0);
	assert_int_equal(owned_opens("sys/ckpt"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(plain_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(links, setup, teardown),
		cmocka_unit_test_setup_teardown(as_owner, setup, teardown),
	};

	return cmocka_run_group_tests_name("safeopen", tests, NULL, NULL);
}
