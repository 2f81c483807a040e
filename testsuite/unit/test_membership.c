/* Unit tests of elastic-run's membership.c: elasticd's group document
 * to the world the launcher runs over, and the client's address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic-run/membership.h"

static struct members *parse_ok(const char *json, int want)
{
	struct members *ms = malloc(sizeof(*ms));
	elastic_error_t err = { "" };
	int rc;

	assert_non_null(ms);
	rc = members_parse_group(json, 100, ms, &err);
	if (rc != want)
		fail_msg("members_parse_group(%.200s) = %d, want %d (%s)", json,
			 rc, want, err.text);
	return ms;
}

static void parse_fails(const char *json, const char *msg)
{
	struct members *ms = malloc(sizeof(*ms));
	elastic_error_t err = { "" };

	assert_non_null(ms);
	assert_int_equal(members_parse_group(json, 100, ms, &err), -1);
	assert_string_equal(err.text, msg);
	free(ms);
}

#define MEMBER(id, kind, state, nn, nodes, inw)                                \
	"{\"job_id\":" #id ",\"kind\":\"" kind "\",\"state\":\"" state         \
	"\",\"nnodes\":" #nn ",\"nodes\":" nodes ",\"in_world\":" inw "}"

/* The world is the running members in it, the base first, as listed. */
static void test_world(void **state)
{
	struct members *ms = parse_ok(
	    "{\"id\":100,\"user\":\"alice\",\"state\":\"RESIZING\",\"min\":1,"
	    "\"max\":8,\"generation\":7,\"world_nodes\":4,"
	    "\"master_addr\":\"n1\",\"members\":[" MEMBER(100, "base", "running", 1, "\"n1\"", "true") "," MEMBER(
		101, "preemptible", "running", 2, "\"n[2-3]\"",
		"true") "," MEMBER(102, "preemptible", "preempted", 1, "\"n4\"",
				   "true") "," MEMBER(103, "preemptible",
						      "running", 1, "\"n5\"",
						      "false") "," MEMBER(104,
									  "onde"
									  "man"
									  "d",
									  "pend"
									  "ing",
									  1,
									  "nul"
									  "l",
									  "fals"
									  "e") "," MEMBER(105,
											  "ondemand",
											  "running",
											  1,
											  "\"n6\"",
											  "true") "]}",
	    1);

	(void)state;
	assert_int_equal(ms->generation, 7);
	assert_int_equal(ms->n, 3);
	assert_int_equal(ms->nnodes, 4);
	assert_int_equal(ms->m[0].job_id, 100);
	assert_string_equal(member_nodes(ms, 0), "n1");
	assert_int_equal(ms->m[1].job_id, 101);
	assert_int_equal(ms->m[1].nnodes, 2);
	assert_string_equal(member_nodes(ms, 1), "n[2-3]");
	assert_int_equal(ms->m[2].job_id, 105);
	assert_string_equal(ms->master_host, "n1");
	assert_string_equal(ms->master_addr, "");
	assert_false(ms->degraded);
	free(ms);
}

/* A world that lost members, with no new one formed yet: elasticd says
 * DEGRADED; the launcher does not launch it as it is. */
static void test_degraded(void **state)
{
	struct members *ms =
	    parse_ok("{\"id\":100,\"state\":\"DEGRADED\",\"generation\":4,"
		     "\"members\":[" MEMBER(100, "base", "running", 1, "\"n1\"",
					    "true") "]}",
		     1);

	(void)state;
	assert_true(ms->degraded);
	assert_int_equal(ms->generation, 4);
	free(ms);
	ms = parse_ok("{\"id\":100,\"state\":\"RUNNING\",\"generation\":4,"
		      "\"members\":[" MEMBER(100, "base", "running", 1,
					     "\"n1\"", "true") "]}",
		      1);
	assert_false(ms->degraded);
	free(ms);
}

/* Spares (running, "spare": true, in no world) apart from the world,
 * even listed before a member of it; a pending one is none yet. */
