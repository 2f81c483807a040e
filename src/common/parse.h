#ifndef ELASTIC_COMMON_PARSE_H
#define ELASTIC_COMMON_PARSE_H

#include <stddef.h>

enum parse_result {
	PARSE_OK = 0,
	PARSE_EMPTY,	/* "" */
	PARSE_NOT_UINT, /* anything but decimal digits: sign, space, hex */
	PARSE_RANGE,	/* digits, but outside [min, max] (overflow too) */
};

/*
 * Strict decimal: only [0-9]+, no sign, no white space, no suffix.
 * On success stores the value in *ret; *ret is untouched otherwise.
 */
enum parse_result parse_uint(const char *s, unsigned long min,
			     unsigned long max, unsigned long *ret);

/* Words for a parse_result, for messages: "not an integer", ... */
const char *parse_strerror(enum parse_result r);

/* Trim leading and trailing blanks in place; returns s advanced. */
char *parse_trim(char *s);

#endif
