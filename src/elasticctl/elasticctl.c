/*
 * elasticctl: elastic groups as elasticd sees them, over its HTTP API
 * (elasticd-api(7)), authenticated with a munge credential per request;
 * and a job's checkpoints, read locally as the user (no elasticd needed).
 *
 *   elasticctl [--server=HOST:PORT] [--munge-socket=PATH] [--json]
 *              status [JOB] | events JOB | raise JOB
 *   elasticctl [--json] [--dir=PATH] checkpoints JOB[@STEP]|PATH[@STEP]
 *
 * Exit status: 0 done; 1 other failure; 2 usage error; 3 elasticd not
 * reachable or not ready; 4 credential refused or not permitted; 5 no such
 * group (or not yours).
 */
#include "config.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <errno.h>
#include <inttypes.h>
#include <pwd.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <slurm/slurm.h>

#include "apiclient/apiclient.h"
#include "common/ckpt.h"
#include "common/ckpt_eval.h"
#include "common/error.h"
#include "common/log.h"
#include "common/options.h"
#include "common/parse.h"
#include "common/policy.h"
#include "common/server.h"

#define PROG "elasticctl"

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_UNREACHABLE = 3,
	EXIT_DENIED = 4,
	EXIT_NOT_FOUND = 5,
};

#define TIMEOUT_S 30
#define MAX_BODY  (64UL << 20)

/* Where the server address and munge socket came from, for messages. */
struct ctl {
	struct apiclient api;	 /* server, munge socket, elasticd's user */
	const char *server_from; /* "--server", "ElasticdServer", ... */
	char munge_socket[POLICY_PATH_MAX + 1]; /* "" = libmunge's default */
	const char *munge_from;
	char conf_path[POLICY_PATH_MAX + 32];
	bool json;
};

static void usage(FILE *f)
{
	fprintf(
	    f,
	    "usage: " PROG " [OPTIONS] status [JOB]\n"
	    "       " PROG " [OPTIONS] events JOB\n"
	    "       " PROG " [OPTIONS] raise JOB\n"
	    "       " PROG " [--json] [--dir=PATH] checkpoints "
	    "JOB[@STEP]|PATH[@STEP]\n"
	    "       " PROG " --help | --version\n"
	    "\n"
	    "status  your elastic groups (admins: all), or one group with\n"
	    "        its member jobs\n"
	    "events  the timeline of a group: every world it formed, and "
	    "why\n"
	    "raise   ask elasticd to raise the group's elastic event: its\n"
	    "        ranks checkpoint and restart\n"
	    "checkpoints  a job's checkpoints and their evaluations (read\n"
	    "        locally, as you); with @STEP, only that checkpoint's "
	    "path\n"
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
	    "  -j, --json                 print elasticd's JSON as is\n"
	    "  -h, --help                 this help\n"
	    "  -V, --version              the version\n");
}

static void usage_hint(void)
{
	fprintf(stderr, "usage: " PROG " [OPTIONS] status [JOB] | events JOB | "
			"raise JOB | checkpoints JOB[@STEP] (" PROG
			" --help for more)\n");
}

/*
 * The server's address and munge socket: option, then environment, then
 * elastic.conf (read only when needed): server_choose() says which
 * address; the munge socket defaults to munge's.
 */
