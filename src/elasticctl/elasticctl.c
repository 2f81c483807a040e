/*
 * elasticctl: elastic groups as elasticd sees them, over its HTTP API
 * (elasticd-api(7)), authenticated with a munge credential per request;
 * and a job's checkpoints, read locally as the user (no elasticd needed);
 * and whether the cluster is ready for elastic jobs (check.h).
 *
 *   elasticctl [--server=HOST:PORT] [--munge-socket=PATH] [--json]
 *              status [JOB] | events JOB | raise JOB
 *   elasticctl [OPTIONS] [--json] [--png=FILE] [--svg=FILE] report JOB
 *   elasticctl [--json] [--dir=PATH] checkpoints JOB[@STEP]|PATH[@STEP]
 *   elasticctl [OPTIONS] [--node=NODE | --local] check
 *
 * Exit status: 0 done; 1 other failure (check: a finding); 2 usage error;
 * 3 elasticd not reachable or not ready; 4 credential refused or not
 * permitted; 5 no such group (or not yours).
 *
 * Here: the options, the command and its run; elasticctl.h names the
 * other parts.
 */
#include "config.h"

#include <getopt.h>

#include <curl/curl.h>

#include "common/parse.h"
#include "elasticctl.h"

#define MAX_BODY (64UL << 20)

static void ctl_usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " [OPTIONS] status [JOB]\n"
	    "       " PROG " [OPTIONS] events JOB\n"
	    "       " PROG " [OPTIONS] raise JOB\n"
	    "       " PROG " [OPTIONS] [--png=FILE] [--svg=FILE] report JOB\n"
	    "       " PROG " [--json] [--dir=PATH] checkpoints "
	    "JOB[@STEP]|PATH[@STEP]\n"
	    "       " PROG " [OPTIONS] [--node=NODE | --local] check\n"
	    "       " PROG " --help | --version\n"
	    "\n"
	    "status  your elastic groups (admins: all), or one group with\n"
	    "        its member jobs\n"
	    "events  the timeline of a group: every world it formed, and "
	    "why\n"
	    "raise   ask elasticd to raise the group's elastic event: its\n"
	    "        ranks checkpoint and restart\n"
	    "report  a job's accounting: its node-hours held, trained and\n"
	    "        lost by cause, goodput and ETTR, its resizes; with\n"
	    "        --png or --svg, its picture (gnuplot)\n"
	    "checkpoints  a job's checkpoints and their evaluations (read\n"
	    "        locally, as you); with @STEP, only that checkpoint's "
	    "path\n"
	    "check   is this cluster ready for elastic jobs?  Slurm's\n"
	    "        settings, elastic.conf, this host's plugstack.conf,\n"
	    "        elasticd, clocks and munge: one line per finding with\n"
	    "        its fix; exit status 1 if any\n"
	    "JOB     the group's base job id, or any of its unit jobs\n"
	    "\n"
	    "  -d, --dir=PATH             checkpoints: the job's checkpoint "
	    "dir\n"
	    "                             (%%j expands), when slurmctld has\n"
	    "                             forgotten the job\n"
	    "  -s, --server=HOST:PORT     elasticd's address (default:\n"
	    "                             ElasticdServer in elastic.conf)\n"
	    "  -m, --munge-socket=PATH    munged's socket (default:\n"
	    "                             ElasticdMungeSocket, else "
	    "munge's)\n"
	    "  -n, --node=NODE            check: also run this host's checks\n"
	    "                             on compute node NODE (srun)\n"
	    "  -l, --local                check: this host's checks only\n"
	    "  -j, --json                 print elasticd's JSON as is (check:\n"
	    "                             the findings as JSON)\n"
	    "      --png=FILE, --svg=FILE report: draw the job's world size,\n"
	    "                             held nodes, step rate and events\n"
	    "  -h, --help                 this help\n"
	    "  -V, --version              the version\n");
}

static void ctl_usage_hint(void)
{
	fprintf(stderr, "usage: " PROG " [OPTIONS] status [JOB] | events JOB | "
			"raise JOB | report JOB | checkpoints JOB[@STEP] | "
			"check (" PROG " --help for more)\n");
}

