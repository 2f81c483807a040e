/*
 * elasticctl check (check_io.h): slurm.conf as slurmctld runs it, its
 * partitions and Slurm's QOS, asked of Slurm through libslurm, into the
 * site.  Nothing is decided here.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

#include "common/slurm_compat.h"
#include "check_io.h"

struct check_reading {
	slurm_conf_t *conf;
	partition_info_msg_t *parts_msg;
	struct check_partition *parts;
	void *qos_list; /* of slurmdb_qos_rec_t */
	struct check_qos *qos;
	const char **preempts; /* every QOS's Preempt, each NULL-ended */
	char error[CHECK_WHY_MAX], qos_error[CHECK_WHY_MAX];
};

/* A mode as Slurm keeps it; unset (NO_VAL16 for a partition, 0 for a
 * QOS): the cluster's.  The flags (GANG, WITHIN, PRIORITY) do not stop a
 * job. */
static enum check_mode mode_of(uint16_t m, uint16_t unset)
{
	if (m == unset)
		return CHECK_MODE_INHERIT;
	if (m & PREEMPT_MODE_CANCEL)
		return CHECK_MODE_CANCEL;
	if (m & PREEMPT_MODE_REQUEUE)
		return CHECK_MODE_REQUEUE;
	if (m & PREEMPT_MODE_SUSPEND)
		return CHECK_MODE_SUSPEND;
	return CHECK_MODE_OFF;
}

static double wall_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void read_conf(struct check_reading *r, struct check_slurm *sl)
{
	slurm_conf_t *c;

	if (slurm_load_ctl_conf((time_t)0, &r->conf) != SLURM_SUCCESS ||
	    !r->conf) {
		snprintf(r->error, sizeof(r->error), "%s",
			 slurm_strerror(errno));
		sl->error = r->error;
		return;
	}
	c = r->conf;
	sl->preempt_type = c->preempt_type;
	sl->mode = mode_of(c->preempt_mode, NO_VAL16);
	sl->slurmctld_params = c->slurmctld_params;
	sl->preempt_params = COMPAT_CONF_PREEMPT_PARAMS(c);
	sl->has_preempt_params = COMPAT_HAS_PREEMPT_PARAMS;
	sl->job_submit_plugins = c->job_submit_plugins;
	sl->plugstack = c->plugstack;
	sl->plugindir = c->plugindir;
	sl->authinfo = c->authinfo;
}

/* The partitions, and slurmctld's clock: it stamps its answer with its
 * time, in whole seconds, the middle of which is compared with the
 * middle of the request here. */
static void read_partitions(struct check_reading *r, struct check_site *s)
{
	partition_info_msg_t *m;
	double t0 = wall_now(), t1;

	if (slurm_load_partitions((time_t)0, &r->parts_msg, SHOW_ALL) !=
		SLURM_SUCCESS ||
	    !r->parts_msg) {
		snprintf(r->error, sizeof(r->error), "partitions: %s",
			 slurm_strerror(errno));
		s->slurm.error = r->error;
		return;
	}
	t1 = wall_now();
	m = r->parts_msg;
	s->host.ctld_clock = true;
	s->host.ctld_skew = (double)m->last_update + 0.5 - (t0 + t1) / 2;
	r->parts =
	    calloc(m->record_count ? m->record_count : 1, sizeof(*r->parts));
	if (!r->parts) {
		s->slurm.error = "out of memory";
		return;
	}
	for (uint32_t i = 0; i < m->record_count; i++) {
		const partition_info_t *p = &m->partition_array[i];

		r->parts[i] = (struct check_partition){
			.name = p->name ? p->name : "",
			.mode = mode_of(p->preempt_mode, NO_VAL16),
			.tier = p->priority_tier,
			.grace = p->grace_time,
			.node_inx = p->node_inx,
		};
	}
	s->slurm.parts = r->parts;
	s->slurm.nparts = m->record_count;
}

