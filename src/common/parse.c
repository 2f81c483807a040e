#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

enum parse_result parse_bool(const char *s, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "1" };
	static const char *const no[] = { "no", "false", "0" };

	if (!s || !*s)
		return PARSE_EMPTY;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*ret = true;
			return PARSE_OK;
		}
		if (!strcasecmp(s, no[i])) {
			*ret = false;
			return PARSE_OK;
		}
	}
	return PARSE_NOT_VALID;
}

static const struct {
	const char *name;
	int sig;
} signals[] = {
	{ "URG", SIGURG },   { "WINCH", SIGWINCH }, { "USR1", SIGUSR1 },
	{ "USR2", SIGUSR2 }, { "HUP", SIGHUP },	    { "INT", SIGINT },
	{ "TERM", SIGTERM },
};

enum parse_result parse_signal(const char *s, int *ret)
{
	if (!s || !*s)
		return PARSE_EMPTY;
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		if (!strcasecmp(s, signals[i].name)) {
			*ret = signals[i].sig;
			return PARSE_OK;
		}
	}
	return PARSE_NOT_VALID;
}

const char *parse_signal_name(int sig)
{
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		if (signals[i].sig == sig)
			return signals[i].name;
	return NULL;
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
	case PARSE_NOT_VALID:
		return "not valid";
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
