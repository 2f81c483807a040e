/*
 * elasticd's API server: libmicrohttpd in its own threads, munge for who
 * is asking, the pure parts (api_route, api_auth, api_render) for what to
 * answer.  The reconcile loop and the server share only the current view
 * (reference-counted, so a slow client never holds up a publish) and the
 * queue of raise requests, both under one mutex (api_view.c).  The
 * connections' deadlines are api_conn.c's; api_impl.h is what they share.
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
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <munge.h>

#include "common/apiauth.h"
#include "common/apihash.h"
#include "common/hostport.h"
#include "common/log.h"
#include "common/nodelist.h"
#include "api.h"
#include "api_auth.h"
#include "api_impl.h"
#include "api_render.h"
#include "api_route.h"

/* 413, under the name every libmicrohttpd version has. */
#define HTTP_TOO_LARGE 413

#define JSON_TYPE "application/json; charset=utf-8"
#define TEXT_TYPE "text/plain; charset=utf-8"
#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* The state the API's files share (api_impl.h). */
struct api_state api = { .lock = PTHREAD_MUTEX_INITIALIZER };

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

/* Responses */

/* A request being answered: its connection and, once known, its caller
 * (whose nonce the answer is signed for). */
struct req {
	struct MHD_Connection *conn;
	const char *method, *url; /* for the debug log */
	bool authenticated;
	struct auth_caller c;
};

/*
 * The Elastic-Server-Auth value for an answer to rq: a munge credential
 * of ours, readable by the caller only, bound to its nonce, the status
 * and the body (apiauth.h).  NULL when the request carried no nonce, or
 * munged failed (the client then takes the answer for no one's).
 */
static char *sign(const struct req *rq, unsigned status, const char *body,
		  size_t len)
{
	char payload[APIAUTH_PAYLOAD_MAX], hash[APIAUTH_HASH_HEX + 1];
	char *cred = NULL, *hdr = NULL;
	munge_ctx_t ctx;
	int n;

	if (!rq->c.nonce[0] || apihash_body(body, len, hash) < 0)
		return NULL;
	n = apiauth_reply_payload(rq->c.nonce, (long)status, hash, payload,
				  sizeof(payload));
	if (n < 0 || !(ctx = munge_ctx_create()))
		return NULL;
	if ((!api.munge_socket ||
	     munge_ctx_set(ctx, MUNGE_OPT_SOCKET, api.munge_socket) ==
		 EMUNGE_SUCCESS) &&
	    munge_ctx_set(ctx, MUNGE_OPT_UID_RESTRICTION, (uid_t)rq->c.uid) ==
		EMUNGE_SUCCESS &&
	    munge_encode(&cred, ctx, payload, n) == EMUNGE_SUCCESS &&
	    asprintf(&hdr, "Munge %s", cred) < 0)
		hdr = NULL;
	free(cred);
	munge_ctx_destroy(ctx);
	return hdr;
}