static const char spares_doc[] =
    "{\"id\":100,\"state\":\"RUNNING\",\"generation\":3,\"members\":["
    "{\"job_id\":100,\"kind\":\"base\",\"state\":\"running\",\"nnodes\":1,"
    "\"nodes\":\"n1\",\"in_world\":true,\"spare\":false},"
    "{\"job_id\":101,\"kind\":\"preemptible\",\"state\":\"running\","
    "\"nnodes\":1,\"nodes\":\"n3\",\"in_world\":false,\"spare\":true},"
    "{\"job_id\":102,\"kind\":\"preemptible\",\"state\":\"running\","
    "\"nnodes\":1,\"nodes\":\"n2\",\"in_world\":true,\"spare\":false},"
    "{\"job_id\":103,\"kind\":\"preemptible\",\"state\":\"pending\","
    "\"nnodes\":1,\"nodes\":null,\"in_world\":false,\"spare\":true}]}";

static void test_spares(void **state)
{
	struct members *ms = parse_ok(spares_doc, 1);

	(void)state;
	assert_int_equal(ms->n, 2);
	assert_int_equal(ms->nnodes, 2);
	assert_int_equal(ms->m[1].job_id, 102);
	assert_string_equal(member_nodes(ms, 1), "n2");
	assert_int_equal(ms->nspare, 1);
	assert_int_equal(ms->spare[0].job_id, 101);
	assert_int_equal(ms->spare[0].nnodes, 1);
	assert_string_equal(spare_nodes(ms, 0), "n3");
	free(ms);
}

/* Known but not formed: generation 0, or no running member in it. */
static void test_not_formed(void **state)
{
	(void)state;
	free(parse_ok("{\"id\":100,\"generation\":0,\"members\":[" MEMBER(
			  100, "base", "running", 1, "\"n1\"", "false") "]}",
		      0));
	free(parse_ok("{\"id\":100,\"generation\":3,\"members\":[]}", 0));
	free(parse_ok("{\"id\":100,\"generation\":3,\"members\":[" MEMBER(
			  100, "base", "pending", 1, "null", "true") "]}",
		      0));
}

/* Without master_addr: the first node of the base's node list. */
static void test_master_fallback(void **state)
{
	struct members *ms = parse_ok(
	    "{\"id\":100,\"generation\":1,\"members\":[" MEMBER(
		100, "base", "running", 3, "\"gpu[07-09],x1\"", "true") "]}",
	    1);

	(void)state;
	assert_string_equal(ms->master_host, "gpu07");
	free(ms);
	ms = parse_ok("{\"id\":100,\"generation\":1,\"master_addr\":null,"
		      "\"members\":[" MEMBER(100, "base", "running", 1,
					     "\"a,b\"", "true") "]}",
		      1);
	assert_string_equal(ms->master_host, "a");
	free(ms);
}

static void test_bad_documents(void **state)
{
	(void)state;
	parse_fails(NULL, "elasticd's answer is not a JSON object");
	parse_fails("[1,2]", "elasticd's answer is not a JSON object");
	parse_fails("{\"error\":\"x\"",
		    "elasticd's answer is not a JSON object");
	parse_fails("{\"generation\":1,\"members\":[]}",
		    "elasticd's answer is not a group (no id or generation)");
	parse_fails("{\"id\":100,\"generation\":-1,\"members\":[]}",
		    "elasticd's answer is not a group (no id or generation)");
	parse_fails("{\"id\":100,\"generation\":\"1\",\"members\":[]}",
		    "elasticd's answer is not a group (no id or generation)");
	parse_fails("{\"id\":100,\"generation\":1}",
		    "group 100: no members array");
	parse_fails("{\"id\":100,\"generation\":1,\"members\":[" MEMBER(
			100, "base", "running", 0, "\"n1\"", "true") "]}",
		    "group 100: member 0 has no job_id, nnodes or nodes");
	parse_fails("{\"id\":100,\"generation\":1,\"members\":[" MEMBER(
			100, "base", "running", 1, "\"\"", "true") "]}",
		    "group 100: member 0 has no job_id, nnodes or nodes");
	parse_fails(
	    "{\"id\":100,\"generation\":1,\"members\":[" MEMBER(
		4294967296, "base", "running", 1, "\"n1\"", "true") "]}",
	    "group 100: member 0 has no job_id, nnodes or nodes");
	/* One job twice in the world (found by fuzz_members: the same text
	 * made two worlds that differ). */
	parse_fails("{\"id\":100,\"generation\":3,\"members\":[" MEMBER(
			100, "base", "running", 1, "\"n1\"",
			"true") "," MEMBER(100, "preemptible", "running", 1,
					   "\"n2\"", "true") "]}",
		    "group 100: job 100 is a member twice");
}

