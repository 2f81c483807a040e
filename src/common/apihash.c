/* The body hash of the API's answers (apihash.h). */
#include "config.h"

#include <openssl/evp.h>

#include "apihash.h"

int apihash_body(const void *body, size_t len, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(body ? body : "", body ? len : 0, md, &mdlen,
			EVP_sha256(), NULL) ||
	    mdlen * 2 != APIAUTH_HASH_HEX)
		return -1;
	apiauth_hex(md, mdlen, out);
	return 0;
}