/* Each QOS's Preempt, a bitmap by QOS id, as the names it holds. */
static int qos_preempts(struct check_reading *r, slurmdb_qos_rec_t **recs,
			size_t n)
{
	const char **next;

	r->preempts = calloc(n * (n + 1) + 1, sizeof(*r->preempts));
	if (!r->preempts)
		return -1;
	next = r->preempts;
	for (size_t i = 0; i < n; i++) {
		bitstr_t *b = recs[i]->preempt_bitstr;

		r->qos[i].preempts = next;
		for (size_t j = 0; b && j < n; j++)
			if ((int64_t)recs[j]->id < slurm_bit_size(b) &&
			    slurm_bit_test(b, (int64_t)recs[j]->id))
				*next++ = recs[j]->name;
		*next++ = NULL;
	}
	return 0;
}

static int read_qos_list(struct check_reading *r, struct check_slurm *sl)
{
	size_t n = (size_t)slurm_list_count(r->qos_list), i = 0;
	slurmdb_qos_rec_t **recs, *q;
	void *it;
	int rc = -1;

	recs = calloc(n + 1, sizeof(*recs));
	r->qos = calloc(n + 1, sizeof(*r->qos));
	if (!recs || !r->qos || !(it = slurm_list_iterator_create(r->qos_list)))
		goto out;
	while ((q = slurm_list_next(it)) && i < n) {
		recs[i] = q;
		r->qos[i++] = (struct check_qos){
			.name = q->name ? q->name : "",
			.mode = q->preempt_mode == NO_VAL16
				    ? CHECK_MODE_INHERIT
				    : mode_of(q->preempt_mode, 0),
			.grace = q->grace_time,
		};
	}
	slurm_list_iterator_destroy(it);
	if (qos_preempts(r, recs, i) < 0)
		goto out;
	sl->qos = r->qos;
	sl->nqos = i;
	sl->qos_read = true;
	rc = 0;
out:
	free(recs);
	return rc;
}

/* Slurm's QOS, from its database (slurmdbd). */
static void read_qos(struct check_reading *r, struct check_slurm *sl)
{
	slurmdb_qos_cond_t cond;
	uint16_t flags = 0;
	void *db;

	memset(&cond, 0, sizeof(cond));
	errno = 0;
	if (!(db = slurmdb_connection_get(&flags))) {
		snprintf(r->qos_error, sizeof(r->qos_error),
			 "cannot reach slurmdbd: %s", slurm_strerror(errno));
	} else if (!(r->qos_list = slurmdb_qos_get(db, &cond))) {
		snprintf(r->qos_error, sizeof(r->qos_error),
			 "slurmdbd did not list the QOS: %s",
			 slurm_strerror(errno));
	} else if (read_qos_list(r, sl) < 0) {
		snprintf(r->qos_error, sizeof(r->qos_error), "out of memory");
	}
	if (db)
		slurmdb_connection_close(&db);
	if (!sl->qos_read)
		sl->qos_error = r->qos_error;
}

struct check_reading *check_read_slurm(struct check_site *s,
				       const struct elastic_policy *p)
{
	struct check_reading *r = calloc(1, sizeof(*r));

	s->slurm_version = SLURM_VERSION_NUMBER;
	s->stepd_knows_conf = !COMPAT_SLURM_AT_LEAST(23, 2);
	s->sysconfdir = SLURM_SYSCONFDIR;
	if (!r) {
		s->slurm.error = "out of memory";
		return NULL;
	}
	read_conf(r, &s->slurm);
	/* Even for this host's checks alone: slurmctld's clock. */
	if (!s->slurm.error)
		read_partitions(r, s);
	/* slurmdbd only when the site has a QOS to look at. */
	if (!s->slurm.error && !s->local && p &&
	    ((s->slurm.preempt_type &&
	      !strcmp(s->slurm.preempt_type, "preempt/qos")) ||
	     p->base_qos[0] || p->preemptible_qos[0] || p->ondemand_qos[0]))
		read_qos(r, &s->slurm);
	return r;
}

void check_read_free(struct check_reading *r)
{
	if (!r)
		return;
	if (r->qos_list)
		slurm_list_destroy(r->qos_list);
	free(r->qos);
	free(r->preempts);
	free(r->parts);
	if (r->parts_msg)
		slurm_free_partition_info_msg(r->parts_msg);
	if (r->conf)
		compat_free_conf(r->conf);
	free(r);
}
