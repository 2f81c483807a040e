/*
 * The fixture of the API server's tests (apihttp.h): api_start() on
 * 127.0.0.1 (a port in 17600..17699) with real munge credentials from a
 * private munged started here (killed at the end, and by the kernel if the
 * test dies first).  Run as root (as "make check" is by ./quickstart),
 * credentials are also minted as other users, in a child that drops to
 * their uid.
 */
#define _GNU_SOURCE /* nftw, setgroups */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <munge.h>

#include "common/apiauth.h"
#include "elasticd/api.h"
#include "elasticd/groupinfo.h"
#include "apihttp.h"

#define PORT_FIRST 17600
#define PORT_COUNT 100

struct api_test t;

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

/*
 * A credential made by uid (in a child that becomes uid when we are
 * root), with the given payload and time-to-live (0: munge's default).
 * NULL if munge_encode failed.
 */
char *mint(uid_t uid, const char *payload, int ttl)
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
char *mint_for(uid_t uid, const char *method, const char *path, int ttl)
{
	char payload[APIAUTH_PAYLOAD_MAX];

	if (apiauth_request_payload(method, path,
				    "0123456789abcdef0123456789abcdef", payload,
				    sizeof(payload)) < 0)
		return NULL;
	return mint(uid, payload, ttl);
}

/* The Authorization value of a credential just minted (freed here). */
void munge_auth(char *cred, char *auth, size_t len)
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

/* The synthetic view (see synthview.c for its twin in the unit tests). */

struct elasticd_view *make_http_view(bool with_group100)
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
		    (struct member_info){ 100,	MEMBER_BASE,  MEMBER_RUNNING,
					  1,	strdup("n1"), true,
					  false };
		g->members[1] = (struct member_info){
			101,  MEMBER_PREEMPTIBLE, MEMBER_RUNNING,
			2,    strdup("n[2-3]"),	  true,
			false
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
struct reply http(const char *method, const char *path, const char *auth,
		  const char *body)
{
	struct reply r = { 0 };
	struct curl_slist *h = NULL;
	char url[2048], hdr[4200];
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
struct reply as(uid_t uid, const char *method, const char *path)
{
	char auth[4200];

	munge_auth(mint_for(uid, method, path, 0), auth, sizeof(auth));
	return http(method, path, auth, NULL);
}

json_object *json_of(struct reply *r)
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

/* The "error" of a JSON error answer contains want. */
void error_says(struct reply *r, long status, const char *want)
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

/* Setup */

int api_test_setup(void **state)
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

int api_test_teardown(void **state)
{
	api_stop();
	stop_munged();
	rm_tree(t.dir);
	curl_global_cleanup();
	return 0;
}
