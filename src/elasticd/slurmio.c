#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/parse.h"
#include "common/policy.h"
#include "common/slurm_compat.h"
#include "slurmio_impl.h"

struct slurmio *slurmio_create(void)
{
	return calloc(1, sizeof(struct slurmio));
}

static void drop_started(struct slurmio *io)
{
	for (size_t i = 0; i < io->nstarted; i++)
		free(io->started[i].nodes);
	io->nstarted = 0;
}

void slurmio_destroy(struct slurmio *io)
{
	if (!io)
		return;
	drop_started(io);
	snapshot_destroy(io->snap);
	free(io);
}

uint64_t slurmio_rpcs_total(const struct slurmio *io)
{
	return __atomic_load_n(&io->rpcs, __ATOMIC_RELAXED);
}

uint64_t slurmio_rpcs_cycle(const struct slurmio *io)
{
	return __atomic_load_n(&io->rpcs_cycle, __ATOMIC_RELAXED);
}

void slurmio_cycle(struct slurmio *io)
{
	__atomic_store_n(&io->rpcs_cycle, 0, __ATOMIC_RELAXED);
}

uint64_t slurmio_starts_told(const struct slurmio *io)
{
	return io->starts_told;
}

uint64_t slurmio_bad_tags(const struct slurmio *io)
{
	return io->bad_tags;
}

/* Submissions count from their own threads (submitq.h). */
void slurmio_rpc(struct slurmio *io)
{
	__atomic_fetch_add(&io->rpcs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&io->rpcs_cycle, 1, __ATOMIC_RELAXED);
}

/* The owner's name (for the policy's per-user rules), cached. */
static const char *user_name(struct slurmio *io, uid_t uid)
{
	struct passwd pw, *pwp = NULL;
	char buf[4096];

	for (size_t i = 0; i < io->nusers; i++)
		if (io->users[i].uid == uid)
			return io->users[i].name[0] ? io->users[i].name : NULL;
	if (io->nusers == UID_CACHE)
		io->nusers = 0; /* a user may have been renamed: start over */
	io->users[io->nusers].uid = uid;
	io->users[io->nusers].name[0] = '\0';
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &pwp) == 0 && pwp &&
	    strlen(pw.pw_name) < sizeof(io->users[0].name))
		strcpy(io->users[io->nusers].name, pw.pw_name);
	return io->users[io->nusers++].name[0] ? io->users[io->nusers - 1].name
					       : NULL;
}

/* One job of slurmctld's answer into the snapshot, if it is ours. */
static int add_job(struct slurmio *io, struct snapshot *s,
		   const slurm_job_info_t *ji, elastic_error_t *err)
{
	const char *c = ji->admin_comment;
	struct elastic_opts opts;
	struct job_view j = { 0 };

	if (!c)
		return 0;
	if (!strncmp(c, ELASTIC_TAG_PREFIX " ",
		     strlen(ELASTIC_TAG_PREFIX) + 1)) {
		/* A job array's pending record or a het job component
		 * cannot be a base of ours. */
		const struct job_view *prev =
		    io->snap ? snapshot_find(io->snap, ji->job_id) : NULL;

		if (ji->het_job_id)
			return 0;
		/* Parsing is most of the cost of a cycle: reuse the last
		 * one while the tag is the same. */
		if (prev && prev->role == ROLE_BASE && prev->tag &&
		    !strcmp(prev->tag, c)) {
			j.opts = prev->opts;
		} else if (options_parse_tag(c, &opts, NULL) < 0) {
			io->bad_tags++;
			return 0;
		} else {
			j.opts = &opts;
		}
		j.role = ROLE_BASE;
		j.tag = c;
	} else if (!strncmp(c, UNIT_TAG_PREFIX " ",
			    strlen(UNIT_TAG_PREFIX) + 1)) {
		if (unittag_parse(c, &j.unit, NULL) < 0) {
			io->bad_tags++;
			return 0;
		}
		j.role = ROLE_UNIT;
	} else {
		return 0;
	}
	j.id = ji->job_id;
	model_job_state(ji->job_state, ji->preempt_time, &j.phase, &j.end,
			&j.preempted);
	j.restarts = ji->restart_cnt;
	j.nice = ji->nice > NICE_OFFSET ? ji->nice - NICE_OFFSET : 0;
	j.launch_held = j.phase == PHASE_PENDING && ji->priority == 0 &&
			ji->state_desc &&
			!strcmp(ji->state_desc, LAUNCH_HELD_DESC);
	j.nnodes = ji->num_nodes;
	j.nodes = j.phase == PHASE_RUNNING && ji->nodes ? ji->nodes : "";
	j.uid = ji->user_id;
	j.gid = ji->group_id;
	j.user = user_name(io, ji->user_id);
	j.account = ji->account;
	j.qos = ji->qos;
	j.partition = ji->partition;
	j.submit_time = ji->submit_time;
	j.start_time = ji->start_time;
	j.end_time = ji->end_time;
	j.time_limit = (ji->time_limit == INFINITE || ji->time_limit == NO_VAL)
			   ? 0
			   : ji->time_limit;
	j.tres_per_node = ji->tres_per_node;
	j.features = ji->features;
	return snapshot_add(s, &j, err);
}

