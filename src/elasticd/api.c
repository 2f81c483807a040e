/*
 * elasticd's API server: libmicrohttpd in its own threads, munge for who
 * is asking, the pure parts (api_route, api_auth, api_render) for what to
 * answer.  The reconcile loop and the server share only the current view
 * (reference-counted, so a slow client never holds up a publish) and the
 * queue of raise requests, both under one mutex.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>
#include <munge.h>

#include "common/hostport.h"
#include "api.h"
#include "api_auth.h"
#include "api_render.h"
#include "api_route.h"

/* Limits on what clients can make us hold.  The CLI and Prometheus make
 * one short request at a time; these leave room for many of both. */
#define API_THREADS	     4
#define API_CONNECTIONS	     256	/* at once, over all threads */
#define API_PER_HOST	     8		/* at once from one address */
#define API_TIMEOUT	     10		/* seconds a connection may idle */
#define API_MEMORY	     (32 << 10) /* per connection: request headers */
#define API_RAISE_MAX	     1024	/* raise requests not yet taken */
#define API_ADMINS_REFRESH_S 60		/* re-resolve admin names */

/* 413, under the name every libmicrohttpd version has. */
#define HTTP_TOO_LARGE 413

#define JSON_TYPE "application/json; charset=utf-8"
#define TEXT_TYPE "text/plain; charset=utf-8"
#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* A published view and the requests reading it. */
struct held_view {
	struct elasticd_view *v;
	unsigned refs; /* the api's own reference + one per request */
};

/* mhd and munge_socket change only while no server thread runs (in
 * api_start and api_stop); the lock guards the rest. */
static struct {
	pthread_mutex_t lock;
	struct MHD_Daemon *mhd;
	char *munge_socket;
	uint32_t slurm_user_uid;
	struct policy_list admins;
	uint32_t admin_uids[POLICY_LIST_MAX];
	size_t nadmin;
	time_t admins_resolved;
	struct held_view *cur;
	uint32_t raise[API_RAISE_MAX];
	size_t nraise;
	struct launch_report report[API_RAISE_MAX];
	size_t nreport;
} api = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The uids of the admin names that exist (others are skipped: a user
 * created later is found at a later refresh). */
static size_t resolve_admins(const struct policy_list *names, uint32_t *uids)
{
	char buf[16384];
	struct passwd pw, *res;
	size_t n = 0;

	for (unsigned i = 0; i < names->n && n < POLICY_LIST_MAX; i++)
		if (!getpwnam_r(names->name[i], &pw, buf, sizeof(buf), &res) &&
		    res)
			uids[n++] = (uint32_t)pw.pw_uid;
	return n;
}

static void refresh_admins(bool force)
{
	struct policy_list names;
	uint32_t uids[POLICY_LIST_MAX];
	time_t now = time(NULL);
	size_t n;

	pthread_mutex_lock(&api.lock);
	if (!force && now - api.admins_resolved < API_ADMINS_REFRESH_S) {
		pthread_mutex_unlock(&api.lock);
		return;
	}
	api.admins_resolved = now;
	names = api.admins;
	pthread_mutex_unlock(&api.lock);

	/* NSS may be slow (LDAP): never under the lock. */
	n = resolve_admins(&names, uids);

	pthread_mutex_lock(&api.lock);
	memcpy(api.admin_uids, uids, n * sizeof(uids[0]));
	api.nadmin = n;
	pthread_mutex_unlock(&api.lock);
}

/* The current view, with a reference the caller drops with view_put(). */
static struct held_view *view_get(void)
{
	struct held_view *h;

	pthread_mutex_lock(&api.lock);
	h = api.cur;
	if (h)
		h->refs++;
	pthread_mutex_unlock(&api.lock);
	return h;
}

static void view_put(struct held_view *h)
{
	unsigned left;

	if (!h)
		return;
	pthread_mutex_lock(&api.lock);
	left = --h->refs;
	pthread_mutex_unlock(&api.lock);
	if (left == 0) {
		view_free(h->v);
		free(h);
	}
}

/* Queue a raise of group id once; -1 if the queue is full. */
static int queue_raise(uint32_t id)
{
	int rc = 0;

	pthread_mutex_lock(&api.lock);
	for (size_t i = 0; i < api.nraise; i++)
		if (api.raise[i] == id)
			goto out;
	if (api.nraise == API_RAISE_MAX)
		rc = -1;
	else
		api.raise[api.nraise++] = id;
out:
	pthread_mutex_unlock(&api.lock);
	return rc;
}

