/* A lost node let go in Slurm before SlurmdTimeout (elastic-run.h). */
#include "config.h"

#include "elastic-run.h"

/* The base's nodes but those in drop[0..n-1], as a Slurm node list:
 * malloc'd, NULL when nothing is left or out of memory. */
static char *nodes_but(const char *list, const char (*drop)[64], size_t n)
{
	compat_hostlist_t all = slurm_hostlist_create(list);
	compat_hostlist_t rest = slurm_hostlist_create(NULL);
	char *name, *out = NULL;
	size_t kept = 0;

	while (all && rest && (name = slurm_hostlist_shift(all))) {
		size_t k = 0;

		while (k < n && strcmp(name, drop[k]) != 0)
			k++;
		if (k == n && slurm_hostlist_push_host(rest, name) > 0)
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

/* The base without drop[], as --no-kill does when Slurm marks them down. */
static const char *shrink_base(uint32_t job, const char *list,
			       const char (*drop)[64], size_t n)
{
	job_desc_msg_t d;
	char *rest = nodes_but(list, drop, n);
	int rc;

	if (!rest)
		return "kept";
	slurm_init_job_desc_msg(&d);
	COMPAT_JOB_DESC_JOB_ID(&d) = job;
	d.req_nodes = rest;
	rc = slurm_update_job(&d);
	if (rc != SLURM_SUCCESS)
		elog_warn("job %u without %s (NodeList=%s): %s", job, drop[0],
			  rest, slurm_strerror(errno));
	free(rest);
	return rc == SLURM_SUCCESS ? "shrunk" : "kept";
}

/* The k-th node that leaves (0: w->lost_node, then w->also[]), with
 * its member job in *job; k runs to w->nalso. */
static const char *leaving(const struct watch *w, size_t k, uint32_t *job)
{
	*job = k ? w->also_job[k - 1] : w->lost_job;
	return k ? w->also[k - 1] : w->lost_node;
}

/* Member job's nodes that leave (but the batch host): into out. */
static size_t leaving_of(const struct members *ms, const struct watch *w,
			 uint32_t job, char (*out)[64])
{
	size_t n = 0;
	uint32_t j;

	for (size_t k = 0; k <= w->nalso; k++) {
		const char *node = leaving(w, k, &j);

		if (j == job && strcmp(node, ms->master_host) != 0)
			snprintf(out[n++], 64, "%s", node);
	}
	return n;
}

/* Let go of member i's nodes that leave; say so. */
static void release_member(const struct config *c, struct source *src,
			   const struct members *ms, size_t i,
			   const struct watch *w, unsigned restart)
{
	static char drop[WATCH_ALSO_MAX + 1][64];
	uint32_t job = ms->m[i].job_id, j;
	size_t n = leaving_of(ms, w, job, drop);
	const char *how = "kept";

	if (job != c->job_id) {
		/* A unit of ours: what Slurm would end at SlurmdTimeout. */
		if (compat_kill_job(job, SIGKILL, 0) == SLURM_SUCCESS)
			how = "cancelled";
		else
			elog_warn("cancel job %u: %s", job,
				  slurm_strerror(errno));
	} else if (n) {
		how = shrink_base(job, member_nodes(ms, i), drop, n);
	}
	tell_elasticd(src, job, "fault", ED_TIMEOUT_MS);
	for (size_t k = 0; k <= w->nalso; k++) {
		const char *node = leaving(w, k, &j);

		if (j == job)
			timeline("released", restart, ms->nnodes,
				 "node=%s job=%u slurm=%s", node, job, how);
	}
}

void suspect_node(const struct config *c, struct source *src, const char *node,
		  const char *why)
{
	elastic_error_t err;

	if (src->have_ed && elasticd_suspect(&src->ed, c->job_id, node, why,
					     ED_TIMEOUT_MS, &err) < 0)
		elog_warn("suspect %s: %s", node, err.text);
}

void release_lost(const struct config *c, struct source *src,
		  const struct members *ms, struct launch *l,
		  const struct watch *w, unsigned restart)
{
	const char *why =
	    !strcmp(w->cause, "node-lost") || !strcmp(w->cause, "split")
		? "lost"
		: w->cause;
	uint32_t j;

	/* Before they are let go: elasticd takes only a node the group
	 * holds. */
	for (size_t k = 0; k <= w->nalso; k++)
		suspect_node(c, src, leaving(w, k, &j), why);
	for (size_t i = 0; i < ms->n; i++) {
		bool leaves = false;

		for (size_t k = 0; k <= w->nalso && !leaves; k++) {
			leaving(w, k, &j);
			leaves = j == ms->m[i].job_id;
		}
		if (!leaves)
			continue;
		release_member(c, src, ms, i, w, restart);
		kill_member(l, ms->m[i].job_id);
	}
	/* The next world waits for elasticd's, which waits the fault
	 * timeout for a replacement. */
	src->degraded = true;
}

/* Faults whose ranks cannot take part in leaving: they are lost, stopped
 * or out of reach (a straggler's ranks still run, and leave as at a
 * preemption). */
static bool fault_unheard(const struct watch *w)
{
	return w->cause && w->lost_job &&
	       (!strcmp(w->cause, "node-lost") || !strcmp(w->cause, "hang") ||
		!strcmp(w->cause, "split"));
}

const char *lost_addrs(const struct watch *w, char *out, size_t len)
{
	size_t off = 0;
	uint32_t j;
	char addr[256];

	if (!fault_unheard(w) || len == 0)
		return NULL;
	out[0] = '\0';
	for (size_t k = 0; k <= w->nalso; k++) {
		int n;

		node_addr(leaving(w, k, &j), addr, sizeof(addr));
		n = snprintf(out + off, len - off, "%s%s", off ? "," : "",
			     addr);
		if (n < 0 || (size_t)n >= len - off) {
			out[off] = '\0'; /* those that fit */
			break;
		}
		off += (size_t)n;
	}
	return off ? out : NULL;
}

static bool own_swap(const struct members *ms, const uint32_t *jobs, size_t n,
		     struct members *nm)
{
	struct members *usable = malloc(sizeof(*usable));
	elastic_error_t err;
	bool ok;

	if (!usable)
		return false;
	*usable = *ms;
	sparecheck_usable(usable);
	ok = members_swap(usable, jobs, n, nm, &err) == 0;
	free(usable);
	return ok;
}

bool own_world(const struct config *c, struct source *src,
	       const struct members *ms, const struct watch *w,
	       struct members *nm)
{
	uint32_t jobs[WATCH_ALSO_MAX + 1];
	size_t n = 0;
	elastic_error_t err;

	/* Without elasticd the allocation is the world; a base that lost a
	 * node changes its node list, which no rank survives in place. */
	if (!src->ed_mode || !fault_unheard(w))
		return false;
	for (size_t k = 0; k <= w->nalso; k++) {
		uint32_t j;

		leaving(w, k, &j);
		if (j == c->job_id)
			return false;
		jobs[n++] = j;
	}
	/* A spare of as many nodes in each one's place (one that passed
	 * its checks: sparecheck.c): the same size. */
	if (own_swap(ms, jobs, n, nm)) {
		src->own_from = ms->generation;
		return true;
	}
	if (members_without(ms, jobs, n, nm, &err) < 0) {
		elog_debug("own world: %s", err.text);
		return false;
	}
	if (nm->n == ms->n || !options_size_allowed(&c->opts, nm->nnodes))
		return false;
	src->own_from = ms->generation;
	return true;
}
