/* The world the ranks span: the group's allocations from elasticd, or the
 * job's own; is it still whole? (elastic-run.h) */
#include "config.h"

#include "elastic-run.h"

int load_alloc(uint32_t job_id, struct alloc_view *v, elastic_error_t *err)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *j;

	memset(v, 0, sizeof(*v));
	if (job_load(job_id, &msg, err) < 0)
		return -1;
	j = &msg->job_array[0];
	v->nnodes = j->num_nodes;
	if (j->nodes && strlen(j->nodes) >= sizeof(v->nodes)) {
		compat_free_job_info_msg(msg);
		return elastic_errorf(err,
				      "job %u: node list longer than %zu "
				      "characters",
				      job_id, sizeof(v->nodes) - 1);
	}
	if (j->nodes)
		snprintf(v->nodes, sizeof(v->nodes), "%s", j->nodes);
	if (j->batch_host)
		snprintf(v->batch_host, sizeof(v->batch_host), "%s",
			 j->batch_host);
	v->elastic = j->admin_comment &&
		     options_parse_tag(j->admin_comment, &v->opts, NULL) == 0;
	compat_free_job_info_msg(msg);
	return 0;
}
/* A node's address (NodeAddr), or its name if that cannot be read. */
void node_addr(const char *node, char *out, size_t len)
{
	node_info_msg_t *msg = NULL;

	snprintf(out, len, "%s", node);
	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
	    SLURM_SUCCESS)
		return;
	if (msg->record_count > 0 && msg->node_array[0].node_addr)
		snprintf(out, len, "%s", msg->node_array[0].node_addr);
	slurm_free_node_info_msg(msg);
}
/* Membership without elasticd: the job's own allocation. */
static int members_from_allocation(uint32_t job_id, const struct alloc_view *v,
				   struct members *ms, elastic_error_t *err)
{
	const char *env;

	memset(ms, 0, sizeof(*ms));
	if (members_add(ms, job_id, v->nnodes, v->nodes, err) < 0)
		return -1;
	if (ms->m[0].nnodes == 0) {
		env = getenv("SLURM_JOB_NUM_NODES");
		unsigned long n;

		if (!env || parse_uint(env, 1, 100000, &n) != PARSE_OK)
			return elastic_errorf(
			    err, "job %u: holds no nodes (is it running?)",
			    job_id);
		ms->m[0].nnodes = (unsigned)n;
	}
	ms->nnodes = ms->m[0].nnodes;
	{
		char *first = nodelist_first_host(member_nodes(ms, 0));

		snprintf(ms->master_host, sizeof(ms->master_host), "%s",
			 first ? first : "");
		free(first);
	}
	if (!ms->master_host[0])
		snprintf(ms->master_host, sizeof(ms->master_host), "%s",
			 v->batch_host);
	return 0;
}
/* The rendezvous address: the master host's NodeAddr. */
static void resolve_master(struct members *ms)
{
	if (ms->master_host[0])
		node_addr(ms->master_host, ms->master_addr,
			  sizeof(ms->master_addr));
	else if (gethostname(ms->master_addr, sizeof(ms->master_addr)) != 0)
		snprintf(ms->master_addr, sizeof(ms->master_addr), "127.0.0.1");
}

/* Is job id this group's own in Slurm (its base or a unit of it, ours)?
 * FETCH_OK, FETCH_UNVERIFIED when not, FETCH_ERROR when Slurm did not
 * answer; err says why. */
static enum fetch_result job_is_ours(const struct config *c, struct source *src,
				     uint32_t id, elastic_error_t *err)
{
	job_info_msg_t *msg = NULL;
	size_t k;
	int rc;

	for (k = 0; k < src->nours && src->ours[k] != id; k++)
		;
	if (k < src->nours || id == c->job_id)
		return FETCH_OK;
	if (job_load(id, &msg, NULL) < 0) {
		rc = errno;
		if (rc == ENOENT) {
			elastic_errorf(err,
				       "elasticd's world names job %u, which "
				       "Slurm does not show",
				       id);
			return FETCH_UNVERIFIED;
		}
		elastic_errorf(err, "job %u of elasticd's world: %s", id,
			       slurm_strerror(rc));
		return rc == ESLURM_INVALID_JOB_ID ? FETCH_UNVERIFIED
						   : FETCH_ERROR;
	}
	rc = members_job_is_ours(c->job_id, (uint32_t)getuid(), id,
				 msg->job_array[0].user_id,
				 msg->job_array[0].admin_comment, err);
	compat_free_job_info_msg(msg);
	if (rc < 0)
		return FETCH_UNVERIFIED;
	if (src->nours == MAX_MEMBERS)
		src->nours = 0; /* the oldest are long gone */
	src->ours[src->nours++] = id;
	return FETCH_OK;
}
/*
 * Is every job of elasticd's world this group's own in Slurm?  Even
 * elasticd's word is not taken for a job to srun into, signal and kill.
 * A spare that is not is left out (the world stands without it).
 */