static bool in_grace(const struct job_view *j)
{
	return j->role == ROLE_UNIT && j->phase == PHASE_RUNNING &&
	       j->preempted;
}

/* Whether r lists a step of job id (not its batch or extern step). */
static bool runs_steps(const job_step_info_response_msg_t *r, uint32_t id)
{
	for (uint32_t k = 0; k < r->job_step_count; k++)
		if (r->job_steps[k].step_id.job_id == id &&
		    r->job_steps[k].step_id.step_id <= SLURM_MAX_NORMAL_STEP_ID)
			return true;
	return false;
}

/*
 * Units in a preemption's grace: which still run steps (the group's
 * ranks)?  Those with none can go at once.  Only while some unit is in its
 * grace: one RPC per such unit (slurmctld finds each job in its hash), or
 * past STEP_READS_MAX of them one for every step of the cluster.  SHOW_LOCAL:
 * without it libslurm first asks whether the cluster is in a federation,
 * one more RPC each time.  Returns whether a flag changed.
 */
#define STEP_READS_MAX 16
static bool mark_steps(struct slurmio *io, struct snapshot *s)
{
	job_step_info_response_msg_t *all = NULL;
	size_t i, n = snapshot_count(s), ngrace = 0;
	bool flipped = false;

	for (i = 0; i < n; i++)
		ngrace += in_grace(snapshot_job(s, i));
	if (!ngrace)
		return false;
	if (ngrace > STEP_READS_MAX) {
		slurmio_rpc(io);
		if (compat_get_job_steps(NO_VAL, &all, SHOW_ALL | SHOW_LOCAL) !=
		    SLURM_SUCCESS)
			return false; /* unknown: wait the grace as before */
	}
	for (i = 0; i < n; i++) {
		const struct job_view *j = snapshot_job(s, i);
		job_step_info_response_msg_t *r = all;
		bool gone;

		if (!in_grace(j))
			continue;
		if (!all) {
			slurmio_rpc(io);
			if (compat_get_job_steps(j->id, &r,
						 SHOW_ALL | SHOW_LOCAL) !=
			    SLURM_SUCCESS)
				continue; /* unknown: as it was */
		}
		gone = !runs_steps(r, j->id);
		if (!all)
			slurm_free_job_step_info_response_msg(r);
		if (gone != j->steps_gone) {
			snapshot_set_steps_gone(s, j->id, gone);
			flipped = true;
		}
	}
	if (all)
		slurm_free_job_step_info_response_msg(all);
	return flipped;
}

/* Whether j is read again between reads of the whole queue: a unit that
 * ended and was released is not (requeue=0: nothing changes it any more;
 * it stays as it was until the next read of the whole queue), a base
 * always (an ended one may be requeued). */
static bool watched(const struct job_view *j)
{
	return j->role == ROLE_BASE || j->phase != PHASE_GONE;
}

/* The jobs of the snapshot to read by id (every job of a group that
 * slurmctld still knows and that may change); too many and the whole
 * queue is cheaper. */
static void note_watch(struct slurmio *io, const struct snapshot *s)
{
	size_t n = snapshot_count(s);

	io->nwatch = 0;
	io->watch_overflow = false;
	for (size_t i = 0; i < n && !io->watch_overflow; i++) {
		const struct job_view *j = snapshot_job(s, i);

		if (!watched(j))
			continue;
		if (io->nwatch == SLURMIO_WATCH_MAX)
			io->watch_overflow = true;
		else
			io->watch[io->nwatch++] = j->id;
	}
}

