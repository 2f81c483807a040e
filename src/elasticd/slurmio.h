#ifndef ELASTICD_SLURMIO_H
#define ELASTICD_SLURMIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "model.h"
#include "reconcile.h"

/*
 * elasticd's only contact with slurmctld (libslurm): the jobs of elastic
 * groups as a snapshot, and the three actions.  Every call that reaches
 * slurmctld counts one RPC.  The caller has called slurm_init().  None of
 * these functions logs; each fills err with one line.
 */

struct slurmio;

struct slurmio *slurmio_create(void);	  /* NULL when out of memory */
void slurmio_destroy(struct slurmio *io); /* NULL is fine */

/*
 * The jobs of elastic groups now.  With resync_s 0: one slurm_load_jobs()
 * with the time of the last answer, so that slurmctld answers "no change"
 * (and we reuse the snapshot we have) when nothing changed; every
 * full_refresh_s seconds (0: never) the whole list is asked for
 * regardless.  With resync_s N: every N seconds all the jobs of the
 * groups' owners, one slurm_load_job_user() each (a new group of an owner
 * it knows, a unit whose submission's answer was lost); between, the jobs
 * of the snapshot that may change (the bases, ended ones too; the units
 * until they end) and the jobs asked about, one slurm_load_job() each:
 * slurmctld finds each in its hash, so that the cost is that of the
 * groups, not of the queue.  The whole queue (groups of owners not seen
 * yet) at the first load, every whole_s seconds (0: no more), and at
 * every load with more than SLURMIO_WATCH_MAX jobs to
 * follow or SLURMIO_OWNERS_MAX owners.  *ret belongs to io and stays
 * valid until the next slurmio_load() that returns *changed = true, or
 * slurmio_destroy().  Returns 0, or -1 (slurmctld unreachable, ...)
 * leaving the previous snapshot in place.
 */
#define SLURMIO_WATCH_MAX  512
#define SLURMIO_OWNERS_MAX 64

/* Jobs to read at the next load (a launcher asked about a group not seen
 * yet, a unit notified, a unit was just submitted), followed from then on;
 * at most SLURMIO_LOOKUPS_MAX are kept, the rest dropped (a read of the
 * whole queue finds them). */
#define SLURMIO_LOOKUPS_MAX 256
void slurmio_lookup(struct slurmio *io, const uint32_t *ids, size_t n);

/*
 * Jobs to read at every cycle until until_ms, or until they are seen
 * ended: a base's also brings its units that may still change.  At most
 * SLURMIO_FOLLOW_MAX are followed; beyond, those that end first give way.
 */
#define SLURMIO_FOLLOW_MAX 64
void slurmio_follow(struct slurmio *io, const uint32_t *ids, size_t n,
		    int64_t until_ms);
/*
 * Unit id started on nodes (Slurm's compressed list), as slurmstepd told
 * as root: at the next slurmio_load_lookups(), a unit the snapshot has
 * pending, asked for as many nodes as the list names, runs there from
 * then on without a read; the read comes at the load after, to confirm.
 * Any other job is read at once, as a lookup.  At most SLURMIO_STARTED_MAX
 * are kept (the rest: lookups); a whole load reads them all anyway.
 */
#define SLURMIO_STARTED_MAX 64
void slurmio_started(struct slurmio *io, uint32_t id, const char *nodes);
/* How many were taken so, since slurmio_create(). */
uint64_t slurmio_starts_told(const struct slurmio *io);

int slurmio_load(struct slurmio *io, int64_t now_ms, unsigned full_refresh_s,
		 unsigned resync_s, unsigned whole_s,
		 const struct snapshot **ret, bool *changed,
		 elastic_error_t *err);

/*
 * Between loads: only the jobs asked about (slurmio_lookup()), those
 * followed (slurmio_follow()), and the units in a preemption's grace with
 * their steps (at most 16 of them, only while a grace runs), read one by
 * one (by id: slurmctld finds each
 * in its hash) into a copy of the snapshot, the rest as they were.  What
 * a notification costs slurmctld: nothing that grows with the queue.  No
 * job to read: nothing read, *ret the snapshot there is (NULL before the
 * first load), *changed false.  Units told started (slurmio_started())
 * that it takes come first, alone: no read in that load.  0, or -1 with
 * err set.
 */
int slurmio_load_lookups(struct slurmio *io, int64_t now_ms,
			 const struct snapshot **ret, bool *changed,
			 elastic_error_t *err);
/* After a load that took units' starts on slurmstepd's word alone: the
 * reads it left for the next load, which should come at once. */
bool slurmio_reads_waiting(const struct slurmio *io);

/*
 * What units run from now on: path (elastic-run, which tells elasticd the
 * unit started and passes Slurm's signal on, the unit's warn signal going
 * to its batch shell), or NULL to have them only hold their nodes (the
 * signal going to their steps).  Units also get this process's SLURM_CONF.
 * 0, or -1 with err set (not an absolute path, a quote in it).
 */
int slurmio_set_unit_program(struct slurmio *io, const char *path,
			     elastic_error_t *err);

/* Submit a unit as its owner; its job id in *job_id. */
int slurmio_submit(struct slurmio *io, const struct unit_request *u,
		   uint32_t *job_id, elastic_error_t *err);

/* Cancel a job (SIGKILL to all of it). */
int slurmio_cancel(struct slurmio *io, uint32_t job_id, elastic_error_t *err);

/* Release a held job (scontrol release): its priority back to Slurm's. */
int slurmio_release(struct slurmio *io, uint32_t job_id, elastic_error_t *err);

/* Set a base's AdminComment to its tag as last read (up to any
 * ELASTIC_TAG_END) followed by ELASTIC_TAG_END and note: the group's
 * account at its end, for sacct.  One update of the job. */
int slurmio_note_tag(struct slurmio *io, uint32_t job_id, const char *note,
		     elastic_error_t *err);

/* Raise sig in every step of each job (raise_job()); one RPC per job.
 * Tries all; returns -1 if any failed, err naming the last. */
int slurmio_raise(struct slurmio *io, const uint32_t *jobs, size_t n, int sig,
		  elastic_error_t *err);

/* RPCs since slurmio_create(), and since the last slurmio_cycle(). */
uint64_t slurmio_rpcs_total(const struct slurmio *io);
uint64_t slurmio_rpcs_cycle(const struct slurmio *io);
void slurmio_cycle(struct slurmio *io); /* a new cycle begins */

/* Jobs seen with an elastic tag that did not parse (since creation). */
uint64_t slurmio_bad_tags(const struct slurmio *io);

#endif