static int configure(struct ctl *c, const char *opt_server,
		     const char *opt_munge)
{
	const char *env_server = getenv("ELASTICCTL_SERVER");
	const char *env_munge = getenv("ELASTICCTL_MUNGE_SOCKET");
	const char *server = NULL;
	struct elastic_policy p, *conf = NULL;
	struct server_addr addr;
	elastic_error_t err;
	int rc;

	/* Beside slurm.conf, as the plugins find it. */
	policy_conf_path(getenv("SLURM_CONF"), c->conf_path,
			 sizeof(c->conf_path));
	if (env_server && !*env_server)
		env_server = NULL;
	if (env_munge && !*env_munge)
		env_munge = NULL;
	if (opt_server) {
		server = opt_server;
		c->server_from = "--server";
	} else if (env_server) {
		server = env_server;
		c->server_from = "ELASTICCTL_SERVER";
	}
	if (opt_munge) {
		snprintf(c->munge_socket, sizeof(c->munge_socket), "%s",
			 opt_munge);
		c->munge_from = "--munge-socket";
	} else if (env_munge) {
		snprintf(c->munge_socket, sizeof(c->munge_socket), "%s",
			 env_munge);
		c->munge_from = "ELASTICCTL_MUNGE_SOCKET";
	}

	/* ElasticdUser is read from it too; a broken file matters only
	 * where it must answer. */
	if (policy_load(&p, c->conf_path, NULL, &err) == 0) {
		conf = &p;
		if (!c->munge_from && p.elasticd_munge_socket[0]) {
			snprintf(c->munge_socket, sizeof(c->munge_socket), "%s",
				 p.elasticd_munge_socket);
			c->munge_from = "ElasticdMungeSocket";
		}
	} else if (!server || !c->munge_from) {
		elog_error("%s (or give --server and --munge-socket)",
			   err.text);
		return EXIT_FAIL;
	}
	if (!c->munge_from)
		c->munge_from = "munge's default";

	rc = server_choose(server, c->server_from, conf, c->conf_path, &addr,
			   &err);
	if (rc < 0) {
		elog_error("%s", err.text);
		return server && server == opt_server ? EXIT_USAGE : EXIT_FAIL;
	}
	if (rc == SERVER_NONE) {
		elog_error(
		    "no elasticd configured: set ElasticdServer=HOST:PORT "
		    "in %s, or give --server=HOST:PORT",
		    c->conf_path);
		return EXIT_FAIL;
	}
	c->server_from = addr.from;
	if (apiclient_init(&c->api, &addr, c->munge_socket,
			   conf ? conf->elasticd_user : NULL, PROG, &err) < 0) {
		elog_error("%s in %s", err.text, c->conf_path);
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* HTTP */

/* The "error" of a JSON error body, or a short excerpt of the body. */
static void error_text(const struct apiclient_body *b, char *buf, size_t len)
{
	json_object *o = b->data ? json_tokener_parse(b->data) : NULL;
	json_object *e;

	if (o && json_object_object_get_ex(o, "error", &e))
		snprintf(buf, len, "%s", json_object_get_string(e));
	else if (b->data && b->len)
		snprintf(buf, len, "%.*s", (int)strcspn(b->data, "\r\n"),
			 b->data);
	else
		snprintf(buf, len, "no details");
	json_object_put(o);
}

/*
 * One request.  On success (2xx) fills *b and returns 0; otherwise says
 * why on stderr and returns the exit code.  job: the job the request is
 * about, for the 404 message (0 if none).
 */
static int request(const struct ctl *c, const char *method, const char *path,
		   uint32_t job, struct apiclient_body *b)
{
	char why[512];
	elastic_error_t err;
	long status = 0;

	switch (apiclient_request(&c->api, method, path, TIMEOUT_S * 1000L,
				  &status, b, &err)) {
	case APICLIENT_ANSWER:
		break;
	case APICLIENT_NO_ANSWER:
		elog_error("cannot reach %s (address from %s; is elasticd "
			   "running there? set --server=HOST:PORT, "
			   "ELASTICCTL_SERVER, or ElasticdServer in %s)",
			   err.text, c->server_from, c->conf_path);
		return EXIT_UNREACHABLE;
	case APICLIENT_UNVERIFIED:
		/* Nothing of it is shown: it is not elasticd's word. */
		elog_error("%s", err.text);
		return EXIT_UNREACHABLE;
	default:
		elog_error("%s (munge socket: %s; set --munge-socket=PATH or "
			   "ELASTICCTL_MUNGE_SOCKET)",
			   err.text,
			   c->munge_socket[0] ? c->munge_from
					      : "munge's default");
		return EXIT_FAIL;
	}
	if (status >= 200 && status < 300)
		return EXIT_OK;

	error_text(b, why, sizeof(why));
	switch (status) {
	case 401:
		elog_error("elasticd refused our munge credential: %s", why);
		return EXIT_DENIED;
	case 403:
		elog_error("permission denied: %s", why);
		return EXIT_DENIED;
	case 404:
		if (job)
			elog_error("no elastic group with job %u (or it is not "
				   "yours)",
				   job);
		else
			elog_error("%s%s answered 404 (not found): is elasticd "
				   "listening at %s?",
				   c->api.url, path, c->api.server);
		return EXIT_NOT_FOUND;
	case 409:
		elog_error("%s", why);
		return EXIT_FAIL;
	case 503:
		elog_error("elasticd at %s is not ready: %s", c->api.server,
			   why);
		return EXIT_UNREACHABLE;
	default:
		elog_error("elasticd at %s answered %ld: %s", c->api.server,
			   status, why);
		return EXIT_FAIL;
	}
}

/* JSON access that tolerates missing fields */

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return (o && json_object_object_get_ex(o, key, &v)) ? v : NULL;
}

static const char *str(json_object *o, const char *key, const char *dflt)
{
	json_object *v = field(o, key);

	return (v && json_object_is_type(v, json_type_string))
		   ? json_object_get_string(v)
		   : dflt;
}

static long long num(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return v ? (long long)json_object_get_int64(v) : 0;
}

static size_t alen(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return (v && json_object_is_type(v, json_type_array))
		   ? json_object_array_length(v)
		   : 0;
}

static json_object *aget(json_object *o, const char *key, size_t i)
{
	return json_object_array_get_idx(field(o, key), i);
}

/* A table printed with aligned columns. */
#define MAX_COLS 10
struct table {
	size_t ncols;
	const char *head[MAX_COLS];
	bool right[MAX_COLS]; /* numbers: right-aligned */
	char **cells;	      /* nrows * ncols, malloc'd */
	size_t nrows;
};

static void table_add(struct table *t, ...)
{
	va_list ap;
	char **cells =
	    realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*cells));

	if (!cells) {
		elog_error("out of memory");
		exit(EXIT_FAIL);
	}
	t->cells = cells;
	va_start(ap, t);
	for (size_t i = 0; i < t->ncols; i++) {
		const char *s = va_arg(ap, const char *);

		cells[t->nrows * t->ncols + i] = strdup(s ? s : "-");
	}
	va_end(ap);
	t->nrows++;
}

