/*
 * elasticd's API server for real: api_start() on 127.0.0.1 (a port in
 * 17600..17699), a synthetic view published, real HTTP through libcurl and
 * real munge credentials from a private munged started here (killed at the
 * end, and by the kernel if this test dies first).  Run as root (as
 * "make check" is by ./quickstart), credentials are also minted as other
 * users, in a child that drops to their uid; as another user those tests
 * are skipped.  elasticctl is run against the same server.
 */
#define _GNU_SOURCE /* nftw, setgroups */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <munge.h>

#include "common/apiauth.h"
#include "common/log.h"
#include "elasticd/api.h"
#include "elasticd/groupinfo.h"

#define PORT_FIRST 17600
#define PORT_COUNT 100

/* The users of the test (as root).  OWNER owns group 100, OTHER group
 * 200; ADMIN_NAME is named in the admins list; SLURM_UID is the
 * SlurmUser.  No passwd entries are needed but for ADMIN_NAME. */
#define OWNER	   65534 /* nobody */
#define OTHER	   54321
#define SLURM_UID  54322
#define ADMIN_NAME "daemon"
#define ADMIN_UID  1

static struct {
	char dir[64];
	char sock[128];
	pid_t munged;
	unsigned port;
	char server[32];
	uid_t owner, other; /* getuid() for both when not root */
	bool root;
	char ctl_server[32]; /* elasticctl's --server, if not ours */
} t;

/* Processes and files */

static int rm_entry(const char *p, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Run argv, wait for it; its exit status, or -1. */
static int run_wait(char *const argv[])
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A credential made by uid (in a child that becomes uid when we are
 * root), with the given payload and time-to-live (0: munge's default).
 * NULL if munge_encode failed.
 */
static char *mint(uid_t uid, const char *payload, int ttl)
{
	int fds[2], status;
	char buf[4096];
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fds))
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		munge_ctx_t ctx = munge_ctx_create();
		char *cred = NULL;

		close(fds[0]);
		if (uid != getuid() &&
		    (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(2);
		munge_ctx_set(ctx, MUNGE_OPT_SOCKET, t.sock);
		if (ttl)
			munge_ctx_set(ctx, MUNGE_OPT_TTL, ttl);
		if (munge_encode(&cred, ctx, payload,
				 payload ? (int)strlen(payload) : 0) !=
		    EMUNGE_SUCCESS)
			_exit(3);
		if (write(fds[1], cred, strlen(cred)) != (ssize_t)strlen(cred))
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
		got += n;
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || got == 0)
		return NULL;
	buf[got] = '\0';
	return strdup(buf);
}

/* A credential of uid bound to one request (elasticd-api(7)). */
static char *mint_for(uid_t uid, const char *method, const char *path, int ttl)
{
	char payload[APIAUTH_PAYLOAD_MAX];

	if (apiauth_request_payload(method, path,
				    "0123456789abcdef0123456789abcdef", payload,
				    sizeof(payload)) < 0)
		return NULL;
	return mint(uid, payload, ttl);
}

/* The Authorization value of a credential just minted (freed here). */
static void munge_auth(char *cred, char *auth, size_t len)
{
	assert_non_null(cred);
	snprintf(auth, len, "Munge %s", cred);
	free(cred);
}

/* A file as TAP comments, for failures. */
static void dump(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "# %s", line);
	if (f)
		fclose(f);
}

