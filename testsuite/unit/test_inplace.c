/* Unit tests of the in-place world channel's messages
 * (src/elastic-run/inplace_proto.c): the MACs against a known HMAC-SHA256
 * vector and the Python client's, the register line both ways and what
 * it refuses, the world header, the ranks' status lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "elastic-run/inplace.h"

static const char TOKEN[] =
    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
static const char SN[] = "0123456789abcdef0123456789abcdef";
static const char CN[] = "fedcba9876543210fedcba9876543210";

/* RFC 4231, test case 2: key "Jefe". */
static void mac_known_vector(void **state)
{
	char mac[INPLACE_MAC_HEX + 1];
	const char *msg = "what do ya want for nothing?";

	(void)state;
	assert_int_equal(inplace_mac("Jefe", msg, strlen(msg), mac), 0);
	assert_string_equal(mac,
			    "5bdcc146bf60754e6a042426089575c75a003f089d2739"
			    "839dec58b964ec3843");
}

static struct inplace_reg reg(void)
{
	struct inplace_reg r;

	memset(&r, 0, sizeof(r));
	strcpy(r.cnonce, CN);
	r.world = 3;
	r.job = 1234;
	strcpy(r.node, "n12");
	r.local = 1;
	r.pid = 4242;
	return r;
}

static void register_round_trip(void **state)
{
	struct inplace_reg r = reg(), got;
	char line[INPLACE_LINE_MAX];
	const char *why = NULL;
	int n;

	(void)state;
	n = inplace_register_line(TOKEN, SN, &r, line, sizeof(line));
	assert_true(n > 0 && line[n - 1] == '\n');
	line[n - 1] = '\0';
	assert_int_equal(inplace_parse_register(line, TOKEN, SN, &got, &why),
			 0);
	assert_string_equal(got.cnonce, CN);
	assert_int_equal(got.world, 3);
	assert_int_equal(got.job, 1234);
	assert_string_equal(got.node, "n12");
	assert_int_equal(got.local, 1);
	assert_int_equal(got.pid, 4242);
}

/* The line is bound to the token and to this connection's nonce, and
 * every field is under the MAC. */
static void register_refused(void **state)
{
	struct inplace_reg r = reg(), got;
	char line[INPLACE_LINE_MAX], bad[INPLACE_LINE_MAX];
	const char *why = NULL;
	char *p;
	int n;

	(void)state;
	n = inplace_register_line(TOKEN, SN, &r, line, sizeof(line));
	line[n - 1] = '\0';
	assert_int_equal(inplace_parse_register(line, TOKEN, CN, &got, &why),
			 -1);
	assert_string_equal(why, "wrong MAC (not the run's token)");
	assert_int_equal(inplace_parse_register(
			     line,
			     "ffffffffffffffffffffffffffffffffffffffffffffffff"
			     "ffffffffffffffff",
			     SN, &got, &why),
			 -1);
	/* Another node, same MAC. */
	strcpy(bad, line);
	p = strstr(bad, " n12 ");
	p[3] = '3';
	assert_int_equal(inplace_parse_register(bad, TOKEN, SN, &got, &why),
			 -1);
	assert_string_equal(why, "wrong MAC (not the run's token)");
	/* Malformed fields say what. */
	assert_int_equal(
	    inplace_parse_register("register x", TOKEN, SN, &got, &why), -1);
	assert_string_equal(why, "not a register line");
	snprintf(bad, sizeof(bad), "register %s 3 1234 n/12 1 4242 %064d", CN,
		 0);
	assert_int_equal(inplace_parse_register(bad, TOKEN, SN, &got, &why),
			 -1);
	assert_string_equal(why, "bad node name");
	snprintf(bad, sizeof(bad), "register %s 3 0 n12 1 4242 %064d", CN, 0);
	assert_int_equal(inplace_parse_register(bad, TOKEN, SN, &got, &why),
			 -1);
	assert_string_equal(why, "bad world or job");
	snprintf(bad, sizeof(bad), "register %s 3 1 n12 -1 4242 %064d", CN, 0);
	assert_int_equal(inplace_parse_register(bad, TOKEN, SN, &got, &why),
			 -1);
	assert_string_equal(why, "bad local rank");
	snprintf(bad, sizeof(bad), "register %s 3 1 n12 1 0 %064d", CN, 0);
	assert_int_equal(inplace_parse_register(bad, TOKEN, SN, &got, &why),
			 -1);
	assert_string_equal(why, "bad pid");
	snprintf(bad, sizeof(bad), "register %.31s 3 1 n12 1 1 %064d", CN, 0);
	assert_int_equal(inplace_parse_register(bad, TOKEN, SN, &got, &why),
			 -1);
	assert_string_equal(why, "bad nonce or MAC");
	snprintf(bad, sizeof(bad), "register %s 3 1 n12 1 1 %064d extra", CN,
		 0);
	assert_int_equal(inplace_parse_register(bad, TOKEN, SN, &got, &why),
			 -1);
}

