/* The texts inside the API's munge credentials (apiauth.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "apiauth.h"

#define SCHEME "Munge"

void apiauth_hex(const unsigned char *bytes, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* What munge_encode emits: "MUNGE:" base64 ":" (and any later format
 * keeps to the same alphabet). */
static bool is_cred_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '+' || c == '/' || c == '=' ||
	       c == ':';
}

int apiauth_parse_header(const char *header, const char **cred, size_t *len,
			 const char **why)
{
	const char *s = header, *start;
	size_t n;

	if (!s || !*s) {
		*why = "no credential: send \"Authorization: Munge "
		       "CREDENTIAL\" made by munge_encode()";
		return -1;
	}
	while (is_blank(*s))
		s++;
	if (strncasecmp(s, SCHEME, strlen(SCHEME)) ||
	    !is_blank(s[strlen(SCHEME)])) {
		*why = "not a munge credential: the scheme must be \"Munge\"";
		return -1;
	}
	s += strlen(SCHEME);
	while (is_blank(*s))
		s++;
	start = s;
	while (is_cred_char(*s))
		s++;
	n = (size_t)(s - start);
	while (is_blank(*s))
		s++;
	if (*s) {
		*why = "malformed munge credential (unexpected character)";
		return -1;
	}
	if (n == 0) {
		*why = "empty munge credential";
		return -1;
	}
	if (n > APIAUTH_CRED_MAX) {
		*why = "munge credential too long";
		return -1;
	}
	*cred = start;
	*len = n;
	return 0;
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A word of a payload: printable, no blank, not empty. */
static bool is_word(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

static bool is_nonce(const char *s)
{
	return s && strlen(s) == APIAUTH_NONCE_HEX &&
	       is_hex(s, APIAUTH_NONCE_HEX);
}

static int fit(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int apiauth_request_payload(const char *method, const char *target,
			    const char *nonce, char *buf, size_t len)
{
	if (!is_word(method, 16) || !is_word(target, APIAUTH_TARGET_MAX) ||
	    target[0] != '/' || !is_nonce(nonce))
		return -1;
	return fit(snprintf(buf, len, APIAUTH_VERSION " request %s %s %s",
			    method, target, nonce),
		   len);
}

int apiauth_check_request(const void *payload, size_t plen, const char *method,
			  const char *target, char *nonce, const char **why)
{
	char want[APIAUTH_PAYLOAD_MAX];
	const char *p = payload, *n;
	int wlen;

	if (plen == 0) {
		*why = "munge credential not bound to the request (its payload "
		       "must be \"" APIAUTH_VERSION " request METHOD TARGET "
		       "NONCE\": elasticd-api(7))";
		return -1;
	}
	/* The nonce is the last word: everything before it must match. */
	if (plen < APIAUTH_NONCE_HEX + 1 || plen >= sizeof(want) ||
	    p[plen - APIAUTH_NONCE_HEX - 1] != ' ' ||
	    !is_hex(p + plen - APIAUTH_NONCE_HEX, APIAUTH_NONCE_HEX)) {
		*why = "munge credential's payload is not an elasticd request "
		       "(elasticd-api(7))";
		return -1;
	}
	n = p + plen - APIAUTH_NONCE_HEX;
	memcpy(nonce, n, APIAUTH_NONCE_HEX);
	nonce[APIAUTH_NONCE_HEX] = '\0';
	wlen =
	    apiauth_request_payload(method, target, nonce, want, sizeof(want));
	if (wlen < 0 || (size_t)wlen != plen || memcmp(want, p, plen)) {
		*why = "munge credential made for another request (method and "
		       "target must match its payload)";
		return -1;
	}
	return 0;
}

int apiauth_reply_payload(const char *nonce, long status, const char *body_hash,
			  char *buf, size_t len)
{
	if (!is_nonce(nonce) || status < 100 || status > 999 || !body_hash ||
	    strlen(body_hash) != APIAUTH_HASH_HEX ||
	    !is_hex(body_hash, APIAUTH_HASH_HEX))
		return -1;
	return fit(snprintf(buf, len, APIAUTH_VERSION " reply %s %ld %s", nonce,
			    status, body_hash),
		   len);
}

int apiauth_check_reply(const void *payload, size_t plen, const char *nonce,
			long status, const char *body_hash, const char **why)
{
	char want[APIAUTH_PAYLOAD_MAX];
	int wlen;

	wlen =
	    apiauth_reply_payload(nonce, status, body_hash, want, sizeof(want));
	if (wlen < 0) {
		*why = "cannot check the answer (bad nonce, status or hash)";
		return -1;
	}
	if (!payload || plen != (size_t)wlen || memcmp(want, payload, plen)) {
		*why = "the answer's credential is for another request or "
		       "another answer";
		return -1;
	}
	return 0;
}