static int start_munged(void)
{
	char key[128], seed[128], pid[128], log[128], *cred;
	char arg_sock[160], arg_key[160], arg_seed[160], arg_pid[160],
	    arg_log[160];
	char *keygen[] = { MUNGEKEY, "-c", "-k", key, NULL };
	double deadline;

	snprintf(t.dir, sizeof(t.dir), "/tmp/elastic-api-test.XXXXXX");
	if (!mkdtemp(t.dir) || chmod(t.dir, 0755))
		return -1;
	snprintf(t.sock, sizeof(t.sock), "%s/munge.sock", t.dir);
	snprintf(key, sizeof(key), "%s/munge.key", t.dir);
	snprintf(seed, sizeof(seed), "%s/munged.seed", t.dir);
	snprintf(pid, sizeof(pid), "%s/munged.pid", t.dir);
	snprintf(log, sizeof(log), "%s/munged.log", t.dir);
	if (run_wait(keygen) != 0) {
		fprintf(stderr, "# %s -c failed\n", MUNGEKEY);
		return -1;
	}
	snprintf(arg_sock, sizeof(arg_sock), "--socket=%s", t.sock);
	snprintf(arg_key, sizeof(arg_key), "--key-file=%s", key);
	snprintf(arg_seed, sizeof(arg_seed), "--seed-file=%s", seed);
	snprintf(arg_pid, sizeof(arg_pid), "--pid-file=%s", pid);
	snprintf(arg_log, sizeof(arg_log), "--log-file=%s", log);

	t.munged = fork();
	if (t.munged < 0)
		return -1;
	if (t.munged == 0) {
		char *argv[] = { MUNGED,   "-F",    arg_sock, arg_key,
				 arg_seed, arg_pid, arg_log,  NULL };

		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

		/* munged goes when this test goes, however it ends. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		/* Its -F chatter to its log, out of the TAP stream. */
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	for (deadline = now_s() + 10; now_s() < deadline; usleep(50000)) {
		if (waitpid(t.munged, NULL, WNOHANG) == t.munged) {
			dump(log);
			fprintf(stderr, "# munged exited\n");
			t.munged = 0;
			return -1;
		}
		cred = mint(getuid(), NULL, 0);
		if (cred) {
			free(cred);
			return 0;
		}
	}
	dump(log);
	fprintf(stderr, "# munged did not answer within 10 s\n");
	return -1;
}

static void stop_munged(void)
{
	double deadline;

	if (t.munged <= 0)
		return;
	kill(t.munged, SIGTERM);
	for (deadline = now_s() + 5; now_s() < deadline; usleep(20000))
		if (waitpid(t.munged, NULL, WNOHANG) == t.munged) {
			t.munged = 0;
			return;
		}
	kill(t.munged, SIGKILL);
	waitpid(t.munged, NULL, 0);
	t.munged = 0;
}

/* The synthetic view (see test_api.c for its twin in the unit tests). */

static struct elasticd_view *make_view(bool with_group100)
{
	struct elasticd_view *v = calloc(1, sizeof(*v));
	struct group_info *g;
	size_t i = 0;

	assert_non_null(v);
	clock_gettime(CLOCK_REALTIME, &v->published);
	v->groups = calloc(2, sizeof(*v->groups));
	assert_non_null(v->groups);
	if (with_group100) {
		g = &v->groups[i++];
		g->base_job_id = 100;
		g->user_id = (uint32_t)t.owner;
		g->user = strdup("owner");
		g->account = strdup("proj");
		g->state = GROUP_RUNNING;
		g->min = 1;
		g->max = 4;
		g->generation = 2;
		g->world_nodes = 3;
		g->master_addr = strdup("n1");
		g->nmembers = 2;
		g->members = calloc(2, sizeof(*g->members));
		assert_non_null(g->members);
		g->members[0] =
		    (struct member_info){ 100, MEMBER_BASE,  MEMBER_RUNNING,
					  1,   strdup("n1"), true };
		g->members[1] = (struct member_info){
			101, MEMBER_PREEMPTIBLE, MEMBER_RUNNING,
			2,   strdup("n[2-3]"),	 true
		};
		g->nevents = 2;
		g->events = calloc(2, sizeof(*g->events));
		assert_non_null(g->events);
		g->events[0] = (struct event_info){ { 1714566800, 5000000 },
						    CAUSE_START,
						    1,
						    1,
						    strdup("first world") };
		g->events[1] =
		    (struct event_info){ { 1714566900, 0 },
					 CAUSE_GROW,
					 2,
					 3,
					 strdup("unit 101 started") };
	}
	g = &v->groups[i++];
	g->base_job_id = 200;
	g->user_id = (uint32_t)t.other;
	g->state = GROUP_PENDING;
	g->min = 1;
	g->max = 2;
	v->ngroups = i;
	v->nodes_base = 1;
	v->nodes_preemptible = 2;
	v->metrics.cycles = 7;
	v->metrics.started = 1714560000;
	return v;
}

/* HTTP */

struct reply {
	long status;
	char *body;
	size_t len;
	char ctype[128];
	bool www_auth; /* WWW-Authenticate: Munge */
	bool signed_;  /* Elastic-Server-Auth: Munge ... */
	char allow[64];
};

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
	struct reply *r = ud;
	char *b = realloc(r->body, r->len + size * n + 1);

	if (!b)
		return 0;
	memcpy(b + r->len, p, size * n);
	r->len += size * n;
	b[r->len] = '\0';
	r->body = b;
	return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
	struct reply *r = ud;
	size_t len = size * n;

	if (len > 14 && !strncasecmp(p, "Content-Type: ", 14))
		snprintf(r->ctype, sizeof(r->ctype), "%.*s",
			 (int)strcspn(p + 14, "\r\n"), p + 14);
	if (!strncasecmp(p, "WWW-Authenticate: Munge", 23))
		r->www_auth = true;
	if (!strncasecmp(p, APIAUTH_REPLY_HEADER ": Munge MUNGE:",
			 strlen(APIAUTH_REPLY_HEADER ": Munge MUNGE:")))
		r->signed_ = true;
	if (len > 7 && !strncasecmp(p, "Allow: ", 7))
		snprintf(r->allow, sizeof(r->allow), "%.*s",
			 (int)strcspn(p + 7, "\r\n"), p + 7);
	return len;
}

/*
 * One request; auth is the whole Authorization value (NULL: none).
 * body: sent as the request body if not NULL.  Returns the reply; the
 * caller frees r.body.  status 0: could not connect.
 */