static void table_print(struct table *t, const char *indent)
{
	size_t w[MAX_COLS];

	for (size_t i = 0; i < t->ncols; i++) {
		w[i] = strlen(t->head[i]);
		for (size_t r = 0; r < t->nrows; r++) {
			const char *s = t->cells[r * t->ncols + i];
			size_t n = s ? strlen(s) : 0;

			if (n > w[i])
				w[i] = n;
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		fputs(indent, stdout);
		for (size_t i = 0; i < t->ncols; i++) {
			const char *s =
			    r ? t->cells[(r - 1) * t->ncols + i] : t->head[i];
			bool last = i + 1 == t->ncols;

			if (!s)
				s = "?";
			if (t->right[i])
				printf("%*s", (int)w[i], s);
			else
				printf("%-*s", last ? 0 : (int)w[i], s);
			fputs(last ? "\n" : "  ", stdout);
		}
	}
	for (size_t k = 0; k < t->nrows * t->ncols; k++)
		free(t->cells[k]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}

static const char *fmt_num(char *buf, size_t len, long long v)
{
	snprintf(buf, len, "%lld", v);
	return buf;
}

/* "3 running, 1 pending": the members by state. */
static void members_summary(json_object *g, char *buf, size_t len)
{
	static const char *const states[] = { "running", "pending", "preempted",
					      "releasing" };
	size_t n = alen(g, "members"), used = 0;

	buf[0] = '\0';
	for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			k += !strcmp(str(aget(g, "members", i), "state", ""),
				     states[s]);
		if (k && used < len)
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%zu %s",
					     used ? ", " : "", k, states[s]);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* The launcher reported ranks slow to leave: say so under the group. */
static void print_grace_warning(json_object *g, const char *indent)
{
	json_object *w = field(g, "grace_warning"),
		    *s = field(g, "last_exit_seconds");

	if (!w || !json_object_get_boolean(w) || !s)
		return;
	printf("%sWARNING: group %lld: the ranks took %.1f s of the %lld s "
	       "grace to checkpoint and exit: raise --elastic-grace (or "
	       "checkpoint faster)\n",
	       indent, num(g, "id"), json_object_get_double(s),
	       num(g, "grace"));
}

static void print_groups(json_object *d)
{
	struct table t = {
		.ncols = 9,
		.head = { "GROUP", "USER", "ACCOUNT", "STATE", "NODES", "MIN",
			  "MAX", "GEN", "MEMBERS" },
		.right = { true, false, false, false, true, true, true, true,
			   false },
	};
	size_t n = alen(d, "groups");

	if (n == 0) {
		printf("no elastic groups\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *g = aget(d, "groups", i);
		char id[24], nodes[24], min[24], max[24], gen[24], user[32];
		char members[128];

		members_summary(g, members, sizeof(members));
		snprintf(user, sizeof(user), "%s",
			 str(g, "user", NULL) ? str(g, "user", NULL) : "");
		if (!*user)
			snprintf(user, sizeof(user), "%lld", num(g, "uid"));
		table_add(&t, fmt_num(id, sizeof(id), num(g, "id")), user,
			  str(g, "account", "-"), str(g, "state", "?"),
			  fmt_num(nodes, sizeof(nodes), num(g, "world_nodes")),
			  fmt_num(min, sizeof(min), num(g, "min")),
			  fmt_num(max, sizeof(max), num(g, "max")),
			  fmt_num(gen, sizeof(gen), num(g, "generation")),
			  members);
	}
	table_print(&t, "");
	for (size_t i = 0; i < n; i++)
		print_grace_warning(aget(d, "groups", i), "");
}

static void print_group(json_object *g)
{
	struct table t = {
		.ncols = 6,
		.head = { "JOB", "KIND", "STATE", "NODES", "NODELIST",
			  "IN WORLD" },
		.right = { true, false, false, true, false, false },
	};
	const char *user = str(g, "user", NULL);
	size_t n = alen(g, "members");

	printf("group %lld: %s\n", num(g, "id"), str(g, "state", "?"));
	if (user)
		printf("  user %s", user);
	else
		printf("  uid %lld", num(g, "uid"));
	printf(", account %s\n", str(g, "account", "-"));
	printf("  world: %lld nodes (min %lld, max %lld), generation %lld, "
	       "master %s\n",
	       num(g, "world_nodes"), num(g, "min"), num(g, "max"),
	       num(g, "generation"), str(g, "master_addr", "-"));
	print_grace_warning(g, "  ");
	if (n == 0)
		return;
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		json_object *m = aget(g, "members", i);
		json_object *in = field(m, "in_world");
		char id[24], nodes[24];

		table_add(&t, fmt_num(id, sizeof(id), num(m, "job_id")),
			  str(m, "kind", "?"), str(m, "state", "?"),
			  fmt_num(nodes, sizeof(nodes), num(m, "nnodes")),
			  str(m, "nodes", "-"),
			  (in && json_object_get_boolean(in)) ? "yes" : "no");
	}
	table_print(&t, "  ");
}

/* elasticd's UTC time ("2024-05-01T12:34:56.789Z") in local time, with
 * its offset; as is if it is not in that form. */
static void local_time(const char *s, char *buf, size_t len)
{
	struct tm tm = { 0 }, lt;
	int ms = 0, n = 0;
	time_t t;
	char off[8], day[32];

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms,
		   &n) != 7 ||
	    s[n] != '\0') {
		snprintf(buf, len, "%s", s);
		return;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (t == (time_t)-1 || !localtime_r(&t, &lt) ||
	    !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &lt) ||
	    !strftime(off, sizeof(off), "%z", &lt) || strlen(off) != 5) {
		snprintf(buf, len, "%s", s);
		return;
	}
	snprintf(buf, len, "%s.%03d%.3s:%s", day, ms, off, off + 3);
}

