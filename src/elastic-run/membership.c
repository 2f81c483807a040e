/*
 * elastic-run's view of its group: parsing elasticd's document of a group
 * (pure) and fetching it over the API (apiclient).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "apiclient/apiclient.h"
#include "common/nodelist.h"
#include "common/unittag.h"
#include "membership.h"

/* A group document is small: a few hundred bytes a member. */
#define MAX_GROUP_BODY (4UL << 20)

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool jint(json_object *o, const char *key, int64_t min, int64_t max,
		 int64_t *out)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return false;
	n = json_object_get_int64(v);
	if (n < min || n > max)
		return false;
	*out = n;
	return true;
}

static bool jbool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
	       json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

/* Member d is job_id of nnodes on nodes, its list copied into the pool:
 * false when the list does not fit. */
static bool pool_put(struct members *ms, struct member *d, uint32_t job_id,
		     unsigned nnodes, const char *nodes)
{
	size_t len = strlen(nodes) + 1;

	if (len > sizeof(ms->pool) - ms->pool_used)
		return false;
	d->job_id = job_id;
	d->nnodes = nnodes;
	d->nodes_off = (uint32_t)ms->pool_used;
	memcpy(ms->pool + ms->pool_used, nodes, len);
	ms->pool_used += len;
	return true;
}

int members_add(struct members *ms, uint32_t job_id, unsigned nnodes,
		const char *nodes, elastic_error_t *err)
{
	if (ms->n == MAX_MEMBERS)
		return elastic_errorf(err, "more than %d members", MAX_MEMBERS);
	/* One job is one member: twice, its ranks would be launched twice
	 * and the world could not be told from another. */
	for (size_t i = 0; i < ms->n; i++)
		if (ms->m[i].job_id == job_id)
			return elastic_errorf(err, "job %u is a member twice",
					      job_id);
	if (!pool_put(ms, &ms->m[ms->n], job_id, nnodes, nodes))
		return elastic_errorf(err,
				      "job %u: the node lists of the world "
				      "are longer than %zu characters in all",
				      job_id, sizeof(ms->pool) - 1);
	ms->n++;
	ms->nnodes += nnodes;
	return 0;
}

/* out: ms's generation, master and state, no member and no spare yet. */
static void members_head(const struct members *ms, struct members *out)
{
	out->n = out->pool_used = out->nspare = 0;
	out->nnodes = 0;
	out->generation = ms->generation;
	out->degraded = false;
	memcpy(out->master_host, ms->master_host, sizeof(out->master_host));
	memcpy(out->master_addr, ms->master_addr, sizeof(out->master_addr));
}
/* ms's spares but those marked taken, into out's (after its members). */
static void spares_rest(const struct members *ms, const bool *taken,
			struct members *out)
{
	for (size_t i = 0; i < ms->nspare; i++)
		if (!(taken && taken[i]) &&
		    pool_put(out, &out->spare[out->nspare], ms->spare[i].job_id,
			     ms->spare[i].nnodes, spare_nodes(ms, i)))
			out->nspare++;
}
static bool named(const uint32_t *jobs, size_t njobs, uint32_t job)
{
	for (size_t k = 0; k < njobs; k++)
		if (jobs[k] == job)
			return true;
	return false;
}

int members_without(const struct members *ms, const uint32_t *jobs,
		    size_t njobs, struct members *out, elastic_error_t *err)
{
	size_t i;

	if (ms->n == 0)
		return elastic_errorf(err, "no world to leave members out of");
	if (named(jobs, njobs, ms->m[0].job_id))
		return elastic_errorf(err,
				      "job %u is the base: it cannot "
				      "leave the world",
				      ms->m[0].job_id);
	members_head(ms, out);
	for (i = 0; i < ms->n; i++)
		if (!named(jobs, njobs, ms->m[i].job_id) &&
		    members_add(out, ms->m[i].job_id, ms->m[i].nnodes,
				member_nodes(ms, i), err) < 0)
			return -1;
	spares_rest(ms, NULL, out);
	return 0;
}

int members_swap(const struct members *ms, const uint32_t *jobs, size_t njobs,
		 struct members *out, elastic_error_t *err)
{
	bool taken[MEMBERS_SPARES_MAX] = { false };
	size_t i, k;