static struct reply http(const char *method, const char *path, const char *auth,
			 const char *body)
{
	struct reply r = { 0 };
	struct curl_slist *h = NULL;
	char url[256], hdr[4200];
	CURL *c = curl_easy_init();

	assert_non_null(c);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", t.port, path);
	if (auth) {
		snprintf(hdr, sizeof(hdr), "Authorization: %s", auth);
		h = curl_slist_append(h, hdr);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
	if (!strcmp(method, "POST")) {
		curl_easy_setopt(c, CURLOPT_POST, 1L);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE,
				 (long)(body ? strlen(body) : 0));
	} else if (!strcmp(method, "HEAD")) {
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	} else if (strcmp(method, "GET")) {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	}
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	return r;
}

/* A request with a fresh credential of uid. */
static struct reply as(uid_t uid, const char *method, const char *path)
{
	char auth[4200];

	munge_auth(mint_for(uid, method, path, 0), auth, sizeof(auth));
	return http(method, path, auth, NULL);
}

static json_object *json_of(struct reply *r)
{
	json_object *o;

	if (!r->body)
		fail_msg("HTTP %ld with no body", r->status);
	if (strcmp(r->ctype, "application/json; charset=utf-8"))
		fail_msg("Content-Type '%s'", r->ctype);
	o = json_tokener_parse(r->body);
	if (!o)
		fail_msg("not JSON: %s", r->body);
	free(r->body);
	r->body = NULL;
	return o;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

/* The ids of the groups in a /v1/groups answer, "100 200". */
static void group_ids(struct reply *r, char *buf, size_t len)
{
	json_object *d = json_of(r), *gs = get(d, "groups");
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(gs); i++)
		used += (size_t)snprintf(
		    buf + used, len - used, "%s%lld", used ? " " : "",
		    (long long)json_object_get_int64(
			get(json_object_array_get_idx(gs, i), "id")));
	json_object_put(d);
}

/* The "error" of a JSON error answer contains want. */
static void error_says(struct reply *r, long status, const char *want)
{
	json_object *d;

	if (r->status != status)
		fail_msg("HTTP %ld, want %ld: %s", r->status, status,
			 r->body ? r->body : "");
	d = json_of(r);
	if (!strstr(json_object_get_string(get(d, "error")), want))
		fail_msg("error '%s' lacks '%s'",
			 json_object_get_string(get(d, "error")), want);
	assert_int_equal(json_object_get_int64(get(d, "status")), status);
	json_object_put(d);
}

#define need_root()                                                            \
	do {                                                                   \
		if (!t.root)                                                   \
			skip();                                                \
	} while (0)

/* Setup */

static int setup(void **state)
{
	struct policy_list admins = { 1, { ADMIN_NAME } };
	elastic_error_t err = { "" };
	unsigned first = PORT_FIRST + (unsigned)getpid() % PORT_COUNT;

	t.root = getuid() == 0;
	t.owner = t.root ? OWNER : getuid();
	t.other = t.root ? OTHER : getuid();
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return -1;
	if (start_munged()) {
		stop_munged();
		if (t.dir[0])
			rm_tree(t.dir);
		return -1;
	}
	/* Another test run may hold a port: try each in turn. */
	for (unsigned i = 0; i < PORT_COUNT; i++) {
		t.port = PORT_FIRST + (first - PORT_FIRST + i) % PORT_COUNT;
		snprintf(t.server, sizeof(t.server), "127.0.0.1:%u", t.port);
		if (!api_start(t.server, t.sock, &admins, SLURM_UID, &err))
			return 0;
	}
	fprintf(stderr, "# api_start: %s\n", err.text);
	stop_munged();
	rm_tree(t.dir);
	return -1;
}

static int teardown(void **state)
{
	api_stop();
	stop_munged();
	rm_tree(t.dir);
	curl_global_cleanup();
	return 0;
}

/* Tests, in order: the first publishes the view the others read. */

static void before_first_publish(void **state)
{
	struct reply r = http("GET", "/healthz", NULL, NULL);

	assert_int_equal(r.status, 503);
	free(r.body);
	r = http("GET", "/metrics", NULL, NULL);
	assert_int_equal(r.status, 503);
	free(r.body);
	r = as(getuid(), "GET", "/v1/groups");
	error_says(&r, 503, "starting");

	api_publish(make_view(true));
	r = http("GET", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "ok\n");
	free(r.body);
	r = http("HEAD", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 200);
	assert_null(r.body);
}

static void no_credential(void **state)
{
	static const char *const paths[] = { "/v1/groups", "/v1/groups/100",
					     "/v1/groups/100/events" };

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct reply r = http("GET", paths[i], NULL, NULL);

		assert_true(r.www_auth);
		error_says(&r, 401, "no credential");
	}
	{
		struct reply r =
		    http("POST", "/v1/groups/100/raise", NULL, NULL);

		error_says(&r, 401, "no credential");
	}
	assert_int_equal(api_take_raise_requests((uint32_t[4]){ 0 }, 4), 0);
}

