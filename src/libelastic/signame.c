#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "signame.h"

static const struct {
	const char *name;
	int sig;
} signames[] = {
	{ "URG", SIGURG },   { "WINCH", SIGWINCH }, { "USR1", SIGUSR1 },
	{ "USR2", SIGUSR2 }, { "HUP", SIGHUP },	    { "INT", SIGINT },
	{ "TERM", SIGTERM },
};

int signame_parse(const char *name, int *ret)
{
	for (size_t i = 0; name && i < sizeof(signames) / sizeof(signames[0]);
	     i++) {
		if (strcmp(name, signames[i].name) == 0) {
			*ret = signames[i].sig;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

const char *signame_name(int sig)
{
	for (size_t i = 0; i < sizeof(signames) / sizeof(signames[0]); i++) {
		if (signames[i].sig == sig)
			return signames[i].name;
	}
	return NULL;
}

const char *signame_allowed(void)
{
	return "URG, WINCH, USR1, USR2, HUP, INT, TERM";
}