	if (ms->n == 0)
		return elastic_errorf(err, "no world to swap members in");
	if (named(jobs, njobs, ms->m[0].job_id))
		return elastic_errorf(err,
				      "job %u is the base: no spare "
				      "takes its place",
				      ms->m[0].job_id);
	members_head(ms, out);
	for (i = 0; i < ms->n; i++) {
		const struct member *m = &ms->m[i];
		const char *nodes = member_nodes(ms, i);
		uint32_t job = m->job_id;

		if (named(jobs, njobs, job)) {
			for (k = 0;
			     k < ms->nspare &&
			     (taken[k] || ms->spare[k].nnodes != m->nnodes);
			     k++)
				;
			if (k == ms->nspare)
				return elastic_errorf(
				    err,
				    "job %u: no spare of %u "
				    "node%s to take its place",
				    job, m->nnodes, m->nnodes == 1 ? "" : "s");
			taken[k] = true;
			job = ms->spare[k].job_id;
			nodes = spare_nodes(ms, k);
		}
		if (members_add(out, job, m->nnodes, nodes, err) < 0)
			return -1;
	}
	spares_rest(ms, taken, out);
	return 0;
}

/* A spare of the group's document (member m, the i-th): kept when it
 * runs and fits; -1 with err when it is malformed. */
static int spare_add(struct members *ms, json_object *m, int64_t id, size_t i,
		     elastic_error_t *err)
{
	const char *state = jstr(m, "state"), *nodes = jstr(m, "nodes");
	int64_t jid, nn;

	if (!state || strcmp(state, "running") != 0 ||
	    ms->nspare == MEMBERS_SPARES_MAX)
		return 0;
	if (!jint(m, "job_id", 1, UINT32_MAX, &jid) ||
	    !jint(m, "nnodes", 1, 100000, &nn) || !nodes || !*nodes)
		return elastic_errorf(err,
				      "group %lld: spare %zu has no job_id, "
				      "nnodes or nodes",
				      (long long)id, i);
	/* Without room left beside the world's lists: none. */
	if (pool_put(ms, &ms->spare[ms->nspare], (uint32_t)jid, (unsigned)nn,
		     nodes))
		ms->nspare++;
	return 0;
}

int members_parse_group(const char *json, uint32_t job, struct members *ms,
			elastic_error_t *err)
{
	json_object *o, *arr;
	char *first;
	int64_t id, gen;
	size_t i, n;
	int rc = -1;

	memset(ms, 0, sizeof(*ms));
	o = json ? json_tokener_parse(json) : NULL;
	if (!o || !json_object_is_type(o, json_type_object)) {
		elastic_errorf(err, "elasticd's answer is not a JSON object");
		goto out;
	}
	if (!jint(o, "id", 1, UINT32_MAX, &id) ||
	    !jint(o, "generation", 0, INT64_MAX, &gen)) {
		elastic_errorf(err, "elasticd's answer is not a group "
				    "(no id or generation)");
		goto out;
	}
	if (!json_object_object_get_ex(o, "members", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		elastic_errorf(err, "group %lld: no members array",
			       (long long)id);
		goto out;
	}
	(void)job; /* any job id of a group names the group */
	ms->generation = (uint64_t)gen;
	{
		const char *gs = jstr(o, "state");

		ms->degraded = gs && !strcmp(gs, "DEGRADED");
	}
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(arr, i);
		const char *state, *nodes;
		int64_t jid, nn;
		elastic_error_t e;

		if (!json_object_is_type(m, json_type_object) ||
		    !jbool(m, "in_world"))
			continue;
		state = jstr(m, "state");
		nodes = jstr(m, "nodes");
		if (!state || strcmp(state, "running") != 0)
			continue;
		if (!jint(m, "job_id", 1, UINT32_MAX, &jid) ||
		    !jint(m, "nnodes", 1, 100000, &nn) || !nodes || !*nodes) {
			elastic_errorf(err,
				       "group %lld: member %zu has no "
				       "job_id, nnodes or nodes",
				       (long long)id, i);
			goto out;
		}
		if (members_add(ms, (uint32_t)jid, (unsigned)nn, nodes, &e) <
		    0) {
			elastic_errorf(err, "group %lld: %s", (long long)id,
				       e.text);
			goto out;
		}
	}
	/* The spares after the world: the pool is the world's first. */
	for (i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(arr, i);

		if (json_object_is_type(m, json_type_object) &&
		    !jbool(m, "in_world") && jbool(m, "spare") &&
		    spare_add(ms, m, id, i, err) < 0)
			goto out;
	}
	if (ms->n > 0) {
		const char *ma = jstr(o, "master_addr");

		if (ma && *ma && strlen(ma) < sizeof(ms->master_host))
			snprintf(ms->master_host, sizeof(ms->master_host), "%s",
				 ma);
		else if ((first = nodelist_first_host(member_nodes(ms, 0)))) {
			snprintf(ms->master_host, sizeof(ms->master_host), "%s",
				 first);
			free(first);
		}
	}
	rc = gen > 0 && ms->n > 0 ? 1 : 0;
out:
	json_object_put(o);
	return rc;
}