static void bad_credentials(void **state)
{
	struct reply r;
	char auth[4200];

	r = http("GET", "/v1/groups", "Basic dXNlcjpwYXNz", NULL);
	error_says(&r, 401, "scheme");
	r = http("GET", "/v1/groups", "Munge MUNGE:bm90IGEgY3JlZA==:", NULL);
	error_says(&r, 401, "invalid");
	r = http("GET", "/v1/groups", "Munge not-a-credential", NULL);
	error_says(&r, 401, "malformed");

	/* Once only: the same credential again is a replay. */
	munge_auth(mint_for(getuid(), "GET", "/v1/groups", 0), auth,
		   sizeof(auth));
	r = http("GET", "/v1/groups", auth, NULL);
	assert_int_equal(r.status, 200);
	assert_true(r.signed_);
	free(r.body);
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "replayed");

	/* A credential bound to nothing, or to something else, does not
	 * authenticate: one taken from a request is good for that request
	 * alone. */
	munge_auth(mint(getuid(), NULL, 0), auth, sizeof(auth));
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "not bound to the request");
	assert_false(r.signed_);
	munge_auth(mint(getuid(), "slurm", 0), auth, sizeof(auth));
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "not an elasticd request");
	munge_auth(mint_for(getuid(), "GET", "/v1/groups/100", 0), auth,
		   sizeof(auth));
	r = http("POST", "/v1/groups/100/raise", auth, NULL);
	error_says(&r, 401, "made for another request");
	munge_auth(
	    mint_for(getuid(), "POST", "/v1/groups/100/report?generation=2", 0),
	    auth, sizeof(auth));
	r = http("POST", "/v1/groups/100/report?generation=3", auth, NULL);
	error_says(&r, 401, "made for another request");
	assert_int_equal(api_take_raise_requests((uint32_t[4]){ 0 }, 4), 0);
}

static void expired_credential(void **state)
{
	char auth[4200];
	struct reply r;

	munge_auth(mint_for(getuid(), "GET", "/v1/groups", 1), auth,
		   sizeof(auth));
	sleep(3);
	r = http("GET", "/v1/groups", auth, NULL);
	error_says(&r, 401, "expired");
	/* Signed for its maker alone: the client learns why. */
	assert_true(r.signed_);
}

/* elasticd -v: a debug line per request, the caller's uid once it is
 * authenticated; at the default level none. */
static void debug_log(void **state)
{
	char *buf = NULL, line[128];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct reply r;

	assert_non_null(f);
	elog_set_stream(f);
	r = http("GET", "/healthz", NULL, NULL);
	free(r.body);
	elog_set_level(ELOG_DEBUG);
	r = http("GET", "/nowhere", NULL, NULL);
	free(r.body);
	r = as(getuid(), "GET", "/v1/groups");
	assert_int_equal(r.status, 200);
	free(r.body);
	elog_set_level(ELOG_INFO);
	elog_set_stream(NULL);
	fclose(f);
	assert_null(strstr(buf, "/healthz"));
	assert_non_null(strstr(buf, "debug: API: GET /nowhere: 404\n"));
	snprintf(line, sizeof(line),
		 "debug: API: GET /v1/groups from uid %u: 200\n",
		 (unsigned)getuid());
	assert_non_null(strstr(buf, line));
	free(buf);
}

static void owner_sees_own_group(void **state)
{
	struct reply r = as(t.owner, "GET", "/v1/groups");
	char ids[64];
	json_object *d, *m;

	assert_int_equal(r.status, 200);
	group_ids(&r, ids, sizeof(ids));
	assert_string_equal(ids, t.root ? "100" : "100 200");

	r = as(t.owner, "GET", "/v1/groups/100");
	assert_int_equal(r.status, 200);
	d = json_of(&r);
	assert_int_equal(json_object_get_int64(get(d, "id")), 100);
	assert_string_equal(json_object_get_string(get(d, "state")), "RUNNING");
	assert_string_equal(json_object_get_string(get(d, "master_addr")),
			    "n1");
	assert_int_equal(json_object_get_int64(get(d, "world_nodes")), 3);
	m = json_object_array_get_idx(get(d, "members"), 1);
	assert_int_equal(json_object_get_int64(get(m, "job_id")), 101);
	assert_string_equal(json_object_get_string(get(m, "kind")),
			    "preemptible");
	assert_string_equal(json_object_get_string(get(m, "nodes")), "n[2-3]");
	json_object_put(d);

	/* A unit's id names its group. */
	r = as(t.owner, "GET", "/v1/groups/101");
	assert_int_equal(r.status, 200);
	d = json_of(&r);
	assert_int_equal(json_object_get_int64(get(d, "id")), 100);
	json_object_put(d);

	r = as(t.owner, "GET", "/v1/groups/100/events");
	assert_int_equal(r.status, 200);
	d = json_of(&r);
	assert_int_equal(json_object_array_length(get(d, "events")), 2);
	m = json_object_array_get_idx(get(d, "events"), 1);
	assert_string_equal(json_object_get_string(get(m, "time")),
			    "2024-05-01T12:35:00.000Z");
	assert_string_equal(json_object_get_string(get(m, "cause")), "grow");
	json_object_put(d);

	r = as(t.owner, "GET", "/v1/groups/999");
	error_says(&r, 404, "no elastic group");
}

