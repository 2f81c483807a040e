#ifndef ELASTIC_COMMON_APIHASH_H
#define ELASTIC_COMMON_APIHASH_H

#include <stddef.h>

#include "apiauth.h"

/*
 * SHA-256 of an API answer's body as APIAUTH_HASH_HEX hex digits and a
 * NUL, for the Elastic-Server-Auth credential (apiauth.h).  Its own
 * library (libapihash, libcrypto): libcommon links no crypto.
 * Returns 0, or -1 when libcrypto fails.
 */
int apihash_body(const void *body, size_t len, char *out);

#endif