/* Bounded: members and node lists. */
static void test_bounds(void **state)
{
	size_t cap = 64 + (MAX_MEMBERS + 1) * 128 + 2 * MEMBERS_NODES_POOL;
	char *json = malloc(cap), *p;
	struct members *ms;
	size_t i;

	(void)state;
	assert_non_null(json);
	p = json + sprintf(json, "{\"id\":100,\"generation\":1,\"members\":[");
	for (i = 0; i < MAX_MEMBERS; i++)
		p += sprintf(p,
			     "%s{\"job_id\":%zu,\"state\":\"running\","
			     "\"nnodes\":1,\"nodes\":\"n%zu\","
			     "\"in_world\":true}",
			     i ? "," : "", 100 + i, i);
	strcpy(p, "]}");
	ms = parse_ok(json, 1);
	assert_int_equal(ms->n, MAX_MEMBERS);
	assert_int_equal(ms->nnodes, MAX_MEMBERS);
	free(ms);
	sprintf(p, ",{\"job_id\":9999,\"state\":\"running\",\"nnodes\":1,"
		   "\"nodes\":\"x\",\"in_world\":true}]}");
	parse_fails(json, "group 100: more than 256 members");

	/* A long node list (scattered names) is kept whole: one member
	 * may take all of the pool, and a second one then does not fit. */
	p = json + sprintf(json, "{\"id\":100,\"generation\":1,\"members\":"
				 "[{\"job_id\":100,\"state\":\"running\","
				 "\"nnodes\":1,\"in_world\":true,\"nodes\":\"");
	memset(p, 'n', MEMBERS_NODES_POOL - 1);
	strcpy(p + MEMBERS_NODES_POOL - 1, "\"}]}");
	ms = parse_ok(json, 1);
	assert_int_equal(strlen(member_nodes(ms, 0)), MEMBERS_NODES_POOL - 1);
	free(ms);
	p[MEMBERS_NODES_POOL - 1] = 'n';
	strcpy(p + MEMBERS_NODES_POOL, "\"}]}");
	parse_fails(json, "group 100: job 100: the node lists of the world are "
			  "longer than 262143 characters in all");
	p = json + sprintf(json, "{\"id\":100,\"generation\":1,\"members\":"
				 "[{\"job_id\":100,\"state\":\"running\","
				 "\"nnodes\":1,\"in_world\":true,\"nodes\":\"");
	memset(p, 'n', 5000);
	p += 5000;
	p += sprintf(p,
		     "\"},{\"job_id\":101,\"state\":\"running\","
		     "\"nnodes\":2,\"in_world\":true,\"nodes\":\"m[1-2]\"}]}");
	ms = parse_ok(json, 1);
	assert_int_equal(ms->n, 2);
	assert_int_equal(strlen(member_nodes(ms, 0)), 5000);
	assert_string_equal(member_nodes(ms, 1), "m[1-2]");
	free(ms);
	free(json);
}

