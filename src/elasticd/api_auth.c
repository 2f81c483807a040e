#include "config.h"

#include <munge.h>

#include "api_auth.h"

bool auth_is_admin(uint32_t uid, uint32_t slurm_user_uid,
		   const uint32_t *admin_uids, size_t nadmin)
{
	if (uid == 0 || uid == slurm_user_uid)
		return true;
	for (size_t i = 0; i < nadmin; i++)
		if (admin_uids[i] == uid)
			return true;
	return false;
}

bool auth_may_see(const struct auth_caller *c, const struct group_info *g)
{
	return c->admin || c->uid == g->user_id;
}

const struct group_info *auth_find_group(const struct elasticd_view *v,
					 const struct auth_caller *c,
					 uint32_t job_id)
{
	const struct group_info *found = NULL;

	if (!v || job_id == 0)
		return NULL;
	/* A base job id wins over a member's: a group's own id is stable. */
	for (size_t i = 0; i < v->ngroups && !found; i++)
		if (v->groups[i].base_job_id == job_id)
			found = &v->groups[i];
	for (size_t i = 0; i < v->ngroups && !found; i++)
		for (size_t j = 0; j < v->groups[i].nmembers; j++)
			if (v->groups[i].members[j].job_id == job_id) {
				found = &v->groups[i];
				break;
			}
	return (found && auth_may_see(c, found)) ? found : NULL;
}

int auth_raise_status(const struct group_info *g)
{
	switch (g->state) {
	case GROUP_PENDING:
	case GROUP_COMPLETING:
		return 409;
	default:
		return 200;
	}
}

int auth_munge_status(int munge_err, const char **why)
{
	switch (munge_err) {
	case EMUNGE_SUCCESS:
		*why = "";
		return 0;
	case EMUNGE_CRED_EXPIRED:
		*why = "munge credential expired: make a new one per request";
		return 401;
	case EMUNGE_CRED_REPLAYED:
		*why = "munge credential replayed: make a new one per request";
		return 401;
	case EMUNGE_CRED_REWOUND:
		*why = "munge credential from the future: check the clocks";
		return 401;
	case EMUNGE_BAD_CRED:
	case EMUNGE_BAD_VERSION:
	case EMUNGE_BAD_CIPHER:
	case EMUNGE_BAD_MAC:
	case EMUNGE_BAD_ZIP:
	case EMUNGE_BAD_LENGTH:
	case EMUNGE_CRED_INVALID:
		*why = "invalid munge credential (not one of this cluster's "
		       "munge key)";
		return 401;
	case EMUNGE_BAD_REALM:
	case EMUNGE_CRED_UNAUTHORIZED:
		*why = "munge credential not meant for elasticd";
		return 401;
	case EMUNGE_SOCKET:
	case EMUNGE_TIMEOUT:
		*why = "elasticd cannot reach munged to check the credential";
		return 503;
	default:
		*why = "elasticd could not check the munge credential";
		return 500;
	}
}

bool auth_lookup_take(struct auth_lookup_limit *l, uint32_t uid, double now)
{
	struct auth_lookup_bucket *b = NULL;
	size_t i, idle = 0;

	for (i = 0; i < l->n && !b; i++)
		if (l->b[i].uid == uid)
			b = &l->b[i];
	if (!b) {
		if (l->n < AUTH_LOOKUP_UIDS) {
			b = &l->b[l->n++];
		} else {
			for (i = 1; i < l->n; i++)
				if (l->b[i].last < l->b[idle].last)
					idle = i;
			b = &l->b[idle];
		}
		b->uid = uid;
		b->tokens = AUTH_LOOKUP_BURST;
		b->last = now;
	}
	if (now > b->last) {
		b->tokens += (now - b->last) * AUTH_LOOKUP_RATE;
		if (b->tokens > AUTH_LOOKUP_BURST)
			b->tokens = AUTH_LOOKUP_BURST;
		b->last = now;
	}
	if (b->tokens < 1.0)
		return false;
	b->tokens -= 1.0;
	return true;
}
