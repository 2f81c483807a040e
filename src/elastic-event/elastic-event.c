/*
 * elastic-event: raise the elastic event in running jobs from outside,
 * as elasticd and the launcher do from inside (see raise.h).
 *
 *   elastic-event raise [--signal=SIG] JOBID...
 *
 * Prints nothing on success; one line per failure on stderr.  Exit 0 when
 * every job was signalled, 1 when some were not, 2 on a usage error (then
 * no job is signalled).
 */
#include "config.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "common/error.h"
#include "common/log.h"
#include "common/parse.h"
#include "raise.h"

#define PROG "elastic-event"

static void event_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " raise [--signal=SIG] JOBID...\n"
	    "       " PROG " --help | --version\n"
	    "\n"
	    "raise   send the elastic event to every step of each job (not\n"
	    "        to its batch shell): its ranks checkpoint and exit\n"
	    "\n"
	    "  -s, --signal=SIG  the signal to send, with or without SIG\n"
	    "                    (%s); default: each job's own\n"
	    "                    --elastic-signal, from its elastic tag\n",
	    PARSE_SIGNALS);
}

/* After a usage error's own line. */
static void event_usage_hint(void)
{
	fprintf(stderr, "usage: " PROG " raise [--signal=SIG] JOBID... "
			"(" PROG " --help for more)\n");
}

static int cmd_raise(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "signal", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum parse_result r;
	uint32_t *ids;
	int sig = 0, c, n, bad = 0, rc = 0;
	elastic_error_t err;

	while ((c = getopt_long(argc, argv, "+s:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			r = parse_signal(optarg, &sig);
			if (r != PARSE_OK) {
				elog_error("--signal=%s: %s (allowed: %s)",
					   optarg, parse_strerror(r),
					   PARSE_SIGNALS);
				return 2;
			}
			break;
		case 'h':
			event_usage(stdout);
			return 0;
		default:
			event_usage_hint();
			return 2;
		}
	}
	n = argc - optind;
	if (n == 0) {
		fprintf(stderr, PROG " raise: no job id given\n");
		event_usage_hint();
		return 2;
	}

	/* All or nothing on a typo: check every id before sending any. */
	ids = calloc((size_t)n, sizeof(*ids));
	if (!ids) {
		elog_error("out of memory");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		const char *s = argv[optind + i];
		unsigned long v = 0;

		r = parse_uint(s, 1, UINT32_MAX, &v);
		if (r != PARSE_OK) {
			elog_error("%s: not a job id (%s; allowed: 1 to "
				   "%u)",
				   s, parse_strerror(r), UINT32_MAX);
			bad = 1;
		}
		ids[i] = (uint32_t)v;
	}
	if (bad) {
		free(ids);
		return 2;
	}

	slurm_init(NULL);
	for (int i = 0; i < n; i++) {
		int s = sig;

		/* Without --signal, each job's own elastic signal. */
		if ((!s && raise_job_signal(ids[i], &s, &err) < 0) ||
		    raise_job(ids[i], s, &err) < 0) {
			elog_error("%s", err.text);
			rc = 1;
		}
	}
	slurm_fini();
	free(ids);
	return rc;
}

int main(int argc, char **argv)
{
	elog_init(PROG, ELOG_INFO, 0);
	if (argc < 2) {
		event_usage_hint();
		return 2;
	}
	if (!strcmp(argv[1], "raise")) {
		argv[1] = (char *)PROG " raise"; /* for getopt's messages */
		return cmd_raise(argc - 1, argv + 1);
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		event_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf(PROG " (" PACKAGE_NAME ") " PACKAGE_VERSION "\n");
		return 0;
	}
	elog_error("unknown command '%s'", argv[1]);
	event_usage_hint();
	return 2;
}
