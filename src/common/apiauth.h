#ifndef ELASTIC_COMMON_APIAUTH_H
#define ELASTIC_COMMON_APIAUTH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Both ends of elasticd's API prove who they are with munge (pure part:
 * the texts inside the credentials; the munge and HTTP I/O is the
 * caller's).  elasticd-api(7), AUTHENTICATION:
 *
 *   request:  Authorization: Munge CRED, CRED's payload
 *             "elastic-api/1 request METHOD TARGET NONCE", restricted to
 *             elasticd's uid: useless for any other request, and to
 *             anyone but elasticd;
 *   answer:   Elastic-Server-Auth: Munge CRED, made by elasticd, payload
 *             "elastic-api/1 reply NONCE STATUS SHA256-OF-BODY", so the
 *             client knows the answer is elasticd's (its uid), to this
 *             request (the nonce) and whole (status and body).
 *
 * TARGET is the path with its query ("/v1/groups/7/report?generation=3");
 * NONCE is APIAUTH_NONCE_HEX lowercase hex digits, fresh per request.
 */

#define APIAUTH_VERSION	     "elastic-api/1"
#define APIAUTH_REPLY_HEADER "Elastic-Server-Auth"
#define APIAUTH_NONCE_HEX    32 /* 128 random bits */
#define APIAUTH_HASH_HEX     64 /* SHA-256 */
#define APIAUTH_TARGET_MAX   1024
#define APIAUTH_PAYLOAD_MAX  (64 + APIAUTH_TARGET_MAX + APIAUTH_NONCE_HEX)
/* Longest credential in an Authorization or Elastic-Server-Auth header
 * (munge makes about 130 bytes plus the payload in base64). */
#define APIAUTH_CRED_MAX 4096

/* n bytes as 2n lowercase hex digits and a NUL into out. */
void apiauth_hex(const unsigned char *bytes, size_t n, char *out);

/*
 * The credential in an Authorization or Elastic-Server-Auth header value:
 * "Munge CRED", the scheme in any case, blanks around CRED allowed, CRED
 * made of base64 and ':' only (as munge_encode makes it).  Sets *cred and
 * *len to the credential inside header.  Returns 0, or -1 with *why
 * saying what is wrong (a static string).
 */
int apiauth_parse_header(const char *header, const char **cred, size_t *len,
			 const char **why);

/* The request payload into buf (len bytes): its length, or -1 when a
 * part is malformed or it does not fit. */
int apiauth_request_payload(const char *method, const char *target,
			    const char *nonce, char *buf, size_t len);

/*
 * Is payload (plen bytes, not NUL-terminated) bound to this request?
 * On 0 copies its nonce into nonce (APIAUTH_NONCE_HEX + 1 bytes); -1
 * with *why (static) if not.
 */
int apiauth_check_request(const void *payload, size_t plen, const char *method,
			  const char *target, char *nonce, const char **why);

/* The answer's payload into buf: its length, or -1. */
int apiauth_reply_payload(const char *nonce, long status, const char *body_hash,
			  char *buf, size_t len);

/* Is payload elasticd's answer to our nonce, with this status and body
 * hash?  0, or -1 with *why (static). */
int apiauth_check_reply(const void *payload, size_t plen, const char *nonce,
			long status, const char *body_hash, const char **why);

#endif