static enum MHD_Result reply(const struct req *rq, unsigned status,
			     const char *type, char *body, const char *allow)
{
	struct MHD_Connection *conn = rq->conn;
	char *auth;
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
	auth = sign(rq, status, body ? body : oom, strlen(body ? body : oom));
	if (auth)
		MHD_add_response_header(resp, APIAUTH_REPLY_HEADER, auth);
	free(auth);
	/* Before the answer leaves: a client that got it finds the line. */
	if (rq->authenticated)
		elog_debug("API: %s %s from uid %u: %u", rq->method, rq->url,
			   (unsigned)rq->c.uid, status);
	else
		elog_debug("API: %s %s: %u", rq->method, rq->url, status);
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result reply_error(const struct req *rq, unsigned status,
				   const char *message)
{
	return reply(rq, status, JSON_TYPE, render_error((int)status, message),
		     NULL);
}

static enum MHD_Result reply_text(const struct req *rq, unsigned status,
				  const char *text)
{
	return reply(rq, status, TEXT_TYPE, strdup(text), NULL);
}

/* The request's target as the client wrote it: the path, then the
 * query's arguments in their order (apiauth.h binds a credential to it). */
struct target {
	char s[APIAUTH_TARGET_MAX + 1];
	size_t len;
	bool too_long;
};

static enum MHD_Result add_argument(void *cls, enum MHD_ValueKind kind,
				    const char *key, const char *value)
{
	struct target *t = cls;
	int n;

	(void)kind;
	n = snprintf(t->s + t->len, sizeof(t->s) - t->len, "%c%s%s%s",
		     strchr(t->s, '?') ? '&' : '?', key, value ? "=" : "",
		     value ? value : "");
	if (n < 0 || (size_t)n >= sizeof(t->s) - t->len) {
		t->too_long = true;
		return MHD_NO;
	}
	t->len += (size_t)n;
	return MHD_YES;
}

/*
 * Who sent the request, from its munge credential, which must be bound
 * to this very request (apiauth.h).  Returns 0 and fills rq->c, or the
 * HTTP status to answer with *why.  rq->c.uid and nonce are set whenever
 * munge read the credential's payload (even an expired or replayed one),
 * so that the refusal is signed for that uid alone.
 */
static int authenticate(struct req *rq, const char *method, const char *url,
			const char **why)
{
	const char *header = MHD_lookup_connection_value(
	    rq->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	const char *start;
	char cred[APIAUTH_CRED_MAX + 1], nonce[APIAUTH_NONCE_HEX + 1];
	struct target t = { .len = 0 };
	size_t len;
	munge_ctx_t ctx;
	munge_err_t e;
	void *payload = NULL;
	int plen = 0, status;
	uid_t uid;
	gid_t gid;

	if (apiauth_parse_header(header, &start, &len, why))
		return MHD_HTTP_UNAUTHORIZED;
	memcpy(cred, start, len);
	cred[len] = '\0';
	t.len = (size_t)snprintf(t.s, sizeof(t.s), "%s", url);
	if (t.len >= sizeof(t.s) ||
	    (MHD_get_connection_values(rq->conn, MHD_GET_ARGUMENT_KIND,
				       add_argument, &t),
	     t.too_long)) {
		*why = "request target too long";
		return MHD_HTTP_BAD_REQUEST;
	}

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
	status = auth_munge_status(e, why);
	/* munge_decode() fills the payload and uid for an expired or
	 * replayed credential too: the refusal is signed for that uid. */
	if ((status == 0 || e == EMUNGE_CRED_EXPIRED ||
	     e == EMUNGE_CRED_REPLAYED || e == EMUNGE_CRED_REWOUND) &&
	    payload) {
		const char *bind_why;

		if (apiauth_check_request(payload, (size_t)plen, method, t.s,
					  nonce, &bind_why) == 0) {
			rq->c.uid = (uint32_t)uid;
			memcpy(rq->c.nonce, nonce, sizeof(nonce));
		} else if (!status) {
			*why = bind_why;
			status = MHD_HTTP_UNAUTHORIZED;
		}
	} else if (!status) {
		apiauth_check_request("", 0, method, t.s, nonce, why);
		status = MHD_HTTP_UNAUTHORIZED;
	}
	free(payload);
	if (status)
		return status;
	pthread_mutex_lock(&api.lock);
	rq->c.admin = auth_is_admin(rq->c.uid, api.slurm_user_uid,
				    api.admin_uids, api.nadmin);
	pthread_mutex_unlock(&api.lock);
	return 0;
}

/* POST /v1/groups/ID/report: the group's launcher says where its ranks
 * are; taken by the loop at its next cycle. */
static enum MHD_Result serve_report(const struct req *rq,
				    const struct group_info *g)
{
	struct MHD_Connection *conn = rq->conn;
	struct launch_report rep = { .group = g->base_job_id };
	const char *why;

	if (route_parse_report(MHD_lookup_connection_value(
				   conn, MHD_GET_ARGUMENT_KIND, "generation"),
			       MHD_lookup_connection_value(
				   conn, MHD_GET_ARGUMENT_KIND, "exit_ms"),
			       &rep, &why) < 0 ||
	    route_parse_relay(MHD_lookup_connection_value(
				  conn, MHD_GET_ARGUMENT_KIND, "relay"),
			      &rep, &why) < 0)
		return reply_error(rq, MHD_HTTP_BAD_REQUEST, why);
	if (api_queue_report(&rep) < 0)
		return reply_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "too many reports queued: try again in a "
				   "few seconds");
	return reply(rq, MHD_HTTP_ACCEPTED, JSON_TYPE,
		     render_report(g->base_job_id), NULL);
}

/* POST /v1/groups/ID/suspect?node=N&why=W: the group's launcher found
 * node lost, hung or straggling.  Only a node that one of the group's
 * running members holds (not one in a preemption's grace): no user can
 * have another's node drained. */
static enum MHD_Result serve_suspect(const struct req *rq,
				     const struct group_info *g)
{
	struct suspect_report s = { .group = g->base_job_id };
	const char *why;
	size_t i;

	if (route_parse_suspect(MHD_lookup_connection_value(
				    rq->conn, MHD_GET_ARGUMENT_KIND, "node"),
				MHD_lookup_connection_value(
				    rq->conn, MHD_GET_ARGUMENT_KIND, "why"),
				&s, &why) < 0)
		return reply_error(rq, MHD_HTTP_BAD_REQUEST, why);
	for (i = 0; i < g->nmembers; i++)
		if (g->members[i].state == MEMBER_RUNNING &&
		    nodelist_has(g->members[i].nodes, s.node))
			break;
	if (i == g->nmembers)
		return reply_error(rq, MHD_HTTP_FORBIDDEN,
				   "node: not a node that a running job of "
				   "this group holds");
	if (api_queue_suspect(&s) < 0)
		return reply_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				   "too many suspect nodes queued: try again "
				   "in a few seconds");
	api_wake();
	return reply(rq, MHD_HTTP_ACCEPTED, JSON_TYPE,
		     render_suspect(g->base_job_id, s.node), NULL);
}

