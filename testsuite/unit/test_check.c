/* Unit tests of elasticctl check's decisions on Slurm's side: a good
 * site finds nothing, and each broken setting of slurm.conf, Slurm's QOS
 * or elastic.conf is found, alone, with its fix.  This host's checks
 * are test_check_host's. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_fixture.h"

static void good(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_findings out;

	run_checks(&g->s, &out);
	assert_int_equal(out.n, 0);
	/* Everything was looked at, but the compute node nobody named. */
	assert_int_equal(out.ran,
			 ((1u << CHECK_NAREAS) - 1) & ~(1u << CHECK_NODE));
	assert_string_equal(out.skipped, "");
	check_findings_free(&out);
	free(g);
}

static void slurmctld_down(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_findings out;

	g->s.slurm.error = "Unable to contact slurm controller";
	expect_one(&g->s, CHECK_SLURMCTLD, "slurmctld",
		   "cannot read slurm.conf from it: Unable to contact",
		   "start slurmctld");
	run_checks(&g->s, &out);
	assert_false(out.ran & (1u << CHECK_PARTITIONS));
	assert_false(out.ran & (1u << CHECK_PLUGSTACK));
	assert_true(out.ran & (1u << CHECK_MUNGE));
	assert_string_equal(out.skipped, "slurmctld did not answer");
	check_findings_free(&out);
	free(g);
}

static void policy_invalid(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_findings out;

	g->s.policy = NULL;
	g->s.policy_error = FIXTURE_CONF ":3: unknown key 'Colour'";
	expect_one(&g->s, CHECK_ELASTIC_CONF, FIXTURE_CONF,
		   ":3: unknown key 'Colour': job_submit/elastic refuses",
		   "correct it");
	run_checks(&g->s, &out);
	assert_false(out.ran & (1u << CHECK_GRACE));
	assert_string_equal(out.skipped, "elastic.conf is not valid");
	check_findings_free(&out);
	free(g);
}

static void partition_missing(void **state)
{
	static const struct {
		const char *line, *subject;
	} cases[] = {
		{ "PreemptiblePartitions=spot\n",
		  "PreemptiblePartitions=spot" },
		{ "BasePartitions=base,protected\n",
		  "BasePartitions=protected" },
		{ "OnDemandPartitions=cloud\n", "OnDemandPartitions=cloud" },
		{ "EvalPartition=eval\n", "EvalPartition=eval" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct good_site *g = good_site(cases[i].line);

		expect_one(&g->s, CHECK_PARTITIONS, cases[i].subject,
			   "no such partition in slurm.conf (partitions: "
			   "base, preempt, ondemand, high)",
			   "or add PartitionName=");
		free(g);
	}
}

/* SparePartitions: preemptible, and below every preemptible partition
 * on their nodes, so that Slurm takes a spare before a world's unit. */
static void spare_partitions(void **state)
{
	struct good_site *g = good_site("SparePartitions=spare\n");
	struct check_partition parts[NPARTS + 1];
	struct check_findings out;

	(void)state;
	memcpy(parts, g->parts, sizeof(g->parts));
	parts[NPARTS] = parts[PART_PREEMPT];
	parts[NPARTS].name = "spare";
	parts[NPARTS].tier = 0;
	g->s.slurm.parts = parts;
	g->s.slurm.nparts = NPARTS + 1;
	expect_none(&g->s);
	parts[NPARTS].tier = 1;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=spare",
		   "SparePartitions: its PriorityTier 1 is not below "
		   "PartitionName=preempt's 1",
		   "give PartitionName=spare a PriorityTier below 1");
	parts[NPARTS].tier = 0;
	parts[NPARTS].mode = CHECK_MODE_OFF;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=spare",
		   "PreemptMode=OFF", NULL);
	free(g);
	/* Names Slurm does not know. */
	g = good_site("SparePartitions=spot\nSpareQOS=scavenger\n");
	run_checks(&g->s, &out);
	assert_int_equal(out.n, 2);
	assert_int_equal(out.f[0].area, CHECK_PARTITIONS);
	assert_string_equal(out.f[0].subject, "SparePartitions=spot");
	assert_int_equal(out.f[1].area, CHECK_PARTITIONS);
	assert_string_equal(out.f[1].subject, "SpareQOS=scavenger");
	check_findings_free(&out);
	free(g);
}

