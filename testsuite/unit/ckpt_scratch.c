/* The scratch directory of test_ckpt and test_ckpt_resume and what they
 * make in it (ckpt_scratch.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <sys/stat.h>

#include "ckpt_scratch.h"
#include "fixture.h"

/* A scratch directory per test, removed afterwards. */
char scratch_dir[256];

int scratch_setup(void **state)
{
	return scratch_make(scratch_dir, sizeof(scratch_dir), "test_ckpt");
}

int scratch_teardown(void **state)
{
	return scratch_remove(scratch_dir);
}

void scratch_put(const char *rel, size_t size)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", scratch_dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	assert_int_equal(fclose(f), 0);
}

void scratch_mkd(const char *rel)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", scratch_dir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

bool scratch_exists(const char *rel)
{
	char path[1024];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", scratch_dir, rel);
	return lstat(path, &st) == 0;
}

const char *scratch_at(const char *rel)
{
	static char path[8][1024];
	static int k;

	k = (k + 1) % 8;
	snprintf(path[k], sizeof(path[k]), "%s%s%s", scratch_dir,
		 *rel ? "/" : "", rel);
	return path[k];
}