static void print_events(json_object *d)
{
	struct table t = {
		.ncols = 5,
		.head = { "TIME", "CAUSE", "GEN", "NODES", "DETAIL" },
		.right = { false, false, true, true, false },
	};
	size_t n = alen(d, "events");

	if (n == 0) {
		printf("group %lld: no events yet\n", num(d, "id"));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = aget(d, "events", i);
		char when[64], gen[24], nodes[24];

		local_time(str(e, "time", "?"), when, sizeof(when));
		table_add(&t, when, str(e, "cause", "?"),
			  fmt_num(gen, sizeof(gen), num(e, "generation")),
			  fmt_num(nodes, sizeof(nodes), num(e, "world_nodes")),
			  str(e, "detail", ""));
	}
	table_print(&t, "");
}

/* Commands */

enum command { CMD_STATUS, CMD_EVENTS, CMD_RAISE };

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
		rc = request(c, "GET", path, job, &b);
		break;
	case CMD_EVENTS:
		snprintf(path, sizeof(path), "/v1/groups/%u/events", job);
		rc = request(c, "GET", path, job, &b);
		break;
	default:
		snprintf(path, sizeof(path), "/v1/groups/%u/raise", job);
		rc = request(c, "POST", path, job, &b);
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
	switch (cmd) {
	case CMD_STATUS:
		if (job)
			print_group(d);
		else
			print_groups(d);
		break;
	case CMD_EVENTS:
		print_events(d);
		break;
	default:
		printf("group %lld: elastic event requested; elasticd raises "
		       "it at its next cycle\n",
		       num(d, "id"));
		break;
	}
	json_object_put(d);
	if (fflush(stdout) || ferror(stdout)) {
		elog_error("write error on standard output");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* checkpoints: read locally, as the user */

#define MAX_EVAL_LOOKUPS 64 /* eval jobs asked about per listing */

struct ckpt_ctx {
	const char *opt_dir;		    /* --dir, may hold %j */
	char fallback[POLICY_PATH_MAX + 1]; /* DefaultCheckpointDir */
	bool slurm_ready, no_slurm;
};

/* An error of the ckpt library without its option name: this is not
 * --elastic-resume-from. */
static const char *plain(const char *text)
{
	static const char opt[] = "--elastic-resume-from";
	size_t n = strlen(opt);

	if (!strncmp(text, opt, n) && (text[n] == '=' || text[n] == ':'))
		return text + n + (text[n] == '=' ? 1 : 2);
	return text;
}

/*
 * libslurm, once, if there is a slurm.conf to read: slurm_init() exits
 * the process when it finds no configuration, and a listing of a path
 * needs no Slurm.
 */
static bool slurm_ready(struct ckpt_ctx *c)
{
	const char *conf = getenv("SLURM_CONF");

	if (c->slurm_ready || c->no_slurm)
		return c->slurm_ready;
	if (access((conf && *conf) ? conf : SLURM_SYSCONFDIR "/slurm.conf",
		   R_OK)) {
		c->no_slurm = true;
		return false;
	}
	slurm_init(NULL);
	c->slurm_ready = true;
	return true;
}

/* The job's record, or NULL (gone, or slurmctld unreachable). */
static job_info_msg_t *load_job_info(struct ckpt_ctx *c, uint32_t job)
{
	job_info_msg_t *msg = NULL;

	if (!slurm_ready(c) ||
	    slurm_load_job(&msg, job, SHOW_ALL) != SLURM_SUCCESS)
		return NULL;
	if (msg->record_count < 1) {
		slurm_free_job_info_msg(msg);
		return NULL;
	}
	return msg;
}

/* ckpt_job_dir_fn: --dir, else the job's tag, else the site's pattern. */
static int job_dir(uint32_t job, void *arg, char *dir, size_t len,
		   elastic_error_t *err)
{
	struct ckpt_ctx *c = arg;
	job_info_msg_t *msg = NULL;
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096], id[16];
	uid_t uid = getuid();
	const char *tag = NULL;
	int rc;

	snprintf(id, sizeof(id), "%u", job);
	if (c->opt_dir) {
		if (options_expand_path(c->opt_dir, id, "", "", dir, len) < 0)
			return elastic_errorf(err,
					      "--dir=%s: does not expand (%%j "
					      "job id, %%%% a '%%')",
					      c->opt_dir);
		return 0;
	}
	msg = load_job_info(c, job);
	if (msg) {
		tag = msg->job_array[0].admin_comment;
		uid = msg->job_array[0].user_id;
	}
	/* %u and %h are the job's owner's. */
	getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &pwp);
	rc = ckpt_job_dir(job, tag, c->fallback, pwp ? pw.pw_name : "",
			  pwp ? pw.pw_dir : "", dir, len, err);
	if (msg)
		slurm_free_job_info_msg(msg);
	return rc;
}

