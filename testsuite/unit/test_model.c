/* Unit tests of model.c: unit tags, snapshots, Slurm's job states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "common/nodelist.h"
#include "elasticd/model.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void unit_tag_round_trip(void **state)
{
	struct unit_tag t = { 4294967295u, UNIT_ONDEMAND, 65535, 0 }, u;
	elastic_error_t err;
	char buf[UNIT_TAG_MAX + 1];
	int len = unittag_format(&t, buf, sizeof(buf));

	assert_int_equal(len, (int)strlen(buf));
	assert_string_equal(buf, "elastic-unit:v1 group=4294967295 "
				 "kind=ondemand nodes=65535");
	assert_int_equal(unittag_parse(buf, &u, &err), 0);
	assert_memory_equal(&t, &u, sizeof(t));
	/* Any order; unknown keys of later releases skipped. */
	assert_int_equal(unittag_parse("elastic-unit:v1 nodes=2 "
				       "future=x kind=preemptible "
				       "group=7",
				       &u, &err),
			 0);
	assert_int_equal(u.group, 7);
	assert_int_equal(u.kind, UNIT_PREEMPTIBLE);
	assert_int_equal(u.nodes, 2);
	assert_int_equal(u.request, 0);
	/* The submission's number, when it has one. */
	t.request = 4294967295u;
	len = unittag_format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "elastic-unit:v1 group=4294967295 "
				 "kind=ondemand nodes=65535 req=4294967295");
	assert_true(len < UNIT_TAG_MAX);
	assert_int_equal(unittag_parse(buf, &u, &err), 0);
	assert_memory_equal(&t, &u, sizeof(t));
}

static void unit_tag_bad(void **state)
{
	static const char *bad[] = {
		NULL,
		"",
		"elastic-unit:v1",
		"elastic-unit:v2 group=1 kind=ondemand nodes=1",
		"elastic:v1 group=1 kind=ondemand nodes=1",
		"elastic-unit:v1 group=1 kind=ondemand",
		"elastic-unit:v1 group=0 kind=ondemand nodes=1",
		"elastic-unit:v1 group=4294967296 kind=ondemand nodes=1",
		"elastic-unit:v1 group=1 kind=spot nodes=1",
		"elastic-unit:v1 group=1 kind=ondemand nodes=0",
		"elastic-unit:v1 group=1 kind=ondemand nodes=65536",
		"elastic-unit:v1 group=1 kind=ondemand nodes=+1",
		"elastic-unit:v1 group=1 group=2 kind=ondemand nodes=1",
		"elastic-unit:v1 group=1 kind=ondemand nodes=1 junk",
		"elastic-unit:v1 group=1 kind=ondemand nodes=1 req=0",
		"elastic-unit:v1 group=1 kind=ondemand nodes=1 req=x",
		"elastic-unit:v1 group=1 kind=ondemand nodes=1 req=1 req=2",
		"elastic-unit:v1 group=1 kind=ondemand req=1",
		"elastic-unit:v1 group=1 kind=ondemand nodes=1 "
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		"=1",
	};
	struct unit_tag u = { 9, UNIT_ONDEMAND, 9, 9 }, before = u;
	elastic_error_t err;

	for (size_t i = 0; i < N(bad); i++) {
		if (unittag_parse(bad[i], &u, &err) != -1)
			fail_msg("accepted: %s", bad[i] ? bad[i] : "NULL");
		assert_memory_equal(&u, &before, sizeof(u));
	}
}

static void snapshot_lookup(void **state)
{
	struct snapshot *s = snapshot_create(42);
	struct elastic_opts o = { 0 };
	elastic_error_t err;
	uint32_t ids[] = { 50, 7, 9000, 7, 1 };

	assert_non_null(s);
	o.min = 3;
	for (size_t i = 0; i < N(ids); i++) {
		struct job_view j = { 0 };

		j.id = ids[i];
		j.nnodes = (uint32_t)i;
		j.role = ids[i] == 50 ? ROLE_BASE : ROLE_UNIT;
		j.opts = ids[i] == 50 ? &o : NULL;
		j.account = "acct";
		assert_int_equal(snapshot_add(s, &j, &err), 0);
	}
	o.min = 99; /* copied, not referenced */
	snapshot_finish(s);
	assert_int_equal(snapshot_time(s), 42);
	assert_int_equal(snapshot_count(s), 4); /* 7 once */
	for (size_t i = 1; i < snapshot_count(s); i++)
		assert_true(snapshot_job(s, i - 1)->id <
			    snapshot_job(s, i)->id);
	assert_null(snapshot_job(s, 4));
	assert_int_equal(snapshot_find(s, 50)->opts->min, 3);
	assert_string_equal(snapshot_find(s, 9000)->account, "acct");
	assert_string_equal(snapshot_find(s, 9000)->nodes, "");
	assert_null(snapshot_find(s, 8));
	assert_null(snapshot_find(s, 0));
	assert_null(snapshot_find(s, 9001));
	snapshot_destroy(s);
	snapshot_destroy(NULL);
}

static void snapshot_bounds(void **state)
{
	struct snapshot *s = snapshot_create(0);
	struct job_view j = { 0 };
	elastic_error_t err;
	char *big = malloc(MODEL_MAX_STRING + 2);

	assert_non_null(big);
	memset(big, 'n', MODEL_MAX_STRING + 1);
	big[MODEL_MAX_STRING + 1] = '\0';
	j.id = 1;
	j.nodes = big;
	assert_int_equal(snapshot_add(s, &j, &err), -1);
	assert_non_null(strstr(err.text, "longer than"));
	big[MODEL_MAX_STRING] = '\0';
	assert_int_equal(snapshot_add(s, &j, &err), 0);
	snapshot_finish(s);
	assert_int_equal(strlen(snapshot_find(s, 1)->nodes), MODEL_MAX_STRING);
	free(big);
	snapshot_destroy(s);
}