/* Adds the tagged jobs of one answer to s.  0 or -1 (err set). */
static int add_jobs(struct slurmio *io, struct snapshot *s,
		    const job_info_msg_t *msg, elastic_error_t *err)
{
	for (uint32_t i = 0; i < msg->record_count; i++)
		if (add_job(io, s, &msg->job_array[i], err) < 0)
			return -1;
	return 0;
}

/* add_jobs(), then the answer is freed. */
static int take_jobs(struct slurmio *io, struct snapshot *s,
		     job_info_msg_t *msg, elastic_error_t *err)
{
	int rc = add_jobs(io, s, msg, err);

	compat_free_job_info_msg(msg);
	return rc;
}

/* Whether ids[0..n) include id. */
static bool among(const uint32_t *ids, size_t n, uint32_t id)
{
	for (size_t k = 0; k < n; k++)
		if (ids[k] == id)
			return true;
	return false;
}

void slurmio_lookup(struct slurmio *io, const uint32_t *ids, size_t n)
{
	/* Once each: every read waits for slurmctld's locks. */
	for (size_t i = 0; i < n && io->nlookups < SLURMIO_LOOKUPS_MAX; i++)
		if (!among(io->lookups, io->nlookups, ids[i]))
			io->lookups[io->nlookups++] = ids[i];
}

void slurmio_started(struct slurmio *io, uint32_t id, const char *nodes)
{
	size_t i;
	char *copy;

	for (i = 0; i < io->nstarted && io->started[i].id != id; i++)
		;
	if ((i == io->nstarted && i == SLURMIO_STARTED_MAX) ||
	    !(copy = strdup(nodes))) {
		slurmio_lookup(io, &id, 1);
		return;
	}
	if (i == io->nstarted)
		io->nstarted++;
	else
		free(io->started[i].nodes);
	io->started[i].id = id;
	io->started[i].nodes = copy;
}

/* How many nodes a Slurm node list names; 0 if it is not one. */
static uint32_t count_nodes(const char *nodes)
{
	compat_hostlist_t h = slurm_hostlist_create(nodes);
	int n;

	if (!h)
		return 0;
	n = slurm_hostlist_count(h);
	slurm_hostlist_destroy(h);
	return n > 0 ? (uint32_t)n : 0;
}

/*
 * The units slurmstepd told started, into s as running on their nodes,
 * their ids into ids (*n of them: read at the next load, to confirm);
 * the others become lookups.  A unit is taken so only if the snapshot has
 * it pending and of that size: what slurmctld knows of any other job
 * (ended meanwhile, not a unit, not read yet) comes from slurmctld.
 */
static int add_started(struct slurmio *io, struct snapshot *s, uint32_t *ids,
		       size_t *n, elastic_error_t *err)
{
	int rc = 0;

	*n = 0;
	for (size_t i = 0; i < io->nstarted && rc == 0; i++) {
		const struct started *st = &io->started[i];
		const struct job_view *o = snapshot_find(io->snap, st->id);
		struct job_view j;

		if (!o || o->role != ROLE_UNIT || o->phase != PHASE_PENDING ||
		    o->launch_held || count_nodes(st->nodes) != o->nnodes ||
		    among(io->lookups, io->nlookups, st->id)) {
			slurmio_lookup(io, &st->id, 1);
			continue;
		}
		j = *o;
		j.phase = PHASE_RUNNING;
		j.nodes = st->nodes;
		j.start_time = snapshot_time(s);
		rc = snapshot_add(s, &j, err);
		ids[(*n)++] = st->id;
		io->starts_told++;
	}
	drop_started(io);
	return rc;
}

/* s, finished, is the snapshot now: the watch list and the lookups
 * follow.  steps: read the steps of the units in a grace; else (no more
 * waits for slurmctld's locks) what the last read found stands. */
static void install(struct slurmio *io, struct snapshot *s, bool steps,
		    const struct snapshot **ret, bool *changed)
{
	size_t n = io->snap ? snapshot_count(io->snap) : 0;

	for (size_t i = 0; i < n && !steps; i++) {
		const struct job_view *o = snapshot_job(io->snap, i);
		const struct job_view *j = snapshot_find(s, o->id);

		if (o->steps_gone && j && in_grace(j))
			snapshot_set_steps_gone(s, j->id, true);
	}
	snapshot_destroy(io->snap);
	io->snap = s;
	io->nlookups = 0; /* read, or not a job */
	note_watch(io, s);
	if (steps)
		mark_steps(io, s);
	*ret = s;
	*changed = true;
}