static void partition_list_cut(void **state)
{
	static const int32_t none[] = { -1 };
	struct check_partition many[40];
	char names[40][32];
	struct good_site *g = good_site("PreemptiblePartitions=spot\n");
	struct check_findings out;

	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "partition-number-%02d",
			 i);
		many[i] = (struct check_partition){ names[i], CHECK_MODE_OFF, 1,
						    0, none };
	}
	g->s.slurm.parts = many;
	g->s.slurm.nparts = 40;
	/* Not the other names: they would be missing too. */
	g->p.base_partitions.n = g->p.ondemand_partitions.n = 0;
	run_checks(&g->s, &out);
	assert_int_equal(out.n, 1);
	assert_int_equal(out.f[0].area, CHECK_PARTITIONS);
	assert_non_null(strstr(out.f[0].problem, "partition-number-00, "));
	assert_non_null(strstr(out.f[0].problem, ", ...)"));
	check_findings_free(&out);
	free(g);
}

static void preemptible_empty(void **state)
{
	struct good_site *g = good_site("PreemptiblePartitions=\n");

	expect_one(&g->s, CHECK_PARTITIONS, "PreemptiblePartitions",
		   "elasticd submits no unit jobs, so every group runs at its "
		   "--elastic-min and never grows",
		   "set PreemptiblePartitions");
	free(g);
}

static void qos_missing(void **state)
{
	struct good_site *g = good_site("BaseQOS=protected\n");

	expect_one(&g->s, CHECK_PARTITIONS, "BaseQOS=protected",
		   "no such QOS in Slurm's database (QOS: normal, spot, high)",
		   "sacctmgr add qos protected");
	g->s.slurm.qos_read = false;
	g->s.slurm.qos_error = "cannot reach slurmdbd: Connection refused";
	expect_one(&g->s, CHECK_PARTITIONS, "BaseQOS=protected",
		   "cannot tell whether the QOS exists: cannot reach slurmdbd",
		   NULL);
	free(g);
	/* Slurm keeps QOS names in lower case. */
	g = good_site("OnDemandQOS=Normal\n");
	expect_none(&g->s);
	free(g);
}

static void no_preemption(void **state)
{
	static const char *const none[] = { NULL, "", "preempt/none" };

	for (size_t i = 0; i < 3; i++) {
		struct good_site *g = good_site(NULL);

		g->s.slurm.preempt_type = none[i];
		g->s.slurm.mode = CHECK_MODE_OFF;
		expect_one(&g->s, CHECK_PREEMPTION, "PreemptType=preempt/none",
			   "Slurm preempts no job",
			   "set PreemptType=preempt/partition_prio and "
			   "PreemptMode=REQUEUE");
		free(g);
	}
}

static void preempt_type_unknown(void **state)
{
	struct good_site *g = good_site(NULL);

	g->s.slurm.preempt_type = "preempt/site_special";
	expect_one(&g->s, CHECK_PREEMPTION, "PreemptType=preempt/site_special",
		   "cannot tell whether it preempts the units", NULL);
	free(g);
}

static void partition_mode(void **state)
{
	struct good_site *g = good_site(NULL);

	g->parts[PART_PREEMPT].mode = CHECK_MODE_OFF;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=preempt",
		   "PreemptMode=OFF: Slurm never preempts its jobs",
		   "set PreemptMode=REQUEUE on PartitionName=preempt");
	g->parts[PART_PREEMPT].mode = CHECK_MODE_SUSPEND;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=preempt",
		   "PreemptMode=SUSPEND: Slurm stops a preempted unit at once",
		   "PreemptMode=REQUEUE");
	/* Its own mode unset: the cluster's applies. */
	g->parts[PART_PREEMPT].mode = CHECK_MODE_INHERIT;
	expect_none(&g->s);
	g->s.slurm.mode = CHECK_MODE_SUSPEND;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=preempt",
		   "PreemptMode=SUSPEND (the cluster's)", NULL);
	g->s.slurm.mode = CHECK_MODE_CANCEL;
	expect_none(&g->s);
	free(g);
}

static void partition_no_preemptor(void **state)
{
	static const int32_t elsewhere[] = { 100, 110, -1 };
	static const int32_t split[] = { 0, 3, 40, 47, -1 };
	struct good_site *g = good_site(NULL);

	/* The tiers above it are on other nodes... */
	g->parts[PART_HIGH].node_inx = elsewhere;
	g->parts[PART_BASE].tier = 1;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=preempt",
		   "no partition with a PriorityTier above its 1 shares its "
		   "nodes",
		   "a PriorityTier above 1");
	/* ... until one range of many overlaps. */
	g->parts[PART_HIGH].node_inx = split;
	expect_none(&g->s);
	/* The same tier preempts nothing. */
	g->parts[PART_HIGH].node_inx = elsewhere;
	g->parts[PART_BASE].tier = 1;
	g->parts[PART_PREEMPT].tier = 10;
	g->parts[PART_ONDEMAND].node_inx = elsewhere;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=preempt",
		   "above its 10", NULL);
	/* A partition without nodes preempts nothing either. */
	g->parts[PART_HIGH].node_inx = NULL;
	expect_one(&g->s, CHECK_PREEMPTION, "PartitionName=preempt", NULL,
		   NULL);
	free(g);
}

