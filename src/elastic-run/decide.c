#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "libelastic/elastic.h"
#include "decide.h"

enum member_end member_end_of(int st)
{
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return MEMBER_OK;
	if (WIFEXITED(st) && WEXITSTATUS(st) == ELASTIC_EXIT_EVENT)
		return MEMBER_EVENT;
	return MEMBER_FAILED;
}

static void decide_set(struct decision_out *r, enum decision what,
		       const char *why, bool unexplained)
{
	r->what = what;
	r->why = why;
	r->unexplained = unexplained;
}

static void failure(const struct launch_obs *o, struct decision_out *r)
{
	if (o->failures + 1 > o->max_restarts)
		decide_set(r, DECIDE_GIVE_UP, "ranks-failed", false);
	else
		decide_set(r, DECIDE_RETRY, "ranks-failed", false);
}

void decide(const struct launch_obs *o, struct decision_out *r)
{
	if (o->stopping)
		return decide_set(r, DECIDE_STOP, "stopping", false);
	if (o->finished && o->ok && !o->failed && !o->event_exits)
		return decide_set(r, DECIDE_SUCCESS, "ranks-finished", false);
	/* Whatever the ranks' statuses: a failed collective after a lost
	 * member is the event's doing, and ranks that exited 0 meanwhile
	 * may have stopped for it through a peer. */
	if (o->fault)
		return decide_set(r, DECIDE_RELAUNCH, o->fault, false);
	if (o->event)
		return decide_set(r, DECIDE_RELAUNCH, "event", false);
	if (o->world_changed)
		return decide_set(r, DECIDE_RELAUNCH, "world-changed", false);
	if (o->event_exits > 0) {
		/* A rank was told what the launcher was not (a signal to its
		 * node only, a peer's flag): believe it, within a bound. */
		if (o->unexplained + 1 > DECIDE_MAX_UNEXPLAINED)
			return failure(o, r);
		return decide_set(r, DECIDE_RELAUNCH, "ranks-event-exit", true);
	}
	if (o->failed > 0)
		return failure(o, r);
	if (o->ok == 0) /* nothing ran: never a success */
		return failure(o, r);
	decide_set(r, DECIDE_SUCCESS, "ranks-finished", false);
}

const char *decision_name(enum decision d)
{
	switch (d) {
	case DECIDE_SUCCESS:
		return "success";
	case DECIDE_RELAUNCH:
		return "relaunch";
	case DECIDE_RETRY:
		return "retry";
	case DECIDE_GIVE_UP:
		return "give-up";
	case DECIDE_STOP:
		return "stop";
	}
	return "?";
}

const char *ompi_plm_of(const char *text)
{
	static const char tag[] = "(Open MPI) ";
	const char *p = text ? strstr(text, tag) : NULL;
	char *end;
	long major;

	if (!p)
		return NULL;
	p += sizeof(tag) - 1;
	major = strtol(p, &end, 10);
	if (end == p || *end != '.' || major < 1)
		return NULL;
	return major >= 5 ? "ssh" : "rsh";
}
