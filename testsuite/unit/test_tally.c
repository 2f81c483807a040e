/* Unit tests of the launcher's ledger (src/elastic-run/tally.c): where each
 * node-millisecond held goes, and the report it makes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic-run/tally.h"

static uint64_t at_sum(const struct tally *a)
{
	uint64_t s = 0;

	for (size_t i = 0; i < a->nat; i++)
		s += a->at[i].nms;
	return s;
}

/* What must hold after every call. */
static void invariants(const struct tally *a)
{
	assert_true(tally_causes_sum(a) == a->held_nms);
	assert_true(at_sum(a) == a->nms[ACCTNAMES_CAUSE_TRAINING]);
	assert_true(a->train_wall_ms <= a->t - a->t0);
}

/* A world of 2 from t=0, its first step at 1000, trains to 5000. */
static void two_training(struct tally *a)
{
	tally_init(a, 0, 2000);
	tally_sizes(a, 0, 2, 2);
	tally_step(a, 1000, 1);
	tally_step(a, 5000, 40);
}

static void waiting_then_training(void **state)
{
	struct tally a;

	(void)state;
	two_training(&a);
	invariants(&a);
	assert_int_equal(a.phase, TALLY_PH_TRAINING);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_WAITING], 2000);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_TRAINING], 8000);
	assert_int_equal(a.train_wall_ms, 4000);
	assert_int_equal(a.held_nms, 10000);
	assert_int_equal(a.steps, 40);
	assert_int_equal(a.nat, 1);
	assert_int_equal(a.at[0].world, 2);
	assert_true(tally_goodput(&a) > 0.79 && tally_goodput(&a) < 0.81);
	assert_true(tally_ettr(&a) > 0.79 && tally_ettr(&a) < 0.81);
}

/* An elastic signal, a relaunch at 4 nodes, its first step: growth by
 * restart, 3 s; the steps to 40 again redone. */
static void relaunch_growth_redo(void **state)
{
	struct tally a;

	(void)state;
	two_training(&a);
	tally_event(&a, 5000, TALLY_SIGNAL);
	assert_int_equal(a.phase, TALLY_PH_RESIZE);
	assert_false(a.event_due); /* named by the next world */
	tally_sizes(&a, 6000, 4, 4);
	tally_step(&a, 8000, 31); /* resumed from 30 */
	invariants(&a);
	assert_true(a.event_due);
	assert_int_equal(a.event_kind, TALLY_GROWTH);
	assert_true(a.resize_due);
	assert_int_equal(a.done.kind, TALLY_GROWTH);
	assert_int_equal(a.done.path, ACCTNAMES_PATH_RESTART);
	assert_int_equal(a.done.ms, 3000);
	assert_int_equal(a.done.seq, 1);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_RESIZE_RESTART],
			 2 * 1000 + 4 * 2000);
	assert_int_equal(a.phase, TALLY_PH_REDO);
	tally_step(&a, 9000, 35);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_REDO], 4000);
	tally_step(&a, 10000, 45);
	invariants(&a);
	assert_int_equal(a.phase, TALLY_PH_TRAINING);
	assert_int_equal(a.redone, 10); /* 31..40 */
	assert_int_equal(a.steps, 45);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_REDO], 8000);
	tally_step(&a, 11000, 50);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_TRAINING], 8000 + 4000);
	assert_int_equal(a.nat, 2);
	tally_sent(&a);
	assert_false(a.event_due || a.resize_due || a.changed);
}

/* The path said during the resize takes what it cost so far. */
/* A preemption before the grown world stepped: both events said, the
 * growth named by the world it reached, the preemption by its own; the
 * interrupted resize is no resize (no first step), the second is. */
