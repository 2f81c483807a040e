/*
 * elasticd's reads of slurmctld between reads of the queue
 * (slurmio_load_lookups): a unit's start told by slurmstepd is taken
 * first, in a load without reads; the reads that were due come in the
 * load right after, and a job followed (slurmio_follow) stays followed
 * for as long as slurmctld has it.  slurmctld is this file's: the reads
 * slurmio makes (slurm_load_jobs, slurm_load_job) are defined here, and
 * this executable's definitions are the ones slurmio.c calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/slurm_compat.h"
#include "common/unittag.h"
#include "elasticd/model.h"
#include "elasticd/slurmio.h"

/* libslurm's allocator, exported but not declared: the messages made
 * here are freed as slurmio frees slurmctld's. */
char *slurm_xstrdup(const char *s);
void slurm_xfree(void **p);

#define MAX_JOBS  8
#define MAX_READS 64

/* slurmctld's jobs (state, nodes) and the reads by id it answered. */
static struct {
	uint32_t id, state, nnodes, group;
	const char *nodes;
} ctld[MAX_JOBS];
static size_t nctld;
static uint32_t reads[MAX_READS];
static size_t nreads;

static void ctld_job(uint32_t id, uint32_t state, uint32_t nnodes,
		     const char *nodes, uint32_t group)
{
	for (size_t i = 0; i < nctld; i++)
		if (ctld[i].id == id) {
			ctld[i].state = state;
			ctld[i].nodes = nodes;
			return;
		}
	assert_true(nctld < MAX_JOBS);
	ctld[nctld].id = id;
	ctld[nctld].state = state;
	ctld[nctld].nnodes = nnodes;
	ctld[nctld].nodes = nodes;
	ctld[nctld++].group = group;
}

static void fill(slurm_job_info_t *ji, size_t k)
{
	struct unit_tag t = { .group = ctld[k].group,
			      .kind = UNIT_PREEMPTIBLE,
			      .nodes = ctld[k].nnodes };
	char tag[UNIT_TAG_MAX];

	assert_true(unittag_format(&t, tag, sizeof(tag)) > 0);
	memset(ji, 0, sizeof(*ji));
	ji->job_id = ctld[k].id;
	ji->job_state = ctld[k].state;
	ji->num_nodes = ctld[k].nnodes;
	ji->nodes = (char *)ctld[k].nodes;
	ji->admin_comment = slurm_xstrdup(tag);
	ji->time_limit = INFINITE;
}

static job_info_msg_t *answer(size_t n)
{
	job_info_msg_t *m = calloc(1, sizeof(*m));

	assert_non_null(m);
	m->job_array = calloc(n ? n : 1, sizeof(*m->job_array));
	assert_non_null(m->job_array);
	m->record_count = (uint32_t)n;
	m->last_update = 1;
	return m;
}

int slurm_load_jobs(time_t since, job_info_msg_t **ret, uint16_t flags)
{
	(void)since;
	(void)flags;
	*ret = answer(nctld);
	for (size_t k = 0; k < nctld; k++)
		fill(&(*ret)->job_array[k], k);
	return SLURM_SUCCESS;
}

int slurm_load_job(job_info_msg_t **ret, compat_job_arg_t arg, uint16_t flags)
{
	uint32_t id = COMPAT_JOB_OF(arg);

	(void)flags;
	assert_true(nreads < MAX_READS);
	reads[nreads++] = id;
	for (size_t k = 0; k < nctld; k++)
		if (ctld[k].id == id) {
			*ret = answer(1);
			fill(&(*ret)->job_array[0], k);
			return SLURM_SUCCESS;
		}
	errno = ESLURM_INVALID_JOB_ID;
	return SLURM_ERROR;
}

void slurm_free_job_info_msg(job_info_msg_t *m)
{
	for (uint32_t i = 0; m && i < m->record_count; i++)
		slurm_xfree((void **)&m->job_array[i].admin_comment);
	if (m)
		free(m->job_array);
	free(m);
}

