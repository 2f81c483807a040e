#ifndef ELASTICD_BATCHHOST_RUN_H
#define ELASTICD_BATCHHOST_RUN_H

/* A group's batch host lost: the I/O half (batchhost.h has the rules). */

#include "batchhost.h"
#include "groupinfo.h"
#include "reconcile.h"
#include "suspect.h"

/* What the pass uses, all elasticd.c's own. */
struct bh_run {
	struct bh_table *t;
	const struct elastic_policy *p;
	struct suspect_window *w; /* the hourly cap, shared */
	uint64_t (*suspects)[2];  /* metrics: [fault][drained?] */
	struct reconcile *rec;	  /* for the group's events */
};

/* The launchers that asked since the last pass, then each base's due
 * probe or start. */
void batchhost_pass(struct bh_run *r, const struct snapshot *s, int64_t now);

#endif
