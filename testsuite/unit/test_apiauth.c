/*
 * The texts inside the API's munge credentials (common/apiauth.h): what
 * binds a client's credential to one request and elasticd's answer to
 * that request, status and body; and the body hash (common/apihash.h).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/apiauth.h"
#include "common/apihash.h"

#define NONCE  "00112233445566778899aabbccddeeff"
#define NONCE2 "ffeeddccbbaa99887766554433221100"

static void request_payload(void **state)
{
	char buf[APIAUTH_PAYLOAD_MAX], nonce[APIAUTH_NONCE_HEX + 1];
	const char *why = NULL;
	int n;

	(void)state;
	n = apiauth_request_payload("GET", "/v1/groups/7", NONCE, buf,
				    sizeof(buf));
	assert_string_equal(buf,
			    "elastic-api/1 request GET /v1/groups/7 " NONCE);
	assert_int_equal(n, strlen(buf));
	assert_int_equal(apiauth_check_request(buf, (size_t)n, "GET",
					       "/v1/groups/7", nonce, &why),
			 0);
	assert_string_equal(nonce, NONCE);

	/* Any other method or target, or a cut or longer text: refused. */
	assert_int_equal(apiauth_check_request(buf, (size_t)n, "POST",
					       "/v1/groups/7", nonce, &why),
			 -1);
	assert_non_null(strstr(why, "another request"));
	assert_int_equal(apiauth_check_request(buf, (size_t)n, "GET",
					       "/v1/groups/8", nonce, &why),
			 -1);
	assert_int_equal(apiauth_check_request(buf, (size_t)n, "GET",
					       "/v1/groups/7/raise", nonce,
					       &why),
			 -1);
	assert_int_equal(apiauth_check_request(buf, (size_t)n - 1, "GET",
					       "/v1/groups/7", nonce, &why),
			 -1);
	assert_int_equal(apiauth_check_request(buf + 1, (size_t)n - 1, "GET",
					       "/v1/groups/7", nonce, &why),
			 -1);
	/* The query is part of the target. */
	n = apiauth_request_payload("POST", "/v1/groups/7/report?generation=2",
				    NONCE, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(apiauth_check_request(
			     buf, (size_t)n, "POST",
			     "/v1/groups/7/report?generation=3", nonce, &why),
			 -1);

	/* Nothing bound, or something that is not ours. */
	assert_int_equal(
	    apiauth_check_request("", 0, "GET", "/v1/groups", nonce, &why), -1);
	assert_non_null(strstr(why, "not bound"));
	assert_int_equal(
	    apiauth_check_request("slurm", 5, "GET", "/v1/groups", nonce, &why),
	    -1);
	assert_non_null(strstr(why, "not an elasticd request"));

	/* Malformed parts are not made into a payload. */
	assert_int_equal(
	    apiauth_request_payload("GET", "/a b", NONCE, buf, sizeof(buf)),
	    -1);
	assert_int_equal(
	    apiauth_request_payload("GET", "v1", NONCE, buf, sizeof(buf)), -1);
	assert_int_equal(
	    apiauth_request_payload("GET", "/v1", "short", buf, sizeof(buf)),
	    -1);
	assert_int_equal(apiauth_request_payload(
			     "GET", "/v1", "00112233445566778899AABBCCDDEEFF",
			     buf, sizeof(buf)),
			 -1);
	assert_int_equal(
	    apiauth_request_payload("GET", "/v1/groups", NONCE, buf, 20), -1);
}

static void reply_payload(void **state)
{
	char buf[APIAUTH_PAYLOAD_MAX], hash[APIAUTH_HASH_HEX + 1];
	const char *why = NULL;
	int n;

	(void)state;
	assert_int_equal(apihash_body("{}", 2, hash), 0);
	n = apiauth_reply_payload(NONCE, 200, hash, buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(
	    apiauth_check_reply(buf, (size_t)n, NONCE, 200, hash, &why), 0);
	/* Another request's answer, another status, another body. */
	assert_int_equal(
	    apiauth_check_reply(buf, (size_t)n, NONCE2, 200, hash, &why), -1);
	assert_non_null(strstr(why, "another request"));
	assert_int_equal(
	    apiauth_check_reply(buf, (size_t)n, NONCE, 404, hash, &why), -1);
	assert_int_equal(apihash_body("{ }", 3, hash), 0);
	assert_int_equal(
	    apiauth_check_reply(buf, (size_t)n, NONCE, 200, hash, &why), -1);
	assert_int_equal(apiauth_check_reply(NULL, 0, NONCE, 200, hash, &why),
			 -1);
	assert_int_equal(
	    apiauth_reply_payload(NONCE, 200, "abc", buf, sizeof(buf)), -1);
}

/* FIPS 180-2's test vectors. */
static void body_hash(void **state)
{
	char hash[APIAUTH_HASH_HEX + 1];

	(void)state;
	assert_int_equal(apihash_body("abc", 3, hash), 0);
	assert_string_equal(hash, "ba7816bf8f01cfea414140de5dae2223"
				  "b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(apihash_body(NULL, 0, hash), 0);
	assert_string_equal(hash, "e3b0c44298fc1c149afbf4c8996fb924"
				  "27ae41e4649b934ca495991b7852b855");
}

static void header(void **state)
{
	const char *cred, *why;
	size_t len;

	(void)state;
	assert_int_equal(
	    apiauth_parse_header(" Munge MUNGE:abc: ", &cred, &len, &why), 0);
	assert_int_equal(len, 10);
	assert_int_equal(
	    apiauth_parse_header("Munge MUNGE:a\"b", &cred, &len, &why), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(request_payload),
		cmocka_unit_test(reply_payload),
		cmocka_unit_test(body_hash),
		cmocka_unit_test(header),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
