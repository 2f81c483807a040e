/* The loop's part in the groups' accounts (account_run.h). */
#include "config.h"

#include <time.h>

#include "common/log.h"
#include "account_run.h"
#include "account_store.h"

#define PURGE_EVERY_S 3600

static time_t last_purge;

static void purge(const struct elastic_policy *p, time_t now)
{
	elastic_error_t err;
	long n = account_store_purge(now, p->account_retention_days,
				     p->account_max_jobs, &err);

	last_purge = now;
	if (n < 0)
		elog_warn("accounts: %s", err.text);
	else if (n > 0)
		elog_info("accounts: %ld removed (AccountRetention=%u, "
			  "AccountMaxJobs=%u)",
			  n, p->account_retention_days, p->account_max_jobs);
}

void account_run_start(const struct elastic_policy *p)
{
	elastic_error_t err;

	if (account_store_open(p->elasticd_state_dir, &err) < 0) {
		elog_warn("accounts: %s; kept in memory only", err.text);
		return;
	}
	purge(p, time(NULL));
}

void account_run_cycle(struct slurmio *io, const struct elasticd_view *v,
		       const struct elastic_policy *p, int64_t now_ms)
{
	struct account_final fin[16];
	elastic_error_t err;
	size_t n;

	while ((n = account_store_take_finals(fin, 16)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (slurmio_note_tag(io, fin[i].id, fin[i].summary,
					     &err) < 0)
				elog_warn("accounts: AdminComment: %s",
					  err.text);
			else
				elog_info("group %u ended: %s", fin[i].id,
					  fin[i].summary);
		}
	}
	if (account_store_flush(v, now_ms, &err) < 0)
		elog_error("accounts: %s", err.text);
	if (time(NULL) - last_purge >= PURGE_EVERY_S)
		purge(p, time(NULL));
}

void account_run_stop(void)
{
	elastic_error_t err;

	if (account_store_close(&err) < 0)
		elog_error("accounts: %s", err.text);
}