static const char *eval_state(struct ckpt_ctx *c, uint32_t eval_job,
			      const char *ckpt_dir, uint64_t step,
			      unsigned *lookups)
{
	job_info_msg_t *msg;
	char out[CKPT_PATH_MAX];
	const char *state;
	unsigned s;

	if (!eval_job)
		return "not-submitted";
	if (++*lookups > MAX_EVAL_LOOKUPS || !slurm_ready(c))
		return "?";
	msg = load_job_info(c, eval_job);
	if (!msg) {
		/* Forgotten by slurmctld: it ended long ago. */
		if (ckpt_eval_output(ckpt_dir, step, out, sizeof(out)) == 0 &&
		    access(out, F_OK) == 0)
			return "done";
		return "gone";
	}
	s = msg->job_array[0].job_state & JOB_STATE_BASE;
	switch (s) {
	case JOB_PENDING:
		state = "pending";
		break;
	case JOB_RUNNING:
	case JOB_SUSPENDED:
		state = "running";
		break;
	case JOB_COMPLETE:
		state = "done";
		break;
	case JOB_CANCELLED:
	case JOB_PREEMPTED:
		state = "cancelled";
		break;
	default:
		state = "failed";
		break;
	}
	slurm_free_job_info_msg(msg);
	return state;
}

