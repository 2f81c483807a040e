/* Unit tests of the cluster simulator's workload (src/goodsim/workload.c):
 * the generator is deterministic, its draws follow the distributions it
 * documents, the offered load is the target; the file's text parses,
 * formats back the same, and bad lines are named. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "goodsim/workload.h"

/* lo <= v <= hi (cmocka 2's assert_in_range is deprecated, 1's has no
 * successor): the value in the message when it is not. */
#define in_range(v, lo, hi)                                                    \
	do {                                                                   \
		long long v_ = (long long)(v);                                 \
		if (v_ < (long long)(lo) || v_ > (long long)(hi))              \
			fail_msg("%lld not in %lld..%lld", v_,                 \
				 (long long)(lo), (long long)(hi));            \
	} while (0)

static char *gen_text(unsigned nodes, double hours, uint64_t seed)
{
	struct workload_gen g;
	struct workload w = { 0 };
	elastic_error_t err;
	char *t;

	workload_gen_defaults(&g, nodes);
	g.hours = hours;
	g.seed = seed;
	assert_int_equal(workload_generate(&g, &w, &err), 0);
	t = workload_format(&w);
	assert_non_null(t);
	workload_free(&w);
	return t;
}

static void test_deterministic(void **state)
{
	char *a = gen_text(1000, 24, 7), *b = gen_text(1000, 24, 7);
	char *c = gen_text(1000, 24, 8);

	(void)state;
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_memory_equal(a, "# slurm-elastic workload v1\n", 28);
	free(a);
	free(b);
	free(c);
}

/* Sizes: powers of two, 70% single nodes; runtimes: median 15 minutes,
 * cut to 1 minute .. 2 days; limits above the runtimes, whole minutes. */
static void test_distributions(void **state)
{
	uint64_t rng = 42;
	unsigned n = 100000, ones = 0, big = 0;
	double *rt = malloc(n * sizeof(*rt));

	(void)state;
	assert_non_null(rt);
	for (unsigned i = 0; i < n; i++) {
		uint32_t s = workload_draw_size(&rng);
		uint32_t r = workload_draw_runtime(&rng, false);
		uint32_t l = workload_draw_limit(&rng, r);

		assert_true(s && !(s & (s - 1)) && s <= 32);
		ones += s == 1;
		big += s >= 8;
		in_range(r, 60, 2 * 86400);
		assert_true(l >= r + 60 && l % 60 == 0 && l <= 7 * 86400);
		rt[i] = r;
	}
	in_range(ones, n * 68 / 100, n * 72 / 100);
	in_range(big, n * 10 / 100, n * 12 / 100);
	/* the median of a log-normal of median 900 s */
	unsigned below = 0;
	for (unsigned i = 0; i < n; i++)
		below += rt[i] < 900;
	in_range(below, n * 49 / 100, n * 51 / 100);
	for (unsigned i = 0; i < 1000; i++)
		in_range(workload_draw_runtime(&rng, true), 60, 6 * 3600);
	free(rt);
}

/* The rigid jobs' and preemptors' node-seconds are the offered load;
 * arrivals sorted, whole seconds, within the span; the groups first. */
static void test_load(void **state)
{
	struct workload_gen g;
	struct workload w = { 0 };
	elastic_error_t err;
	double work = 0, span;
	size_t groups = 0, pre = 0;

	(void)state;
	workload_gen_defaults(&g, 1000);
	g.hours = 48;
	assert_int_equal(workload_generate(&g, &w, &err), 0);
	span = g.hours * 3600;
	for (size_t i = 0; i < w.n; i++) {
		const struct workload_job *j = &w.job[i];

		assert_true(i == 0 || j->submit_ms >= w.job[i - 1].submit_ms);
		assert_int_equal(j->submit_ms % 1000, 0);
		assert_true(j->submit_ms < span * 1000);
		if (j->kind == WORKLOAD_ELASTIC) {
			groups++;
			assert_true(j->max >= j->nodes);
			continue;
		}
		pre += j->kind == WORKLOAD_PREEMPTOR;
		work += (double)j->nodes * j->runtime_s;
	}
	assert_int_equal(groups, g.groups);
	assert_true(work >= g.load * 1000 * span);
	assert_true(work < g.load * 1000 * span * 1.01);
	in_range(pre * 1000 / (w.n - groups), 10, 30);
	workload_free(&w);
}

static const char sample[] = "# slurm-elastic workload v1\n"
			     "# submit_s kind user nodes max runtime_s "
			     "limit_s\n"
			     "0 rigid r1 4 - 600 900\n"
			     "30 elastic e1 1 8 1200 1800\n"
			     "\n"
			     "100 preemptor p1 2 - 300 600 # a comment\n";

static void test_parse_format(void **state)
{
	struct workload w = { 0 }, w2 = { 0 };
	elastic_error_t err;
	char *t, *t2;

	(void)state;
	assert_int_equal(workload_parse(sample, "s", &w, &err), 0);
	assert_int_equal(w.n, 3);
	assert_int_equal(w.job[1].kind, WORKLOAD_ELASTIC);
	assert_int_equal(w.job[1].submit_ms, 30000);
	assert_int_equal(w.job[1].nodes, 1);
	assert_int_equal(w.job[1].max, 8);
	assert_string_equal(w.job[2].user, "p1");
	assert_int_equal(w.job[2].limit_s, 600);
	t = workload_format(&w);
	assert_int_equal(workload_parse(t, "t", &w2, &err), 0);
	t2 = workload_format(&w2);
	assert_string_equal(t, t2);
	assert_non_null(strstr(t, "\n30 elastic e1 1 8 1200 1800\n"));
	free(t);
	free(t2);
	workload_free(&w);
	workload_free(&w2);
}

static void test_parse_errors(void **state)
{
	static const struct {
		const char *text, *what;
	} bad[] = {
		{ "0 rigid r1 4 - 600\n", "f:1: 6 fields" },
		{ "0 batch r1 4 - 600 900\n", "f:1: kind 'batch'" },
		{ "0 rigid r1 0 - 600 900\n", "f:1: not 'submit_s" },
		{ "0 rigid r1 4 - 600 500\n", "f:1: not 'submit_s" },
		{ "0 elastic e1 4 - 600 900\n", "f:1: not 'submit_s" },
		{ "0 elastic e1 4 2 600 900\n", "f:1: max 2 below" },
		{ "10 rigid r1 1 - 60 60\n5 rigid r1 1 - 60 60\n",
		  "f:2: submitted before" },
	};
	struct workload w = { 0 };
	elastic_error_t err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(workload_parse(bad[i].text, "f", &w, &err),
				 -1);
		if (strncmp(err.text, bad[i].what, strlen(bad[i].what)))
			fail_msg("%s: %s", bad[i].text, err.text);
	}
	workload_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_distributions),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_parse_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