static void other_user_sees_nothing(void **state)
{
	static const char *const paths[] = { "/v1/groups/100", "/v1/groups/101",
					     "/v1/groups/100/events" };
	struct reply r;
	uint32_t ids[4];
	char list[64];

	need_root();
	r = as(t.other, "GET", "/v1/groups");
	assert_int_equal(r.status, 200);
	group_ids(&r, list, sizeof(list));
	assert_string_equal(list, "200");
	/* Exactly what a group that does not exist gets. */
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		r = as(t.other, "GET", paths[i]);
		error_says(&r, 404, "no elastic group of yours");
	}
	r = as(t.other, "POST", "/v1/groups/100/raise");
	error_says(&r, 404, "no elastic group of yours");
	assert_int_equal(api_take_raise_requests(ids, 4), 0);
	/* Nor the owner bob's. */
	r = as(t.owner, "GET", "/v1/groups/200");
	error_says(&r, 404, "no elastic group of yours");
}

static void admins_see_all(void **state)
{
	const uid_t admins[] = { 0, ADMIN_UID, SLURM_UID };
	struct reply r;
	char ids[64];

	need_root();
	for (size_t i = 0; i < 3; i++) {
		r = as(admins[i], "GET", "/v1/groups");
		assert_int_equal(r.status, 200);
		group_ids(&r, ids, sizeof(ids));
		if (strcmp(ids, "100 200"))
			fail_msg("uid %u sees '%s'", (unsigned)admins[i], ids);
		r = as(admins[i], "GET", "/v1/groups/200");
		assert_int_equal(r.status, 200);
		free(r.body);
	}
}

static void raise_requests(void **state)
{
	uint32_t ids[4] = { 0 };
	struct reply r;
	json_object *d;

	r = as(t.owner, "POST", "/v1/groups/100/raise");
	assert_int_equal(r.status, 202);
	d = json_of(&r);
	assert_int_equal(json_object_get_int64(get(d, "id")), 100);
	assert_string_equal(json_object_get_string(get(d, "raise")), "queued");
	json_object_put(d);
	/* Twice before the daemon takes it, and by a unit's id: once. */
	r = as(t.owner, "POST", "/v1/groups/101/raise");
	assert_int_equal(r.status, 202);
	free(r.body);
	assert_int_equal(api_take_raise_requests(ids, 4), 1);
	assert_int_equal(ids[0], 100);
	assert_int_equal(api_take_raise_requests(ids, 4), 0);

	/* A pending group has no ranks to tell. */
	r = as(t.other, "POST", "/v1/groups/200/raise");
	error_says(&r, 409, "PENDING");
	assert_int_equal(api_take_raise_requests(ids, 4), 0);

	/* Admins act on any group. */
	if (t.root) {
		r = as(ADMIN_UID, "POST", "/v1/groups/100/raise");
		assert_int_equal(r.status, 202);
		free(r.body);
		assert_int_equal(api_take_raise_requests(ids, 4), 1);
	}
}

static void methods_paths_bodies(void **state)
{
	struct reply r;

	r = as(t.owner, "GET", "/v1/groups/100/raise");
	assert_string_equal(r.allow, "POST");
	error_says(&r, 405, "not allowed");
	r = as(t.owner, "DELETE", "/v1/groups/100");
	assert_string_equal(r.allow, "GET, HEAD");
	error_says(&r, 405, "not allowed");
	r = http("GET", "/v2/groups", NULL, NULL);
	error_says(&r, 404, "no such path");
	r = http("GET", "/v1/groups/0", NULL, NULL);
	error_says(&r, 404, "no such path");
	r = http("POST", "/v1/groups/100/raise", "Munge MUNGE:x:", "{}");
	error_says(&r, 413, "no body");
}

static void metrics(void **state)
{
	struct reply r = http("GET", "/metrics", NULL, NULL);

	assert_int_equal(r.status, 200);
	assert_string_equal(r.ctype,
			    "text/plain; version=0.0.4; charset=utf-8");
	assert_non_null(strstr(r.body, "\nelasticd_groups 2\n"));
	assert_non_null(
	    strstr(r.body, "\nelasticd_nodes{kind=\"preemptible\"} 2\n"));
	assert_non_null(
	    strstr(r.body, "\nelasticd_reconcile_cycles_total 7\n"));
	assert_non_null(
	    strstr(r.body, "\nelasticd_start_time_seconds 1714560000\n"));
	free(r.body);
}

/* elasticctl against this server: output, exit codes, as owner and as
 * another user. */
