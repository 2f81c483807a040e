/* Test fixtures shared by the unit tests (fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

int tmp_make(void **state, const char *name, const char *file)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/%s.XXXXXX", name);
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, file);
	*state = t;
	return 0;
}

int tmp_teardown(void **state)
{
	struct tmp *t = *state;

	unlink(t->path);
	rmdir(t->dir);
	free(t);
	return 0;
}

int scratch_make(char *dir, size_t len, const char *name)
{
	if ((size_t)snprintf(dir, len, "/tmp/%s.XXXXXX", name) >= len)
		return -1;
	return mkdtemp(dir) ? 0 : -1;
}

int scratch_remove(const char *dir)
{
	char cmd[PATH_MAX + 16];

	/* The tests make nothing with a quote in its name. */
	if (!dir[0] || strchr(dir, '\'') ||
	    (size_t)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >=
		sizeof(cmd))
		return -1;
	return system(cmd) == 0 ? 0 : -1;
}

void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}
