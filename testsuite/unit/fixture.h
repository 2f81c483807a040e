#ifndef ELASTIC_TEST_FIXTURE_H
#define ELASTIC_TEST_FIXTURE_H

/* What several unit tests set up alike: a private scratch directory, or
 * one with one file path in it, and files written whole. */
#include <stddef.h>

struct tmp {
	char dir[64];
	char path[128];
};

/* cmocka group or test setup: *state = a new struct tmp, its directory
 * made as /tmp/NAME.XXXXXX, its path DIR/FILE (not created). */
int tmp_make(void **state, const char *name, const char *file);
/* Its teardown: the file, the directory and the struct go. */
int tmp_teardown(void **state);
/* path := len bytes of data (the test fails if it cannot). */
void write_file(const char *path, const void *data, size_t len);
/* path := the string text. */
void write_text(const char *path, const char *text);

/* A scratch directory /tmp/NAME.XXXXXX, its name in dir (len bytes):
 * 0, or -1 (a setup's failure). */
int scratch_make(char *dir, size_t len, const char *name);
/* The scratch directory and all it holds removed: 0 or -1. */
int scratch_remove(const char *dir);

#endif