static void event_during_resize(void **state)
{
	struct tally a;

	(void)state;
	two_training(&a);
	tally_event(&a, 5000, TALLY_SIGNAL);
	tally_sizes(&a, 6000, 4, 4);
	tally_up(&a, 7000); /* ranks up, no step heard */
	tally_event(&a, 8000, TALLY_SIGNAL);
	invariants(&a);
	assert_true(a.event_due);
	assert_int_equal(a.event_kind, TALLY_GROWTH);
	assert_false(a.resize_due);
	tally_sent(&a);
	tally_sizes(&a, 8500, 2, 2);
	tally_step(&a, 9000, 31);
	invariants(&a);
	assert_true(a.event_due);
	assert_int_equal(a.event_kind, TALLY_PREEMPTION);
	assert_true(a.resize_due);
	assert_int_equal(a.done.kind, TALLY_PREEMPTION);
	assert_int_equal(a.done.ms, 1000);
	assert_int_equal(a.done.seq, 1);
	/* A known kind during a resize waits for its first step too. */
	tally_sent(&a);
	tally_event(&a, 10000, TALLY_SIGNAL);
	tally_event(&a, 10500, TALLY_CRASH);
	assert_true(a.event_due);
	assert_int_equal(a.event_kind, TALLY_PREEMPTION);
	tally_sent(&a);
	tally_step(&a, 12000, 40);
	assert_int_equal(a.event_kind, TALLY_CRASH);
	assert_int_equal(a.done.kind, TALLY_CRASH);
	assert_int_equal(a.done.ms, 1500);
	invariants(&a);
}

static void inplace_and_swap(void **state)
{
	struct tally a;

	(void)state;
	two_training(&a);
	tally_event(&a, 5000, TALLY_CRASH);
	assert_true(a.event_due);
	assert_int_equal(a.event_kind, TALLY_CRASH);
	tally_path(&a, 6000, ACCTNAMES_PATH_INPLACE);
	tally_step(&a, 7000, 41);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_RESIZE_RESTART], 0);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_RESIZE_INPLACE], 4000);
	assert_int_equal(a.done.kind, TALLY_CRASH);
	assert_int_equal(a.phase, TALLY_PH_TRAINING); /* no step redone */
	tally_event(&a, 8000, TALLY_HANG);
	tally_path(&a, 8500, ACCTNAMES_PATH_SWAP);
	tally_step(&a, 9000, 50);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_RESIZE_SWAP], 2000);
	assert_int_equal(a.done.kind, TALLY_SPARE_SWAP);
	assert_int_equal(a.done.path, ACCTNAMES_PATH_SWAP);
	assert_int_equal(a.done.seq, 2);
	assert_int_equal(a.event_kind, TALLY_HANG);
}

/* A node silent since 3000, found at 5000: 2 s of the world moved out of
 * training; an onset before the world's start is cut at its start. */
static void detect_from_onset(void **state)
{
	struct tally a;

	(void)state;
	two_training(&a);
	tally_detect(&a, 5000, 3000, TALLY_CRASH);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_DETECT], 4000);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_TRAINING], 4000);
	assert_int_equal(a.train_wall_ms, 2000);
	assert_int_equal(a.phase, TALLY_PH_RESIZE);
	tally_sizes(&a, 6000, 1, 1);
	tally_step(&a, 7000, 41);
	tally_detect(&a, 9000, 100, TALLY_HANG);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_DETECT], 4000 + 2000);
	assert_int_equal(a.done.kind, TALLY_CRASH);
}

/* Saves: W x SAVE_MS out of training; the same save from another node
 * (within the window) counts once, at its longest. */
static void checkpoint_stall(void **state)
{
	struct tally a;

	(void)state;
	two_training(&a);
	tally_save(&a, 5000, 500);
	tally_save(&a, 5500, 700);
	tally_save(&a, 6000, 600);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_CHECKPOINT], 1400);
	tally_save(&a, 9000, 300);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_CHECKPOINT], 2000);
	/* Not in the training loop: the resize has it. */
	tally_event(&a, 9000, TALLY_SIGNAL);
	tally_save(&a, 9500, 300);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_CHECKPOINT], 2000);
}

/* Nodes held outside the world; fewer held than in the world is the
 * world. */
