#ifndef ELASTIC_FILESAVE_H
#define ELASTIC_FILESAVE_H

#include <stddef.h>
#include <sys/types.h>

#include "error.h"

/*
 * Replace the file at path with len bytes of data, atomically: written to
 * tmp (created with mode, never through a symlink), synced, then renamed
 * over path.  On any failure path keeps its old content, tmp is removed
 * and -1 is returned with err set; 0 on success.
 */
int file_save_atomic(const char *path, const char *tmp, mode_t mode,
		     const void *data, size_t len, elastic_error_t *err);

#endif
