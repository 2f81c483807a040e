#ifndef ELASTICCTL_GNUPLOT_H
#define ELASTICCTL_GNUPLOT_H

#include <stddef.h>

#include "common/error.h"

/*
 * gnuplot, for elasticctl report's picture: found as $GNUPLOT (an
 * absolute path) or on PATH's absolute directories, and run with no
 * shell, in a directory of the caller's, on a script there.
 */

/* Its path into buf (len bytes): 0, or -1 with err saying it is missing
 * (naming --png/--svg and gnuplot). */
int gnuplot_find(char *buf, size_t len, elastic_error_t *err);

/* Run gnuplot (its path) on script (a file name in dir) with dir as its
 * working directory; its output goes to errfile in dir.  0 when it
 * exited 0; else -1 with err holding its last line of output (or saying
 * it was killed after two minutes). */
int gnuplot_run(const char *gnuplot, const char *dir, const char *script,
		const char *errfile, elastic_error_t *err);

#endif