static void test_same(void **state)
{
	struct members *a =
	    parse_ok("{\"id\":100,\"generation\":1,\"members\":[" MEMBER(
			 100, "base", "running", 1, "\"n1\"",
			 "true") "," MEMBER(101, "preemptible", "running", 1,
					    "\"n2\"", "true") "]}",
		     1);
	struct members *b =
	    parse_ok("{\"id\":100,\"generation\":2,\"members\":[" MEMBER(
			 100, "base", "running", 1, "\"n1\"",
			 "true") "," MEMBER(101, "preemptible", "running", 1,
					    "\"n2\"", "true") "]}",
		     1);

	(void)state;
	assert_true(members_same(a, b));
	b->pool[b->m[1].nodes_off + 1] = '3';
	assert_false(members_same(a, b));
	b->pool[b->m[1].nodes_off + 1] = '2';
	b->n = 1;
	assert_false(members_same(a, b));
	free(a);
	free(b);
}

/* A world of the launcher's own: the members lost left out, in order,
 * the rest (generation, master) kept; never the base. */
/* clang-format off */
static const char four_members[] =
	"{\"id\":100,\"generation\":7,\"master_addr\":\"10.0.0.1\",\"members\":["
	MEMBER(100, "base", "running", 2, "\"n[1-2]\"", "true") ","
	MEMBER(101, "preemptible", "running", 1, "\"n3\"", "true") ","
	MEMBER(102, "preemptible", "running", 1, "\"n4\"", "true") ","
	MEMBER(103, "ondemand", "running", 2, "\"o[1-2]\"", "true") "]}";
/* clang-format on */

static void test_without(void **state)
{
	struct members *a = parse_ok(four_members, 1);
	struct members *out = malloc(sizeof(*out));
	elastic_error_t err = { "" };
	const uint32_t lost[] = { 102, 101, 999 }, base[] = { 103, 100 };

	(void)state;
	assert_non_null(out);
	memset(out, 0x5a, sizeof(*out));
	assert_int_equal(members_without(a, lost, 3, out, &err), 0);
	assert_int_equal(out->n, 2);
	assert_int_equal(out->nnodes, 4);
	assert_int_equal(out->generation, 7);
	assert_false(out->degraded);
	assert_int_equal(out->m[0].job_id, 100);
	assert_string_equal(member_nodes(out, 0), "n[1-2]");
	assert_int_equal(out->m[1].job_id, 103);
	assert_string_equal(member_nodes(out, 1), "o[1-2]");
	assert_string_equal(out->master_host, a->master_host);
	assert_string_equal(out->master_addr, a->master_addr);
	assert_false(members_same(a, out));
	/* Nothing left out: the same world. */
	assert_int_equal(members_without(a, lost, 0, out, &err), 0);
	assert_true(members_same(a, out));
	assert_int_equal(members_without(a, base, 2, out, &err), -1);
	assert_non_null(strstr(err.text, "job 100 is the base"));
	a->n = 0;
	assert_int_equal(members_without(a, lost, 1, out, &err), -1);
	free(a);
	free(out);
}

/* Same members in another order (elasticd's by job, the launcher's by
 * rank): the same world, the base first in both. */
static void test_same_any_order(void **state)
{
	struct members *a = parse_ok(four_members, 1);
	struct members *b = malloc(sizeof(*b));

	(void)state;
	assert_non_null(b);
	*b = *a;
	b->m[1] = a->m[2];
	b->m[2] = a->m[1];
	assert_true(members_same(a, b));
	b->m[0] = a->m[3];
	b->m[3] = a->m[0];
	assert_false(members_same(a, b));
	free(a);
	free(b);
}

/* clang-format off */
static const char swap_doc[] =
	"{\"id\":100,\"generation\":7,\"master_addr\":\"10.0.0.1\",\"members\":["
	MEMBER(100, "base", "running", 2, "\"n[1-2]\"", "true") ","
	MEMBER(101, "preemptible", "running", 1, "\"n3\"", "true") ","
	MEMBER(102, "preemptible", "running", 1, "\"n4\"", "true") ","
	MEMBER(103, "preemptible", "running", 2, "\"n[5-6]\"", "true") ","
	"{\"job_id\":110,\"kind\":\"preemptible\",\"state\":\"running\","
	"\"nnodes\":2,\"nodes\":\"s[1-2]\",\"in_world\":false,\"spare\":true},"
	"{\"job_id\":111,\"kind\":\"preemptible\",\"state\":\"running\","
	"\"nnodes\":1,\"nodes\":\"s3\",\"in_world\":false,\"spare\":true},"
	"{\"job_id\":112,\"kind\":\"preemptible\",\"state\":\"running\","
	"\"nnodes\":1,\"nodes\":\"s4\",\"in_world\":false,\"spare\":true}]}";
