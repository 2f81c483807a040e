/* elasticd's actions on Slurm: units submitted, cancelled, released
 * and signalled (slurmio.h). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "common/options.h"
#include "common/parse.h"
#include "common/policy.h"
#include "common/slurm_compat.h"
#include "elastic-event/raise.h"
#include "slurmio_impl.h"

int slurmio_set_unit_program(struct slurmio *io, const char *path,
			     elastic_error_t *err)
{
	const char *conf = secure_getenv("SLURM_CONF");

	if (path && (path[0] != '/' || strchr(path, '\'') ||
		     strlen(path) >= sizeof(io->unit_program)))
		return elastic_errorf(err,
				      "ElasticdUnitProgram=%s: an absolute "
				      "path without ' is required",
				      path);
	snprintf(io->unit_program, sizeof(io->unit_program), "%s",
		 path ? path : "");
	io->slurm_conf[0] = '\0';
	if (conf && *conf && strlen(conf) <= POLICY_PATH_MAX)
		snprintf(io->slurm_conf, sizeof(io->slurm_conf),
			 "SLURM_CONF=%s", conf);
	return 0;
}

/* The unit's batch script: its program, or only a sleep. */
static void unit_script(const struct slurmio *io, int sig, char *out,
			size_t len)
{
	static const char head[] =
	    "#!/bin/sh\n"
	    "# An elastic unit: holds its nodes for the group's ranks,\n"
	    "# which its base job starts here with srun --jobid.\n";

	if (!io->unit_program[0]) {
		snprintf(out, len, "%sexec sleep infinity\n", head);
		return;
	}
	/* The program tells elasticd the unit started and passes Slurm's
	 * signal on to the ranks; where it is missing, the unit still
	 * holds its nodes and elasticd's poll sees what happens. */
	snprintf(out, len,
		 "%s[ -x '%s' ] && exec '%s' --unit=%s\nexec sleep infinity\n",
		 head, io->unit_program, io->unit_program,
		 parse_signal_name(sig));
}

int slurmio_submit(struct slurmio *io, const struct unit_request *u,
		   uint32_t *job_id, elastic_error_t *err)
{
	char script[2 * POLICY_PATH_MAX + 256];
	char name[64], tag[UNIT_TAG_MAX + 1], genv[64];
	char *env[] = { "PATH=/usr/bin:/bin", genv, NULL, NULL };
	submit_response_msg_t *resp = NULL;
	job_desc_msg_t d;
	int rc;

	snprintf(name, sizeof(name), "elastic-unit-%u", u->tag.group);
	snprintf(genv, sizeof(genv), "ELASTIC_GROUP=%u", u->tag.group);
	if (io->slurm_conf[0])
		env[2] = (char *)io->slurm_conf;
	if (unittag_format(&u->tag, tag, sizeof(tag)) >= (int)sizeof(tag))
		return elastic_errorf(err, "unit tag too long");
	unit_script(io, u->signal, script, sizeof(script));
	slurm_init_job_desc_msg(&d);
	d.name = name;
	d.script = script;
	d.admin_comment = tag;
	/* As the base's owner, never as root (unless root owns it). */
	d.user_id = u->uid;
	d.group_id = u->gid;
	d.account = (char *)u->account;
	d.partition = (char *)u->partition;
	d.qos = u->qos[0] ? (char *)u->qos : NULL;
	d.min_nodes = d.max_nodes = u->tag.nodes;
	d.time_limit = u->time_limit ? u->time_limit : NO_VAL;
	/* Preempted: ended, not held ~120 s in requeue; elasticd asks
	 * for a new one at once. */
	d.requeue = 0;
	d.kill_on_node_fail = 1;
	/* As job_submit/elastic does for the base: the elastic signal to
	 * the steps (the ranks), not the batch shell, at preemption and
	 * before the time limit. */
	d.warn_signal = (uint16_t)u->signal;
	d.warn_time = (uint16_t)(u->grace < 65535 ? u->grace : 65535);
	/* With its program, to the batch shell, which passes it on. */
	d.warn_flags = io->unit_program[0] ? KILL_JOB_BATCH : 0;
	d.shared = 0; /* whole nodes, like the base */
	/* Growth never jumps the queue: a unit waits behind the work other
	 * users queued before it (the priority is lowered by the nice). */
	d.nice = NICE_OFFSET + u->nice;
	d.tres_per_node = (char *)u->tres_per_node;
	d.features = (char *)u->features;
	d.std_in = "/dev/null";
	d.std_out = "/dev/null";
	d.std_err = "/dev/null";
	d.work_dir = "/";
	d.environment = env;
	d.env_size = env[2] ? 3 : 2;
	slurmio_rpc(io);
	rc = slurm_submit_batch_job(&d, &resp);
	if (rc != SLURM_SUCCESS || !resp) {
		int e = errno;

		slurm_free_submit_response_response_msg(resp);
		return elastic_errorf(err, "%s", slurm_strerror(e));
	}
	*job_id = COMPAT_SUBMIT_JOB_ID(resp);
	slurm_free_submit_response_response_msg(resp);
	return 0;
}

