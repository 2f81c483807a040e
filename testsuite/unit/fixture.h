#ifndef ELASTIC_TEST_FIXTURE_H
#define ELASTIC_TEST_FIXTURE_H

/* What several unit tests set up alike: a private directory with one file
 * path in it, written whole. */
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

#endif