static const char *human_size(char *buf, size_t len, uint64_t b)
{
	static const char units[] = "KMGTPE";
	double v = (double)b;
	int u = -1;

	if (b < 1024) {
		snprintf(buf, len, "%" PRIu64, b);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%c", v, units[u]);
	return buf;
}

static int list_checkpoints(struct ckpt_ctx *c, bool json, uint32_t job,
			    const char *dir)
{
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));
	struct table t = {
		.ncols = 7,
		.head = { "STEP", "NAME", "SIZE", "MTIME", "EVAL", "STATE",
			  "RESULT" },
		.right = { true, false, true, false, true, false, false },
	};
	json_object *top = NULL, *arr = NULL;
	unsigned lookups = 0;
	struct ckpt_list l;
	elastic_error_t err;
	int rc = EXIT_OK;

	if (!ix) {
		elog_error("out of memory");
		return EXIT_FAIL;
	}
	if (ckpt_list(dir, &l, &err) < 0) {
		elog_error("%s", err.text);
		rc = EXIT_FAIL;
		goto out;
	}
	if (ckpt_eval_index_load(dir, ix, &err) < 0) {
		elog_warn("%s (eval jobs not shown)", err.text);
		ix->n = 0;
	}
	if (json) {
		top = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(top, "job",
				       job ? json_object_new_int64(job) : NULL);
		json_object_object_add(top, "dir", json_object_new_string(dir));
		json_object_object_add(top, "exists",
				       json_object_new_boolean(!l.missing));
		json_object_object_add(top, "checkpoints", arr);
	} else if (!l.n) {
		printf("no checkpoints in %s%s\n", dir,
		       l.missing ? " (it does not exist)" : "");
		goto out;
	}
	/* Newest first, as one looks for them. */
	for (size_t k = l.n; k-- > 0;) {
		const struct ckpt_entry *e = &l.e[k];
		const struct ckpt_eval_rec *r =
		    ckpt_eval_index_find(ix, e->step);
		char step[24], size[24], mtime[32], ejob[16], result[256];
		char path[CKPT_PATH_MAX];
		const char *state = NULL;
		struct tm tm;

		result[0] = '\0';
		if (r) {
			state =
			    eval_state(c, r->job_id, dir, e->step, &lookups);
			ckpt_eval_result(dir, e->step, result, sizeof(result));
			snprintf(ejob, sizeof(ejob), "%u", r->job_id);
		}
		if (json) {
			json_object *o = json_object_new_object();
			json_object *ev = NULL;

			ckpt_entry_path(&l, e, path, sizeof(path));
			gmtime_r(&e->mtime, &tm);
			strftime(mtime, sizeof(mtime), "%Y-%m-%dT%H:%M:%SZ",
				 &tm);
			json_object_object_add(o, "step",
					       json_object_new_uint64(e->step));
			json_object_object_add(o, "name",
					       json_object_new_string(e->name));
			json_object_object_add(o, "path",
					       json_object_new_string(path));
			json_object_object_add(
			    o, "kind",
			    json_object_new_string(e->is_dir ? "dir" : "file"));
			json_object_object_add(o, "size",
					       json_object_new_uint64(e->size));
			json_object_object_add(o, "mtime",
					       json_object_new_string(mtime));
			if (r) {
				ev = json_object_new_object();
				json_object_object_add(
				    ev, "job_id",
				    r->job_id ? json_object_new_int64(r->job_id)
					      : NULL);
				json_object_object_add(
				    ev, "state", json_object_new_string(state));
				json_object_object_add(
				    ev, "result",
				    json_object_new_string(result));
			}
			json_object_object_add(o, "eval", ev);
			json_object_array_add(arr, o);
			continue;
		}
		localtime_r(&e->mtime, &tm);
		strftime(mtime, sizeof(mtime), "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(step, sizeof(step), "%" PRIu64, e->step);
		table_add(&t, step,
			  e->is_dir ? strcat(strcpy(path, e->name), "/")
				    : e->name,
			  human_size(size, sizeof(size), e->size), mtime,
			  r ? (r->job_id ? ejob : "-") : "-", r ? state : "-",
			  *result ? result : "-");
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(
				   top, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	else {
		printf("%s\n\n", dir);
		table_print(&t, "");
	}
out:
	json_object_put(top);
	ckpt_list_free(&l);
	free(ix);
	if (rc == EXIT_OK && (fflush(stdout) || ferror(stdout))) {
		elog_error("write error on standard output");
		rc = EXIT_FAIL;
	}
	return rc;
}

static int run_checkpoints(const char *arg, const char *opt_dir, bool json)
{
	struct ckpt_ctx c = { .opt_dir = opt_dir };
	struct elastic_policy *p = malloc(sizeof(*p));
	char conf[POLICY_PATH_MAX + 32], dir[CKPT_PATH_MAX];
	char path[CKPT_PATH_MAX];
	struct ckpt_spec s;
	elastic_error_t err;
	uint64_t named;
	const char *base;
	int rc;

	if (!p) {
		elog_error("out of memory");
		return EXIT_FAIL;
	}
	if (ckpt_spec_parse(arg, &s, &err) < 0) {
		free(p);
		elog_error("checkpoints %s", plain(err.text));
		return EXIT_USAGE;
	}
	/* Where a job's dir is when slurmctld has forgotten the job. */
	policy_conf_path(getenv("SLURM_CONF"), conf, sizeof(conf));
	if (policy_load(p, conf, NULL, &err) < 0) {
		elog_warn("%s (using the built-in DefaultCheckpointDir)",
			  err.text);
		policy_defaults(p);
	}
	snprintf(c.fallback, sizeof(c.fallback), "%s",
		 p->default_checkpoint_dir);
	free(p);

	base = strrchr(s.path, '/');
	base = base ? base + 1 : s.path;
	if (s.has_step ||
	    (s.kind == CKPT_SPEC_PATH && ckpt_parse_name(base, &named) == 0)) {
		/* One checkpoint: its path, for scripts. */
		if (ckpt_resolve(arg, job_dir, &c, path, sizeof(path), NULL,
				 &err) < 0) {
			elog_error("%s", plain(err.text));
			rc = EXIT_NOT_FOUND;
		} else {
			printf("%s\n", path);
			rc = EXIT_OK;
		}
	} else if (s.kind == CKPT_SPEC_JOB) {
		if (job_dir(s.job_id, &c, dir, sizeof(dir), &err) < 0) {
			elog_error("%s", err.text);
			rc = EXIT_FAIL;
		} else {
			rc = list_checkpoints(&c, json, s.job_id, dir);
		}
	} else {
		rc = list_checkpoints(&c, json, 0, s.path);
	}
	if (c.slurm_ready)
		slurm_fini();
	return rc;
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "server", required_argument, NULL, 's' },
		{ "munge-socket", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *opt_server = NULL, *opt_munge = NULL, *opt_dir = NULL;
	const char *name;
	struct ctl c = { 0 };
	enum command cmd;
	uint32_t job = 0;
	int ch, rc, nargs;

	elog_init(PROG, ELOG_INFO, 0);
	while ((ch = getopt_long(argc, argv, "s:m:jd:hV", longopts, NULL)) !=
	       -1) {
		switch (ch) {
		case 's':
			opt_server = optarg;
			break;
		case 'm':
			if (!*optarg || strlen(optarg) > POLICY_PATH_MAX) {
				elog_error("--munge-socket=%s: not a path",
					   optarg);
				return EXIT_USAGE;
			}
			opt_munge = optarg;
			break;
		case 'j':
			c.json = true;
			break;
		case 'd':
			if (!*optarg || strlen(optarg) > POLICY_PATH_MAX) {
				elog_error("--dir=%s: not a path", optarg);
				return EXIT_USAGE;
			}
			opt_dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			printf(PROG " (" PACKAGE_NAME ") " PACKAGE_VERSION
				    "\n");
			return EXIT_OK;
		default:
			usage_hint();
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		elog_error("no command");
		usage_hint();
		return EXIT_USAGE;
	}
	name = argv[optind++];
	nargs = argc - optind;
	if (!strcmp(name, "checkpoints")) {
		if (nargs != 1) {
			elog_error("%s: %s", name,
				   nargs ? "too many arguments" : "which job?");
			usage_hint();
			return EXIT_USAGE;
		}
		return run_checkpoints(argv[optind], opt_dir, c.json);
	}
	if (!strcmp(name, "status") && nargs <= 1)
		cmd = CMD_STATUS;
	else if (!strcmp(name, "events") && nargs == 1)
		cmd = CMD_EVENTS;
	else if (!strcmp(name, "raise") && nargs == 1)
		cmd = CMD_RAISE;
	else {
		if (strcmp(name, "status") && strcmp(name, "events") &&
		    strcmp(name, "raise"))
			elog_error(
			    "%s: no such command (status, events, raise, "
			    "checkpoints)",
			    name);
		else
			elog_error("%s: %s", name,
				   nargs ? "too many arguments" : "which job?");
		usage_hint();
		return EXIT_USAGE;
	}
	if (nargs == 1 && parse_job(argv[optind], &job))
		return EXIT_USAGE;

	rc = configure(&c, opt_server, opt_munge);
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
