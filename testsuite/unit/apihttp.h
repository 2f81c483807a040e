/*
 * What the tests of elasticd's API server (test_api_http, test_api_clients)
 * share: a private munged, the server on 127.0.0.1 with its admins, the
 * synthetic view they publish, credentials minted as any user, and
 * requests through libcurl.  api_test_setup and api_test_teardown are the
 * cmocka group set-up and tear-down of both.
 */
#ifndef ELASTIC_TEST_APIHTTP_H
#define ELASTIC_TEST_APIHTTP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include <json-c/json.h>

#include "elasticd/groupinfo.h"

/* The users of the test (as root).  OWNER owns group 100, OTHER group
 * 200; ADMIN_NAME is named in the admins list; SLURM_UID is the
 * SlurmUser.  No passwd entries are needed but for ADMIN_NAME. */
#define OWNER	   65534 /* nobody */
#define OTHER	   54321
#define SLURM_UID  54322
#define ADMIN_NAME "daemon"
#define ADMIN_UID  1

/* The test's munged, server and users, set up by api_test_setup. */
struct api_test {
	char dir[64];
	char sock[128];
	pid_t munged;
	unsigned port;
	char server[32];
	uid_t owner, other; /* getuid() for both when not root */
	bool root;
	char ctl_server[32]; /* elasticctl's --server, if not ours */
};
extern struct api_test t;

/* Seconds on the monotonic clock (static: elastic-run.c has a
 * now_s of its own). */
static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A credential made by uid with payload (NULL: none) and a time-to-live
 * (0: munge's default), or one bound to one request; NULL if munge failed.
 * Freed by the caller. */
char *mint(uid_t uid, const char *payload, int ttl);
char *mint_for(uid_t uid, const char *method, const char *path, int ttl);
/* The Authorization value of a credential just minted (freed here). */
void munge_auth(char *cred, char *auth, size_t len);

/* The synthetic view: t.other's pending group 200, and t.owner's running
 * group 100 if with_group100; freed by view_free(). */
struct elasticd_view *make_http_view(bool with_group100);

/* An answer, as libcurl got it. */
struct reply {
	long status;
	char *body;
	size_t len;
	char ctype[128];
	bool www_auth; /* WWW-Authenticate: Munge */
	bool signed_;  /* Elastic-Server-Auth: Munge ... */
	char allow[64];
};

/* One request (auth: the whole Authorization value, or NULL); the caller
 * frees r.body.  status 0: could not connect. */
struct reply http(const char *method, const char *path, const char *auth,
		  const char *body);
/* A request with a fresh credential of uid. */
struct reply as(uid_t uid, const char *method, const char *path);
/* The reply's JSON body (the test fails if it is not JSON). */
json_object *json_of(struct reply *r);
/* The "error" of a JSON error answer contains want. */
void error_says(struct reply *r, long status, const char *want);

/* o's key, which must be there and not null (static:
 * test_api_render.c has a get of its own). */
static inline json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		fail_msg("no \"%s\" in %s", key, json_object_to_json_string(o));
	return v;
}

/* munged started, the server listening; 0, or -1 (a setup's failure). */
int api_test_setup(void **state);
/* The server stopped, munged killed, its files gone. */
int api_test_teardown(void **state);

#endif
