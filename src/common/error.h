#ifndef ELASTIC_COMMON_ERROR_H
#define ELASTIC_COMMON_ERROR_H

#include <stddef.h>

/*
 * A one-line, human-readable error filled in by the function that detects
 * the problem and logged or shown once, by the top level that owns the
 * context (sbatch, slurmctld, a daemon).
 */
typedef struct elastic_error {
	char text[320];
} elastic_error_t;

/* Format into err (if not NULL) and return -1, so callers can write
 * "return elastic_errorf(err, ...);".  Control characters in the result
 * are written as escapes (\n, \t, \r, \xHH): the text is one line. */
int elastic_errorf(elastic_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copy in to out (len bytes with the NUL), control characters written as
 * escapes as above, cut at a whole character or escape. */
void elastic_escape(char *out, size_t len, const char *in);

#endif