static bool was_read(uint32_t id)
{
	for (size_t i = 0; i < nreads; i++)
		if (reads[i] == id)
			return true;
	return false;
}

static int setup(void **state)
{
	nctld = nreads = 0;
	*state = slurmio_create();
	return *state ? 0 : -1;
}

static int teardown(void **state)
{
	slurmio_destroy(*state);
	return 0;
}

/* The queue read whole at t ms: the snapshot. */
static const struct snapshot *load_all(struct slurmio *io, int64_t t)
{
	const struct snapshot *s = NULL;
	elastic_error_t err;
	bool changed;

	assert_int_equal(slurmio_load(io, t, 0, 0, 0, &s, &changed, &err), 0);
	assert_non_null(s);
	return s;
}

/* A load between reads of the queue at t ms, what it read from zero. */
static const struct snapshot *load_lookups(struct slurmio *io, int64_t t)
{
	const struct snapshot *s = NULL;
	elastic_error_t err;
	bool changed;

	nreads = 0;
	assert_int_equal(slurmio_load_lookups(io, t, &s, &changed, &err), 0);
	return s;
}

/* Unit 101 pending in the snapshot and job other (not read yet)
 * followed until 60 s; slurmstepd tells that 101 started on n1, and the
 * load at 1.1 s takes it, reading nothing.  That snapshot. */
static const struct snapshot *told_start(struct slurmio *io, uint32_t other)
{
	const struct snapshot *s;

	ctld_job(101, JOB_PENDING, 1, NULL, 100);
	load_all(io, 1000);
	slurmio_follow(io, &other, 1, 60000);
	slurmio_started(io, 101, "n1");
	s = load_lookups(io, 1100);
	assert_int_equal(nreads, 0);
	ctld_job(101, JOB_RUNNING, 1, "n1", 100);
	return s;
}

static void told_start_first_then_reads(void **state)
{
	struct slurmio *io = *state;
	const struct snapshot *s;
	const struct job_view *u;

	s = told_start(io, 102);
	assert_non_null(u = snapshot_find(s, 101));
	assert_int_equal(u->phase, PHASE_RUNNING);
	assert_string_equal(u->nodes, "n1");
	assert_int_equal(slurmio_starts_told(io), 1);
	assert_true(slurmio_reads_waiting(io));
	/* The next load reads what was due and confirms the start. */
	ctld_job(102, JOB_PENDING, 1, NULL, 100);
	s = load_lookups(io, 1200);
	assert_true(was_read(101));
	assert_true(was_read(102));
	assert_non_null(snapshot_find(s, 102));
	assert_false(slurmio_reads_waiting(io));
}

/* A job followed, not in the snapshot when a told start came first: the
 * load that skipped its read did not count as its read, so that it is
 * followed on once found, until it ends or its time is up. */
static void followed_job_kept_across_a_told_start(void **state)
{
	struct slurmio *io = *state;

	told_start(io, 102);
	ctld_job(102, JOB_PENDING, 1, NULL, 100);
	load_lookups(io, 1200);
	assert_true(was_read(102));
	load_lookups(io, 1300);
	assert_true(was_read(102));
	assert_false(was_read(101)); /* confirmed, not followed */
	load_lookups(io, 1400);
	assert_true(was_read(102));
	/* Its time up: read no more. */
	load_lookups(io, 60000);
	assert_false(was_read(102));
}

/* A job followed that slurmctld does not know is read once, then
 * followed no more. */
static void unknown_followed_job_read_once(void **state)
{
	struct slurmio *io = *state;

	told_start(io, 103);
	load_lookups(io, 1200);
	assert_true(was_read(103));
	load_lookups(io, 1300);
	assert_false(was_read(103));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(told_start_first_then_reads,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
		    followed_job_kept_across_a_told_start, setup, teardown),
		cmocka_unit_test_setup_teardown(unknown_followed_job_read_once,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
