/*
 * elasticctl as elasticd's client (elasticctl.h): which elasticd and munge
 * socket, one request, and what its status means as a message and an exit
 * code.  Errors go to stderr; it prints nothing on stdout, that is
 * render.c's.
 */
#include "config.h"

#include "common/server.h"
#include "elasticctl.h"

#define TIMEOUT_S 30

/*
 * The server's address and munge socket: option, then environment, then
 * elastic.conf (read only when needed): server_choose() says which
 * address; the munge socket defaults to munge's.
 */
int ctl_configure(struct ctl *c, const char *opt_server, const char *opt_munge)
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

void ctl_answer_error(const struct apiclient_body *b, char *buf, size_t len)
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
int ctl_request(const struct ctl *c, const char *method, const char *path,
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

	ctl_answer_error(b, why, sizeof(why));
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