/* The world header's MAC covers the rank's nonce, the number and the
 * payload: the same text the Python client checks. */
static void world_header(void **state)
{
	const char *payload = "path restart\n";
	char head[256], text[256], mac[INPLACE_MAC_HEX + 1], want[256];
	int n;

	(void)state;
	n = inplace_world_header(TOKEN, CN, 7, payload, strlen(payload), head,
				 sizeof(head));
	assert_true(n > 0);
	n = snprintf(text, sizeof(text), "world %s 7 %zu\n%s", CN,
		     strlen(payload), payload);
	assert_int_equal(inplace_mac(TOKEN, text, (size_t)n, mac), 0);
	snprintf(want, sizeof(want), "world 7 %zu %s\n", strlen(payload), mac);
	assert_string_equal(head, want);
	assert_int_equal(inplace_world_header(TOKEN, CN, 7, payload,
					      INPLACE_PAYLOAD_MAX + 1, head,
					      sizeof(head)),
			 -1);
}

static void status_lines(void **state)
{
	uint64_t n = 0;
	long long step = 0;
	char why[INPLACE_WHY_MAX] = "x";
	char long_why[128];

	(void)state;
	assert_int_equal(inplace_parse_status("joined 4 120", &n, &step, why),
			 0);
	assert_int_equal(n, 4);
	assert_int_equal(step, 120);
	assert_int_equal(inplace_parse_status("failed 5", &n, &step, why), 0);
	assert_int_equal(n, 5);
	assert_int_equal(step, -1);
	assert_string_equal(why, "");
	assert_int_equal(
	    inplace_parse_status("failed 6 shard-1-lost", &n, &step, why), 0);
	assert_int_equal(n, 6);
	assert_int_equal(step, -1);
	assert_string_equal(why, "shard-1-lost");
	/* a reason of other characters, or too long, is no status */
	assert_int_equal(inplace_parse_status("failed 6 Shard", &n, &step, why),
			 -1);
	assert_int_equal(inplace_parse_status("failed 6 a/b", &n, &step, why),
			 -1);
	snprintf(long_why, sizeof(long_why), "failed 6 %0*d", INPLACE_WHY_MAX,
		 0);
	assert_int_equal(inplace_parse_status(long_why, &n, &step, why), -1);
	assert_int_equal(inplace_parse_status("failed 6 a b", &n, &step, why),
			 -1);
	assert_int_equal(inplace_parse_status("joined 4", &n, &step, why), -1);
	assert_int_equal(inplace_parse_status("joined 4 -1", &n, &step, why),
			 -1);
	assert_int_equal(inplace_parse_status("failed 5 6 7", &n, &step, why),
			 -1);
	assert_int_equal(inplace_parse_status("left 5", &n, &step, why), -1);
	assert_int_equal(inplace_parse_status("joined x 1", &n, &step, why),
			 -1);
}

static void hello_and_nonces(void **state)
{
	char a[INPLACE_NONCE_HEX + 1], b[INPLACE_NONCE_HEX + 1], buf[128];

	(void)state;
	assert_int_equal(inplace_random_hex(a, INPLACE_NONCE_HEX / 2), 0);
	assert_int_equal(inplace_random_hex(b, INPLACE_NONCE_HEX / 2), 0);
	assert_int_equal(strlen(a), INPLACE_NONCE_HEX);
	assert_string_not_equal(a, b);
	assert_true(inplace_hello(a, buf, sizeof(buf)) > 0);
	assert_true(strncmp(buf, "elastic-inplace/1 hello ", 24) == 0);
	assert_int_equal(inplace_hello(a, buf, 10), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mac_known_vector),
		cmocka_unit_test(register_round_trip),
		cmocka_unit_test(register_refused),
		cmocka_unit_test(world_header),
		cmocka_unit_test(status_lines),
		cmocka_unit_test(hello_and_nonces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