static void job_states(void **state)
{
	static const struct {
		uint32_t state;
		time_t preempt_time;
		enum job_phase phase;
		enum job_end end;
		bool preempted;
	} cases[] = {
		{ JOB_PENDING, 0, PHASE_PENDING, END_NONE, false },
		{ JOB_PENDING | JOB_COMPLETING, 0, PHASE_PENDING, END_NONE,
		  false },
		{ JOB_RUNNING, 0, PHASE_RUNNING, END_NONE, false },
		{ JOB_RUNNING, 1700000000, PHASE_RUNNING, END_NONE, true },
		{ JOB_RUNNING | JOB_CONFIGURING, 0, PHASE_RUNNING, END_NONE,
		  false },
		{ JOB_SUSPENDED, 0, PHASE_RUNNING, END_NONE, true },
		{ JOB_COMPLETE, 0, PHASE_GONE, END_COMPLETE, false },
		{ JOB_COMPLETE | JOB_COMPLETING, 0, PHASE_ENDING, END_COMPLETE,
		  false },
		{ JOB_CANCELLED, 0, PHASE_GONE, END_CANCELLED, false },
		{ JOB_PREEMPTED, 1700000000, PHASE_GONE, END_PREEMPTED, true },
		{ JOB_PREEMPTED | JOB_COMPLETING, 0, PHASE_ENDING,
		  END_PREEMPTED, true },
		{ JOB_NODE_FAIL, 0, PHASE_GONE, END_FAILED, false },
		{ JOB_FAILED, 0, PHASE_GONE, END_FAILED, false },
		{ JOB_TIMEOUT, 0, PHASE_GONE, END_FAILED, false },
		{ JOB_BOOT_FAIL, 0, PHASE_GONE, END_FAILED, false },
		{ JOB_OOM, 0, PHASE_GONE, END_FAILED, false },
		{ JOB_DEADLINE, 0, PHASE_GONE, END_FAILED, false },
	};

	for (size_t i = 0; i < N(cases); i++) {
		enum job_phase phase;
		enum job_end end;
		bool preempted;

		model_job_state(cases[i].state, cases[i].preempt_time, &phase,
				&end, &preempted);
		if (phase != cases[i].phase || end != cases[i].end ||
		    preempted != cases[i].preempted)
			fail_msg("case %zu: state 0x%x: %s/%d/%d", i,
				 cases[i].state, model_phase_name(phase), end,
				 preempted);
	}
	assert_string_equal(model_phase_name(PHASE_ENDING), "ending");
	assert_string_equal(unittag_kind_name(UNIT_ONDEMAND), "ondemand");
}

static void first_host(void **state)
{
	static const struct {
		const char *list, *host;
	} cases[] = {
		{ "n1", "n1" },
		{ "n[1-2]", "n1" },
		{ "gpu[003-004,9]", "gpu003" },
		{ "gpu[17,3]", "gpu17" },
		{ "a,b", "a" },
		{ "n[1-2]x,m1", "n1x" },
		{ "rack1-n[5-6]", "rack1-n5" },
		{ "n[7]", "n7" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		char *h = nodelist_first_host(cases[i].list);

		assert_non_null(h);
		assert_string_equal(h, cases[i].host);
		free(h);
	}
	assert_null(nodelist_first_host(""));
}

/* A node in a list: the suspect node a launcher names must be its own. */
static void list_has(void **state)
{
	static const struct {
		const char *list, *node;
		bool has;
	} cases[] = {
		{ "n1", "n1", true },
		{ "n1", "n11", false },
		{ "n[1-3]", "n2", true },
		{ "n[1-3]", "n4", false },
		{ "n[1-3]", "n", false },
		{ "n[1-3,7]", "n7", true },
		{ "n[1-3,7],m5", "m5", true },
		{ "m5,n[1-3,7]", "n3", true },
		{ "gpu[003-004,9]", "gpu004", true },
		{ "gpu[003-004,9]", "gpu4", false },
		{ "gpu[003-004,9]", "gpu9", true },
		{ "n[1-10]", "n01", false },
		{ "n[1-10]", "n10", true },
		{ "n[0-2]", "n0", true },
		{ "rack1-n[5-6]", "rack1-n6", true },
		{ "rack1-n[5-6]", "rack2-n6", false },
		{ "n[1-2]x", "n2x", true },
		{ "n[1-2]x", "n2", false },
		{ "r[1-2]n[1-2]", "r1n1", false },
		{ "n[1-", "n1", false },
		{ "n[a-b]", "na", false },
		{ "", "n1", false },
		{ "n1", "", false },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		if (nodelist_has(cases[i].list, cases[i].node) != cases[i].has)
			fail_msg("%s in %s: want %d", cases[i].node,
				 cases[i].list, cases[i].has);
	assert_false(nodelist_has(NULL, "n1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(list_has),
		cmocka_unit_test(unit_tag_round_trip),
		cmocka_unit_test(unit_tag_bad),
		cmocka_unit_test(snapshot_lookup),
		cmocka_unit_test(snapshot_bounds),
		cmocka_unit_test(job_states),
		cmocka_unit_test(first_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
