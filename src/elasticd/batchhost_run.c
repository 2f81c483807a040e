/*
 * A group's batch host lost (batchhost.h): the probes and Slurm's writes,
 * once per cycle, in elasticd's loop.  Rare: a probe only after a
 * launcher's silence, at most BH_PROBES_PER_CYCLE a cycle (each waits up
 * to BH_PROBE_MS for a host that does not answer).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "api.h"
#include "batchhost_run.h"
#include "drain.h"
#include "common/log.h"
#include "common/slurm_compat.h"
#include "common/tcpprobe.h"

#define BH_PROBE_MS	    1000
#define BH_PROBES_PER_CYCLE 4
#define BH_OTHERS_MAX	    3 /* other nodes of the group asked at most */

/* The first node of a Slurm node list (malloc'd), NULL if none. */
static char *first_node(const char *list)
{
	compat_hostlist_t h = slurm_hostlist_create(list);
	char *name = h ? slurm_hostlist_shift(h) : NULL;

	if (h)
		slurm_hostlist_destroy(h);
	return name;
}

/* Does a node of the group other than batch answer?  Then it is not
 * elasticd that is cut off from the nodes. */
static bool others_answer(const struct snapshot *s, const struct job_view *b,
			  const char *batch)
{
	size_t asked = 0;

	for (size_t i = 0; i < snapshot_count(s) && asked < BH_OTHERS_MAX;
	     i++) {
		const struct job_view *j = snapshot_job(s, i);
		compat_hostlist_t h;
		char *name;

		if (j->phase != PHASE_RUNNING || !j->nodes || !*j->nodes ||
		    !(j == b ||
		      (j->role == ROLE_UNIT && j->unit.group == b->id)))
			continue;
		h = slurm_hostlist_create(j->nodes);
		while (h && asked < BH_OTHERS_MAX &&
		       (name = slurm_hostlist_shift(h))) {
			bool up = strcmp(name, batch) != 0 &&
				  (asked++, slurmd_answers(name, BH_PROBE_MS));

			free(name);
			if (up) {
				slurm_hostlist_destroy(h);
				return true;
			}
		}
		if (h)
			slurm_hostlist_destroy(h);
	}
	return false;
}

/* The batch host of base b does not answer: down it, or say why not. */
static void batch_host_lost(struct bh_run *r, const struct snapshot *s,
			    const struct job_view *b, const char *batch,
			    int64_t now)
{
	enum suspect_action a;
	elastic_error_t err;
	char reason[160];

	if (!others_answer(s, b, batch)) {
		elog_warn("group %u: its launcher is silent and its batch "
			  "host %s does not answer, nor any other node of the "
			  "group: elasticd may be the one cut off; left to "
			  "Slurm",
			  b->id, batch);
		bh_answered(r->t, b->id, now);
		return;
	}
	a = suspect_decide(r->w, r->p->suspect_nodes,
			   r->p->suspect_drains_per_hour, now);
	snprintf(reason, sizeof(reason),
		 "slurm-elastic: job %u: batch host lost (its launcher "
		 "silent, slurmd not answering)",
		 b->id);
	if (a == SUSPECT_DRAIN && down_node(batch, reason, &err) < 0) {
		elog_error("group %u: %s", b->id, err.text);
		a = SUSPECT_REPORT;
	}
	/* With --no-kill, Slurm only takes the node out of the base, whose
	 * batch script died with it: the base is requeued, to start again
	 * from its checkpoint on the nodes left. */
	if (a == SUSPECT_DRAIN && requeue_job(b->id, &err) < 0)
		elog_error("group %u: %s", b->id, err.text);
	r->suspects[0][a == SUSPECT_DRAIN ? 0 : 1]++;
	if (a == SUSPECT_DRAIN)
		bh_downed(r->t, b->id, b->restarts);
	else
		bh_answered(r->t, b->id, now);
	snprintf(reason, sizeof(reason), "node %s lost (the batch host): %s",
		 batch, a == SUSPECT_DRAIN ? "set down" : "reported");
	reconcile_note(r->rec, b->id, CAUSE_SUSPECT, reason, now);
	elog_info("group %u: batch host %s lost (launcher silent, slurmd not "
		  "answering): %s",
		  b->id, batch,
		  a == SUSPECT_DRAIN ? "set DOWN, the base requeued"
				     : suspect_action_name(a));
}

/* One base's due action. */
static void bh_act(struct bh_run *r, const struct snapshot *s,
		   const struct job_view *b, enum bh_action act, int64_t now)
{
	elastic_error_t err;
	char *batch;

	if (act == BH_BEGIN) {
		int rc = begin_now(b->id, &err);

		if (rc < 0)
			elog_error("group %u: %s", b->id, err.text);
		if (rc == 0)
			elog_info("group %u: requeued base let start now "
				  "(StartTime=now, not after the requeue "
				  "delay)",
				  b->id);
		if (rc <= 0)
			bh_begun(r->t, b->id, now);
		return;
	}
	if (!(batch = first_node(b->nodes)))
		return;
	if (slurmd_answers(batch, BH_PROBE_MS)) {
		elog_debug("group %u: launcher silent, batch host %s answers",
			   b->id, batch);
		bh_answered(r->t, b->id, now);
	} else {
		batch_host_lost(r, s, b, batch, now);
	}
	free(batch);
}

void batchhost_pass(struct bh_run *r, const struct snapshot *s, int64_t now)
{
	uint32_t ids[256];
	unsigned probes = 0;
	int n;

	while ((n = api_take_seen(ids, sizeof(ids) / sizeof(ids[0]))) > 0)
		for (int i = 0; i < n; i++)
			bh_seen(r->t, ids[i], now);
	for (size_t i = 0; i < snapshot_count(s); i++) {
		const struct job_view *j = snapshot_job(s, i);
		enum bh_action act;

		if (j->role != ROLE_BASE)
			continue;
		if (j->phase == PHASE_GONE) {
			bh_forget(r->t, j->id);
			continue;
		}
		act = bh_decide(r->t, j, now);
		if (act == BH_NONE ||
		    (act == BH_PROBE && probes++ >= BH_PROBES_PER_CYCLE))
			continue;
		bh_act(r, s, j, act, now);
	}
}
