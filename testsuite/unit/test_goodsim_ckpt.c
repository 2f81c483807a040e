/* Unit tests of the goodput simulator's checkpoints (goodsim.c): async
 * periodic saves stall the step loop for the copy alone, and count once
 * written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "common/trace.h"
#include "goodsim/goodsim.h"

/* Four spot nodes for an hour; the last line only ends the trace. */
static const char steady[] = "0,add,a\n0,add,b\n0,add,c\n0,add,d\n"
			     "3600000,remove,d\n";
/* The same, node d lost half-way. */
static const char half[] = "0,add,a\n0,add,b\n0,add,c\n0,add,d\n"
			   "1800000,remove,d\n3600000,remove,c\n";

/* One group of 2..6 (a base of 2 on-demand nodes), saves of 100 s every
 * 590 s: stall < 0 synchronous. */
static struct goodsim_result run(const char *text, double stall)
{
	struct goodsim_params p;
	struct goodsim_result r;
	elastic_error_t err;
	struct trace *t = trace_parse(text, "test", &err);

	if (!t)
		fail_msg("%s", err.text);
	goodsim_defaults(&p);
	p.spot_nodes = 4;
	p.ondemand_nodes = 2;
	p.min = 2;
	p.max = 6;
	p.rate = 10;
	p.reclaim_ratio = 0; /* a remove is a crash */
	p.ckpt_s = 100;
	p.ckpt_every_s = 590;
	p.ckpt_stall_s = stall;
	if (goodsim_run(&p, t, GOODSIM_ELASTIC, NULL, NULL, 0, &r, &err) < 0)
		fail_msg("%s", err.text);
	trace_destroy(t);
	return r;
}

/* Without faults, each async save costs the stall, not the write: five
 * saves of the hour give back about 5 x 99.9 s at 6 nodes. */
static void async_stalls_less(void **state)
{
	struct goodsim_result sync, async;
	double gain;

	(void)state;
	sync = run(steady, -1);
	async = run(steady, 0.1);
	gain = async.samples - sync.samples;
	if (!(gain > 4 * 99.9 * 60 && gain < 6 * 100 * 60))
		fail_msg("async gains %.0f samples, not about 5 saves' writes",
			 gain);
	assert_true(async.repeated == 0 && sync.repeated == 0);
}

/* A crash at 1800 s, in the write of the last save (begun some 30 s
 * before): async, the work since the save before is done again;
 * synchronous, the last save had been written (its step loop waited). */
static void crash_in_the_write(void **state)
{
	struct goodsim_result sync, async;

	(void)state;
	sync = run(half, -1);
	async = run(half, 0.1);
	assert_int_equal(async.crashes, 1);
	assert_int_equal(sync.crashes, 1);
	/* Async: most of a period at 6 nodes (the world starts a little
	 * after 0), at most a period and a write. */
	if (!(async.repeated > sync.repeated &&
	      async.repeated > 0.8 * 590 * 60 &&
	      async.repeated <= (590 + 100) * 60))
		fail_msg("repeated: async %.0f, sync %.0f", async.repeated,
			 sync.repeated);
}

/* A stall longer than the write is refused, naming it. */
static void stall_checked(void **state)
{
	struct goodsim_params p;
	elastic_error_t err;

	(void)state;
	goodsim_defaults(&p);
	p.ckpt_stall_s = p.ckpt_s + 1;
	assert_int_equal(goodsim_check(&p, &err), -1);
	assert_non_null(strstr(err.text, "checkpoint stall"));
	p.ckpt_stall_s = p.ckpt_s;
	assert_int_equal(goodsim_check(&p, &err), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(async_stalls_less),
		cmocka_unit_test(crash_in_the_write),
		cmocka_unit_test(stall_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
