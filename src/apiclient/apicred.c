/* A request's credential for elasticd's API (apicred.h). */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "apicred.h"

munge_ctx_t apicred_ctx(const char *munge_socket, elastic_error_t *err)
{
	munge_ctx_t ctx = munge_ctx_create();

	if (!ctx) {
		elastic_errorf(err, "out of memory");
		return NULL;
	}
	if (munge_socket && munge_socket[0] &&
	    munge_ctx_set(ctx, MUNGE_OPT_SOCKET, munge_socket) !=
		EMUNGE_SUCCESS) {
		elastic_errorf(err, "munge socket %s: %s", munge_socket,
			       munge_ctx_strerror(ctx));
		munge_ctx_destroy(ctx);
		return NULL;
	}
	return ctx;
}

int apicred_server_uid(const char *elasticd_user, uint32_t *uid,
		       elastic_error_t *err)
{
	const char *name =
	    elasticd_user && *elasticd_user ? elasticd_user : "root";
	struct passwd pw, *pwp = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) || !pwp)
		return elastic_errorf(err,
				      "ElasticdUser=%s: no such user here "
				      "(the user elasticd runs as)",
				      name);
	*uid = (uint32_t)pw.pw_uid;
	return 0;
}

int apicred_make(const char *munge_socket, uint32_t server_uid,
		 const char *method, const char *target,
		 char nonce[APIAUTH_NONCE_HEX + 1], char **cred,
		 elastic_error_t *err)
{
	unsigned char raw[APIAUTH_NONCE_HEX / 2];
	char payload[APIAUTH_PAYLOAD_MAX];
	munge_ctx_t ctx;
	munge_err_t e;
	int n, rc = 0;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return elastic_errorf(err, "no random bytes for a nonce");
	apiauth_hex(raw, sizeof(raw), nonce);
	n = apiauth_request_payload(method, target, nonce, payload,
				    sizeof(payload));
	if (n < 0)
		return elastic_errorf(err, "bad request %s %.64s", method,
				      target);
	if (!(ctx = apicred_ctx(munge_socket, err)))
		return -1;
	if (munge_ctx_set(ctx, MUNGE_OPT_UID_RESTRICTION, (uid_t)server_uid) !=
	    EMUNGE_SUCCESS)
		rc = elastic_errorf(err, "munge: %s", munge_ctx_strerror(ctx));
	else if ((e = munge_encode(cred, ctx, payload, n)) != EMUNGE_SUCCESS)
		rc = elastic_errorf(err, "cannot make a munge credential: %s",
				    munge_ctx_strerror(ctx)
					? munge_ctx_strerror(ctx)
					: munge_strerror(e));
	munge_ctx_destroy(ctx);
	return rc;
}