int slurmio_cancel(struct slurmio *io, uint32_t job_id, elastic_error_t *err)
{
	slurmio_rpc(io);
	if (compat_kill_job(job_id, SIGKILL, 0) != SLURM_SUCCESS) {
		int e = errno;

		/* Ended meanwhile: what we wanted. */
		if (e == ESLURM_ALREADY_DONE || e == ESLURM_INVALID_JOB_ID)
			return 0;
		return elastic_errorf(err, "job %u: %s", job_id,
				      slurm_strerror(e));
	}
	return 0;
}

int slurmio_release(struct slurmio *io, uint32_t job_id, elastic_error_t *err)
{
	job_desc_msg_t d;

	slurm_init_job_desc_msg(&d);
	COMPAT_JOB_DESC_JOB_ID(&d) = job_id;
	d.priority = INFINITE; /* as scontrol release: Slurm computes it */
	slurmio_rpc(io);
	if (slurm_update_job(&d) != SLURM_SUCCESS)
		return elastic_errorf(err, "job %u: %s", job_id,
				      slurm_strerror(errno));
	return 0;
}

int slurmio_note_tag(struct slurmio *io, uint32_t job_id, const char *note,
		     elastic_error_t *err)
{
	const struct job_view *j =
	    io->snap ? snapshot_find(io->snap, job_id) : NULL;
	char text[ELASTIC_TAG_MAX + 128];
	const char *end;
	job_desc_msg_t d;
	size_t n;

	if (!j || j->role != ROLE_BASE || !j->tag)
		return elastic_errorf(err, "job %u: no tag read of it", job_id);
	end = strstr(j->tag, ELASTIC_TAG_END);
	n = end ? (size_t)(end - j->tag) : strlen(j->tag);
	if ((size_t)snprintf(text, sizeof(text), "%.*s" ELASTIC_TAG_END "%s",
			     (int)n, j->tag, note) >= sizeof(text))
		return elastic_errorf(err, "job %u: tag too long", job_id);
	slurm_init_job_desc_msg(&d);
	COMPAT_JOB_DESC_JOB_ID(&d) = job_id;
	d.admin_comment = text;
	slurmio_rpc(io);
	if (slurm_update_job(&d) != SLURM_SUCCESS)
		return elastic_errorf(err, "job %u: %s", job_id,
				      slurm_strerror(errno));
	return 0;
}

int slurmio_raise(struct slurmio *io, const uint32_t *jobs, size_t n, int sig,
		  elastic_error_t *err)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		slurmio_rpc(io);
		if (raise_job(jobs[i], sig, err) < 0)
			rc = -1;
	}
	return rc;
}
