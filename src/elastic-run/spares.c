/*
 * Warm spares (elastic-run.h): the joiners of the in-place path started
 * ahead on the group's spare units, so that a swap waits for no srun and
 * no import.  Only while every rank of the world uses the in-place API: a
 * spare of a script without it holds its node and nothing more.  A warm
 * spare's ranks are in no world: they wait for one that names them
 * (slurm_elastic's WorldClient.wait_member), and a resize that takes the
 * spare in adopts their srun (spares_take()).
 */
#include "config.h"

#include "elastic-run.h"

/* After a warm spare's srun ended (its unit ended, its ranks failed):
 * how long before spares are started again. */
#define SPARE_RETRY_S 10

static struct launch warm; /* one srun per warm spare */
static bool cut[MAX_MEMBERS];
static double next_try;

static void warm_drop(size_t i)
{
	warm.running -= !warm.done[i];
	warm.n--;
	warm.pid[i] = warm.pid[warm.n];
	warm.job[i] = warm.job[warm.n];
	warm.first_step[i] = warm.first_step[warm.n];
	warm.status[i] = warm.status[warm.n];
	warm.done[i] = warm.done[warm.n];
	cut[i] = cut[warm.n];
	warm.njobs = warm.n;
}
/* Start the joiners of spare k of ms: 0, or -1. */
static int warm_start(const struct config *c, const struct members *ms,
		      size_t k, unsigned restart)
{
	struct members *world = malloc(sizeof(*world));
	struct members *jm = calloc(1, sizeof(*jm));
	struct launch one;
	elastic_error_t err;
	int rc = -1;

	/* Its ranks' variables as if after the world: a joiner takes its
	 * place from the world that names it. */
	if (!world || !jm)
		goto out;
	*world = *ms;
	if (members_add(world, ms->spare[k].job_id, ms->spare[k].nnodes,
			spare_nodes(ms, k), &err) < 0 ||
	    members_add(jm, ms->spare[k].job_id, ms->spare[k].nnodes,
			spare_nodes(ms, k), &err) < 0 ||
	    launch_members(c, jm, world, restart, &one) < 0)
		goto out;
	cut[warm.n] = false;
	launch_append(&warm, &one, 0);
	timeline("spare-warming", restart, ms->nnodes, "job=%u nodes=%s",
		 ms->spare[k].job_id, spare_nodes(ms, k));
	rc = 0;
out:
	free(world);
	free(jm);
	return rc;
}

void spares_tend(const struct config *c, const struct members *ms,
		 unsigned restart)
{
	size_t i, k;

	reap(&warm);
	for (i = 0; i < warm.n;) {
		if (warm.done[i]) {
			if (!cut[i]) {
				timeline("spare-ended", restart, ms->nnodes,
					 "job=%u status=%d", warm.job[i],
					 warm.status[i]);
				next_try = now_s() + SPARE_RETRY_S;
			}
			warm_drop(i);
			continue;
		}
		/* No longer a spare (released, or gone from the group):
		 * its ranks go, without waiting for them here. */
		if (!cut[i] && !members_has_spare(ms, warm.job[i])) {
			launch_cut(&warm, i);
			cut[i] = true;
		}
		i++;
	}
	if (!c->ip || now_s() < next_try || !inplace_capable(c, ms))
		return;
	for (k = 0; k < ms->nspare && warm.n < MAX_MEMBERS; k++)
		if (sparecheck_ok(ms->spare[k].job_id) &&
		    launch_index(&warm, ms->spare[k].job_id) < 0 &&
		    warm_start(c, ms, k, restart) < 0) {
			elog_warn("spare %u: its ranks did not start; again "
				  "in %d s",
				  ms->spare[k].job_id, SPARE_RETRY_S);
			next_try = now_s() + SPARE_RETRY_S;
			return;
		}
}

bool spares_take(uint32_t job, struct launch *jl)
{
	int i = launch_index(&warm, job);

	reap(&warm);
	if (i < 0 || warm.done[i] || cut[i] || jl->n == MAX_MEMBERS)
		return false;
	launch_append(jl, &warm, (size_t)i);
	warm_drop((size_t)i);
	return true;
}

size_t spares_warm(void)
{
	size_t n = 0;

	for (size_t i = 0; i < warm.n; i++)
		n += !warm.done[i] && !cut[i];
	return n;
}

void spares_stop(void)
{
	if (!warm.n)
		return;
	kill_launch(&warm);
	memset(&warm, 0, sizeof(warm));
	memset(cut, 0, sizeof(cut));
}
