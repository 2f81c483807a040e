#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "groupinfo.h"

const char *group_state_name(enum group_state s)
{
	static const char *const names[] = {
		[GROUP_PENDING] = "PENDING",
		[GROUP_STARTING] = "STARTING",
		[GROUP_RUNNING] = "RUNNING",
		[GROUP_RESIZING] = "RESIZING",
		[GROUP_DEGRADED] = "DEGRADED",
		[GROUP_COMPLETING] = "COMPLETING",
		[GROUP_ENDED] = "ENDED",
	};

	return (unsigned)s <= GROUP_ENDED ? names[s] : "UNKNOWN";
}

const char *member_kind_name(enum member_kind k)
{
	static const char *const names[] = {
		[MEMBER_BASE] = "base",
		[MEMBER_PREEMPTIBLE] = "preemptible",
		[MEMBER_ONDEMAND] = "ondemand",
	};

	return (unsigned)k <= MEMBER_ONDEMAND ? names[k] : "unknown";
}

const char *member_state_name(enum member_state s)
{
	static const char *const names[] = {
		[MEMBER_PENDING] = "pending",
		[MEMBER_RUNNING] = "running",
		[MEMBER_PREEMPTED] = "preempted",
		[MEMBER_RELEASING] = "releasing",
	};

	return (unsigned)s <= MEMBER_RELEASING ? names[s] : "unknown";
}

const char *growth_held_name(enum growth_held h)
{
	static const char *const names[] = {
		[HELD_NONE] = "",	    [HELD_NODES] = "nodes",
		[HELD_CAP] = "cap",	    [HELD_TIME] = "time",
		[HELD_BACKOFF] = "backoff", [HELD_PARTITION] = "partition",
	};

	return (unsigned)h <= HELD_PARTITION ? names[h] : "";
}

const char *event_cause_name(enum event_cause c)
{
	static const char *const names[] = {
		[CAUSE_START] = "start",
		[CAUSE_GROW] = "grow",
		[CAUSE_PREEMPT] = "preempt",
		[CAUSE_FAIL] = "fail",
		[CAUSE_ONDEMAND] = "ondemand",
		[CAUSE_RETURN] = "return",
		[CAUSE_REBALANCE] = "rebalance",
		[CAUSE_END] = "end",
		[CAUSE_GRACE_WARNING] = "grace-warning",
		[CAUSE_SUSPECT] = "suspect",
	};

	return (unsigned)c <= CAUSE_SUSPECT ? names[c] : "unknown";
}

static void group_free(struct group_info *g)
{
	free(g->user);
	free(g->account);
	free(g->partition);
	free(g->master_addr);
	for (size_t i = 0; i < g->nmembers; i++)
		free(g->members[i].nodes);
	free(g->members);
	for (size_t i = 0; i < g->nevents; i++)
		free(g->events[i].detail);
	free(g->events);
}

void view_free(struct elasticd_view *v)
{
	int e = errno;

	if (!v)
		return;
	for (size_t i = 0; i < v->ngroups; i++)
		group_free(&v->groups[i]);
	free(v->groups);
	free(v);
	errno = e;
}