static int ctl(uid_t uid, char *out, size_t len, const char *a1, const char *a2,
	       const char *a3)
{
	char server[64], sock[160];
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	snprintf(server, sizeof(server), "--server=%s",
		 t.ctl_server[0] ? t.ctl_server : t.server);
	snprintf(sock, sizeof(sock), "--munge-socket=%s", t.sock);
	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		const char *argv[] = { ELASTICCTL, server, sock, a1,
				       a2,	   a3,	   NULL };

		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		if (uid != getuid() &&
		    (setgroups(0, NULL) || setgid(uid) || setuid(uid)))
			_exit(126);
		/* Not the cluster's elastic.conf: everything is given. */
		setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
		setenv("TZ", "UTC", 1);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(fds[1]);
	while (got < (ssize_t)len - 1 &&
	       (n = read(fds[0], out + got, len - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#define expect(cond, out)                                                      \
	do {                                                                   \
		if (!(cond))                                                   \
			fail_msg("%s\noutput:\n%s", #cond, out);               \
	} while (0)

static void cli(void **state)
{
	char out[8192];
	int rc;
	uint32_t ids[4];

	rc = ctl(t.owner, out, sizeof(out), "status", NULL, NULL);
	expect(rc == 0, out);
	expect(strstr(out, "GROUP") && strstr(out, "STATE"), out);
	expect(strstr(out, "100") && strstr(out, "RUNNING"), out);
	expect(strstr(out, "2 running"), out);

	rc = ctl(t.owner, out, sizeof(out), "status", "100", NULL);
	expect(rc == 0, out);
	expect(strstr(out, "group 100: RUNNING"), out);
	expect(strstr(out, "3 nodes (min 1, max 4), generation 2"), out);
	expect(strstr(out, "preemptible") && strstr(out, "n[2-3]"), out);

	rc = ctl(t.owner, out, sizeof(out), "events", "100", NULL);
	expect(rc == 0, out);
	expect(strstr(out, "2024-05-01T12:35:00.000+00:00  grow"), out);
	expect(strstr(out, "unit 101 started"), out);

	rc = ctl(t.owner, out, sizeof(out), "--json", "status", "100");
	expect(rc == 0, out);
	expect(!strncmp(out, "{\"id\":100", 9) ||
		   !strncmp(out, "{ \"id\": 100", 11),
	       out);

	rc = ctl(t.owner, out, sizeof(out), "raise", "100", NULL);
	expect(rc == 0, out);
	expect(strstr(out, "group 100: elastic event requested"), out);
	assert_int_equal(api_take_raise_requests(ids, 4), 1);

	rc = ctl(t.owner, out, sizeof(out), "status", "999", NULL);
	expect(rc == 5, out);
	expect(strstr(out, "no elastic group with job 999"), out);

	rc = ctl(t.owner, out, sizeof(out), "status", "abc", NULL);
	expect(rc == 2, out);
	rc = ctl(t.owner, out, sizeof(out), "frobnicate", NULL, NULL);
	expect(rc == 2, out);

	if (t.root) {
		rc = ctl(t.other, out, sizeof(out), "status", "100", NULL);
		expect(rc == 5, out);
		rc = ctl(t.other, out, sizeof(out), "raise", "100", NULL);
		expect(rc == 5, out);
		rc = ctl(t.other, out, sizeof(out), "events", "100", NULL);
		expect(rc == 5, out);
		assert_int_equal(api_take_raise_requests(ids, 4), 0);
	}
}

static void cli_unreachable(void **state)
{
	char out[4096], server[64], sock[160];
	const char *argv[5];
	int fds[2], status;
	ssize_t n, got = 0;
	pid_t pid;
	/* Port 1 (tcpmux): nothing listens there. */
	unsigned port = 1;

	snprintf(server, sizeof(server), "--server=127.0.0.1:%u", port);
	snprintf(sock, sizeof(sock), "--munge-socket=%s", t.sock);
	argv[0] = ELASTICCTL;
	argv[1] = server;
	argv[2] = sock;
	argv[3] = "status";
	argv[4] = NULL;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		dup2(fds[1], 1);
		close(fds[0]);
		execv(argv[0], (char **)argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 3, out);
	expect(strstr(out, "cannot reach elasticd at 127.0.0.1:"), out);
	expect(strstr(out, "--server"), out);
}

/*
 * Whoever listens where elasticctl looks for elasticd: it answers one
 * request with a canned answer and keeps what it was sent.
 */
struct impostor {
	int fd;
	unsigned port;
	const char *answer;
	size_t answer_len;
	char request[8192];
	pthread_t thread;
};

static void *impostor_run(void *arg)
{
	struct impostor *im = arg;
	size_t got = 0;
	ssize_t n;
	int c = accept(im->fd, NULL, NULL);

	if (c < 0)
		return NULL;
	while (got < sizeof(im->request) - 1 &&
	       (n = read(c, im->request + got, sizeof(im->request) - 1 - got)) >
		   0) {
		got += (size_t)n;
		im->request[got] = '\0';
		if (strstr(im->request, "\r\n\r\n"))
			break;
	}
	if (write(c, im->answer, im->answer_len) < 0)
		im->answer_len = 0;
	close(c);
	return NULL;
}

static void impostor_start(struct impostor *im, const char *answer, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);

	memset(im, 0, sizeof(*im));
	im->answer = answer;
	im->answer_len = len;
	im->fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(im->fd >= 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(im->fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(im->fd, 4), 0);
	assert_int_equal(getsockname(im->fd, (struct sockaddr *)&a, &alen), 0);
	im->port = ntohs(a.sin_port);
	snprintf(t.ctl_server, sizeof(t.ctl_server), "127.0.0.1:%u", im->port);
	assert_int_equal(pthread_create(&im->thread, NULL, impostor_run, im),
			 0);
}

static void impostor_stop(struct impostor *im)
{
	pthread_join(im->thread, NULL);
	close(im->fd);
	t.ctl_server[0] = '\0';
}

/* The raw bytes of our server's answer to a request of its own. */
static size_t raw_answer(const char *path, char *buf, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char *cred = mint_for(t.owner, "GET", path, 0), req[4600];
	size_t got = 0;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_non_null(cred);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = htons((uint16_t)t.port);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
		 "Authorization: Munge %s\r\n\r\n",
		 path, cred);
	free(cred);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = '\0';
	close(fd);
	return got;
}

/* The credential in what the impostor was sent. */
static char *sent_credential(const struct impostor *im)
{
	const char *a = strstr(im->request, "Authorization: Munge ");

	if (!a)
		return NULL;
	a += strlen("Authorization: Munge ");
	return strndup(a, strcspn(a, "\r\n"));
}

/*
 * elasticctl believes no answer that is not elasticd's, and what it sends
 * is of no use to whoever receives it (issue: clients authenticate
 * elasticd).
 */
static void cli_impostor(void **state)
{
	static const char forged_body[] =
	    "{\"id\": 100, \"state\": \"RUNNING\", \"user\": \"owner\", "
	    "\"generation\": 9, \"world_nodes\": 1, \"master_addr\": "
	    "\"evil\", \"members\": []}";
	char forged[1024], replayed[16384], out[8192], auth[4200];
	struct impostor im;
	struct reply r;
	char *cred;
	int rc;

	/* An unsigned answer, however plausible, is not elasticd's. */
	snprintf(forged, sizeof(forged),
		 "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		 strlen(forged_body), forged_body);
	impostor_start(&im, forged, strlen(forged));
	rc = ctl(t.owner, out, sizeof(out), "status", "100", NULL);
	impostor_stop(&im);
	expect(rc == 3, out);
	expect(strstr(out, "not as elasticd"), out);
	expect(strstr(out, "no Elastic-Server-Auth"), out);
	expect(!strstr(out, "evil") && !strstr(out, "generation 9"), out);

	/* What the client sent is bound to that request: replayed to the
	 * real elasticd for anything else, it is refused. */
	cred = sent_credential(&im);
	expect(cred != NULL, im.request);
	snprintf(auth, sizeof(auth), "Munge %s", cred);
	r = http("POST", "/v1/groups/100/raise", auth, NULL);
	error_says(&r, 401, "made for another request");
	assert_int_equal(api_take_raise_requests((uint32_t[4]){ 0 }, 4), 0);
	/* And only elasticd's user can read it at all. */
	if (t.root) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			munge_ctx_t ctx = munge_ctx_create();

			if (setgroups(0, NULL) || setgid(OTHER) ||
			    setuid(OTHER))
				_exit(2);
			munge_ctx_set(ctx, MUNGE_OPT_SOCKET, t.sock);
			_exit(munge_decode(cred, ctx, NULL, NULL, NULL, NULL) ==
				      EMUNGE_CRED_UNAUTHORIZED
				  ? 0
				  : 1);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	free(cred);

	/* elasticd's own signed answer, replayed to another request. */
	assert_true(raw_answer("/v1/groups/100", replayed, sizeof(replayed)) >
		    0);
	expect(strstr(replayed, "Elastic-Server-Auth: Munge "), replayed);
	impostor_start(&im, replayed, strlen(replayed));
	rc = ctl(t.owner, out, sizeof(out), "status", "100", NULL);
	impostor_stop(&im);
	expect(rc == 3, out);
	expect(strstr(out, "another request"), out);
	expect(!strstr(out, "group 100: RUNNING"), out);
}

/* Publishing while requests read views: each view is freed once, after
 * its last reader (ASan and valgrind see the rest). */
static void *reader(void *arg)
{
	int *failures = arg;

	for (int i = 0; i < 40; i++) {
		struct reply r = http("GET", "/metrics", NULL, NULL);

		if (r.status != 200 || !r.body ||
		    !strstr(r.body, "elasticd_groups "))
			(*failures)++;
		free(r.body);
	}
	return NULL;
}

static void publish_under_load(void **state)
{
	pthread_t th[4];
	int failures[4] = { 0 };

	for (int i = 0; i < 4; i++)
		assert_int_equal(
		    pthread_create(&th[i], NULL, reader, &failures[i]), 0);
	for (int i = 0; i < 200; i++) {
		api_publish(make_view(i % 2));
		usleep(500);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(failures[i], 0);
	}
}

/* Clients on many hosts that open connections and trickle a request's
 * headers a byte at a time (8 per address, the most one address may hold,
 * from 40 addresses: more than the server's 256) do not keep anyone else
 * out, and none of their connections outlives the time allowed to send a
 * request. */
#define SLOW_HOSTS 40
#define SLOW_PER   8
static int slow_connect(unsigned host)
{
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = src;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	static const char start[] = "GET /healthz HTTP/1.1\r\nX-Slow: ";

	if (fd < 0)
		return -1;
	src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 10 + host);
	dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dst.sin_port = htons((uint16_t)t.port);
	if (bind(fd, (struct sockaddr *)&src, sizeof(src)) ||
	    connect(fd, (struct sockaddr *)&dst, sizeof(dst)) ||
	    send(fd, start, sizeof(start) - 1, MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The connection still open: a byte goes out and no end of stream (or
 * reset) has come back. */
static bool slow_open(int fd)
{
	char c;
	ssize_t n;

	if (send(fd, "a", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
	    errno != EAGAIN)
		return false;
	n = recv(fd, &c, 1, MSG_DONTWAIT);
	return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

static void slow_clients_many_hosts(void **state)
{
	int fd[SLOW_HOSTS * SLOW_PER];
	unsigned i, opened = 0, open = 0, answered = 0, asked = 0;
	double t0 = now_s(), deadline;

	for (i = 0; i < SLOW_HOSTS * SLOW_PER; i++)
		if ((fd[i] = slow_connect(i / SLOW_PER)) >= 0)
			opened++;
	/* Some are refused when the table is full: at least the table. */
	assert_true(opened >= 256);
	/* Others are answered while they trickle, within 2 s each. */
	while (now_s() - t0 < 3) {
		struct reply r = http("GET", "/healthz", NULL, NULL);

		asked++;
		answered += r.status == 200;
		free(r.body);
		for (i = 0; i < SLOW_HOSTS * SLOW_PER; i++)
			if (fd[i] >= 0 && !slow_open(fd[i])) {
				close(fd[i]);
				fd[i] = -1;
			}
		usleep(200000);
	}
	assert_true(asked >= 3);
	assert_int_equal(answered, asked);
	/* Every slow connection is closed 5 s after it opened (plus the
	 * half-second rounds that find it). */
	deadline = t0 + 5 + 3;
	do {
		open = 0;
		for (i = 0; i < SLOW_HOSTS * SLOW_PER; i++) {
			if (fd[i] < 0)
				continue;
			if (slow_open(fd[i])) {
				open++;
			} else {
				close(fd[i]);
				fd[i] = -1;
			}
		}
		if (open)
			usleep(200000);
	} while (open && now_s() < deadline);
	for (i = 0; i < SLOW_HOSTS * SLOW_PER; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	assert_int_equal(open, 0);
	assert_true(now_s() - t0 > 4); /* not cut before their time */
}

/* A group that leaves the view leaves the API. */
static void republish(void **state)
{
	struct reply r;

	api_publish(make_view(false));
	r = as(t.owner, "GET", "/v1/groups/100");
	error_says(&r, 404, "no elastic group");
	api_publish(make_view(true));
	r = as(t.owner, "GET", "/v1/groups/100");
	assert_int_equal(r.status, 200);
	free(r.body);
}

static void stop_and_restart(void **state)
{
	struct policy_list none = { 0 };
	elastic_error_t err = { "" };
	struct reply r;

	/* Taken: a second server on the same port fails, and says why. */
	assert_int_equal(api_start(t.server, t.sock, &none, SLURM_UID, &err),
			 -1);
	assert_non_null(strstr(err.text, "already running"));

	api_stop();
	r = http("GET", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 0);
	free(r.body);
	api_stop(); /* twice is fine */

	assert_int_equal(api_start("127.0.0.1", t.sock, NULL, 0, &err), -1);
	assert_non_null(strstr(err.text, "no port"));

	/* The same port again, with no view yet and nobody listed. */
	if (api_start(t.server, t.sock, NULL, SLURM_UID, &err))
		fail_msg("restart: %s", err.text);
	r = http("GET", "/healthz", NULL, NULL);
	assert_int_equal(r.status, 503);
	free(r.body);
	api_publish(make_view(true));
	if (t.root) {
		char ids[64];

		/* ADMIN_NAME is no longer an admin. */
		r = as(ADMIN_UID, "GET", "/v1/groups");
		assert_int_equal(r.status, 200);
		group_ids(&r, ids, sizeof(ids));
		assert_string_equal(ids, "");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(before_first_publish),
		cmocka_unit_test(no_credential),
		cmocka_unit_test(bad_credentials),
		cmocka_unit_test(expired_credential),
		cmocka_unit_test(debug_log),
		cmocka_unit_test(owner_sees_own_group),
		cmocka_unit_test(other_user_sees_nothing),
		cmocka_unit_test(admins_see_all),
		cmocka_unit_test(raise_requests),
		cmocka_unit_test(methods_paths_bodies),
		cmocka_unit_test(metrics),
		cmocka_unit_test(cli),
		cmocka_unit_test(cli_unreachable),
		cmocka_unit_test(cli_impostor),
		cmocka_unit_test(publish_under_load),
		cmocka_unit_test(slow_clients_many_hosts),
		cmocka_unit_test(republish),
		cmocka_unit_test(stop_and_restart),
	};

	/* Children must not die of a closed pipe without telling. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
