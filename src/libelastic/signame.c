/* The event's signal names: common/parse.c's table, in the exact form of
 * ELASTIC_SIGNAL (the tag and the rank environment carry it so). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "common/parse.h"
#include "signame.h"

int signame_parse(const char *name, int *ret)
{
	const char *canon;
	int sig;

	/* parse_signal takes "sigurg" too: only the canonical name here. */
	if (!name || parse_signal(name, &sig) != PARSE_OK ||
	    !(canon = parse_signal_name(sig)) || strcmp(canon, name) != 0) {
		errno = EINVAL;
		return -1;
	}
	*ret = sig;
	return 0;
}

const char *signame_name(int sig)
{
	return parse_signal_name(sig);
}

const char *signame_allowed(void)
{
	return PARSE_SIGNALS;
}
