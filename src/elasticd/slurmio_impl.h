#ifndef ELASTICD_SLURMIO_IMPL_H
#define ELASTICD_SLURMIO_IMPL_H

/* What slurmio.c (reading the queue) and slurmio_act.c (submitting,
 * cancelling, signalling) share; no one else includes it. */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "common/policy.h"
#include "slurmio.h"

/* job_info_t.state_desc of a batch job that Slurm requeued and held
 * because its launch failed (the same from 22.05 to 24.11). */
#define LAUNCH_HELD_DESC "launch failed requeued held"

#define UID_CACHE 1024 /* owners remembered; cleared when full */

struct uid_name {
	uid_t uid;
	char name[64]; /* "" if unknown */
};

struct slurmio {
	time_t last_update; /* of slurmctld's last full answer */
	int64_t last_full_ms;
	struct snapshot *snap;
	uint64_t rpcs, rpcs_cycle, bad_tags;
	struct uid_name users[UID_CACHE];
	size_t nusers;
	/* resync mode: the groups' jobs, read by id between reads of the
	 * whole queue, and when that was last read */
	uint32_t watch[SLURMIO_WATCH_MAX];
	size_t nwatch;
	bool watch_overflow;
	int64_t last_resync_ms; /* of the last read of the owners' jobs */
	int64_t last_whole_ms;	/* of the last read of the whole queue */
	uint32_t lookups[SLURMIO_LOOKUPS_MAX];
	size_t nlookups;
	struct follow {
		uint32_t id;
		int64_t until_ms;
		bool read; /* asked about since it was followed */
	} follows[SLURMIO_FOLLOW_MAX];
	size_t nfollows;
	/* Units' starts told by slurmstepd (slurmio_started()) */
	struct started {
		uint32_t id;
		char *nodes; /* malloc'd */
	} started[SLURMIO_STARTED_MAX];
	size_t nstarted;
	uint64_t starts_told;
	/* What units run (slurmio_set_unit_program()); "" = sleep */
	char unit_program[POLICY_PATH_MAX + 1];
	char slurm_conf[POLICY_PATH_MAX + 16]; /* "SLURM_CONF=...", or "" */
};

/* One RPC more to slurmctld, in the totals. */
void slurmio_rpc(struct slurmio *io);

#endif
