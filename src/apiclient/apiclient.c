/* The client of elasticd's API (apiclient.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>
#include <munge.h>

#include "common/apiauth.h"
#include "common/apihash.h"
#include "apicred.h"
#include "apiclient.h"

/* A daemon of the cluster that does not accept within this is not there. */
#define CONNECT_TIMEOUT_MS 5000L

int apiclient_init(struct apiclient *c, const struct server_addr *server,
		   const char *munge_socket, const char *elasticd_user,
		   const char *agent, elastic_error_t *err)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->server, sizeof(c->server), "%s", server->addr);
	snprintf(c->url, sizeof(c->url), "%s", server->url);
	snprintf(c->munge_socket, sizeof(c->munge_socket), "%s",
		 munge_socket ? munge_socket : "");
	snprintf(c->agent, sizeof(c->agent), "%s/" PACKAGE_VERSION, agent);
	snprintf(c->server_user, sizeof(c->server_user), "%s",
		 elasticd_user && *elasticd_user ? elasticd_user : "root");
	return apicred_server_uid(c->server_user, &c->server_uid, err);
}

/* The Elastic-Server-Auth header of the answer, kept while it fits. */
struct reply_header {
	char value[APIAUTH_CRED_MAX + 64];
	bool seen, too_long;
};

static size_t header_cb(char *p, size_t size, size_t n, void *ud)
{
	static const char name[] = APIAUTH_REPLY_HEADER ":";
	struct reply_header *h = ud;
	size_t len = size * n;

	if (len > strlen(name) && !strncasecmp(p, name, strlen(name))) {
		size_t vlen = len - strlen(name);

		while (vlen && (p[strlen(name) + vlen - 1] == '\r' ||
				p[strlen(name) + vlen - 1] == '\n'))
			vlen--;
		if (h->seen || vlen >= sizeof(h->value))
			h->too_long = true; /* twice, or not ours */
		else
			memcpy(h->value, p + strlen(name), vlen);
		h->seen = true;
	}
	return len;
}

static size_t body_cb(char *p, size_t size, size_t n, void *body)
{
	struct apiclient_body *b = body;
	size_t add = size * n;
	char *d;

	if (b->len + add > b->max) {
		b->too_big = true;
		return 0;
	}
	d = realloc(b->data, b->len + add + 1);
	if (!d)
		return 0;
	memcpy(d + b->len, p, add);
	b->len += add;
	d[b->len] = '\0';
	b->data = d;
	return add;
}

/* Is the answer elasticd's, to our nonce, whole?  0 or -1 with err. */
static int verify(const struct apiclient *c, const struct reply_header *h,
		  const char *nonce, long status, struct apiclient_body *b,
		  elastic_error_t *err)
{
	char cred[APIAUTH_CRED_MAX + 1], hash[APIAUTH_HASH_HEX + 1];
	const char *start, *why;
	void *payload = NULL;
	int plen = 0, rc;
	munge_ctx_t ctx;
	munge_err_t e;
	size_t len;
	uid_t uid;
	gid_t gid;

	if (!h->seen)
		return elastic_errorf(err,
				      "the answer carries no %s: not "
				      "elasticd's",
				      APIAUTH_REPLY_HEADER);
	if (h->too_long || apiauth_parse_header(h->value, &start, &len, &why))
		return elastic_errorf(err, "the answer's %s is malformed",
				      APIAUTH_REPLY_HEADER);
	memcpy(cred, start, len);
	cred[len] = '\0';
	if (!(ctx = apicred_ctx(c->munge_socket, err)))
		return -1;
	e = munge_decode(cred, ctx, &payload, &plen, &uid, &gid);
	if (e != EMUNGE_SUCCESS)
		rc = elastic_errorf(err, "the answer's credential: %s",
				    munge_ctx_strerror(ctx)
					? munge_ctx_strerror(ctx)
					: munge_strerror(e));
	else if ((uint32_t)uid != c->server_uid)
		rc = elastic_errorf(err,
				    "the answer is signed by uid %u, not by "
				    "elasticd's user %s (ElasticdUser)",
				    (unsigned)uid, c->server_user);
	else if (apihash_body(b->data, b->len, hash) < 0)
		rc = elastic_errorf(err, "cannot hash the answer");
	else if (apiauth_check_reply(payload, (size_t)plen, nonce, status, hash,
				     &why) < 0)
		rc = elastic_errorf(err, "%s", why);
	else
		rc = 0;
	if (rc == 0 && munge_ctx_get(ctx, MUNGE_OPT_ENCODE_TIME,
				     &b->signed_at) != EMUNGE_SUCCESS)
		b->signed_at = 0;
	free(payload);
	munge_ctx_destroy(ctx);
	return rc;
}

enum apiclient_result apiclient_request(const struct apiclient *c,
					const char *method, const char *target,
					long timeout_ms, long *status,
					struct apiclient_body *b,
					elastic_error_t *err)
{
	char url[sizeof(c->url) + APIAUTH_TARGET_MAX], errbuf[CURL_ERROR_SIZE];
	char nonce[APIAUTH_NONCE_HEX + 1], *cred = NULL, *auth = NULL;
	struct reply_header h = { 0 };
	struct curl_slist *hdr = NULL;
	enum apiclient_result res;
	elastic_error_t why;
	CURLcode cc;
	CURL *curl;

	*status = 0;
	b->signed_at = 0;
	errbuf[0] = '\0';
	if (apicred_make(c->munge_socket, c->server_uid, method, target, nonce,
			 &cred, err) < 0)
		return APICLIENT_ERROR;
	if (asprintf(&auth, "Authorization: Munge %s", cred) < 0) {
		free(cred);
		elastic_errorf(err, "out of memory");
		return APICLIENT_ERROR;
	}
	free(cred);
	snprintf(url, sizeof(url), "%s%s", c->url, target);
	if (!(curl = curl_easy_init())) {
		free(auth);
		elastic_errorf(err, "cannot initialise libcurl");
		return APICLIENT_ERROR;
	}
	hdr = curl_slist_append(hdr, auth);
	hdr = curl_slist_append(hdr, "Accept: application/json");
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdr);
	/* elasticd is in the cluster: never through a proxy. */
	curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
#else
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
			 timeout_ms < CONNECT_TIMEOUT_MS ? timeout_ms
							 : CONNECT_TIMEOUT_MS);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, body_cb);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, header_cb);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, &h);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, c->agent);
	if (strcmp(method, "GET") != 0) {
		curl_easy_setopt(curl, CURLOPT_POST, 1L);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, 0L);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
	}
	cc = curl_easy_perform(curl);
	if (cc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(curl);
	curl_slist_free_all(hdr);
	free(auth);
	if (cc != CURLE_OK) {
		if (b->too_big)
			elastic_errorf(err,
				       "elasticd at %s: an answer over %zu "
				       "bytes",
				       c->server, b->max);
		else
			elastic_errorf(err, "elasticd at %s: %s", c->server,
				       *errbuf ? errbuf
					       : curl_easy_strerror(cc));
		return APICLIENT_NO_ANSWER;
	}
	res = APICLIENT_ANSWER;
	if (verify(c, &h, nonce, *status, b, &why) < 0) {
		elastic_errorf(err,
			       "%s answered %ld, but not as elasticd: %s "
			       "(elasticd-api(7), AUTHENTICATION)",
			       c->server, *status, why.text);
		res = APICLIENT_UNVERIFIED;
	}
	return res;
}