/* Read job id at the next cycle, which comes at once where notifications
 * are taken, unless the caller's wake-ups are over their rate (a flood of
 * them would be a flood of reads on slurmctld). */
static bool may_wake(const struct req *rq)
{
	bool wake;

	pthread_mutex_lock(&api.lock);
	wake = api.notify == POLICY_NOTIFY_YES &&
	       api_lookup_allowed(rq->c.uid, rq->c.admin);
	pthread_mutex_unlock(&api.lock);
	return wake;
}

static void lookup_now(const struct req *rq, uint32_t id)
{
	api_queue_lookup(id);
	if (may_wake(rq))
		api_wake();
}

/* POST /v1/groups/ID/notify?event=E: a unit says it started, was
 * signalled or ends; a launcher that its world lost a member or that it
 * ends.  The answer is the same whatever is done with it: the job is read
 * at once (a lookup and a wake-up; at every cycle for a while after end
 * and fault), or the notification is dropped (ElasticdNotify=drop), or it
 * is for a job elasticd has not read yet (read at once too: maybe a new
 * unit).  A start with nodes=LIST is slurmstepd's, as root: the unit's
 * nodes as slurmctld sent them, taken without a read where elasticd knows
 * the job as a pending unit (the read comes after, to confirm).  Anyone
 * else's word on nodes would be a user's. */
static enum MHD_Result serve_notify(const struct req *rq, const struct route *r)
{
	const char *nodes = MHD_lookup_connection_value(
	    rq->conn, MHD_GET_ARGUMENT_KIND, "nodes");
	enum notify_event ev;
	const char *why;
	bool taken, root;