static void qos_preemption(void **state)
{
	static const char *const self[] = { "spot", NULL };
	struct good_site *g = good_site("PreemptibleQOS=spot\n");

	g->s.slurm.preempt_type = "preempt/qos";
	expect_none(&g->s);
	/* Nobody preempts spot: a QOS listing itself does not count. */
	g->qos[QOS_HIGH].preempts = NULL;
	g->qos[QOS_SPOT].preempts = self;
	expect_one(&g->s, CHECK_PREEMPTION, "PreemptibleQOS=spot",
		   "no other QOS lists it in its Preempt",
		   "sacctmgr modify qos HIGHER set Preempt+=spot");
	free(g);

	g = good_site("PreemptibleQOS=spot\n");
	g->s.slurm.preempt_type = "preempt/qos";
	g->qos[QOS_SPOT].mode = CHECK_MODE_OFF;
	expect_one(&g->s, CHECK_PREEMPTION, "PreemptibleQOS=spot",
		   "PreemptMode=OFF", "set PreemptMode=REQUEUE");
	free(g);

	g = good_site(NULL);
	g->s.slurm.preempt_type = "preempt/qos";
	expect_one(&g->s, CHECK_PREEMPTION, "PreemptibleQOS",
		   "not set, and Slurm preempts by QOS", "set PreemptibleQOS");
	free(g);
}

static void grace_short(void **state)
{
	struct good_site *g = good_site(NULL);

	g->parts[PART_PREEMPT].grace = 0;
	expect_one(&g->s, CHECK_GRACE, "PartitionName=preempt",
		   "no GraceTime: Slurm ends a preempted unit at once",
		   "set GraceTime=600 on PartitionName=preempt in slurm.conf");
	g->parts[PART_PREEMPT].grace = 10;
	expect_one(&g->s, CHECK_GRACE, "PartitionName=preempt",
		   "GraceTime=10 is shorter than DefaultGrace=60", NULL);
	g->parts[PART_PREEMPT].grace = 120;
	expect_one(
	    &g->s, CHECK_GRACE, "PartitionName=preempt",
	    "GraceTime=120 is shorter than MaxGrace=600: a job given "
	    "more than --elastic-grace=120",
	    "or lower MaxGrace (and DefaultGrace) in elastic.conf to 120");
	free(g);
	g = good_site("MaxGrace=120\n");
	g->parts[PART_PREEMPT].grace = 120;
	expect_none(&g->s);
	free(g);
}

static void grace_qos(void **state)
{
	struct good_site *g = good_site("PreemptibleQOS=spot\n");

	g->s.slurm.preempt_type = "preempt/qos";
	/* Under preempt/qos the partition's GraceTime is not used. */
	g->parts[PART_PREEMPT].grace = 0;
	expect_none(&g->s);
	g->qos[QOS_SPOT].grace = 30;
	expect_one(&g->s, CHECK_GRACE, "PreemptibleQOS=spot",
		   "GraceTime=30 is shorter than DefaultGrace=60",
		   "sacctmgr modify qos spot set GraceTime=600");
	free(g);
}

static void user_signal(void **state)
{
	struct good_site *g = good_site(NULL);

	g->s.slurm.slurmctld_params = "enable_configless";
	expect_one(&g->s, CHECK_SIGNAL, "SlurmctldParameters=enable_configless",
		   "no preempt_send_user_signal: at a preemption Slurm sends "
		   "the unit's ranks SIGTERM",
		   "add preempt_send_user_signal to SlurmctldParameters");
	g->s.slurm.slurmctld_params = NULL;
	expect_one(&g->s, CHECK_SIGNAL, "SlurmctldParameters=(none)", NULL,
		   NULL);
	/* As slurmctld reads it: anywhere in the list, any case. */
	g->s.slurm.slurmctld_params =
	    "enable_configless,Preempt_Send_User_Signal";
	expect_none(&g->s);
	/* 23.02 on: PreemptParameters, or the old spelling still. */
	g->s.slurm.has_preempt_params = true;
	expect_none(&g->s);
	g->s.slurm.slurmctld_params = NULL;
	g->s.slurm.preempt_params = "send_user_signal";
	expect_none(&g->s);
	g->s.slurm.preempt_params = "min_exempt_priority=10";
	expect_one(
	    &g->s, CHECK_SIGNAL, "PreemptParameters=min_exempt_priority=10",
	    "no send_user_signal", "add send_user_signal to PreemptParameters");
	free(g);
}

