#ifndef ELASTIC_SAFEOPEN_H
#define ELASTIC_SAFEOPEN_H

#include <stdbool.h>

#include "error.h"

/*
 * Open the directory at path (O_RDONLY, close-on-exec).  With strict (a
 * root process reading what users own): path is absolute and walked one
 * component at a time, a symbolic link is followed only if root owns it,
 * and nothing else but a directory is opened (a FIFO never blocks).
 * Returns the descriptor, or -1 with err set and errno kept (ENOENT: no
 * such directory).
 */
int safeopen_dir(const char *path, bool strict, elastic_error_t *err);

#endif
