/* Sharing idle nodes between groups (src/elasticd/share.c): the weights,
 * each unit's nice, and the rebalancing choice, on plain data. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/policy.h"
#include "elasticd/share.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void weights(void **state)
{
	struct elastic_policy p;

	(void)state;
	policy_defaults(&p);
	assert_int_equal(share_weight(&p, "physics", "normal"), 1);
	assert_int_equal(share_weight(&p, NULL, NULL), 1);
	p.account_weights.n = 1;
	strcpy(p.account_weights.cap[0].name, "physics");
	p.account_weights.cap[0].nodes = 3;
	p.qos_weights.n = 1;
	strcpy(p.qos_weights.cap[0].name, "high");
	p.qos_weights.cap[0].nodes = 2;
	assert_int_equal(share_weight(&p, "physics", "normal"), 3);
	assert_int_equal(share_weight(&p, "bio", "high"), 2);
	assert_int_equal(share_weight(&p, "physics", "high"), 6);
}

static void nice_orders_by_weighted_size(void **state)
{
	struct elastic_policy p;

	(void)state;
	policy_defaults(&p);
	/* to min or below: UnitNice itself, before any other unit */
	assert_int_equal(share_nice(&p, 2, 1, 1), p.unit_nice);
	assert_int_equal(share_nice(&p, 2, 2, 1), p.unit_nice);
	assert_true(share_nice(&p, 2, 3, 1) > p.unit_nice);
	assert_true(share_nice(&p, 1, 2, 100) > p.unit_nice);
	/* larger sizes later; a double weight's 4th node with a single
	 * weight's 2nd */
	assert_true(share_nice(&p, 1, 3, 1) > share_nice(&p, 1, 2, 1));
	assert_int_equal(share_nice(&p, 1, 4, 2), share_nice(&p, 1, 2, 1));
	/* ShareNiceStep=0: Slurm's order alone */
	p.share_nice_step = 0;
	assert_int_equal(share_nice(&p, 1, 9, 1), p.unit_nice);
	/* bounded whatever the settings */
	p.share_nice_step = 1000000;
	p.unit_nice = 1000000;
	assert_int_equal(share_nice(&p, 1, 65535, 1), SHARE_NICE_MAX);
}

/* Slurm starting pending units by nice on `idle` nodes: the sizes the
 * groups reach (water-filling). */
static void fill(const struct elastic_policy *p, const unsigned *min,
		 const unsigned *max, const unsigned *w, unsigned *size,
		 size_t n, unsigned idle)
{
	while (idle--) {
		size_t best = n;
		unsigned best_nice = 0;

		for (size_t i = 0; i < n; i++) {
			unsigned nice;

			if (size[i] >= max[i])
				continue;
			nice = share_nice(p, min[i], size[i] + 1, w[i]);
			if (best == n || nice < best_nice)
				best = i, best_nice = nice;
		}
		if (best == n)
			return;
		size[best]++;
	}
}

static void max_min_fair(void **state)
{
	struct elastic_policy p;
	unsigned min[] = { 1, 1, 1, 4 }, max[] = { 8, 8, 2, 8 };
	unsigned w[] = { 1, 1, 1, 1 }, size[] = { 1, 1, 1, 2 };

	(void)state;
	policy_defaults(&p);
	/* 12 idle nodes: the group below its min (4th) gets to its min
	 * first; the capped one (3rd) stops at 2; the rest level. */
	fill(&p, min, max, w, size, N(size), 12);
	assert_int_equal(size[2], 2);
	assert_int_equal(size[3], 5);
	assert_int_equal(size[0], 5);
	assert_int_equal(size[1], 5);
	/* weights 2:1: twice the nodes */
	{
		unsigned min2[] = { 1, 1 }, max2[] = { 64, 64 };
		unsigned w2[] = { 2, 1 }, size2[] = { 1, 1 };

		fill(&p, min2, max2, w2, size2, 2, 13);
		assert_int_equal(size2[0], 10);
		assert_int_equal(size2[1], 5);
	}
}

static void rebalance_choice(void **state)
{
	const int64_t now = 1000000, min = 60 * 1000;
	struct share_group g[] = {
		{ .id = 1, .weight = 1, .min = 1, .nodes = 6, .shed = 1 },
		{ .id = 2, .weight = 1, .min = 1, .nodes = 4, .shed = 1 },
		{ .id = 3,
		  .weight = 1,
		  .min = 1,
		  .nodes = 1,
		  .wait_since = now - min },
		{ .id = 4,
		  .weight = 1,
		  .min = 2,
		  .nodes = 1,
		  .wait_since = now - min + 1 },
	};
	size_t from = 99, to = 99;

	(void)state;
	/* 4 (below its min) has not waited the whole interval: 3 takes,
	 * from the group furthest above (1) */
	assert_int_equal(share_rebalance(g, N(g), now, 60, &from, &to), 1);
	assert_int_equal(from, 0);
	assert_int_equal(to, 2);
	/* once 4 waited too, it goes first (below its min) */
	assert_int_equal(share_rebalance(g, N(g), now + 1, 60, &from, &to), 1);
	assert_int_equal(to, 3);
	/* nobody waited long enough: nothing moves */
	assert_int_equal(share_rebalance(g, N(g), now - 1, 60, &from, &to), 0);
	/* no unit moves back and forth: 3 vs 2 nodes stays */
	{
		struct share_group h[] = {
			{ .id = 1,
			  .weight = 1,
			  .min = 1,
			  .nodes = 3,
			  .shed = 1 },
			{ .id = 2,
			  .weight = 1,
			  .min = 1,
			  .nodes = 2,
			  .wait_since = 1 },
		};

		assert_int_equal(share_rebalance(h, N(h), now, 60, &from, &to),
				 0);
		h[0].nodes = 4; /* 4 vs 2: one moves */
		assert_int_equal(share_rebalance(h, N(h), now, 60, &from, &to),
				 1);
		/* a giver never goes below its min */
		h[0].min = 4;
		assert_int_equal(share_rebalance(h, N(h), now, 60, &from, &to),
				 0);
	}
	/* weights: 6 nodes of weight 3 are level 2, below 3 of weight 1 */
	{
		struct share_group h[] = {
			{ .id = 1,
			  .weight = 3,
			  .min = 1,
			  .nodes = 6,
			  .shed = 1 },
			{ .id = 2,
			  .weight = 1,
			  .min = 1,
			  .nodes = 1,
			  .wait_since = 1 },
			{ .id = 3,
			  .weight = 1,
			  .min = 1,
			  .nodes = 3,
			  .shed = 1 },
		};

		assert_int_equal(share_rebalance(h, N(h), now, 60, &from, &to),
				 1);
		assert_int_equal(from, 2);
		assert_int_equal(to, 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(weights),
		cmocka_unit_test(nice_orders_by_weighted_size),
		cmocka_unit_test(max_min_fair),
		cmocka_unit_test(rebalance_choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
