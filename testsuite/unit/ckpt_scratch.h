#ifndef ELASTIC_TEST_CKPT_SCRATCH_H
#define ELASTIC_TEST_CKPT_SCRATCH_H

/* What test_ckpt and test_ckpt_resume share: a scratch directory per test,
 * removed afterwards, and the files and directories the tests make in it,
 * by their names relative to it. */
#include <stdbool.h>
#include <stddef.h>

extern char scratch_dir[256];

/* cmocka setup and teardown: the scratch directory made, then removed. */
int scratch_setup(void **state);
int scratch_teardown(void **state);
/* REL in the scratch directory := size bytes (the test fails if it
 * cannot). */
void scratch_put(const char *rel, size_t size);
/* The directory REL made in the scratch directory. */
void scratch_mkd(const char *rel);
/* Whether REL is in the scratch directory (a link is not followed). */
bool scratch_exists(const char *rel);
/* The path of REL in the scratch directory (of the directory itself for
 * ""), in one of 8 buffers used in turn. */
const char *scratch_at(const char *rel);

#endif