/* Queue a launcher's report; a newer one of the same group replaces it.
 * -1 if the queue is full. */
static int queue_report(const struct launch_report *rep)
{
	int rc = 0;
	size_t i;

	pthread_mutex_lock(&api.lock);
	for (i = 0; i < api.nreport; i++)
		if (api.report[i].group == rep->group)
			break;
	if (i < api.nreport)
		api.report[i] = *rep;
	else if (api.nreport == API_RAISE_MAX)
		rc = -1;
	else
		api.report[api.nreport++] = *rep;
	pthread_mutex_unlock(&api.lock);
	return rc;
}

/* Move up to max of a queue's oldest items (size bytes each) to out. */
static int take(void *out, void *queue, size_t *n, size_t max, size_t size)
{
	size_t k;

	pthread_mutex_lock(&api.lock);
	k = *n < max ? *n : max;
	memcpy(out, queue, k * size);
	memmove(queue, (char *)queue + k * size, (*n - k) * size);
	*n -= k;
	pthread_mutex_unlock(&api.lock);
	return (int)k;
}

int api_take_reports(struct launch_report *out, size_t max)
{
	return take(out, api.report, &api.nreport, max, sizeof(out[0]));
}

int api_take_raise_requests(uint32_t *ids, size_t max)
{
	return take(ids, api.raise, &api.nraise, max, sizeof(ids[0]));
}

