#ifndef ELASTICD_ACCOUNT_RUN_H
#define ELASTICD_ACCOUNT_RUN_H

#include <stdint.h>

#include "common/policy.h"
#include "groupinfo.h"
#include "slurmio.h"

/*
 * The loop's part in the groups' accounts (account_store.h): where they
 * are kept, their files written and removed, and the bases'
 * AdminComment at their end.  Logs what fails.
 */

/* At the start: the store in ElasticdStateDir/accounts, old files
 * removed (AccountRetention, AccountMaxJobs). */
void account_run_start(const struct elastic_policy *p);

/* After each cycle, with its view: files written when due, the ended
 * groups' notes on their bases (one update each), and the hourly
 * removal of old files. */
void account_run_cycle(struct slurmio *io, const struct elasticd_view *v,
		       const struct elastic_policy *p, int64_t now_ms);

/* At the stop: what was not written yet. */
void account_run_stop(void);

#endif
