#ifndef ELASTIC_APICLIENT_H
#define ELASTIC_APICLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"
#include "common/policy.h"
#include "common/server.h"

/*
 * The client of elasticd's API that elasticctl and elastic-run share:
 * where elasticd is, a munge credential bound to each request, and the
 * proof that the answer is elasticd's (elasticd-api(7), AUTHENTICATION;
 * common/apiauth.h).  An answer that is not proven elasticd's is never
 * taken for one: whoever listens on the address learns nothing it can
 * use and cannot make up a world.
 */

/* A response body, NUL-terminated, at most max bytes (then too_big). */
struct apiclient_body {
	char *data; /* malloc'd; free() it */
	size_t len;
	size_t max;
	bool too_big;
	/* When elasticd's munged made the answer's credential: elasticd's
	 * host's clock, whole seconds; 0 unless the answer was verified. */
	time_t signed_at;
};

struct apiclient {
	char server[POLICY_LISTEN_MAX + 1];	/* HOST:PORT, for messages */
	char url[POLICY_LISTEN_MAX + 16];	/* http://HOST:PORT */
	char munge_socket[POLICY_PATH_MAX + 1]; /* "" = munge's default */
	uint32_t server_uid;			/* elasticd's (ElasticdUser) */
	char server_user[POLICY_NAME_MAX + 1];	/* its name, for messages */
	char agent[64];				/* User-Agent */
};

/*
 * Configure from the address server_choose() picked, the munge socket
 * (NULL or "" for munge's default), the user elasticd runs as
 * (ElasticdUser; NULL or "" for root) and the program's name.  Returns 0,
 * or -1 with err naming ElasticdUser when that user does not exist.
 */
int apiclient_init(struct apiclient *c, const struct server_addr *server,
		   const char *munge_socket, const char *elasticd_user,
		   const char *agent, elastic_error_t *err);

enum apiclient_result {
	APICLIENT_ANSWER,     /* elasticd's answer: *status and the body */
	APICLIENT_NO_ANSWER,  /* nobody answered in time: err says why */
	APICLIENT_UNVERIFIED, /* an answer not proven elasticd's: err says
			       * why; *status and the body are only shown */
	APICLIENT_ERROR,      /* no request made (munge, memory): err */
};

/*
 * One request (method "GET" or "POST", no body) to target, the path with
 * its query ("/v1/groups/7"), within timeout_ms.  The body goes to b.
 */
enum apiclient_result apiclient_request(const struct apiclient *c,
					const char *method, const char *target,
					long timeout_ms, long *status,
					struct apiclient_body *b,
					elastic_error_t *err);

#endif