static int run(const struct ctl *c, enum command cmd, uint32_t job)
{
	char path[64];
	struct apiclient_body b = { .max = MAX_BODY };
	json_object *d;
	int rc;

	switch (cmd) {
	case CMD_STATUS:
		if (job)
			snprintf(path, sizeof(path), "/v1/groups/%u", job);
		else
			snprintf(path, sizeof(path), "/v1/groups");
		rc = ctl_request(c, "GET", path, job, &b);
		break;
	case CMD_EVENTS:
		snprintf(path, sizeof(path), "/v1/groups/%u/events", job);
		rc = ctl_request(c, "GET", path, job, &b);
		break;
	default:
		snprintf(path, sizeof(path), "/v1/groups/%u/raise", job);
		rc = ctl_request(c, "POST", path, job, &b);
		break;
	}
	if (rc) {
		free(b.data);
		return rc;
	}
	if (c->json) {
		if (b.len)
			printf("%s%s", b.data,
			       b.data[b.len - 1] == '\n' ? "" : "\n");
		free(b.data);
		return EXIT_OK;
	}
	d = b.data ? json_tokener_parse(b.data) : NULL;
	free(b.data);
	if (!d || !json_object_is_type(d, json_type_object)) {
		json_object_put(d);
		elog_error("elasticd at %s sent something that is not a JSON "
			   "object",
			   c->api.server);
		return EXIT_FAIL;
	}
	ctl_render(cmd, job, d);
	json_object_put(d);
	if (fflush(stdout) || ferror(stdout)) {
		elog_error("write error on standard output");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int parse_job(const char *s, uint32_t *job)
{
	unsigned long v;
	enum parse_result r = parse_uint(s, 1, UINT32_MAX, &v);

	if (r != PARSE_OK) {
		elog_error("%s: not a job id (%s; allowed: 1 to %u)", s,
			   parse_strerror(r), UINT32_MAX);
		return -1;
	}
	*job = (uint32_t)v;
	return 0;
}

/* The options given: NULL where not (--json is c->json). */
struct opts {
	const char *server, *munge, *dir, *node;
	const char *png, *svg, *from_file; /* report's */
	bool local;
};

/* report's options without a short form. */
enum { OPT_PNG = 256, OPT_SVG, OPT_FROM_FILE };

/* getopt's optarg as option name's value, not empty and at most max
 * characters (what: what it must be): 0, or -1 having said why. */
static int option_value(const char *name, const char *what, size_t max,
			const char **ret)
{
	if (!*optarg || strlen(optarg) > max) {
		elog_error("--%s=%s: not %s", name, optarg, what);
		return -1;
	}
	*ret = optarg;
	return 0;
}

/* The options, into *o and c: -1 to go on, else the exit code. */
static int read_options(int argc, char **argv, struct opts *o, struct ctl *c)
{
	static const struct option longopts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "munge-socket", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "dir", required_argument, NULL, 'd' },
		{ "node", required_argument, NULL, 'n' },
		{ "local", no_argument, NULL, 'l' },
		{ "png", required_argument, NULL, OPT_PNG },
		{ "svg", required_argument, NULL, OPT_SVG },
		{ "from-file", required_argument, NULL, OPT_FROM_FILE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	while ((ch = getopt_long(argc, argv, "s:m:jd:n:lhV", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 's':
			o->server = optarg;
			break;
		case 'm':
			if (option_value("munge-socket", "a path",
					 POLICY_PATH_MAX, &o->munge))
				return EXIT_USAGE;
			break;
		case 'j':
			c->json = true;
			break;
		case 'd':
			if (option_value("dir", "a path", POLICY_PATH_MAX,
					 &o->dir))
				return EXIT_USAGE;
			break;
		case 'n':
			if (option_value("node", "a node name", POLICY_NAME_MAX,
					 &o->node))
				return EXIT_USAGE;
			break;
		case 'l':
			o->local = true;
			break;
		case OPT_PNG:
		case OPT_SVG:
		case OPT_FROM_FILE:
			if (option_value(ch == OPT_PNG	 ? "png"
					 : ch == OPT_SVG ? "svg"
							 : "from-file",
					 "a path", POLICY_PATH_MAX,
					 ch == OPT_PNG	 ? &o->png
					 : ch == OPT_SVG ? &o->svg
							 : &o->from_file))
				return EXIT_USAGE;
			break;
		case 'h':
			ctl_usage(stdout);
			return EXIT_OK;
		case 'V':
			printf(PROG " (" PACKAGE_NAME ") " PACKAGE_VERSION
				    "\n");
			return EXIT_OK;
		default:
			ctl_usage_hint();
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* elasticd's command called name, given nargs arguments: 0, or says why
 * not and returns the exit code. */
static int choose_command(const char *name, int nargs, enum command *cmd)
{
	if (!strcmp(name, "status") && nargs <= 1)
		*cmd = CMD_STATUS;
	else if (!strcmp(name, "events") && nargs == 1)
		*cmd = CMD_EVENTS;
	else if (!strcmp(name, "raise") && nargs == 1)
		*cmd = CMD_RAISE;
	else {
		if (strcmp(name, "status") && strcmp(name, "events") &&
		    strcmp(name, "raise"))
			elog_error(
			    "%s: no such command (status, events, raise, "
			    "report, checkpoints, check)",
			    name);
		else
			elog_error("%s: %s", name,
				   nargs ? "too many arguments" : "which job?");
		ctl_usage_hint();
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

static int run_check(const struct opts *o, const struct ctl *c, int nargs)
{
	struct check_opts co = { .server = o->server,
				 .munge = o->munge,
				 .node = o->node,
				 .local = o->local,
				 .json = c->json };

	if (nargs) {
		elog_error("check: too many arguments");
		ctl_usage_hint();
		return EXIT_USAGE;
	}
	if (o->node && o->local) {
		elog_error("check: --node and --local exclude each other");
		ctl_usage_hint();
		return EXIT_USAGE;
	}
	return ctl_check(&co);
}

/* The report command: elasticd is asked unless --from-file. */
static int run_report(const struct opts *o, struct ctl *c, int nargs,
		      char **args)
{
	struct report_opts ro = { .from_file = o->from_file,
				  .png = o->png,
				  .svg = o->svg,
				  .json = c->json };
	int rc;

	if (nargs > 1 || (!nargs && !o->from_file)) {
		elog_error("report: %s",
			   nargs ? "too many arguments" : "which job?");
		ctl_usage_hint();
		return EXIT_USAGE;
	}
	if (nargs && parse_job(args[0], &ro.job))
		return EXIT_USAGE;
	if (o->from_file)
		return ctl_report(c, &ro);
	rc = ctl_configure(c, o->server, o->munge);
	if (rc)
		return rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		elog_error("cannot initialise libcurl");
		return EXIT_FAIL;
	}
	rc = ctl_report(c, &ro);
	curl_global_cleanup();
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	const char *name;
	struct ctl c = { 0 };
	enum command cmd;
	uint32_t job = 0;
	int rc, nargs;

	elog_init(PROG, ELOG_INFO, 0);
	rc = read_options(argc, argv, &o, &c);
	if (rc >= 0)
		return rc;
	if (optind >= argc) {
		elog_error("no command");
		ctl_usage_hint();
		return EXIT_USAGE;
	}
	name = argv[optind++];
	nargs = argc - optind;
	if (strcmp(name, "check") && (o.node || o.local)) {
		elog_error("%s: --node and --local are options of check", name);
		ctl_usage_hint();
		return EXIT_USAGE;
	}
	if (strcmp(name, "report") && (o.png || o.svg || o.from_file)) {
		elog_error("%s: --png, --svg and --from-file are options of "
			   "report",
			   name);
		ctl_usage_hint();
		return EXIT_USAGE;
	}
	if (!strcmp(name, "check"))
		return run_check(&o, &c, nargs);
	if (!strcmp(name, "report"))
		return run_report(&o, &c, nargs, argv + optind);
	if (!strcmp(name, "checkpoints")) {
		if (nargs != 1) {
			elog_error("%s: %s", name,
				   nargs ? "too many arguments" : "which job?");
			ctl_usage_hint();
			return EXIT_USAGE;
		}
		return ctl_checkpoints(argv[optind], o.dir, c.json);
	}
	rc = choose_command(name, nargs, &cmd);
	if (rc)
		return rc;
	if (nargs == 1 && parse_job(argv[optind], &job))
		return EXIT_USAGE;

	rc = ctl_configure(&c, o.server, o.munge);
	if (rc)
		return rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		elog_error("cannot initialise libcurl");
		return EXIT_FAIL;
	}
	rc = run(&c, cmd, job);
	curl_global_cleanup();
	return rc;
}
