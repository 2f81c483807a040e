/* The world channel's messages (inplace.h): pure but for the MAC's
 * libcrypto and the nonces' getrandom. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "common/apiauth.h"
#include "common/parse.h"
#include "inplace.h"

int inplace_random_hex(char *out, size_t n)
{
	unsigned char b[64];

	if (n > sizeof(b) || getrandom(b, n, 0) != (ssize_t)n)
		return -1;
	apiauth_hex(b, n, out);
	return 0;
}

int inplace_mac(const char *token, const void *msg, size_t len, char *mac)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!HMAC(EVP_sha256(), token, (int)strlen(token), msg, len, md,
		  &mdlen) ||
	    mdlen * 2 != INPLACE_MAC_HEX)
		return -1;
	apiauth_hex(md, mdlen, mac);
	return 0;
}

int inplace_hello(const char *snonce, char *buf, size_t len)
{
	int n = snprintf(buf, len, INPLACE_PROTO " hello %s\n", snonce);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* Exactly n lowercase hex digits. */
static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[n] == '\0';
}
/* A decimal number of at most 19 digits, no sign, no blanks. */
static bool dec(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long v;

	if (strlen(s) > 19 || parse_uint(s, 0, max, &v) != PARSE_OK)
		return false;
	*out = v;
	return true;
}
/* A Slurm node name as the ranks see it. */
static bool node_name(const char *s)
{
	size_t i, n = strlen(s);

	if (!n || n > INPLACE_NODE_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
		      s[i] == '_' || s[i] == '-'))
			return false;
	return true;
}

/* The text the register MAC is of. */
static int register_text(const char *snonce, const struct inplace_reg *r,
			 char *buf, size_t len)
{
	int n = snprintf(
	    buf, len, "register %s %s %" PRIu64 " %" PRIu32 " %s %u %ld",
	    snonce, r->cnonce, r->world, r->job, r->node, r->local, r->pid);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

int inplace_register_line(const char *token, const char *snonce,
			  const struct inplace_reg *r, char *buf, size_t len)
{
	char text[INPLACE_LINE_MAX], mac[INPLACE_MAC_HEX + 1];
	int n = register_text(snonce, r, text, sizeof(text));

	if (n < 0 || inplace_mac(token, text, (size_t)n, mac) < 0)
		return -1;
	/* The line is the text without the server's nonce, and the MAC. */
	n = snprintf(
	    buf, len, "register %s %" PRIu64 " %" PRIu32 " %s %u %ld %s\n",
	    r->cnonce, r->world, r->job, r->node, r->local, r->pid, mac);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int inplace_parse_register(const char *line, const char *token,
			   const char *snonce, struct inplace_reg *r,
			   const char **why)
{
	char copy[INPLACE_LINE_MAX], text[INPLACE_LINE_MAX];
	char mac[INPLACE_MAC_HEX + 1], *f[9], *save = NULL, *t;
	size_t nf = 0;
	uint64_t v;
	int n;

	memset(r, 0, sizeof(*r));
	if (strlen(line) >= sizeof(copy)) {
		*why = "line too long";
		return -1;
	}
	strcpy(copy, line);
	for (t = strtok_r(copy, " ", &save); t && nf < 9;
	     t = strtok_r(NULL, " ", &save))
		f[nf++] = t;
	if (nf != 8 || t || strcmp(f[0], "register") != 0) {
		*why = "not a register line";
		return -1;
	}
	if (!is_hex(f[1], INPLACE_NONCE_HEX) ||
	    !is_hex(f[7], INPLACE_MAC_HEX)) {
		*why = "bad nonce or MAC";
		return -1;
	}
	strcpy(r->cnonce, f[1]);
	if (!dec(f[2], UINT64_MAX / 2, &r->world) ||
	    !dec(f[3], UINT32_MAX, &v) || !v) {
		*why = "bad world or job";
		return -1;
	}
	r->job = (uint32_t)v;
	if (!node_name(f[4])) {
		*why = "bad node name";
		return -1;
	}
	strcpy(r->node, f[4]);
	if (!dec(f[5], 65535, &v)) {
		*why = "bad local rank";
		return -1;
	}
	r->local = (unsigned)v;
	if (!dec(f[6], INT32_MAX, &v) || !v) {
		*why = "bad pid";
		return -1;
	}
	r->pid = (long)v;
	n = register_text(snonce, r, text, sizeof(text));
	if (n < 0 || inplace_mac(token, text, (size_t)n, mac) < 0) {
		*why = "cannot compute the MAC";
		return -1;
	}
	/* Not a secret compared, but the MAC: in constant time. */
	if (CRYPTO_memcmp(mac, f[7], INPLACE_MAC_HEX) != 0) {
		*why = "wrong MAC (not the run's token)";
		return -1;
	}
	return 0;
}

int inplace_world_header(const char *token, const char *cnonce, uint64_t n,
			 const char *payload, size_t plen, char *buf,
			 size_t len)
{
	char mac[INPLACE_MAC_HEX + 1], *text;
	int hl, w;

	if (plen > INPLACE_PAYLOAD_MAX)
		return -1;
	text = malloc(128 + plen);
	if (!text)
		return -1;
	hl = snprintf(text, 128, "world %s %" PRIu64 " %zu\n", cnonce, n, plen);
	if (hl < 0 || hl >= 128) {
		free(text);
		return -1;
	}
	memcpy(text + hl, payload, plen);
	w = inplace_mac(token, text, (size_t)hl + plen, mac);
	free(text);
	if (w < 0)
		return -1;
	w = snprintf(buf, len, "world %" PRIu64 " %zu %s\n", n, plen, mac);
	return w < 0 || (size_t)w >= len ? -1 : w;
}

/* A rank's reason: lower-case words and digits joined by '-'. */
static bool why_ok(const char *s)
{
	size_t i, len = strlen(s);

	if (len == 0 || len >= INPLACE_WHY_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

int inplace_parse_status(const char *line, uint64_t *n, long long *step,
			 char *why)
{
	char copy[128], *f[4], *save = NULL, *t;
	size_t nf = 0;
	uint64_t v;

	if (strlen(line) >= sizeof(copy))
		return -1;
	strcpy(copy, line);
	for (t = strtok_r(copy, " ", &save); t && nf < 4;
	     t = strtok_r(NULL, " ", &save))
		f[nf++] = t;
	if (t || nf < 2 || !dec(f[1], UINT64_MAX / 2, n))
		return -1;
	if (nf == 3 && !strcmp(f[0], "joined") &&
	    dec(f[2], (uint64_t)INT64_MAX / 2, &v)) {
		*step = (long long)v;
		return 0;
	}
	if ((nf == 2 || (nf == 3 && why_ok(f[2]))) && !strcmp(f[0], "failed")) {
		*step = -1;
		strcpy(why, nf == 3 ? f[2] : "");
		return 0;
	}
	return -1;
}

const char *inplace_path_name(enum inplace_path p)
{
	switch (p) {
	case INPLACE_IN_PLACE:
		return "in-place";
	case INPLACE_RESTART:
		return "restart";
	case INPLACE_STOP:
		return "stop";
	}
	return "?";
}
