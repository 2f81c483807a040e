#ifndef ELASTIC_RUN_MEMBERSHIP_H
#define ELASTIC_RUN_MEMBERSHIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/policy.h"
#include "apiclient/apiclient.h"
#include "common/server.h"

/*
 * The world elastic-run launches over: the allocations (Slurm jobs) of an
 * elastic group that are in its current world, the base first.  Without
 * elasticd it is the job's own allocation; with elasticd, its view of the
 * group (GET /v1/groups/<job>, elasticd-api(7)).
 */

#define MAX_MEMBERS	   256
#define MEMBERS_SPARES_MAX POLICY_SPARES_MAX /* --elastic-spares' bound */
/* The members' node lists all together: one list may take most of it (a
 * large allocation of scattered node names is long even in Slurm's
 * ranged form). */
#define MEMBERS_NODES_POOL (256 * 1024)

struct member {
	uint32_t job_id;
	unsigned nnodes;
	uint32_t nodes_off; /* its Slurm node list, "n[1-2]", in the pool */
};

struct members {
	size_t n;
	struct member m[MAX_MEMBERS];
	size_t pool_used;
	char pool[MEMBERS_NODES_POOL];
	unsigned nnodes;     /* sum */
	uint64_t generation; /* elasticd's; 0 without elasticd */
	/* elasticd says DEGRADED: the world lost members and no new one is
	 * formed yet (a replacement is awaited, or fewer nodes than the min
	 * are left) */
	bool degraded;
	char master_host[256]; /* a node name: the base's first node */
	char master_addr[256]; /* its address */
	/* elasticd's spares: running units beside the world ("spare":
	 * true), none of the world's; their node lists in the pool too */
	size_t nspare;
	struct member spare[MEMBERS_SPARES_MAX];
};

/* Spare i's node list. */
static inline const char *spare_nodes(const struct members *ms, size_t i)
{
	return ms->pool + ms->spare[i].nodes_off;
}

/* Member i's node list. */
static inline const char *member_nodes(const struct members *ms, size_t i)
{
	return ms->pool + ms->m[i].nodes_off;
}

/* Add a member (after the others): 0, or -1 with err set when the lists
 * do not fit the pool, there are MAX_MEMBERS members already or job_id
 * is one of them. */
int members_add(struct members *ms, uint32_t job_id, unsigned nnodes,
		const char *nodes, elastic_error_t *err);

/*
 * Parse elasticd's document of one group into its current world: the
 * members that are in the world and running, base first.  Returns 1 when
 * the world is formed (generation > 0 and at least one member), 0 when
 * elasticd knows the group but has formed no world yet, -1 with err set
 * when the document is not a group (or not group `job`).  Sizes are
 * bounded: at most MAX_MEMBERS members, node lists of MEMBERS_NODES_POOL
 * bytes in all.
 * master_addr is left empty for the caller to resolve from master_host.
 */
int members_parse_group(const char *json, uint32_t job, struct members *ms,
			elastic_error_t *err);

/*
 * The world ms without the members jobs[0..njobs) (a world of the
 * launcher's own, made when members were lost: elasticd's next one comes
 * later).  Into out, the generation, master and the rest kept; the base
 * (ms->m[0]) cannot be left out.  0, or -1 with err set.
 */
int members_without(const struct members *ms, const uint32_t *jobs,
		    size_t njobs, struct members *out, elastic_error_t *err);

/*
 * The world ms with each of the members jobs[0..njobs) replaced, at its
 * place (the ranks' layout kept), by a spare of as many nodes: a swap.
 * Into out, the spares left kept; -1 with err when one has no such spare
 * or is the base (the caller then shrinks, members_without()).
 */
int members_swap(const struct members *ms, const uint32_t *jobs, size_t njobs,
		 struct members *out, elastic_error_t *err);

/* Same world?  (Generation and order aside, the base first in both: the
 * jobs and their node lists.  The launcher keeps its own order, the
 * ranks' layout: elasticd's of the same members is no change.) */
bool members_same(const struct members *a, const struct members *b);
/* Same spares (in any order)? */
bool spares_same(const struct members *a, const struct members *b);
/* Is job one of ms's spares? */
bool members_has_spare(const struct members *ms, uint32_t job);
/* cur's spares replaced by nm's, cur's members and their order kept.
 * 0, or -1 with err (out of memory, or the lists do not fit). */
int members_respare(struct members *cur, const struct members *nm,
		    elastic_error_t *err);

/*
 * Is job, named in elasticd's world of group base, the group's own in
 * Slurm: the base itself or a unit of it (its AdminComment, which only
 * elasticd sets, names the group), owned by uid as the base is?  job_uid
 * and admin_comment are Slurm's (admin_comment may be NULL).  0, or -1
 * with err saying why not: the launcher sruns into, signals and kills
 * no other job.
 */
int members_job_is_ours(uint32_t base, uint32_t uid, uint32_t job,
			uint32_t job_uid, const char *admin_comment,
			elastic_error_t *err);

enum fetch_result {
	FETCH_OK,	   /* *ms is the formed world */
	FETCH_NOT_FORMED,  /* elasticd knows no world of the group yet */
	FETCH_NOT_FOUND,   /* 404: not a group elasticd knows (or not ours) */
	FETCH_UNREACHABLE, /* cannot connect, time-out, 5xx */
	FETCH_UNVERIFIED,  /* an answer not proven elasticd's: ignored */
	FETCH_ERROR,	   /* refused credential, bad answer: err says */
};

/* GET /v1/groups/<job>, within timeout_ms (apiclient_request), saying
 * which spares the launcher checked (checked: "JOB,JOB", "" for none). */
enum fetch_result elasticd_fetch(const struct apiclient *c, uint32_t job,
				 const char *checked, unsigned timeout_ms,
				 struct members *ms, elastic_error_t *err);

/*
 * POST /v1/groups/<job>/report: the ranks run in world generation, and
 * took exit_ms (-1: not measured) from being told of the last event to
 * exiting; relay: the launcher relays an event raised in the base to
 * every member's ranks (elasticd then signals the base alone).  0, or -1
 * with err set.
 */
int elasticd_report(const struct apiclient *c, uint32_t job,
		    uint64_t generation, long exit_ms, bool relay,
		    unsigned timeout_ms, elastic_error_t *err);

/*
 * POST /v1/groups/<job>/suspect?node=<node>&why=<why>: the launcher found
 * node lost, hung or straggling (why: lost, hang, straggler); elasticd
 * drains it or reports it (SuspectNodes).  0, or -1 with err set.
 */
int elasticd_suspect(const struct apiclient *c, uint32_t job, const char *node,
		     const char *why, unsigned timeout_ms,
		     elastic_error_t *err);

/*
 * POST /v1/groups/<job>/notify?event=<event>: something happened to job
 * that elasticd should read from Slurm now rather than at its next poll
 * (elasticd(8), NOTIFICATIONS).  0, or -1 with err set.
 */
int elasticd_notify(const struct apiclient *c, uint32_t job, const char *event,
		    unsigned timeout_ms, elastic_error_t *err);

/*
 * POST /v1/groups/<job>/account?<query>: the launcher's ledger (query:
 * tally_format()'s pairs, elastic-run(1), ACCOUNTING).  0 when elasticd
 * kept it, 1 when it answered 404 (an elasticd that keeps no accounts,
 * or a group it does not know), -1 with err set otherwise.
 */
int elasticd_account(const struct apiclient *c, uint32_t job, const char *query,
		     unsigned timeout_ms, elastic_error_t *err);

#endif