/* Responses */

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     const char *type, char *body, const char *allow)
{
	static const char oom[] = "{\"error\": \"out of memory\", "
				  "\"status\": 500}";
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (body)
		resp = MHD_create_response_from_buffer(strlen(body), body,
						       MHD_RESPMEM_MUST_FREE);
	else
		resp = MHD_create_response_from_buffer(strlen(oom), (void *)oom,
						       MHD_RESPMEM_PERSISTENT);
	if (!resp) {
		free(body);
		return MHD_NO;
	}
	if (!body) {
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		type = JSON_TYPE;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
				"no-store");
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Munge");
	if (allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *conn, unsigned status,
				   const char *message)
{
	return reply(conn, status, JSON_TYPE,
		     render_error((int)status, message), NULL);
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status,
				  const char *text)
{
	return reply(conn, status, TEXT_TYPE, strdup(text), NULL);
}

/*
 * Who sent the request, from its munge credential.  Returns 0 and fills
 * *c, or the HTTP status to answer with *why.
 */
static int authenticate(struct MHD_Connection *conn, struct auth_caller *c,
			const char **why)
{
	const char *header = MHD_lookup_connection_value(
	    conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *start;
	char cred[AUTH_CRED_MAX + 1];
	size_t len;
	munge_ctx_t ctx;
	munge_err_t e;
	void *payload = NULL;
	int plen = 0, status;
	uid_t uid;
	gid_t gid;

	if (auth_parse_header(header, &start, &len, why))
		return MHD_HTTP_UNAUTHORIZED;
	memcpy(cred, start, len);
	cred[len] = '\0';

	/* A context per request: munge contexts are not shared between
	 * threads, and making one costs no I/O. */
	ctx = munge_ctx_create();
	if (!ctx) {
		*why = "out of memory";
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
	if (api.munge_socket &&
	    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, api.munge_socket) !=
		EMUNGE_SUCCESS) {
		munge_ctx_destroy(ctx);
		*why = "elasticd cannot use its munge socket";
		return MHD_HTTP_INTERNAL_SERVER_ERROR;
	}
	e = munge_decode(cred, ctx, &payload, &plen, &uid, &gid);
	munge_ctx_destroy(ctx);
	/* munge_decode() fills the payload even for some failures. */
	free(payload);
	status = auth_munge_status(e, why);
	if (status)
		return status;
	if (plen != 0) {
		*why = "munge credential carries a payload: elasticd takes "
		       "only empty ones (munge -n)";
		return MHD_HTTP_UNAUTHORIZED;
	}
	c->uid = (uint32_t)uid;
	pthread_mutex_lock(&api.lock);
	c->admin = auth_is_admin(c->uid, api.slurm_user_uid, api.admin_uids,
				 api.nadmin);
	pthread_mutex_unlock(&api.lock);
	return 0;
}

/* POST /v1/groups/ID/report: the group's launcher says where its ranks
 * are; taken by the loop at its next cycle. */
static enum MHD_Result serve_report(struct MHD_Connection *conn,
				    const struct group_info *g)
{
	struct launch_report rep = { .group = g->base_job_id };
	const char *why;

	if (route_parse_report(MHD_lookup_connection_value(
				   conn, MHD_GET_ARGUMENT_KIND, "generation"),
			       MHD_lookup_connection_value(
				   conn, MHD_GET_ARGUMENT_KIND, "exit_ms"),
			       &rep, &why) < 0)
		return reply_error(conn, MHD_HTTP_BAD_REQUEST, why);
	if (queue_report(&rep) < 0)
		return reply_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "too many reports queued: try again in a "
				   "few seconds");
	return reply(conn, MHD_HTTP_ACCEPTED, JSON_TYPE,
		     render_report(g->base_job_id), NULL);
}

/* The /v1 endpoints, for an authenticated caller and a view. */
static enum MHD_Result serve_v1(struct MHD_Connection *conn,
				const struct route *r,
				const struct auth_caller *c,
				const struct elasticd_view *v)
{
	const struct group_info *g;
	int status;

	if (r->kind == ROUTE_GROUPS)
		return reply(conn, MHD_HTTP_OK, JSON_TYPE, render_groups(v, c),
			     NULL);
	g = auth_find_group(v, c, r->id);
	if (!g) {
		char msg[96];

		snprintf(msg, sizeof(msg),
			 "no elastic group of yours has job %u", r->id);
		return reply_error(conn, MHD_HTTP_NOT_FOUND, msg);
	}
	switch (r->kind) {
	case ROUTE_GROUP:
		return reply(conn, MHD_HTTP_OK, JSON_TYPE, render_group(g),
			     NULL);
	case ROUTE_EVENTS:
		return reply(conn, MHD_HTTP_OK, JSON_TYPE, render_events(g),
			     NULL);
	case ROUTE_RAISE:
		status = auth_raise_status(g);
		if (status != MHD_HTTP_OK) {
			char msg[128];

			snprintf(msg, sizeof(msg),
				 "group %u is %s: it has no ranks to tell",
				 g->base_job_id, group_state_name(g->state));
			return reply_error(conn, (unsigned)status, msg);
		}
		if (queue_raise(g->base_job_id))
			return reply_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
					   "too many raise requests queued: "
					   "try again in a few seconds");
		return reply(conn, MHD_HTTP_ACCEPTED, JSON_TYPE,
			     render_raise(g->base_job_id), NULL);
	case ROUTE_REPORT:
		return serve_report(conn, g);
	default:
		return reply_error(conn, MHD_HTTP_NOT_FOUND, "no such path");
	}
}

/* Requests carry no body: refuse one before reading it. */
static bool has_body(struct MHD_Connection *conn)
{
	const char *cl = MHD_lookup_connection_value(
	    conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *te = MHD_lookup_connection_value(
	    conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING);

	return te || (cl && strcmp(cl, "0"));
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	struct route r;
	struct auth_caller c;
	struct held_view *h;
	const char *why;
	enum MHD_Result ret;
	int status;

	/* Everything is decided on the headers, at the first call. */
	if (*upload_data_size)
		return reply_error(conn, HTTP_TOO_LARGE,
				   "requests carry no body");
	route_parse(method, url, &r);
	if (r.kind == ROUTE_NOT_FOUND)
		return reply_error(conn, MHD_HTTP_NOT_FOUND,
				   "no such path (see elasticd-api(7))");
	if (!r.method_ok) {
		char msg[64];

		snprintf(msg, sizeof(msg), "method not allowed (allowed: %s)",
			 r.allow);
		return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, JSON_TYPE,
			     render_error(MHD_HTTP_METHOD_NOT_ALLOWED, msg),
			     r.allow);
	}
	if (has_body(conn))
		return reply_error(conn, HTTP_TOO_LARGE,
				   "requests carry no body");
	if (route_needs_auth(&r)) {
		status = authenticate(conn, &c, &why);
		if (status)
			return reply_error(conn, (unsigned)status, why);
	}

	h = view_get();
	switch (r.kind) {
	case ROUTE_HEALTHZ:
		ret = h ? reply_text(conn, MHD_HTTP_OK, "ok\n")
			: reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				     "starting: no reconcile cycle finished "
				     "yet\n");
		break;
	case ROUTE_METRICS:
		ret = h ? reply(conn, MHD_HTTP_OK, PROM_TYPE,
				render_metrics(h->v), NULL)
			: reply_text(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				     "starting: no reconcile cycle finished "
				     "yet\n");
		break;
	default:
		ret = h ? serve_v1(conn, &r, &c, h->v)
			: reply_error(conn, MHD_HTTP_SERVICE_UNAVAILABLE,
				      "elasticd is starting: it knows no "
				      "groups yet");
		break;
	}
	view_put(h);
	return ret;
}