/* s read whole (rc 0) is the snapshot now; else it goes.  Returns rc. */
static int settle(struct slurmio *io, struct snapshot *s, int rc, bool steps,
		  const struct snapshot **ret, bool *changed)
{
	if (rc < 0) {
		snapshot_destroy(s);
		return -1;
	}
	snapshot_finish(s);
	install(io, s, steps, ret, changed);
	return 0;
}

/* Job id, one RPC, into s: one slurmctld does not know (any more) is
 * left out.  SHOW_LOCAL: without it libslurm asks for the federation
 * first, one more RPC each (elasticd serves one cluster).  0 or -1 (err
 * set). */
static int add_one(struct slurmio *io, struct snapshot *s, uint32_t id,
		   elastic_error_t *err)
{
	job_info_msg_t *msg = NULL;

	slurmio_rpc(io);
	if (compat_load_job(&msg, id, SHOW_ALL | SHOW_LOCAL) != SLURM_SUCCESS) {
		if (errno == ESLURM_INVALID_JOB_ID)
			return 0;
		return elastic_errorf(err, "slurm_load_job %u: %s", id,
				      slurm_strerror(errno));
	}
	return take_jobs(io, s, msg, err);
}

/* The jobs asked about, one RPC each, into s, but for those of the first
 * nskip of the watch list (read already).  0 or -1 (err set). */
static int add_lookups(struct slurmio *io, struct snapshot *s, size_t nskip,
		       elastic_error_t *err)
{
	for (size_t k = 0; k < io->nlookups; k++)
		if (!among(io->watch, nskip, io->lookups[k]) &&
		    add_one(io, s, io->lookups[k], err) < 0)
			return -1;
	return 0;
}

/* The jobs of the snapshot not asked about nor among skip[0..nskip)
 * (and, with unwatched, not read again either: watched()), as they were,
 * into s.  0 or -1 (err set). */
static int add_kept(struct slurmio *io, struct snapshot *s, bool unwatched,
		    const uint32_t *skip, size_t nskip, elastic_error_t *err)
{
	size_t n = snapshot_count(io->snap);

	for (size_t i = 0; i < n; i++) {
		const struct job_view *j = snapshot_job(io->snap, i);

		if (!(unwatched && watched(j)) &&
		    !among(io->lookups, io->nlookups, j->id) &&
		    !among(skip, nskip, j->id) && snapshot_add(s, j, err) < 0)
			return -1;
	}
	return 0;
}

/* Between resyncs: the groups' jobs that may change and the jobs asked
 * about, one RPC each, by id: slurmctld finds each in its hash, so that
 * the cost is that of the groups, whatever the length of the queue. */
static int load_watched(struct slurmio *io, int64_t now_ms,
			const struct snapshot **ret, bool *changed,
			elastic_error_t *err)
{
	struct snapshot *s = snapshot_create((time_t)(now_ms / 1000));
	int rc = 0;

	if (!s)
		return elastic_errorf(err, "out of memory");
	for (size_t k = 0; k < io->nwatch && rc == 0; k++)
		rc = add_one(io, s, io->watch[k], err);
	if (rc == 0)
		rc = add_lookups(io, s, io->nwatch, err);
	if (rc == 0)
		rc = add_kept(io, s, true, NULL, 0, err);
	return settle(io, s, rc, true, ret, changed);
}

/* The owners of the snapshot's jobs, at most max, into uids: their
 * number, or max + 1 when there are more. */
static size_t owners(const struct snapshot *s, uid_t *uids, size_t max)
{
	size_t n = snapshot_count(s), k = 0;

	for (size_t i = 0; i < n; i++) {
		uid_t u = snapshot_job(s, i)->uid;
		size_t m = 0;

		while (m < k && uids[m] != u)
			m++;
		if (m < k)
			continue;
		if (k == max)
			return max + 1;
		uids[k++] = u;
	}
	return k;
}

/* The resync: every job of the groups' owners, one RPC per owner (what
 * slurmctld packs is theirs only), and the jobs asked about.  It finds
 * what reads by id cannot: units whose submission's answer was lost, a
 * new group of an owner it knows.  A job slurmctld forgot leaves the
 * snapshot, as at a read of the whole queue. */
