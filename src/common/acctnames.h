#ifndef ELASTIC_COMMON_ACCTNAMES_H
#define ELASTIC_COMMON_ACCTNAMES_H

/*
 * The words of a job's accounting (elasticd(8), ACCOUNTING;
 * elasticd-api(7)): the causes of a group's node-time, the kinds of event
 * that start a resize, the paths a resize takes and the launcher's phases.
 * One table each, for the launcher that writes them, elasticd that reads,
 * keeps and serves them, and elasticctl that reads elasticd's document: a
 * cause named here is summed, stored and shown by all three, or a unit
 * test fails.  Pure.
 *
 * Each table's *_name() is "?" for a value outside it; each *_find() is
 * the value of a name, or -1 for NULL or a name not in the table.  The
 * *_WORDS strings are the names as an error message lists them (allowed:
 * ...), checked against the tables by test_acctnames.
 */

/* Where a node-second held goes: each to exactly one cause, so that held
 * is their sum.  A launcher's report carries each as NAME_nms, elasticd's
 * document as node_seconds.NAME. */
enum acctnames_cause {
	ACCTNAMES_CAUSE_TRAINING,
	ACCTNAMES_CAUSE_WAITING,
	ACCTNAMES_CAUSE_RESIZE_RESTART,
	ACCTNAMES_CAUSE_RESIZE_INPLACE,
	ACCTNAMES_CAUSE_RESIZE_SWAP,
	ACCTNAMES_CAUSE_DETECT,
	ACCTNAMES_CAUSE_REDO,
	ACCTNAMES_CAUSE_CHECKPOINT,
	ACCTNAMES_CAUSE_OUTSIDE,
	ACCTNAMES_NCAUSES
};
#define ACCTNAMES_CAUSE_WORDS                                                  \
	"training, waiting, resize_restart, resize_inplace, resize_swap, "     \
	"detect, redo, checkpoint, outside"
const char *acctnames_cause_name(enum acctnames_cause c); /* "redo" */
int acctnames_cause_find(const char *name);

/* What starts a resize (a report's event=, and resize='s first part). */
enum acctnames_kind {
	ACCTNAMES_KIND_GROWTH,
	ACCTNAMES_KIND_PREEMPTION,
	ACCTNAMES_KIND_CRASH,
	ACCTNAMES_KIND_HANG,
	ACCTNAMES_KIND_STRAGGLER,
	ACCTNAMES_KIND_SPARE_SWAP,
	ACCTNAMES_KIND_SHRINK,
	ACCTNAMES_NKINDS
};
#define ACCTNAMES_KIND_WORDS                                                   \
	"growth, preemption, crash, hang, straggler, spare-swap, shrink"
const char *acctnames_kind_name(enum acctnames_kind k); /* "spare-swap" */
int acctnames_kind_find(const char *name);

/* How a resize was done: the world restarted, resized in place, or a
 * spare swapped in for a member. */
enum acctnames_path {
	ACCTNAMES_PATH_RESTART,
	ACCTNAMES_PATH_INPLACE,
	ACCTNAMES_PATH_SWAP,
	ACCTNAMES_NPATHS
};
#define ACCTNAMES_PATH_WORDS "restart, inplace, swap"
const char *acctnames_path_name(enum acctnames_path p); /* "inplace" */
int acctnames_path_find(const char *name);

/* What the group is doing when it reports (phase=).  The contract has
 * seven; today's launcher says five of them (tally.h): it counts a
 * fault's detection and a save's stall after the fact, moving them out of
 * the training that held them, so it never reports itself in detect or
 * checkpoint. */
enum acctnames_phase {
	ACCTNAMES_PHASE_WAITING,
	ACCTNAMES_PHASE_TRAINING,
	ACCTNAMES_PHASE_RESIZE,
	ACCTNAMES_PHASE_DETECT,
	ACCTNAMES_PHASE_REDO,
	ACCTNAMES_PHASE_CHECKPOINT,
	ACCTNAMES_PHASE_ENDED,
	ACCTNAMES_NPHASES
};
#define ACCTNAMES_PHASE_WORDS                                                  \
	"waiting, training, resize, detect, redo, checkpoint, ended"
const char *acctnames_phase_name(enum acctnames_phase p); /* "resize" */
int acctnames_phase_find(const char *name);

#endif