/* A listening socket on the address, with errno's words on failure. */
static int listen_on(const char *listen_addr, elastic_error_t *err)
{
	char host[HOSTPORT_HOST_MAX + 1], port[8];
	struct addrinfo hints = { 0 }, *ai;
	unsigned p;
	int fd, rc, one = 1;

	if (hostport_parse(listen_addr, host, &p, err))
		return -1;
	snprintf(port, sizeof(port), "%u", p);
	hints.ai_family = *host ? AF_UNSPEC : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(*host ? host : NULL, port, &hints, &ai);
	if (rc)
		return elastic_errorf(err, "listen address %s: %s", listen_addr,
				      gai_strerror(rc));
	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
	if (fd < 0) {
		elastic_errorf(err, "listen address %s: socket: %s",
			       listen_addr, strerror(errno));
		goto fail;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		elastic_errorf(err, "cannot listen on %s: %s", listen_addr,
			       strerror(errno));
		close(fd);
		fd = -1;
	}
fail:
	freeaddrinfo(ai);
	return fd;
}

int api_start(const char *listen_addr, const char *munge_socket,
	      const struct policy_list *admins, uid_t slurm_user_uid,
	      elastic_error_t *err)
{
	char *sock = NULL;
	int fd;

	if (api.mhd)
		return elastic_errorf(err, "the API is already running");
	if (munge_socket && !(sock = strdup(munge_socket)))
		return elastic_errorf(err, "out of memory");
	fd = listen_on(listen_addr, err);
	if (fd < 0) {
		free(sock);
		return -1;
	}

	pthread_mutex_lock(&api.lock);
	free(api.munge_socket);
	api.munge_socket = sock;
	api.slurm_user_uid = (uint32_t)slurm_user_uid;
	memset(&api.admins, 0, sizeof(api.admins));
	if (admins)
		api.admins = *admins;
	api.nadmin = 0;
	pthread_mutex_unlock(&api.lock);
	refresh_admins(true);

	/* libmicrohttpd owns fd from here on, and closes it when it stops
	 * (and on most of its failures, hence no close below). */
	api.mhd = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO, 0, NULL, NULL,
	    handle, NULL, MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)API_THREADS,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)API_CONNECTIONS,
	    /* One host cannot hold the API for everyone: a launcher polls
	     * over one connection at a time. */
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)API_PER_HOST,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)API_TIMEOUT,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)API_MEMORY,
	    MHD_OPTION_END);
	if (!api.mhd)
		return elastic_errorf(err,
				      "cannot start the HTTP server on "
				      "%s (libmicrohttpd)",
				      listen_addr);
	return 0;
}

void api_publish(struct elasticd_view *v)
{
	struct held_view *h, *old;

	if (!v)
		return;
	h = calloc(1, sizeof(*h));
	if (!h) {
		/* Keep serving the older view rather than none. */
		view_free(v);
		return;
	}
	h->v = v;
	h->refs = 1;
	pthread_mutex_lock(&api.lock);
	old = api.cur;
	api.cur = h;
	pthread_mutex_unlock(&api.lock);
	view_put(old);
	refresh_admins(false);
}

void api_stop(void)
{
	struct held_view *h;

	if (api.mhd) {
		MHD_stop_daemon(api.mhd);
		api.mhd = NULL;
	}
	pthread_mutex_lock(&api.lock);
	h = api.cur;
	api.cur = NULL;
	api.nraise = 0;
	api.nreport = 0;
	free(api.munge_socket);
	api.munge_socket = NULL;
	pthread_mutex_unlock(&api.lock);
	view_put(h);
}