static enum fetch_result world_is_ours(const struct config *c,
				       struct source *src, struct members *ms,
				       elastic_error_t *err)
{
	enum fetch_result fr;
	elastic_error_t e;

	for (size_t i = 0; i < ms->n; i++)
		if ((fr = job_is_ours(c, src, ms->m[i].job_id, err)) !=
		    FETCH_OK)
			return fr;
	for (size_t i = 0; i < ms->nspare;) {
		if (job_is_ours(c, src, ms->spare[i].job_id, &e) == FETCH_OK) {
			i++;
			continue;
		}
		elog_warn("spare left out: %s", e.text);
		ms->spare[i] = ms->spare[--ms->nspare];
	}
	return FETCH_OK;
}
static enum fetch_result ed_fetch(const struct config *c, struct source *src,
				  struct members *ms)
{
	elastic_error_t err;
	enum fetch_result fr = elasticd_fetch(
	    &src->ed, c->job_id, sparecheck_list(), ED_TIMEOUT_MS, ms, &err);

	if (fr == FETCH_OK)
		fr = world_is_ours(c, src, ms, &err);
	if (fr == FETCH_OK && ms->generation != src->seen_generation) {
		elog_debug("elasticd at %s: world generation %llu, %zu "
			   "allocation(s), %u node(s)%s",
			   src->ed.server, (unsigned long long)ms->generation,
			   ms->n, ms->nnodes, ms->degraded ? ", degraded" : "");
		src->seen_generation = ms->generation;
	}

	if (fr == FETCH_NOT_FORMED)
		snprintf(src->why, sizeof(src->why), "no world formed yet");
	else if (fr != FETCH_OK)
		snprintf(src->why, sizeof(src->why), "%s", err.text);
	if (fr == FETCH_OK || fr == FETCH_NOT_FORMED) {
		if (src->ed_trouble)
			elog_info("elasticd at %s answers again",
				  src->ed.server);
		src->ed_trouble = false;
	} else if (src->ed_mode && !src->ed_trouble) {
		elog_warn("%s (keeping the world)", err.text);
		src->ed_trouble = true;
	}
	return fr;
}
/*
 * Which elasticd to ask: --elasticd, ELASTIC_RUN_ELASTICD, else what
 * elastic.conf (p, read from conf) says, by server_choose(); "none" asks
 * none.  The munge socket: --munge-socket, ELASTIC_RUN_MUNGE_SOCKET,
 * ElasticdMungeSocket, munge's.  An address that cannot be elasticd's
 * fails here, before anything is launched.
 */
