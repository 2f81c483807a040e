/*
 * In-place resizes (elastic-run.h): the launch table over the next world,
 * and the ranks of members that left it, reaped, and killed after the
 * grace.
 */
#include "config.h"

#include "elastic-run.h"

/* Member index of job in l, or -1. */
int launch_index(const struct launch *l, uint32_t job)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->job[i] == job)
			return (int)i;
	return -1;
}
/* The ranks of members that left: reaped, and killed after the grace. */
struct leaving {
	size_t n;
	pid_t pid[MAX_MEMBERS];
	uint32_t job[MAX_MEMBERS], first_step[MAX_MEMBERS];
	double deadline;
};
static void reap_leaving(struct leaving *lv, bool kill_now)
{
	size_t i;
	int st;

	for (i = 0; i < lv->n;) {
		if (waitpid(lv->pid[i], &st, WNOHANG) == lv->pid[i]) {
			lv->pid[i] = lv->pid[--lv->n];
			lv->job[i] = lv->job[lv->n];
			lv->first_step[i] = lv->first_step[lv->n];
			continue;
		}
		if (kill_now || now_s() >= lv->deadline) {
			struct launch one = { 0 };

			one.n = one.njobs = 1;
			one.running = 1;
			one.pid[0] = lv->pid[i];
			one.job[0] = lv->job[i];
			one.first_step[0] = lv->first_step[i];
			kill_launch(&one);
			lv->pid[i] = lv->pid[--lv->n];
			lv->job[i] = lv->job[lv->n];
			lv->first_step[i] = lv->first_step[lv->n];
			continue;
		}
		i++;
	}
}
static struct leaving leavers;

void inplace_reap(void)
{
	reap_leaving(&leavers, false);
}
void inplace_leavers_kill(void)
{
	reap_leaving(&leavers, true);
}

/*
 * The launch over the next world: survivors keep their sruns, leavers'
 * sruns go to `leavers`, joiners' come from `jl` (their launch).
 */
void inplace_relaunch_table(const struct config *c, struct launch *l,
			    const struct members *nm, const struct launch *jl)
{
	struct launch old = *l;
	size_t i;
	int k;

	for (i = 0; i < old.n; i++) {
		size_t j;

		for (j = 0; j < nm->n && nm->m[j].job_id != old.job[i]; j++)
			;
		if (j == nm->n && !old.done[i] && leavers.n < MAX_MEMBERS) {
			leavers.pid[leavers.n] = old.pid[i];
			leavers.job[leavers.n] = old.job[i];
			leavers.first_step[leavers.n++] = old.first_step[i];
		}
	}
	leavers.deadline = now_s() + c->grace;
	memset(l, 0, sizeof(*l));
	for (i = 0; i < nm->n; i++) {
		const struct launch *from = &old;

		k = launch_index(&old, nm->m[i].job_id);
		if (k < 0) {
			from = jl;
			k = launch_index(jl, nm->m[i].job_id);
		}
		launch_append(l, from, (size_t)k);
	}
	l->overlap = old.overlap || jl->overlap;
}