	if (route_parse_notify(MHD_lookup_connection_value(
				   rq->conn, MHD_GET_ARGUMENT_KIND, "event"),
			       &ev, &why) < 0 ||
	    route_parse_nodes(ev, nodes, &why) < 0)
		return reply_error(rq, MHD_HTTP_BAD_REQUEST, why);
	pthread_mutex_lock(&api.lock);
	root = rq->c.uid == 0 || rq->c.uid == api.slurm_user_uid;
	pthread_mutex_unlock(&api.lock);
	if (nodes && !root)
		return reply_error(rq, MHD_HTTP_FORBIDDEN,
				   "nodes: only root or SlurmUser (slurmstepd) "
				   "may say a unit's nodes");
	/* Dropped with ElasticdNotify=drop, or over its caller's rate. */
	taken = may_wake(rq);
	pthread_mutex_lock(&api.lock);
	if (taken)
		api.notified++;
	else
		api.notify_dropped++;
	pthread_mutex_unlock(&api.lock);
	if (taken) {
		elog_debug("notified: job %u, %s (uid %u%s%s)", r->id,
			   notify_event_name(ev), (unsigned)rq->c.uid,
			   nodes ? ", nodes " : "", nodes ? nodes : "");
		if (nodes)
			api_queue_started(r->id, nodes);
		else
			api_queue_lookup(r->id);
		if (ev == NOTIFY_END || ev == NOTIFY_FAULT)
			api_queue_follow(r->id);
		api_wake();
	}
	return reply(rq, MHD_HTTP_ACCEPTED, JSON_TYPE,
		     render_notify(r->id, notify_event_name(ev)), NULL);
}