static void outside_world(void **state)
{
	struct tally a;

	(void)state;
	tally_init(&a, 0, 0);
	tally_sizes(&a, 0, 3, 2);
	tally_step(&a, 1000, 1);
	tally_sizes(&a, 2000, 1, 2);
	tally_advance(&a, 3000);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_OUTSIDE], 2000);
	assert_int_equal(a.held_nms, 3000 * 2 + 2000);
}

/* Ranks that never report: their start is the first step.  Ranks that
 * report later: the time from their start to their first step waited. */
static void ranks_up_stands_for_step(void **state)
{
	struct tally a;

	(void)state;
	tally_init(&a, 0, 0);
	tally_sizes(&a, 0, 2, 2);
	tally_up(&a, 1000);
	tally_advance(&a, 3000);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_TRAINING], 4000);
	tally_event(&a, 3000, TALLY_SIGNAL);
	tally_up(&a, 4000);
	invariants(&a);
	assert_true(a.resize_due);
	assert_int_equal(a.done.kind, TALLY_PREEMPTION);
	assert_int_equal(a.done.ms, 1000);

	tally_init(&a, 0, 0);
	tally_sizes(&a, 0, 2, 2);
	tally_up(&a, 1000);
	tally_step(&a, 4000, 1);
	invariants(&a);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_WAITING], 8000);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_TRAINING], 0);
	tally_advance(&a, 5000);
	assert_int_equal(a.nms[ACCTNAMES_CAUSE_TRAINING], 2000);
	/* Once reported, a start is no step. */
	tally_event(&a, 5000, TALLY_CHANGE);
	tally_up(&a, 6000);
	assert_int_equal(a.phase, TALLY_PH_RESIZE);
}

static void ended_is_final(void **state)
{
	struct tally a;
	uint64_t held;

	(void)state;
	two_training(&a);
	tally_end(&a, 6000);
	held = a.held_nms;
	tally_step(&a, 7000, 99);
	tally_sizes(&a, 8000, 9, 9);
	tally_advance(&a, 9000);
	invariants(&a);
	assert_true(a.held_nms == held);
	assert_int_equal(a.phase, TALLY_PH_ENDED);
	assert_int_equal(a.steps, 40);
}

static void format_report(void **state)
{
	struct tally a;
	char buf[1024];
	int n;

	(void)state;
	two_training(&a);
	tally_event(&a, 5000, TALLY_CRASH);
	n = tally_format(&a, 1764630000123ULL, '&', false, buf, sizeof(buf));
	assert_true(n > 0 && (size_t)n == strlen(buf));
	assert_string_equal(
	    buf, "v=1&t=1764630000123&wall_ms=5000&train_wall_ms=4000"
		 "&held_nms=10000&training_nms=8000&waiting_nms=2000"
		 "&resize_restart_nms=0&resize_inplace_nms=0"
		 "&resize_swap_nms=0&detect_nms=0&redo_nms=0"
		 "&checkpoint_nms=0&outside_nms=0&at=2:8000&steps=40"
		 "&redone=0&world=2&held=2&phase=resize&event=crash");
	tally_sent(&a);
	tally_sizes(&a, 5000, 3, 3);
	tally_step(&a, 6000, 41);
	tally_end(&a, 7000);
	n = tally_format(&a, 1, ' ', true, buf, sizeof(buf));
	assert_true(n > 0);
	assert_non_null(strstr(buf, " at=2:8000,3:3000 "));
	assert_non_null(strstr(buf, " phase=ended resize=crash:restart:1000:1 "
				    "final=1"));
	assert_null(strstr(buf, "event="));
	assert_int_equal(tally_format(&a, 1, ' ', true, buf, 100), -1);
	/* No training yet: one pair of none. */
	tally_init(&a, 0, 0);
	tally_format(&a, 1, '&', false, buf, sizeof(buf));
	assert_non_null(strstr(buf, "&at=1:0&"));
}