static int load_owners(struct slurmio *io, int64_t now_ms, const uid_t *uids,
		       size_t n, const struct snapshot **ret, bool *changed,
		       elastic_error_t *err)
{
	struct snapshot *s = snapshot_create((time_t)(now_ms / 1000));
	int rc = 0;

	if (!s)
		return elastic_errorf(err, "out of memory");
	for (size_t k = 0; k < n && rc == 0; k++) {
		job_info_msg_t *msg = NULL;

		slurmio_rpc(io);
		if (slurm_load_job_user(&msg, (uint32_t)uids[k],
					SHOW_ALL | SHOW_LOCAL) != SLURM_SUCCESS)
			rc = elastic_errorf(err, "slurm_load_job_user %u: %s",
					    (unsigned)uids[k],
					    slurm_strerror(errno));
		else
			rc = take_jobs(io, s, msg, err);
	}
	/* Those of other owners; the others are read twice, kept once. */
	if (rc == 0)
		rc = add_lookups(io, s, 0, err);
	return settle(io, s, rc, true, ret, changed);
}

/* The units in a preemption's grace (at most STEP_READS_MAX), asked
 * about: while a grace runs they are read at every cycle, their steps
 * too, so that the unit is released once its ranks have left and the
 * group's replacement is asked for once it ended, whatever the poll.
 * How many. */
static size_t follow_graces(struct slurmio *io)
{
	size_t n = snapshot_count(io->snap), k = 0;

	for (size_t i = 0; i < n && k < STEP_READS_MAX; i++) {
		const struct job_view *j = snapshot_job(io->snap, i);

		if (in_grace(j)) {
			slurmio_lookup(io, &j->id, 1);
			k++;
		}
	}
	return k;
}

/* Follow id until until_ms; when the list is full, the entry that ends
 * first gives way if it ends before this one. */
static void follow_one(struct slurmio *io, uint32_t id, int64_t until_ms)
{
	size_t k, first = 0;

	for (k = 0; k < io->nfollows; k++) {
		if (io->follows[k].id == id) {
			if (io->follows[k].until_ms < until_ms)
				io->follows[k].until_ms = until_ms;
			return;
		}
		if (io->follows[k].until_ms < io->follows[first].until_ms)
			first = k;
	}
	if (io->nfollows < SLURMIO_FOLLOW_MAX)
		k = io->nfollows++;
	else if (io->follows[first].until_ms < until_ms)
		k = first;
	else
		return;
	io->follows[k].id = id;
	io->follows[k].until_ms = until_ms;
	io->follows[k].read = false;
}

void slurmio_follow(struct slurmio *io, const uint32_t *ids, size_t n,
		    int64_t until_ms)
{
	size_t count = io->snap ? snapshot_count(io->snap) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct job_view *b =
		    io->snap ? snapshot_find(io->snap, ids[i]) : NULL;

		follow_one(io, ids[i], until_ms);
		if (!b || b->role != ROLE_BASE)
			continue;
		/* A base's fault may be a unit's end (its node failed). */
		for (size_t k = 0; k < count; k++) {
			const struct job_view *u = snapshot_job(io->snap, k);

			if (u->role == ROLE_UNIT && u->unit.group == b->id &&
			    (u->phase == PHASE_PENDING ||
			     u->phase == PHASE_RUNNING))
				follow_one(io, u->id, until_ms);
		}
	}
}

/* The jobs followed, asked about; those past their time, and those seen
 * ended or not in the snapshot (not a group's job, forgotten by
 * slurmctld) since the last read, are followed no more. */
static void follow_jobs(struct slurmio *io, int64_t now_ms)
{
	size_t k = 0;

	for (size_t i = 0; i < io->nfollows; i++) {
		struct follow f = io->follows[i];
		const struct job_view *j = snapshot_find(io->snap, f.id);

		if (now_ms >= f.until_ms || (!j && f.read) ||
		    (j && j->phase == PHASE_GONE))
			continue;
		f.read = true;
		io->follows[k++] = f;
		slurmio_lookup(io, &f.id, 1);
	}
	io->nfollows = k;
}

/*
 * s has the units slurmstepd told started (told[0..n)): with the rest of
 * the snapshot as it was, it is the snapshot now, without a read, so that
 * the loop acts on them first.  Every read that was due (the jobs asked
 * about and followed), and one of each told unit to confirm it, waits for
 * the next load (slurmio_reads_waiting()).
 */