/* The /v1 endpoints, for an authenticated caller and a view. */
static enum MHD_Result serve_v1(const struct req *rq, const struct route *r,
				const struct elasticd_view *v)
{
	const struct auth_caller *c = &rq->c;
	const struct group_info *g;
	int status;

	if (r->kind == ROUTE_GROUPS)
		return reply(rq, MHD_HTTP_OK, JSON_TYPE, render_groups(v, c),
			     NULL);
	g = auth_find_group(v, c, r->id);
	/* Asked about a group whose base elasticd saw pending: its launcher
	 * runs, so the base does: read it now (a base's start has no
	 * notification of its own; its launcher's first request is one). */
	if (g && g->state == GROUP_PENDING && r->kind != ROUTE_NOTIFY)
		lookup_now(rq, g->base_job_id);
	/* A unit elasticd knows of, or one it has not read yet; the
	 * lookup reads a job of any owner, so a flood of notifications
	 * costs slurmctld at most one read per job id and cycle. */
	if (r->kind == ROUTE_NOTIFY)
		return serve_notify(rq, r);
	/* An ended group's account is kept beyond the group. */
	if (r->kind == ROUTE_ACCOUNT) {
		unsigned st;
		char *body = api_account(rq->conn, !strcmp(rq->method, "POST"),
					 r->id, g, c, &st);

		return reply(rq, st, JSON_TYPE, body, NULL);
	}
	if (!g) {
		char msg[96];

		snprintf(msg, sizeof(msg),
			 "no elastic group of yours has job %u", r->id);
		/* Maybe a group elasticd has not read yet (between reads
		 * of the whole queue): look at that job. */
		lookup_now(rq, r->id);
		return reply_error(rq, MHD_HTTP_NOT_FOUND, msg);
	}
	switch (r->kind) {
	case ROUTE_GROUP:
		/* Its launcher, alive (batchhost.h), and the spares it
		 * checked: only the owner's word. */
		if (c->uid == g->user_id &&
		    MHD_lookup_connection_value(rq->conn, MHD_GET_ARGUMENT_KIND,
						"launcher")) {
			const char *ok = MHD_lookup_connection_value(
			    rq->conn, MHD_GET_ARGUMENT_KIND, "spares_checked");
			struct spare_note sn = { .group = g->base_job_id };
			const char *why;

			if (ok && route_parse_jobs(ok, sn.jobs, SPARE_NOTE_MAX,
						   &sn.n, &why) < 0)
				return reply_error(rq, MHD_HTTP_BAD_REQUEST,
						   why);
			if (ok)
				api_note_spares(&sn);
			api_note_launcher(g->base_job_id);
		}
		return reply(rq, MHD_HTTP_OK, JSON_TYPE, render_group(g), NULL);
	case ROUTE_EVENTS:
		return reply(rq, MHD_HTTP_OK, JSON_TYPE, render_events(g),
			     NULL);
	case ROUTE_RAISE:
		status = auth_raise_status(g);
		if (status != MHD_HTTP_OK) {
			char msg[128];

			snprintf(msg, sizeof(msg),
				 "group %u is %s: it has no ranks to tell",
				 g->base_job_id, group_state_name(g->state));
			return reply_error(rq, (unsigned)status, msg);
		}
		if (api_queue_raise(g->base_job_id))
			return reply_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE,
					   "too many raise requests queued: "
					   "try again in a few seconds");
		return reply(rq, MHD_HTTP_ACCEPTED, JSON_TYPE,
			     render_raise(g->base_job_id), NULL);
	case ROUTE_REPORT:
		return serve_report(rq, g);
	case ROUTE_SUSPECT:
		return serve_suspect(rq, g);
	default:
		return reply_error(rq, MHD_HTTP_NOT_FOUND, "no such path");
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
	struct req rq0 = { .conn = conn, .method = method, .url = url };
	struct req *rq = &rq0;
	struct route r;
	struct held_view *h;
	const char *why;
	enum MHD_Result ret;
	int status;

	/* Everything is decided on the headers, at the first call. */
	api_conn_answered(conn);
	if (*upload_data_size)
		return reply_error(rq, HTTP_TOO_LARGE,
				   "requests carry no body");
	route_parse(method, url, &r);
	if (r.kind == ROUTE_NOT_FOUND)
		return reply_error(rq, MHD_HTTP_NOT_FOUND,
				   "no such path (see elasticd-api(7))");
	if (!r.method_ok) {
		char msg[64];

		snprintf(msg, sizeof(msg), "method not allowed (allowed: %s)",
			 r.allow);
		return reply(rq, MHD_HTTP_METHOD_NOT_ALLOWED, JSON_TYPE,
			     render_error(MHD_HTTP_METHOD_NOT_ALLOWED, msg),
			     r.allow);
	}
	if (has_body(conn))
		return reply_error(rq, HTTP_TOO_LARGE,
				   "requests carry no body");
	if (route_needs_auth(&r)) {
		status = authenticate(rq, method, url, &why);
		if (status)
			return reply_error(rq, (unsigned)status, why);
		rq->authenticated = true;
	}

	h = api_view_get();
	switch (r.kind) {
	case ROUTE_HEALTHZ:
		ret = h ? reply_text(rq, MHD_HTTP_OK, "ok\n")
			: reply_text(rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				     "starting: no reconcile cycle finished "
				     "yet\n");
		break;
	case ROUTE_METRICS:
		ret = h ? reply(rq, MHD_HTTP_OK, PROM_TYPE, api_metrics(h->v),
				NULL)
			: reply_text(rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				     "starting: no reconcile cycle finished "
				     "yet\n");
		break;
	default:
		ret = h ? serve_v1(rq, &r, h->v)
			: reply_error(rq, MHD_HTTP_SERVICE_UNAVAILABLE,
				      "elasticd is starting: it knows no "
				      "groups yet");
		break;
	}
	api_view_put(h);
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

	if (api_reaper_start()) {
		close(fd);
		return elastic_errorf(err, "cannot start the API's reaper "
					   "thread");
	}
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
	    MHD_OPTION_NOTIFY_CONNECTION, api_conn_notify, NULL,
	    MHD_OPTION_END);
	if (!api.mhd) {
		api_reaper_stop();
		return elastic_errorf(err,
				      "cannot start the HTTP server on "
				      "%s (libmicrohttpd)",
				      listen_addr);
	}
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
	api_view_put(old);
	refresh_admins(false);
}

void api_stop(void)
{
	struct held_view *h;

	/* No cut while the server closes its connections (and their fds). */
	api_reaper_stop();
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
	api_view_put(h);
}