/* The launcher's causes, and the names the report gives. */
static void kinds_and_names(void **state)
{
	(void)state;
	assert_int_equal(tally_kind_of("node-lost"), TALLY_CRASH);
	assert_int_equal(tally_kind_of("member-exit"), TALLY_CRASH);
	assert_int_equal(tally_kind_of("hang"), TALLY_HANG);
	assert_int_equal(tally_kind_of("straggler"), TALLY_STRAGGLER);
	assert_int_equal(tally_kind_of("membership"), TALLY_CHANGE);
	assert_int_equal(tally_kind_of("raised"), TALLY_SIGNAL);
	assert_int_equal(tally_kind_of(NULL), TALLY_SIGNAL);
	assert_string_equal(tally_kind_name(TALLY_SPARE_SWAP), "spare-swap");
	assert_string_equal(tally_kind_name(TALLY_SIGNAL), "preemption");
	assert_string_equal(tally_kind_name(TALLY_CHANGE), "shrink");
	assert_string_equal(tally_kind_name(TALLY_GROWTH), "growth");
	/* The launcher's five phases are the contract's. */
	assert_string_equal(tally_phase_name(TALLY_PH_WAITING), "waiting");
	assert_string_equal(tally_phase_name(TALLY_PH_TRAINING), "training");
	assert_string_equal(tally_phase_name(TALLY_PH_RESIZE), "resize");
	assert_string_equal(tally_phase_name(TALLY_PH_REDO), "redo");
	assert_string_equal(tally_phase_name(TALLY_PH_ENDED), "ended");
}

/* Random sequences of everything the launcher may say: held is the sum
 * of the causes, always, to the node-millisecond. */
static void random_sequences(void **state)
{
	struct tally a;
	uint64_t t, step;
	char buf[2048];

	(void)state;
	srand(35);
	for (int run = 0; run < 2000; run++) {
		tally_init(&a, 1000, (uint64_t)(rand() % 3000));
		t = 1000;
		step = 0;
		for (int k = 0; k < 60; k++) {
			t += (uint64_t)(rand() % 5000);
			switch (rand() % 9) {
			case 0: {
				unsigned w = (unsigned)(rand() % 70);

				tally_sizes(&a, t, w + (unsigned)(rand() % 3),
					    w);
				break;
			}
			case 1:
				tally_event(&a, t,
					    (enum tally_kind)(
						rand() % (TALLY_CHANGE + 1)));
				break;
			case 2:
				tally_detect(&a, t,
					     t / (uint64_t)(1 + rand() % 3),
					     TALLY_CRASH);
				break;
			case 3:
				tally_path(&a, t,
					   (enum acctnames_path)(
					       rand() % ACCTNAMES_NPATHS));
				break;
			case 4:
				tally_up(&a, t);
				break;
			case 5:
				step = rand() % 4
					   ? step + (uint64_t)(rand() % 9)
					   : step / 2;
				tally_step(&a, t, step);
				break;
			case 6:
				tally_save(&a, t, (uint64_t)(rand() % 4000));
				break;
			case 7:
				tally_sent(&a);
				break;
			default:
				tally_advance(&a, t);
			}
			invariants(&a);
		}
		if (rand() % 2)
			tally_end(&a, t + 1);
		invariants(&a);
		assert_true(tally_format(&a, t, '&', true, buf, sizeof(buf)) >
			    0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(waiting_then_training),
		cmocka_unit_test(relaunch_growth_redo),
		cmocka_unit_test(event_during_resize),
		cmocka_unit_test(inplace_and_swap),
		cmocka_unit_test(detect_from_onset),
		cmocka_unit_test(checkpoint_stall),
		cmocka_unit_test(outside_world),
		cmocka_unit_test(ranks_up_stands_for_step),
		cmocka_unit_test(ended_is_final),
		cmocka_unit_test(format_report),
		cmocka_unit_test(kinds_and_names),
		cmocka_unit_test(random_sequences),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
