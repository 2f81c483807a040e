#ifndef ELASTICD_ACCOUNT_STORE_H
#define ELASTICD_ACCOUNT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/error.h"
#include "account.h"
#include "groupinfo.h"

/*
 * The groups' accounts (account.h), one per group that reported, shared
 * by the API's threads (which take reports and answer GET) and the loop
 * (which writes them to ElasticdStateDir/accounts/JOB.json, sets the
 * bases' AdminComment at their end and removes old files).  Every
 * function takes the store's own lock; none logs: failures fill err.
 */

/* Keep the files in dir/accounts (created, 0700), or in memory only
 * when state_dir is "" or NULL.  0, or -1 with err set (then memory). */
int account_store_open(const char *state_dir, elastic_error_t *err);
/* Write what is not written yet, then forget every account. */
int account_store_close(elastic_error_t *err);

/* A report of group g's launcher (the API checked the caller): 0, or -1
 * with *why (too many groups, out of memory). */
int account_store_report(const struct group_info *g,
			 const struct account_report *r, const char **why);

/* Group id's account as JSON for caller uid (admin: any), from memory or
 * its file; live: the group runs.  NULL when there is none the caller
 * may see (or out of memory). */
char *account_store_get(uint32_t id, bool live, uint32_t uid, bool admin);

/* /metrics' part for the groups live in v, and the histogram. */
char *account_store_metrics(const struct elasticd_view *v);

/*
 * From the loop after each cycle: write the accounts changed since their
 * last write at most every ACCOUNT_WRITE_S (at once after final=1, or
 * all with now_ms < 0), and forget those written whose group is no
 * longer live in v (NULL: none is).  0, or -1 with err set to the
 * first failure (the account is tried again at the next call).
 */
#define ACCOUNT_WRITE_S 30
int account_store_flush(const struct elasticd_view *v, int64_t now_ms,
			elastic_error_t *err);

/* Groups whose final report came since the last take, with their
 * summary (account_summary): moves up to max into out. */
struct account_final {
	uint32_t id;
	char summary[96];
};
size_t account_store_take_finals(struct account_final *out, size_t max);

/* Remove the files beyond AccountRetention days and AccountMaxJobs
 * (account_purge_select): how many were removed, or -1 with err. */
long account_store_purge(time_t now, unsigned days, unsigned max_jobs,
			 elastic_error_t *err);

#endif