/* Member i of a, in b: its index there, or -1. */
static int member_in(const struct members *a, size_t i, const struct members *b)
{
	for (size_t k = 0; k < b->n; k++)
		if (b->m[k].job_id == a->m[i].job_id)
			return b->m[k].nnodes == a->m[i].nnodes &&
				       !strcmp(member_nodes(a, i),
					       member_nodes(b, k))
				   ? (int)k
				   : -1;
	return -1;
}

bool members_same(const struct members *a, const struct members *b)
{
	size_t i;

	if (a->n != b->n || (a->n && a->m[0].job_id != b->m[0].job_id))
		return false;
	for (i = 0; i < a->n; i++)
		if (member_in(a, i, b) < 0)
			return false;
	return true;
}

bool members_has_spare(const struct members *ms, uint32_t job)
{
	for (size_t k = 0; k < ms->nspare; k++)
		if (ms->spare[k].job_id == job)
			return true;
	return false;
}

bool spares_same(const struct members *a, const struct members *b)
{
	size_t i, k;

	if (a->nspare != b->nspare)
		return false;
	for (i = 0; i < a->nspare; i++) {
		for (k = 0; k < b->nspare &&
			    (b->spare[k].job_id != a->spare[i].job_id ||
			     strcmp(spare_nodes(a, i), spare_nodes(b, k)));
		     k++)
			;
		if (k == b->nspare)
			return false;
	}
	return true;
}

int members_respare(struct members *cur, const struct members *nm,
		    elastic_error_t *err)
{
	struct members *t = malloc(sizeof(*t));
	size_t i;

	if (!t)
		return elastic_errorf(err, "out of memory");
	members_head(cur, t);
	for (i = 0; i < cur->n; i++)
		if (members_add(t, cur->m[i].job_id, cur->m[i].nnodes,
				member_nodes(cur, i), err) < 0) {
			free(t);
			return -1;
		}
	spares_rest(nm, NULL, t);
	t->degraded = cur->degraded;
	*cur = *t;
	free(t);
	return 0;
}

int members_job_is_ours(uint32_t base, uint32_t uid, uint32_t job,
			uint32_t job_uid, const char *admin_comment,
			elastic_error_t *err)
{
	struct unit_tag t;

	if (job_uid != uid)
		return elastic_errorf(err,
				      "elasticd's world names job %u of uid "
				      "%u, not of this job's owner (uid %u)",
				      job, job_uid, uid);
	if (job == base)
		return 0;
	if (unittag_parse(admin_comment, &t, NULL) < 0 || t.group != base)
		return elastic_errorf(err,
				      "elasticd's world names job %u, which "
				      "is not a unit of job %u",
				      job, base);
	return 0;
}

/* One request; a status of 0 when it was not elasticd that answered. */
static enum fetch_result request(const struct apiclient *c, const char *method,
				 const char *target, unsigned timeout_ms,
				 long *status, struct apiclient_body *b,
				 elastic_error_t *err)
{
	switch (apiclient_request(c, method, target, (long)timeout_ms, status,
				  b, err)) {
	case APICLIENT_ANSWER:
		return FETCH_OK;
	case APICLIENT_NO_ANSWER:
		return FETCH_UNREACHABLE;
	case APICLIENT_UNVERIFIED:
		return FETCH_UNVERIFIED;
	default:
		return FETCH_ERROR;
	}
}

enum fetch_result elasticd_fetch(const struct apiclient *c, uint32_t job,
				 const char *checked, unsigned timeout_ms,
				 struct members *ms, elastic_error_t *err)
{
	struct apiclient_body b = { .max = MAX_GROUP_BODY };
	enum fetch_result fr;
	char path[64 + 11 * MEMBERS_SPARES_MAX];
	long status;
	int r;