int source_init(struct source *src, const char *server, const char *munge,
		const struct elastic_policy *p, const char *conf,
		const elastic_error_t *p_err)
{
	const char *from = "--elasticd";
	struct server_addr addr;
	elastic_error_t err;
	int rc;

	memset(src, 0, sizeof(*src));
	src->exit_ms = -1;
	if (!server && (server = getenv("ELASTIC_RUN_ELASTICD")) && *server)
		from = "ELASTIC_RUN_ELASTICD";
	if (server && !*server)
		server = NULL;
	if (!munge && (munge = getenv("ELASTIC_RUN_MUNGE_SOCKET")) && !*munge)
		munge = NULL;
	if (server && !strcmp(server, "none"))
		return 0;
	if (!p && (!server || !munge)) {
		elog_warn("%s", p_err->text);
		if (!server)
			return 0;
	}
	rc = server_choose(server, from, p, conf, &addr, &err);
	if (rc < 0) {
		elog_error("%s (or --elasticd=none)", err.text);
		return -1;
	}
	if (rc == SERVER_NONE) {
		/* Said once: every launch line says source=allocation. */
		elog_info("no ElasticdServer in %s (nor --elasticd): "
			  "the world is this job's own allocation alone",
			  conf);
		return 0;
	}
	if (p && !munge && p->elasticd_munge_socket[0])
		munge = p->elasticd_munge_socket;
	if (apiclient_init(&src->ed, &addr, munge, p ? p->elasticd_user : NULL,
			   PROG, &err) < 0) {
		elog_error("%s in %s", err.text, conf);
		return -1;
	}
	src->have_ed = true;
	return 0;
}
/* "101:n[1-2],102:n3" for the timeline. */
void member_list(const struct members *ms, char *out, size_t len)
{
	size_t i, off = 0;
	int w;

	out[0] = '\0';
	for (i = 0; i < ms->n && off < len; i++) {
		w = snprintf(out + off, len - off, "%s%u:%s", i ? "," : "",
			     ms->m[i].job_id,
			     member_nodes(ms, i)[0] ? member_nodes(ms, i)
						    : "?");
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* A world elasticd stands by: not one that lost members with no new one
 * formed yet (elasticd says DEGRADED). */
static bool world_current(const struct members *ms, uint64_t after_gen)
{
	return !ms->degraded || ms->generation > after_gen;
}
/*
 * elasticd formed worlds of the group and has no current one: the world
 * lost members and, past the fault timeout, fewer nodes than
 * --elastic-min are left (elasticd says DEGRADED).  What is left (the
 * base alone, say) is a size the job does not take, so no rank runs until
 * elasticd's next world (or until the job is stopped).  FETCH_OK with a
 * current world, a result that ends the wait for another reason, or
 * MEMBERS_STOPPED.
 */
static int wait_for_world(const struct config *c, struct source *src,
			  unsigned restart, uint64_t after_gen,
			  struct members *ms)
{
	enum fetch_result fr;

	timeline("waiting", restart, 0,
		 "source=elasticd reason=no-world state=%s min=%u",
		 ms->degraded ? "DEGRADED" : "not-formed", c->opts.min);
	while (!got_stop) {
		sleep_ms(ED_POLL_MS);
		ledger_tick(src, NULL);
		fr = ed_fetch(c, src, ms);
		if (fr == FETCH_OK && !world_current(ms, after_gen))
			continue;
		if (fr != FETCH_NOT_FORMED && fr != FETCH_UNREACHABLE &&
		    fr != FETCH_UNVERIFIED)
			return (int)fr;
	}
	return MEMBERS_STOPPED;
}
void tell_elasticd(struct source *src, uint32_t job, const char *event,
		   unsigned timeout_ms)
{
	elastic_error_t err;

	if (!src->have_ed || !job)
		return;
	if (elasticd_notify(&src->ed, job, event, timeout_ms, &err) < 0)
		elog_debug("notify %s: %s", event, err.text);
}

/*
 * The world to launch now.  after_gen: the generation of the world the
 * ranks just left (0 at the first launch): after an elastic event,
 * elasticd publishes the next one within a poll, so wait briefly for it.
 * MEMBERS_STOPPED if the job was told to stop meanwhile.
 */
int current_members(const struct config *c, struct source *src,
		    uint64_t after_gen, unsigned restart, struct members *ms,
		    elastic_error_t *err)
{
	struct alloc_view v;
	double deadline;
	enum fetch_result fr;
	bool say = false;

	if (src->have_ed) {
		double wait = !src->ed_mode ? ED_START_WAIT_S
			      : !after_gen  ? ED_OUTAGE_WAIT_S
			      : src->degraded
				  ? c->fault_timeout + FAULT_MARGIN_S
				  : RELAUNCH_GEN_WAIT_S;

		bool fault = src->ed_mode && after_gen && src->degraded;
		double tell = 0;

		deadline = now_s() + wait;
		src->degraded = false;
		for (;;) {
			/* A member or node lost: elasticd reads the group
			 * now rather than at its poll, and while slurmctld
			 * has not declared the node down, again. */
			if (fault && now_s() >= tell) {
				tell_elasticd(src, c->job_id, "fault",
					      ED_TIMEOUT_MS);
				tell = now_s() + FAULT_TELL_S;
			}
			fr = ed_fetch(c, src, ms);
			if (fr == FETCH_OK &&
			    (ms->generation > after_gen || now_s() >= deadline))
				break;
			/* Never there: no elasticd on this cluster, or
			 * not elasticd that answers. */
			if ((fr == FETCH_UNREACHABLE ||
			     fr == FETCH_UNVERIFIED) &&
			    !src->ed_mode)
				break;
			if (now_s() >= deadline)
				break;
			ledger_tick(src, NULL);
			sleep_ms(ED_RETRY_MS);
		}
		if (src->ed_mode &&
		    (fr == FETCH_NOT_FORMED ||
		     (fr == FETCH_OK && !world_current(ms, after_gen)))) {
			int w = wait_for_world(c, src, restart, after_gen, ms);

			if (w == MEMBERS_STOPPED)
				return w;
			fr = (enum fetch_result)w;
		}
		if (fr == FETCH_OK) {
			if (src->ed_said && !src->ed_mode)
				elog_info("elasticd answers: the world of job "
					  "%u is the group's from now on",
					  c->job_id);
			src->ed_mode = true;
			resolve_master(ms);
			return 0;
		}
		/* Said once per outage: a job that starts at its min with
		 * elasticd down must not look like a group with no room. */
		say = src->ed_mode || !src->ed_said;
		src->ed_said = true;
		src->ed_mode = false;
		src->next_probe = now_s() + ED_PROBE_S;
	}
	if (load_alloc(c->job_id, &v, err) < 0 ||
	    members_from_allocation(c->job_id, &v, ms, err) < 0)
		return -1;
	if (say)
		elog_warn("no world of job %u from elasticd (%s): launching "
			  "over its own allocation (%u node%s), which grows "
			  "only once elasticd answers (asked every %d s)",
			  c->job_id, src->why, ms->nnodes,
			  ms->nnodes == 1 ? "" : "s", ED_PROBE_S);
	resolve_master(ms);
	return 0;
}
/*
 * While the ranks run: has the world changed?  Fills detail and returns
 * true if so.  Called every poll; asks elasticd or slurmctld when due.
 */
bool world_changed(const struct config *c, struct source *src,
		   struct members *cur, double *next_poll, char *detail,
		   size_t len)
{
	struct members *nm;
	struct alloc_view v;
	bool changed = false;
	double t = now_s();

	if (t < *next_poll)
		return false;
	nm = malloc(sizeof(*nm));
	if (!nm)
		return false;
	if (src->ed_mode) {
		*next_poll = t + ED_POLL_MS / 1000.0;
		if (ed_fetch(c, src, nm) == FETCH_OK &&
		    nm->generation > src->own_from) {
			src->own_from = 0;
			if (!members_same(nm, cur)) {
				src->degraded =
				    nm->generation == cur->generation;
				snprintf(detail, len,
					 "generation=%llu->%llu from=%u to=%u "
					 "members=%zu->%zu",
					 (unsigned long long)cur->generation,
					 (unsigned long long)nm->generation,
					 cur->nnodes, nm->nnodes, cur->n,
					 nm->n);
				changed = true;
			} else {
				elastic_error_t err;

				cur->generation = nm->generation;
				/* A new spare, or one gone: the warm
				 * spares follow (spares.c). */
				if (!spares_same(nm, cur) &&
				    members_respare(cur, nm, &err) < 0)
					elog_warn("spares: %s", err.text);
			}
		}
		free(nm);
		return changed;
	}
	*next_poll = t + ALLOC_POLL_MS / 1000.0;
	if (load_alloc(c->job_id, &v, NULL) == 0 && v.nnodes != 0 &&
	    v.nnodes != cur->nnodes) {
		snprintf(detail, len, "from=%u to=%u", cur->nnodes, v.nnodes);
		changed = true;
	} else if (src->have_ed && t >= src->next_probe) {
		src->next_probe = t + ED_PROBE_S;
		if (ed_fetch(c, src, nm) == FETCH_OK &&
		    !members_same(nm, cur)) {
			snprintf(detail, len,
				 "elasticd generation=%llu from=%u to=%u",
				 (unsigned long long)nm->generation,
				 cur->nnodes, nm->nnodes);
			changed = true;
		}
	}
	free(nm);
	return changed;
}
/*
 * Ranks failed: did the world lose a member (a node or a unit failed)?
 * elasticd and slurmctld see it within a poll or two of the ranks.
 */
bool world_moved(const struct config *c, struct source *src,
		 struct members *cur, char *detail, size_t len)
{
	double deadline = now_s() + MOVED_WAIT_S, next = 0;

	for (;;) {
		if (world_changed(c, src, cur, &next, detail, len))
			return true;
		if (now_s() >= deadline)
			return false;
		sleep_ms(MOVED_POLL_MS);
		next = 0;
	}
}
/* A member job is still what the launch started on: running, on as many
 * nodes, not in a preemption's grace.  Fills detail if not. */
static bool member_intact(const struct member *m, char *detail, size_t len)
{
	job_info_msg_t *msg = NULL;
	slurm_job_info_t *j;
	bool ok = false;

	if (job_load(m->job_id, &msg, NULL) < 0) {
		snprintf(detail, len, "job=%u gone", m->job_id);
		return false;
	}
	j = &msg->job_array[0];
	if ((j->job_state & JOB_STATE_BASE) != JOB_RUNNING)
		snprintf(detail, len, "job=%u ended", m->job_id);
	else if (j->preempt_time)
		snprintf(detail, len, "job=%u preempted", m->job_id);
	else if (m->nnodes && j->num_nodes != m->nnodes)
		snprintf(detail, len, "job=%u nnodes=%u->%u", m->job_id,
			 m->nnodes, j->num_nodes);
	else
		ok = true;
	compat_free_job_info_msg(msg);
	return ok;
}
int member_gone(const struct members *ms, struct launch *l, char *detail,
		size_t len)
{
	if (l->mpirun)
		return -1; /* one launch over every member */
	for (size_t i = 0; i < l->n; i++) {
		if (!l->done[i] || l->checked[i] ||
		    member_end_of(l->status[i]) != MEMBER_OK)
			continue;
		l->checked[i] = true;
		for (size_t k = 0; k < ms->n; k++)
			if (ms->m[k].job_id == l->job[i] &&
			    !member_intact(&ms->m[k], detail, len))
				return (int)i;
	}
	return -1;
}
/* Our own job is running in a preemption's grace: Slurm ends it when the
 * grace is over.  False when Slurm does not answer. */
bool own_job_preempted(uint32_t job_id)
{
	job_info_msg_t *msg = NULL;
	const slurm_job_info_t *j;
	bool preempted;

	if (job_load(job_id, &msg, NULL) < 0)
		return false;
	j = &msg->job_array[0];
	preempted = (j->job_state & JOB_STATE_BASE) == JOB_RUNNING &&
		    j->preempt_time != 0;
	compat_free_job_info_msg(msg);
	return preempted;
}
bool node_state_down(uint32_t st)
{
	return (st & NODE_STATE_BASE) == NODE_STATE_DOWN ||
	       (st & (NODE_STATE_FAIL | NODE_STATE_NO_RESPOND));
}
/* Every node of the world is up (not down, failing or silent): one RPC. */
static bool nodes_up(const struct members *ms, char *detail, size_t len)
{
	node_info_msg_t *msg = NULL;
	compat_hostlist_t hl = slurm_hostlist_create(NULL);
	bool ok = true;
	size_t i;

	if (!hl)
		return true;
	for (i = 0; i < ms->n; i++)
		if (member_nodes(ms, i)[0])
			slurm_hostlist_push(hl, member_nodes(ms, i));
	if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		slurm_hostlist_destroy(hl);
		return true; /* no answer: the other checks decide */
	}
	for (i = 0; ok && i < msg->record_count; i++) {
		const node_info_t *n = &msg->node_array[i];
		uint32_t st = n->node_state;

		if (!n->name || slurm_hostlist_find(hl, n->name) < 0)
			continue;
		if (node_state_down(st)) {
			snprintf(detail, len, "node=%s down", n->name);
			ok = false;
		}
	}
	slurm_free_node_info_msg(msg);
	slurm_hostlist_destroy(hl);
	return ok;
}
/*
 * Once the ranks are all gone: is the world the one they were launched
 * on?  Asked at once, not at the next poll: ranks that stopped for an
 * event they heard of through a peer may exit before any poll saw it.
 */
bool world_intact(const struct config *c, struct source *src,
		  struct members *cur, char *detail, size_t len)
{
	double next = 0;
	size_t i;

	if (world_changed(c, src, cur, &next, detail, len))
		return false;
	for (i = 0; i < cur->n; i++)
		if (!member_intact(&cur->m[i], detail, len))
			break;
	if (i == cur->n && nodes_up(cur, detail, len))
		return true;
	/* Slurm saw it first: elasticd's next world may wait the fault
	 * timeout for a replacement, and so does the relaunch. */
	if (src->ed_mode)
		src->degraded = true;
	return false;
}