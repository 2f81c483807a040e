/* A good site for elasticctl check's tests (check_fixture.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_fixture.h"

static const char policy_text[] = "MaxNodes=64\n"
				  "BasePartitions=base\n"
				  "PreemptiblePartitions=preempt\n"
				  "OnDemandPartitions=ondemand\n"
				  "OnDemand=yes\n"
				  "MaxGrace=600\n"
				  "DefaultGrace=60\n"
				  "ElasticdServer=ctl:6830\n";

/* Node index pairs, -1 ended: nodes 0-47 shared, 48-63 on demand. */
static const int32_t shared_nodes[] = { 0, 47, -1 };
static const int32_t ondemand_nodes[] = { 48, 63, -1 };
static const char *const high_preempts[] = { "spot", NULL };

static void good_slurm(struct good_site *g)
{
	struct check_slurm *sl = &g->s.slurm;

	g->parts[PART_BASE] = (struct check_partition){ "base", CHECK_MODE_OFF,
							10, 0, shared_nodes };
	g->parts[PART_PREEMPT] =
	    (struct check_partition){ "preempt", CHECK_MODE_REQUEUE, 1, 600,
				      shared_nodes };
	g->parts[PART_ONDEMAND] =
	    (struct check_partition){ "ondemand", CHECK_MODE_OFF, 10, 0,
				      ondemand_nodes };
	g->parts[PART_HIGH] = (struct check_partition){ "high", CHECK_MODE_OFF,
							100, 0, shared_nodes };
	g->qos[QOS_NORMAL] =
	    (struct check_qos){ "normal", CHECK_MODE_INHERIT, 0, NULL };
	g->qos[QOS_SPOT] =
	    (struct check_qos){ "spot", CHECK_MODE_INHERIT, 600, NULL };
	g->qos[QOS_HIGH] =
	    (struct check_qos){ "high", CHECK_MODE_INHERIT, 0, high_preempts };
	sl->preempt_type = "preempt/partition_prio";
	sl->mode = CHECK_MODE_REQUEUE;
	sl->slurmctld_params = "preempt_send_user_signal";
	sl->job_submit_plugins = "elastic";
	sl->parts = g->parts;
	sl->nparts = NPARTS;
	sl->qos_read = true;
	sl->qos = g->qos;
	sl->nqos = NQOS;
}

static void good_host(struct good_site *g)
{
	struct check_host *h = &g->s.host;
	struct check_spank_line *l = &h->stack.line[0];

	h->stack_read = true;
	snprintf(h->stack.path, sizeof(h->stack.path), FIXTURE_STACK);
	h->stack.nlines = 1;
	snprintf(l->file, sizeof(l->file), FIXTURE_STACK);
	l->line = 1;
	l->required = true;
	snprintf(l->path, sizeof(l->path), FIXTURE_SO);
	snprintf(l->found, sizeof(l->found), FIXTURE_SO);
	snprintf(l->args, sizeof(l->args), "elastic_conf=" FIXTURE_CONF);
	l->version = FIXTURE_SLURM;
	h->ed = CHECK_ED_OK;
	h->ed_status = 200;
	snprintf(h->ed_server, sizeof(h->ed_server), "ctl:6830");
	h->ed_from = "ElasticdServer";
	h->ctld_clock = h->ed_clock = true;
	h->ctld_skew = 0.4;
	h->ed_skew = -0.6;
	h->nmunge = 1;
	h->munge[0].who = "Slurm's AuthInfo";
}

struct good_site *good_site(const char *extra)
{
	struct good_site *g = calloc(1, sizeof(*g));
	char text[4096];
	elastic_error_t err;

	assert_non_null(g);
	snprintf(text, sizeof(text), "%s%s", policy_text, extra ? extra : "");
	if (policy_parse(&g->p, text, FIXTURE_CONF, &err) < 0)
		fail_msg("the fixture's elastic.conf: %s", err.text);
	g->s.policy = &g->p;
	g->s.policy_path = FIXTURE_CONF;
	g->s.slurm_version = FIXTURE_SLURM;
	g->s.stepd_knows_conf = true;
	g->s.sysconfdir = "/etc/slurm";
	good_slurm(g);
	good_host(g);
	return g;
}

void run_checks(const struct check_site *s, struct check_findings *out)
{
	memset(out, 0, sizeof(*out));
	check_site(s, out);
	assert_false(out->oom);
}

static void print_findings(const struct check_findings *out)
{
	for (size_t i = 0; i < out->n; i++)
		print_message("# found: [%s] %s: %s; %s\n",
			      check_area_name(out->f[i].area),
			      out->f[i].subject, out->f[i].problem,
			      out->f[i].fix);
}

void expect_one(const struct check_site *s, enum check_area area,
		const char *subject, const char *problem, const char *fix)
{
	struct check_findings out;
	const struct check_finding *f;

	run_checks(s, &out);
	if (out.n != 1) {
		print_findings(&out);
		fail_msg("%zu findings, want one in %s", out.n,
			 check_area_name(area));
	}
	f = &out.f[0];
	if (f->area != area || strcmp(f->subject, subject) ||
	    (problem && !strstr(f->problem, problem)) ||
	    (fix && !strstr(f->fix, fix))) {
		print_findings(&out);
		fail_msg("want [%s] %s: ...%s...; ...%s...",
			 check_area_name(area), subject, problem ? problem : "",
			 fix ? fix : "");
	}
	check_findings_free(&out);
}

void expect_none(const struct check_site *s)
{
	struct check_findings out;

	run_checks(s, &out);
	if (out.n) {
		print_findings(&out);
		fail_msg("%zu findings, want none", out.n);
	}
	check_findings_free(&out);
}