	/* "launcher": elasticd takes the question for a sign of life of the
	 * batch host, and from then on takes only the spares it names
	 * checked into a world (elasticd-api(7)). */
	if (snprintf(path, sizeof(path),
		     "/v1/groups/%u?launcher=1&spares_checked=%s", job,
		     checked) >= (int)sizeof(path)) {
		elastic_errorf(err, "spares_checked: too long");
		return FETCH_ERROR;
	}
	fr = request(c, "GET", path, timeout_ms, &status, &b, err);
	if (fr != FETCH_OK) {
		/* said by err */
	} else if (status == 200) {
		r = members_parse_group(b.data, job, ms, err);
		fr = r < 0 ? FETCH_ERROR : r ? FETCH_OK : FETCH_NOT_FORMED;
	} else if (status == 404) {
		elastic_errorf(err, "elasticd at %s knows no group of job %u",
			       c->server, job);
		fr = FETCH_NOT_FOUND;
	} else if (status >= 500) {
		elastic_errorf(err, "elasticd at %s answered %ld", c->server,
			       status);
		fr = FETCH_UNREACHABLE;
	} else {
		elastic_errorf(err, "elasticd at %s answered %ld%s%.*s",
			       c->server, status, b.data ? ": " : "",
			       b.data ? (int)strcspn(b.data, "\r\n") : 0,
			       b.data ? b.data : "");
		fr = FETCH_ERROR;
	}
	free(b.data);
	return fr;
}

/* POST path: FETCH_OK when elasticd answered (*status; err set with the
 * answer's first line unless it is 202, accepted), else why not, with
 * err set (*status too for an answer not proven elasticd's). */
static enum fetch_result post_answered(const struct apiclient *c,
				       const char *path, unsigned timeout_ms,
				       long *status, elastic_error_t *err)
{
	struct apiclient_body b = { .max = 4096 };
	enum fetch_result fr;

	fr = request(c, "POST", path, timeout_ms, status, &b, err);
	if (fr == FETCH_OK && *status != 202)
		elastic_errorf(err, "elasticd at %s answered %ld%s%.*s",
			       c->server, *status, b.data ? ": " : "",
			       b.data ? (int)strcspn(b.data, "\r\n") : 0,
			       b.data ? b.data : "");
	free(b.data);
	return fr;
}

/* POST path, whose answer must be 202 (accepted).  0, or -1 with err
 * set (the answer's first line when elasticd refused). */
static int post_accepted(const struct apiclient *c, const char *path,
			 unsigned timeout_ms, elastic_error_t *err)
{
	long status = 0;

	if (post_answered(c, path, timeout_ms, &status, err) != FETCH_OK)
		return -1;
	return status == 202 ? 0 : -1;
}

int elasticd_account(const struct apiclient *c, uint32_t job, const char *query,
		     unsigned timeout_ms, elastic_error_t *err)
{
	enum fetch_result fr;
	char *path;
	long status = 0;

	if (asprintf(&path, "/v1/groups/%u/account?%s", job, query) < 0)
		return elastic_errorf(err, "account: out of memory");
	fr = post_answered(c, path, timeout_ms, &status, err);
	free(path);
	if (fr == FETCH_OK && status == 202)
		return 0;
	/* An elasticd without the route answers 404 unsigned: taken for
	 * what it says, it only stops a message (the reports go on). */
	if ((fr == FETCH_OK || fr == FETCH_UNVERIFIED) && status == 404)
		return 1;
	return -1;
}

int elasticd_notify(const struct apiclient *c, uint32_t job, const char *event,
		    unsigned timeout_ms, elastic_error_t *err)
{
	char path[96];

	snprintf(path, sizeof(path), "/v1/groups/%u/notify?event=%s", job,
		 event);
	return post_accepted(c, path, timeout_ms, err);
}

int elasticd_suspect(const struct apiclient *c, uint32_t job, const char *node,
		     const char *why, unsigned timeout_ms, elastic_error_t *err)
{
	char path[192];

	if (snprintf(path, sizeof(path), "/v1/groups/%u/suspect?node=%s&why=%s",
		     job, node, why) >= (int)sizeof(path))
		return elastic_errorf(err, "suspect: node name too long");
	return post_accepted(c, path, timeout_ms, err);
}

int elasticd_report(const struct apiclient *c, uint32_t job,
		    uint64_t generation, long exit_ms, bool relay,
		    unsigned timeout_ms, elastic_error_t *err)
{
	char path[128];
	int n;

	n = snprintf(path, sizeof(path),
		     "/v1/groups/%u/report?generation=%llu&relay=%d", job,
		     (unsigned long long)generation, relay ? 1 : 0);
	if (exit_ms >= 0)
		snprintf(path + n, sizeof(path) - (size_t)n, "&exit_ms=%ld",
			 exit_ms);
	return post_accepted(c, path, timeout_ms, err);
}
