/* elasticd's API, before and after authentication: the request line's
 * method and target, the report's and the account report's arguments, the
 * Authorization header and the credential's payload; and the answer's payload
 * as clients check it. The input is "METHOD TARGET\nHEADER\nPAYLOAD". */
#include "config.h"

#include "common/apiauth.h"
#include "elasticd/api_route.h"
#include "fuzz.h"

/* The query "k=v&k=v...": the value of key, or NULL. */
static const char *query_arg(void *cls, const char *key)
{
	static char val[1024];
	const char *q = cls;
	size_t klen = strlen(key);

	while (q && *q) {
		const char *amp = strchr(q, '&');
		size_t len = amp ? (size_t)(amp - q) : strlen(q);

		if (len > klen && !strncmp(q, key, klen) && q[klen] == '=' &&
		    len - klen - 1 < sizeof(val)) {
			memcpy(val, q + klen + 1, len - klen - 1);
			val[len - klen - 1] = '\0';
			return val;
		}
		q = amp ? amp + 1 : NULL;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *line[3] = { "", "", "" };
	char nonce[APIAUTH_NONCE_HEX + 1], *sp, *q;
	struct launch_report rep;
	struct account_report acc;
	elastic_error_t err;
	const char *cred, *why;
	struct route r;
	size_t len;

	if (!s)
		return 0;
	line[0] = s;
	for (int i = 1; i < 3; i++) {
		char *nl = strchr(line[i - 1], '\n');

		if (!nl)
			break;
		*nl = '\0';
		line[i] = nl + 1;
	}
	sp = strchr(line[0], ' ');
	if (sp) {
		*sp++ = '\0';
		route_parse(line[0], sp, &r);
		q = strchr(sp, '?');
		route_parse_report(sp, q ? q + 1 : NULL, &rep, &why);
		route_parse_account(query_arg, q ? q + 1 : NULL, &acc, &err);
		apiauth_check_request(line[2], strlen(line[2]), line[0], sp,
				      nonce, &why);
	}
	apiauth_parse_header(line[1], &cred, &len, &why);
	apiauth_check_reply(line[2], strlen(line[2]),
			    "0123456789abcdef0123456789abcdef", 200,
			    "0123456789abcdef0123456789abcdef"
			    "0123456789abcdef0123456789abcdef",
			    &why);
	free(s);
	return 0;
}
