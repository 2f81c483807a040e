#include "config.h"

#include <ctype.h>
#include <string.h>

#include "parse.h"

enum parse_result parse_uint(const char *s, unsigned long min,
			     unsigned long max, unsigned long *ret)
{
	unsigned long v = 0;
	int over = 0;

	if (!s || !*s)
		return PARSE_EMPTY;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return PARSE_NOT_UINT;
		/* Saturate instead of wrapping so huge values read as range
		 * errors rather than small numbers. */
		if (v > (~0UL - (unsigned long)(*p - '0')) / 10)
			over = 1;
		else
			v = v * 10 + (unsigned long)(*p - '0');
	}
	if (over || v < min || v > max)
		return PARSE_RANGE;
	*ret = v;
	return PARSE_OK;
}

const char *parse_strerror(enum parse_result r)
{
	switch (r) {
	case PARSE_OK:
		return "ok";
	case PARSE_EMPTY:
		return "empty value";
	case PARSE_NOT_UINT:
		return "not a whole number";
	case PARSE_RANGE:
		return "out of range";
	}
	return "invalid";
}

char *parse_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}