/* clang-format on */

/* A swap: each member lost replaced at its place by the first spare of
 * as many nodes, the size and the others' places kept, the spares left
 * kept; none for the base or without a spare of its size. */
static void test_swap(void **state)
{
	struct members *a = parse_ok(swap_doc, 1);
	struct members *out = malloc(sizeof(*out));
	elastic_error_t err = { "" };
	const uint32_t one[] = { 102 }, two[] = { 101, 103 },
		       three[] = { 101, 102, 103 }, base[] = { 100 };

	(void)state;
	assert_non_null(out);
	assert_int_equal(a->nspare, 3);
	memset(out, 0x5a, sizeof(*out));
	assert_int_equal(members_swap(a, one, 1, out, &err), 0);
	assert_int_equal(out->n, 4);
	assert_int_equal(out->nnodes, a->nnodes);
	assert_int_equal(out->generation, 7);
	assert_int_equal(out->m[1].job_id, 101);
	assert_int_equal(out->m[2].job_id, 111);
	assert_string_equal(member_nodes(out, 2), "s3");
	assert_int_equal(out->m[2].nnodes, 1);
	assert_int_equal(out->m[3].job_id, 103);
	assert_string_equal(out->master_host, "10.0.0.1");
	assert_int_equal(out->nspare, 2);
	assert_int_equal(out->spare[0].job_id, 110);
	assert_string_equal(spare_nodes(out, 0), "s[1-2]");
	assert_int_equal(out->spare[1].job_id, 112);

	/* Two at once, each by a spare of its own size. */
	assert_int_equal(members_swap(a, two, 2, out, &err), 0);
	assert_int_equal(out->m[1].job_id, 111);
	assert_int_equal(out->m[3].job_id, 110);
	assert_string_equal(member_nodes(out, 3), "s[1-2]");
	assert_int_equal(out->nspare, 1);
	assert_int_equal(out->spare[0].job_id, 112);
	assert_int_equal(out->nnodes, a->nnodes);

	/* Three: the two 1-node spares and the 2-node one. */
	assert_int_equal(members_swap(a, three, 3, out, &err), 0);
	assert_int_equal(out->nspare, 0);
	assert_int_equal(out->m[2].job_id, 112);

	assert_int_equal(members_swap(a, base, 1, out, &err), -1);
	assert_non_null(strstr(err.text, "job 100 is the base"));
	a->nspare = 1; /* the 2-node spare only */
	assert_int_equal(members_swap(a, one, 1, out, &err), -1);
	assert_non_null(strstr(err.text, "no spare of 1 node "));
	free(a);
	free(out);
}

/* The spares follow elasticd's, the launcher's members and order kept. */
static void test_respare(void **state)
{
	struct members *a = parse_ok(swap_doc, 1);
	struct members *b = malloc(sizeof(*b));
	elastic_error_t err = { "" };

	(void)state;
	assert_non_null(b);
	*b = *a;
	assert_true(spares_same(a, b));
	b->spare[0] = a->spare[2];
	b->spare[2] = a->spare[0];
	assert_true(spares_same(a, b));
	b->nspare = 1; /* 112 only */
	assert_false(spares_same(a, b));
	assert_true(members_has_spare(b, 112));
	assert_false(members_has_spare(b, a->spare[1].job_id));
	assert_false(members_has_spare(b, a->m[0].job_id));
	a->m[1] = b->m[2];
	a->m[2] = b->m[1];
	assert_int_equal(members_respare(a, b, &err), 0);
	assert_true(spares_same(a, b));
	assert_int_equal(a->nspare, 1);
	assert_int_equal(a->spare[0].job_id, 112);
	assert_string_equal(spare_nodes(a, 0), "s4");
	assert_int_equal(a->m[1].job_id, 102);
	assert_string_equal(member_nodes(a, 1), "n4");
	assert_int_equal(a->m[2].job_id, 101);
	assert_int_equal(a->nnodes, 6);
	assert_int_equal(a->generation, 7);
	free(a);
	free(b);
}

