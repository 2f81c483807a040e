/* A lost node let go in Slurm before SlurmdTimeout (elastic-run.h). */
#include "config.h"

#include "elastic-run.h"

/* The base's nodes but `node`, as a Slurm node list: malloc'd, NULL when
 * nothing is left or out of memory. */
static char *nodes_but(const char *list, const char *node)
{
	compat_hostlist_t all = slurm_hostlist_create(list);
	compat_hostlist_t rest = slurm_hostlist_create(NULL);
	char *name, *out = NULL;
	size_t kept = 0;

	while (all && rest && (name = slurm_hostlist_shift(all))) {
		if (strcmp(name, node) != 0 &&
		    slurm_hostlist_push_host(rest, name) > 0)
			kept++;
		free(name);
	}
	/* (24.11 has no _malloc form: a buffer of the pool's size.) */
	if (kept && (out = malloc(MEMBERS_NODES_POOL)) &&
	    slurm_hostlist_ranged_string(rest, MEMBERS_NODES_POOL, out) < 0) {
		free(out);
		out = NULL;
	}
	if (all)
		slurm_hostlist_destroy(all);
	if (rest)
		slurm_hostlist_destroy(rest);
	return out;
}

/* The base without node, as --no-kill does when Slurm marks it down. */
static const char *shrink_base(uint32_t job, const char *list, const char *node)
{
	job_desc_msg_t d;
	char *rest = nodes_but(list, node);
	int rc;

	if (!rest)
		return "kept";
	slurm_init_job_desc_msg(&d);
	d.job_id = job;
	d.req_nodes = rest;
	rc = slurm_update_job(&d);
	if (rc != SLURM_SUCCESS)
		elog_warn("job %u without %s (NodeList=%s): %s", job, node,
			  rest, slurm_strerror(errno));
	free(rest);
	return rc == SLURM_SUCCESS ? "shrunk" : "kept";
}

void release_lost(const struct config *c, struct source *src,
		  const struct members *ms, struct launch *l,
		  const struct watch *w, unsigned restart)
{
	const char *how = "kept";
	elastic_error_t err;
	size_t i;

	for (i = 0; i < ms->n && ms->m[i].job_id != w->lost_job; i++)
		;
	if (i == ms->n)
		return;
	/* Before it is let go: elasticd takes only a node the group holds. */
	if (src->have_ed &&
	    elasticd_suspect(&src->ed, c->job_id, w->lost_node,
			     strcmp(w->cause, "hang") ? "lost" : "hang",
			     ED_TIMEOUT_MS, &err) < 0)
		elog_warn("suspect %s: %s", w->lost_node, err.text);
	if (w->lost_job != c->job_id) {
		/* A unit of ours: what Slurm would end at SlurmdTimeout. */
		if (slurm_kill_job(w->lost_job, SIGKILL, 0) == SLURM_SUCCESS)
			how = "cancelled";
		else
			elog_warn("cancel job %u: %s", w->lost_job,
				  slurm_strerror(errno));
	} else if (strcmp(w->lost_node, ms->master_host) != 0) {
		how = shrink_base(c->job_id, member_nodes(ms, i), w->lost_node);
	}
	/* The next world waits for elasticd's, which waits the fault
	 * timeout for a replacement. */
	src->degraded = true;
	tell_elasticd(src, w->lost_job, "fault", ED_TIMEOUT_MS);
	timeline("released", restart, ms->nnodes, "node=%s job=%u slurm=%s",
		 w->lost_node, w->lost_job, how);
	kill_member(l, w->lost_job);
}
