#ifndef ELASTICD_API_AUTH_H
#define ELASTICD_API_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/apiauth.h"
#include "groupinfo.h"

/*
 * Who may see and act on which group: pure decisions on plain data, so
 * that every rule is unit-tested.  api.c does the I/O (munge_decode,
 * getpwnam) and feeds the results in here.
 */

/* The caller of a /v1 request, as its munge credential says. */
struct auth_caller {
	uint32_t uid;
	bool admin; /* sees and acts on every group */
	/* The request's nonce, once a munge credential of uid's carried
	 * one: the answer is signed for it (apiauth.h); "" = unsigned. */
	char nonce[APIAUTH_NONCE_HEX + 1];
};

/* uid 0, the SlurmUser and the users listed as admins are admins. */
bool auth_is_admin(uint32_t uid, uint32_t slurm_user_uid,
		   const uint32_t *admin_uids, size_t nadmin);

/* The owner and admins see a group; nobody else learns it exists. */
bool auth_may_see(const struct auth_caller *c, const struct group_info *g);

/*
 * The group a request names: its base job id or the id of any member
 * (a unit), as elasticctl lets users name a group by any of its jobs.
 * NULL if there is none or the caller may not see it: the API answers
 * both with the same 404, so other users cannot probe for groups.
 */
const struct group_info *auth_find_group(const struct elasticd_view *v,
					 const struct auth_caller *c,
					 uint32_t job_id);

/* May the caller's raise request for g be queued?  200 if so, else the
 * HTTP status: 409 while the group has no ranks to tell (PENDING,
 * COMPLETING). */
int auth_raise_status(const struct group_info *g);

/*
 * What munge_decode's result means to the client (munge_err_t as int, so
 * that this header does not need munge.h): 0 when the credential is good,
 * 401 when the client's credential is bad (invalid, expired, replayed,
 * rewound, from another realm or key), 503 when munged could not be asked,
 * 500 otherwise.  *why gets words for the error body.
 */
int auth_munge_status(int munge_err, const char **why);

/*
 * How many reads of Slurm each user's requests may cause (lookups by a
 * notification, or by a question about a job elasticd has not read): a
 * bucket of AUTH_LOOKUP_BURST per uid, refilled at AUTH_LOOKUP_RATE a
 * second.  The burst covers a whole group's units starting at once; a
 * flood costs slurmctld at most the rate.  AUTH_LOOKUP_UIDS users are
 * remembered, the one idle longest forgotten first.  Admins have no limit.
 */
#define AUTH_LOOKUP_BURST 64
#define AUTH_LOOKUP_RATE  8.0
#define AUTH_LOOKUP_UIDS  256
struct auth_lookup_bucket {
	uint32_t uid;
	double tokens, last;
};
struct auth_lookup_limit {
	struct auth_lookup_bucket b[AUTH_LOOKUP_UIDS];
	size_t n;
};
/* Take one for uid at time now (seconds, monotonic): whether allowed. */
bool auth_lookup_take(struct auth_lookup_limit *l, uint32_t uid, double now);

#endif