/* The client takes the address server_choose() picked (test_server tests
 * the choice), the munge socket and elasticd's user. */
static void test_client(void **state)
{
	struct server_addr a = { "[fe80::1]:9", "http://[fe80::1]:9",
				 "--elasticd" };
	struct apiclient c;
	elastic_error_t err;

	(void)state;
	assert_int_equal(apiclient_init(&c, &a, "/s", NULL, "t", &err), 0);
	assert_string_equal(c.server, "[fe80::1]:9");
	assert_string_equal(c.url, "http://[fe80::1]:9");
	assert_string_equal(c.munge_socket, "/s");
	assert_int_equal(c.server_uid, 0);
	assert_string_equal(c.server_user, "root");
	assert_int_equal(apiclient_init(&c, &a, NULL, "daemon", "t", &err), 0);
	assert_string_equal(c.munge_socket, "");
	assert_int_equal(c.server_uid, 1);
	assert_int_equal(
	    apiclient_init(&c, &a, NULL, "no-such-user-here", "t", &err), -1);
	assert_string_equal(err.text, "ElasticdUser=no-such-user-here: no "
				      "such user here (the user elasticd runs "
				      "as)");
}

/* The launcher takes no job of elasticd's world that Slurm does not
 * show to be its group's own. */
static void test_job_is_ours(void **state)
{
	elastic_error_t err;

	(void)state;
	/* The base itself, and a unit of it, owned by the base's owner. */
	assert_int_equal(
	    members_job_is_ours(10, 1000, 10, 1000, "elastic:v1 min=1", &err),
	    0);
	assert_int_equal(
	    members_job_is_ours(10, 1000, 11, 1000,
				"elastic-unit:v1 group=10 kind=preemptible "
				"nodes=1",
				&err),
	    0);
	/* Another user's unit of the same group id, or another user's
	 * base. */
	assert_int_equal(
	    members_job_is_ours(10, 1000, 11, 1001,
				"elastic-unit:v1 group=10 kind=preemptible "
				"nodes=1",
				&err),
	    -1);
	assert_string_equal(err.text, "elasticd's world names job 11 of uid "
				      "1001, not of this job's owner (uid "
				      "1000)");
	assert_int_equal(members_job_is_ours(10, 1000, 10, 0, NULL, &err), -1);
	/* Our own job that is no unit, or another group's unit. */
	assert_int_equal(members_job_is_ours(10, 1000, 12, 1000, NULL, &err),
			 -1);
	assert_string_equal(err.text, "elasticd's world names job 12, which "
				      "is not a unit of job 10");
	assert_int_equal(
	    members_job_is_ours(10, 1000, 12, 1000, "elastic:v1 min=1", &err),
	    -1);
	assert_int_equal(
	    members_job_is_ours(10, 1000, 13, 1000,
				"elastic-unit:v1 group=9 kind=ondemand "
				"nodes=2",
				&err),
	    -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_world),
		cmocka_unit_test(test_degraded),
		cmocka_unit_test(test_spares),
		cmocka_unit_test(test_not_formed),
		cmocka_unit_test(test_master_fallback),
		cmocka_unit_test(test_bad_documents),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_without),
		cmocka_unit_test(test_same_any_order),
		cmocka_unit_test(test_swap),
		cmocka_unit_test(test_respare),
		cmocka_unit_test(test_client),
		cmocka_unit_test(test_job_is_ours),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
