/* Unit tests of the batch host's rules (src/elasticd/batchhost.c): when
 * elasticd probes a base's batch host, and when it lets a requeued base
 * start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/options.h"
#include "elasticd/batchhost.h"

static struct bh_table t;

static struct job_view base(enum job_phase ph, uint32_t restarts,
			    const struct elastic_opts *o)
{
	struct job_view j;

	memset(&j, 0, sizeof(j));
	j.id = 7;
	j.role = ROLE_BASE;
	j.phase = ph;
	j.restarts = restarts;
	j.nodes = ph == PHASE_RUNNING ? "n[1-2]" : "";
	j.opts = o;
	return j;
}

/* Silence past twice the heartbeat timeout (at least 10 s) while Slurm
 * runs the base: a probe; never before the launcher spoke at all. */
static void silence_probes(void **state)
{
	struct elastic_opts o = { .heartbeat_timeout = 8 };
	struct job_view j = base(PHASE_RUNNING, 0, &o);

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(bh_decide(&t, &j, 100000), BH_NONE);
	bh_seen(&t, 7, 1000);
	assert_int_equal(bh_decide(&t, &j, 17000), BH_NONE);
	assert_int_equal(bh_decide(&t, &j, 17001), BH_PROBE);
	/* It answered: silence counts again from then. */
	bh_answered(&t, 7, 17001);
	assert_int_equal(bh_decide(&t, &j, 33000), BH_NONE);
	assert_int_equal(bh_decide(&t, &j, 33002), BH_PROBE);
	/* Heartbeats off or short: 10 s. */
	o.heartbeat_timeout = 0;
	bh_seen(&t, 7, 50000);
	assert_int_equal(bh_decide(&t, &j, 60000), BH_NONE);
	assert_int_equal(bh_decide(&t, &j, 60001), BH_PROBE);
	/* A pending or ending base is not probed. */
	j = base(PHASE_PENDING, 0, &o);
	assert_int_equal(bh_decide(&t, &j, 90000), BH_NONE);
}

/* Set down: nothing more until Slurm requeued it; then one start now,
 * and a new silence from then. */
static void down_then_begin(void **state)
{
	struct elastic_opts o = { .heartbeat_timeout = 5 };
	struct job_view j = base(PHASE_RUNNING, 2, &o);

	(void)state;
	memset(&t, 0, sizeof(t));
	bh_seen(&t, 7, 1000);
	assert_int_equal(bh_decide(&t, &j, 12000), BH_PROBE);
	bh_downed(&t, 7, 2);
	assert_int_equal(bh_decide(&t, &j, 13000), BH_NONE);
	j = base(PHASE_PENDING, 2, &o); /* not requeued yet */
	assert_int_equal(bh_decide(&t, &j, 14000), BH_NONE);
	j = base(PHASE_PENDING, 3, &o);
	assert_int_equal(bh_decide(&t, &j, 15000), BH_BEGIN);
	/* Until it was let start (Slurm may still be requeuing it). */
	assert_int_equal(bh_decide(&t, &j, 15200), BH_BEGIN);
	bh_begun(&t, 7, 15200);
	assert_int_equal(bh_decide(&t, &j, 16000), BH_NONE);
	j = base(PHASE_RUNNING, 3, &o);
	assert_int_equal(bh_decide(&t, &j, 25200), BH_NONE);
	assert_int_equal(bh_decide(&t, &j, 25201), BH_PROBE);
	/* Requeued and already running again when elasticd looks: no start
	 * to give. */
	bh_downed(&t, 7, 3);
	j = base(PHASE_RUNNING, 4, &o);
	assert_int_equal(bh_decide(&t, &j, 26000), BH_NONE);
}

/* A table full of groups makes room by the longest silent; a gone base
 * is forgotten. */
static void bounded(void **state)
{
	struct elastic_opts o = { 0 };
	struct job_view j = base(PHASE_RUNNING, 0, &o);

	(void)state;
	memset(&t, 0, sizeof(t));
	for (uint32_t g = 1; g <= BH_MAX; g++)
		bh_seen(&t, 1000 + g, g);
	assert_int_equal(t.n, BH_MAX);
	bh_seen(&t, 7, 5000);
	assert_int_equal(t.n, BH_MAX);
	assert_int_equal(bh_decide(&t, &j, 15001), BH_PROBE);
	bh_forget(&t, 7);
	assert_int_equal(bh_decide(&t, &j, 15001), BH_NONE);
	assert_int_equal(t.n, BH_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(silence_probes),
		cmocka_unit_test(down_then_begin),
		cmocka_unit_test(bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