static void job_submit(void **state)
{
	static const char *const bad[] = { NULL, "", "lua", "elastic_x",
					   "job_submit/lua,xelastic" };
	static const char *const fine[] = { "lua,elastic", " lua , elastic ",
					    "job_submit/elastic" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct good_site *g = good_site(NULL);
		char subject[64];

		g->s.slurm.job_submit_plugins = bad[i];
		snprintf(subject, sizeof(subject), "JobSubmitPlugins=%s",
			 bad[i] && *bad[i] ? bad[i] : "(none)");
		expect_one(&g->s, CHECK_JOB_SUBMIT, subject,
			   "no elastic: slurmctld neither checks --elastic-* "
			   "options",
			   "add elastic to JobSubmitPlugins");
		free(g);
	}
	for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++) {
		struct good_site *g = good_site(NULL);

		g->s.slurm.job_submit_plugins = fine[i];
		expect_none(&g->s);
		free(g);
	}
}

/* --local: a node's own checks; Slurm's settings are the controller's. */
static void local_only(void **state)
{
	struct good_site *g = good_site("PreemptiblePartitions=spot\n");
	struct check_findings out;

	g->s.local = true;
	g->s.slurm.preempt_type = NULL;
	g->s.slurm.job_submit_plugins = NULL;
	g->s.slurm.slurmctld_params = NULL;
	run_checks(&g->s, &out);
	assert_int_equal(out.n, 0);
	assert_int_equal(out.ran,
			 (1u << CHECK_SLURMCTLD) | (1u << CHECK_ELASTIC_CONF) |
			     (1u << CHECK_PLUGSTACK) | (1u << CHECK_ELASTICD) |
			     (1u << CHECK_CLOCK) | (1u << CHECK_MUNGE));
	assert_non_null(strstr(out.skipped, "--local"));
	check_findings_free(&out);
	free(g);
}

/* Several faults at once: each is found. */
static void several(void **state)
{
	struct good_site *g = good_site("PreemptiblePartitions=preempt,spot\n");
	struct check_findings out;

	g->s.slurm.job_submit_plugins = "lua";
	g->s.slurm.slurmctld_params = NULL;
	g->parts[PART_PREEMPT].grace = 5;
	run_checks(&g->s, &out);
	assert_int_equal(out.n, 4);
	assert_int_equal(out.f[0].area, CHECK_PARTITIONS);
	assert_int_equal(out.f[1].area, CHECK_GRACE);
	assert_int_equal(out.f[2].area, CHECK_SIGNAL);
	assert_int_equal(out.f[3].area, CHECK_JOB_SUBMIT);
	check_findings_free(&out);
	free(g);
}

static void names(void **state)
{
	enum check_area a;

	for (unsigned i = 0; i < CHECK_NAREAS; i++) {
		assert_int_equal(
		    check_area_parse(check_area_name((enum check_area)i), &a),
		    0);
		assert_int_equal(a, i);
	}
	assert_int_equal(check_area_parse("nonsense", &a), -1);
	assert_string_equal(check_area_name(CHECK_NAREAS), "?");
	assert_string_equal(check_mode_name(CHECK_MODE_REQUEUE), "REQUEUE");
}

/* A finding's text is one line, whatever a daemon said. */
static void one_line(void **state)
{
	struct check_findings out = { 0 };
	struct check_finding *f;

	for (int i = 0; i < 100; i++) {
		f = check_add(&out, CHECK_MUNGE, "line\none %d", i);
		assert_non_null(f);
		check_say(f->problem, sizeof(f->problem), "a\tb\r\n");
	}
	assert_int_equal(out.n, 100);
	assert_string_equal(out.f[99].subject, "line\\none 99");
	assert_string_equal(out.f[99].problem, "a\\tb\\r\\n");
	check_findings_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good),
		cmocka_unit_test(slurmctld_down),
		cmocka_unit_test(policy_invalid),
		cmocka_unit_test(partition_missing),
		cmocka_unit_test(partition_list_cut),
		cmocka_unit_test(preemptible_empty),
		cmocka_unit_test(qos_missing),
		cmocka_unit_test(no_preemption),
		cmocka_unit_test(preempt_type_unknown),
		cmocka_unit_test(partition_mode),
		cmocka_unit_test(spare_partitions),
		cmocka_unit_test(partition_no_preemptor),
		cmocka_unit_test(qos_preemption),
		cmocka_unit_test(grace_short),
		cmocka_unit_test(grace_qos),
		cmocka_unit_test(user_signal),
		cmocka_unit_test(job_submit),
		cmocka_unit_test(local_only),
		cmocka_unit_test(several),
		cmocka_unit_test(names),
		cmocka_unit_test(one_line),
	};
	return cmocka_run_group_tests_name("check", tests, NULL, NULL);
}
