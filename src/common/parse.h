#ifndef ELASTIC_COMMON_PARSE_H
#define ELASTIC_COMMON_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

enum parse_result {
	PARSE_OK = 0,
	PARSE_EMPTY,	 /* "" */
	PARSE_NOT_UINT,	 /* anything but decimal digits: sign, space, hex */
	PARSE_RANGE,	 /* digits, but outside [min, max] (overflow too) */
	PARSE_NOT_VALID, /* not one of the accepted words or forms */
};

/*
 * Strict decimal: only [0-9]+, no sign, no white space, no suffix.
 * On success stores the value in *ret; *ret is untouched otherwise.
 */
enum parse_result parse_uint(const char *s, unsigned long min,
			     unsigned long max, unsigned long *ret);

/* "yes"/"no" (also true/false, 1/0), case-insensitive. */
enum parse_result parse_bool(const char *s, bool *ret);

/*
 * A signal for the elastic event, by name with or without "SIG", any case:
 * URG, WINCH, USR1, USR2, HUP, INT, TERM.  URG and WINCH are ignored by
 * processes that install no handler, which is why URG is the default.
 */
enum parse_result parse_signal(const char *s, int *ret);
const char *parse_signal_name(int sig); /* "URG"; NULL if not accepted */
#define PARSE_SIGNALS "URG, WINCH, USR1, USR2, HUP, INT, TERM"

/* Words for a parse_result, for messages: "not a whole number", ... */
const char *parse_strerror(enum parse_result r);

/* Trim leading and trailing blanks in place; returns s advanced. */
char *parse_trim(char *s);

/*
 * Read a whole small text file into a malloc'd NUL-terminated buffer
 * (caller frees *ret).  Fails on more than max bytes or a NUL byte.
 * If missing_ok and the file does not exist, *ret = NULL and returns 0.
 */
int parse_read_file(const char *path, size_t max, bool missing_ok, char **ret,
		    elastic_error_t *err);

#endif