static int told_first(struct slurmio *io, struct snapshot *s,
		      const uint32_t *told, size_t n,
		      const struct snapshot **ret, bool *changed,
		      elastic_error_t *err)
{
	uint32_t due[SLURMIO_LOOKUPS_MAX];
	size_t ndue = io->nlookups;
	int rc;

	memcpy(due, io->lookups, ndue * sizeof(due[0]));
	io->nlookups = 0; /* kept as they were, not left out to be read */
	rc = add_kept(io, s, false, told, n, err);
	rc = settle(io, s, rc, false, ret, changed);
	memcpy(io->lookups, due, ndue * sizeof(due[0]));
	io->nlookups = ndue;
	slurmio_lookup(io, told, n);
	/* The jobs followed were not read: one not in the snapshot yet is
	 * not let go before its read. */
	for (size_t i = 0; i < io->nfollows; i++)
		io->follows[i].read = false;
	return rc;
}

int slurmio_load_lookups(struct slurmio *io, int64_t now_ms,
			 const struct snapshot **ret, bool *changed,
			 elastic_error_t *err)
{
	uint32_t told[SLURMIO_STARTED_MAX];
	struct snapshot *s;
	size_t graces, ntold = 0;
	int rc;

	*changed = false;
	*ret = io->snap;
	if (!io->snap) {
		drop_started(io);
		return 0;
	}
	follow_jobs(io, now_ms);
	graces = follow_graces(io);
	if (!io->nlookups && !io->nstarted)
		return 0;
	if (!(s = snapshot_create((time_t)(now_ms / 1000))))
		return elastic_errorf(err, "out of memory");
	/* The units slurmstepd told started, as it told. */
	rc = add_started(io, s, told, &ntold, err);
	if (rc == 0 && ntold)
		return told_first(io, s, told, ntold, ret, changed, err);
	/* The jobs asked about as slurmctld has them now (one that it no
	 * longer knows leaves the snapshot, as at a read of the queue); the
	 * rest as they were. */
	if (rc == 0)
		rc = add_lookups(io, s, 0, err);
	if (rc == 0)
		rc = add_kept(io, s, false, NULL, 0, err);
	return settle(io, s, rc, graces > 0, ret, changed);
}

bool slurmio_reads_waiting(const struct slurmio *io)
{
	return io->nlookups > 0;
}

int slurmio_load(struct slurmio *io, int64_t now_ms, unsigned full_refresh_s,
		 unsigned resync_s, unsigned whole_s,
		 const struct snapshot **ret, bool *changed,
		 elastic_error_t *err)
{
	job_info_msg_t *msg = NULL;
	struct snapshot *s;
	time_t since = io->last_update;

	*changed = false;
	drop_started(io); /* read with the rest */
	if (resync_s && io->snap && !io->watch_overflow &&
	    (!whole_s ||
	     now_ms - io->last_whole_ms < (int64_t)whole_s * 1000)) {
		uid_t uids[SLURMIO_OWNERS_MAX];
		size_t n;

		if (now_ms - io->last_resync_ms < (int64_t)resync_s * 1000)
			return load_watched(io, now_ms, ret, changed, err);
		n = owners(io->snap, uids, SLURMIO_OWNERS_MAX);
		if (n <= SLURMIO_OWNERS_MAX) {
			io->last_resync_ms = now_ms;
			if (load_owners(io, now_ms, uids, n, ret, changed,
					err) == 0)
				return 0;
			io->last_resync_ms = 0; /* again at the next cycle */
			return -1;
		}
	}
	if (resync_s)
		io->last_resync_ms = io->last_whole_ms = now_ms;
	else if (full_refresh_s &&
		 now_ms - io->last_full_ms >= (int64_t)full_refresh_s * 1000)
		since = 0;
	slurmio_rpc(io);
	if (slurm_load_jobs(since, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		int e = errno;

		if (e == SLURM_NO_CHANGE_IN_DATA && io->snap) {
			*changed = mark_steps(io, io->snap);
			*ret = io->snap;
			return 0;
		}
		io->last_resync_ms = 0; /* again at the next cycle */
		return elastic_errorf(err, "slurm_load_jobs: %s",
				      slurm_strerror(e));
	}
	s = snapshot_create((time_t)(now_ms / 1000));
	if (!s) {
		compat_free_job_info_msg(msg);
		return elastic_errorf(err, "out of memory");
	}
	if (add_jobs(io, s, msg, err) < 0) {
		compat_free_job_info_msg(msg);
		snapshot_destroy(s);
		return -1;
	}
	snapshot_finish(s);
	io->last_update = msg->last_update;
	if (!since)
		io->last_full_ms = now_ms;
	compat_free_job_info_msg(msg);
	install(io, s, true, ret, changed);
	return 0;
}
