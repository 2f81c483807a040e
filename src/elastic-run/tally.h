#ifndef ELASTIC_RUN_TALLY_H
#define ELASTIC_RUN_TALLY_H

/*
 * The launcher's ledger of a job's node-time (elastic-run(1),
 * ACCOUNTING): where every node-millisecond the group holds goes.  Pure:
 * fed what the launcher learns, each with its time (ms on one clock that
 * never goes back), so that every rule is a unit test.
 *
 * At every instant the group holds H nodes (the world's and its
 * spares') and its world has W <= H of them
 * (H < W is taken as H = W).  W x dt goes to the phase's cause (waiting
 * for the first world's first step, training, a resize by its path,
 * redo of steps done before), (H - W) x dt to outside; a fault's
 * detection delay (from its onset) and a checkpoint's save stall are
 * moved out of the training that counted them.  So held is the sum of
 * the causes at every instant, exactly.
 *
 * Until a rank of the run reports a step, the ranks' start (tally_up())
 * stands for the world's first step; the first step heard then takes
 * the time since back from training (the ranks were not stepping).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/acctnames.h"

/* The causes (enum acctnames_cause) and paths (enum acctnames_path) are
 * the contract's own.  The phases and kinds below are the launcher's part
 * of the contract's tables, each value the contract's: the launcher is
 * never in detect or checkpoint (acctnames.h), and it has two kinds of its
 * own after the contract's. */
enum tally_phase {
	TALLY_PH_WAITING = ACCTNAMES_PHASE_WAITING,
	TALLY_PH_TRAINING = ACCTNAMES_PHASE_TRAINING,
	TALLY_PH_RESIZE = ACCTNAMES_PHASE_RESIZE,
	TALLY_PH_REDO = ACCTNAMES_PHASE_REDO,
	TALLY_PH_ENDED = ACCTNAMES_PHASE_ENDED,
};

/* What started a resize.  TALLY_SIGNAL (an elastic signal, reason
 * unknown) and TALLY_CHANGE (the world changed under the ranks) are
 * named by the next world: larger, growth; else preemption for a
 * signal, shrink for a change. */
enum tally_kind {
	TALLY_GROWTH = ACCTNAMES_KIND_GROWTH,
	TALLY_PREEMPTION = ACCTNAMES_KIND_PREEMPTION,
	TALLY_CRASH = ACCTNAMES_KIND_CRASH,
	TALLY_HANG = ACCTNAMES_KIND_HANG,
	TALLY_STRAGGLER = ACCTNAMES_KIND_STRAGGLER,
	TALLY_SPARE_SWAP = ACCTNAMES_KIND_SPARE_SWAP,
	TALLY_SHRINK = ACCTNAMES_KIND_SHRINK,
	TALLY_SIGNAL = ACCTNAMES_NKINDS,
	TALLY_CHANGE,
};

/* Training by world size: at most this many sizes (more are added to
 * the nearest size kept). */
#define TALLY_AT_MAX 64

struct tally_at {
	unsigned world;
	uint64_t nms;
};

/* A resize that ended: event -> first step of the next world. */
struct tally_resize {
	enum tally_kind kind; /* spare-swap for the swap path */
	enum acctnames_path path;
	uint64_t ms;
	unsigned seq; /* 1, 2, ... */
};

/* Owned by tally.c: read its fields, write them through tally_*(). */
struct tally {
	uint64_t t0, t; /* the start, the last time fed */
	unsigned held, world;
	enum tally_phase phase;
	uint64_t nms[ACCTNAMES_NCAUSES];
	uint64_t held_nms, train_wall_ms;
	struct tally_at at[TALLY_AT_MAX];
	size_t nat;
	/* Steps: the highest reached, redone; the world's last; the
	 * highest before the last event (steps up to it are redone). */
	uint64_t steps, redone, last_step, redo_to;
	bool reporting;	  /* a rank reported a step in this run */
	bool provisional; /* training from tally_up(), no step heard yet */
	enum acctnames_cause prov_cause;
	/* The training at this world since it began (what may be moved
	 * out of it). */
	uint64_t seg_start, seg_nms, seg_wall;
	/* The resize under way. */
	enum tally_kind kind;
	enum acctnames_path path;
	uint64_t event_t, resize_nms;
	unsigned w_before;
	bool kind_said; /* its event= was due */
	unsigned seq;
	/* For the next report: an event started (its kind), a resize ended;
	 * a phase changed (the caller reports at once).  Cleared by
	 * tally_sent(). */
	bool event_due, resize_due, changed;
	enum tally_kind event_kind;
	struct tally_resize done;
	/* The last save counted: saves heard within merge_ms of it are the
	 * same save seen from another node. */
	uint64_t save_t, save_ms, merge_ms;
};

void tally_init(struct tally *a, uint64_t t0, uint64_t merge_ms);
/* The nodes held and in the world, from t on. */
void tally_sizes(struct tally *a, uint64_t t, unsigned held, unsigned world);
/* An event of kind at t starts a resize (none while waiting). */
void tally_event(struct tally *a, uint64_t t, enum tally_kind kind);
/* A fault of kind detected at t, its onset (the node's last sign of
 * life) at onset: the time between moved out of training to detect,
 * then tally_event(). */
void tally_detect(struct tally *a, uint64_t t, uint64_t onset,
		  enum tally_kind kind);
/* The resize under way takes path (restart until said). */
void tally_path(struct tally *a, uint64_t t, enum acctnames_path path);
/* The world's ranks all started at t. */
void tally_up(struct tally *a, uint64_t t);
/* A rank reported step at t (a record of this world). */
void tally_step(struct tally *a, uint64_t t, uint64_t step);
/* A save in the training loop stalled the ranks save_ms, heard at t. */
void tally_save(struct tally *a, uint64_t t, uint64_t save_ms);
/* The launcher ends at t: the ledger is final. */
void tally_end(struct tally *a, uint64_t t);

/* The ledger up to t (the causes then add up to held). */
void tally_advance(struct tally *a, uint64_t t);
/* A report went out: what it carried is no longer due. */
void tally_sent(struct tally *a);
/* A report failed: what it carried is due at the next, not at once. */
void tally_tried(struct tally *a);

/* The contract's names: a signal's is preemption's, a change's shrink's
 * (until the next world names them). */
const char *tally_phase_name(enum tally_phase p);
const char *tally_kind_name(enum tally_kind k);
/* The kind of event the launcher's cause is (elastic-run(1), TIMELINE:
 * node-lost, hang, ...; an elastic signal for the others). */
enum tally_kind tally_kind_of(const char *cause);

/* The sum of the causes (== held_nms). */
uint64_t tally_causes_sum(const struct tally *a);
/* training / held, training wall / wall: 0..1 (0 before any). */
double tally_goodput(const struct tally *a);
double tally_ettr(const struct tally *a);

/*
 * The report's key=value pairs (the contract's v=1), sep between them:
 * '&' for the query of POST /v1/groups/JOB/account, ' ' for the line on
 * standard error.  unix_ms: the wall clock's time.  The length written,
 * or -1 when len is too short.
 */
int tally_format(const struct tally *a, uint64_t unix_ms, char sep, bool final,
		 char *buf, size_t len);

#endif
