/* Unit tests of elasticctl check's decisions on what a host found about
 * itself: plugstack.conf's lines as SPANK reads them, whether they load
 * the plugin for this Slurm with the site's elastic.conf, elasticd's
 * answer, the clocks and munge.  Each broken thing is found, alone, with
 * its fix. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_fixture.h"

#define LINE1 FIXTURE_STACK ":1"

static void stack_lines(void **state)
{
	static const struct {
		const char *text;
		enum check_stack_kind kind;
		const char *path, *args;
	} cases[] = {
		{ "", CHECK_STACK_BLANK, "", "" },
		{ "   \t\n", CHECK_STACK_BLANK, "", "" },
		{ "# required x.so", CHECK_STACK_BLANK, "", "" },
		{ "required /p/spank_elastic.so elastic_conf=/e.conf\n",
		  CHECK_STACK_REQUIRED, "/p/spank_elastic.so",
		  "elastic_conf=/e.conf" },
		{ "\toptional\tx.so  a   b # c d\n", CHECK_STACK_OPTIONAL,
		  "x.so", "a b" },
		{ "include plugstack.conf.d/*.conf", CHECK_STACK_INCLUDE,
		  "plugstack.conf.d/*.conf", "" },
		/* Slurm's words are lower case; a line without a path is
		 * ignored, as Slurm ignores it. */
		{ "Required x.so", CHECK_STACK_INVALID, "", "" },
		{ "required", CHECK_STACK_INVALID, "", "" },
		{ "required #x.so", CHECK_STACK_INVALID, "", "" },
	};
	char path[64], args[32], small[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(check_stack_line(cases[i].text, path,
						  sizeof(path), args,
						  sizeof(args)),
				 cases[i].kind);
		assert_string_equal(path, cases[i].path);
		assert_string_equal(args, cases[i].args);
	}
	/* Arguments longer than the room are cut, still terminated. */
	assert_int_equal(check_stack_line("required x.so "
					  "aaaaaaaaaa bbbbbbbbbb",
					  path, sizeof(path), small,
					  sizeof(small)),
			 CHECK_STACK_REQUIRED);
	assert_true(strlen(small) < sizeof(small));
	assert_true(check_stack_is_ours("spank_elastic.so"));
	assert_true(check_stack_is_ours("/usr/lib/slurm/spank_elastic.so"));
	assert_false(check_stack_is_ours("/usr/lib/slurm/spank_elastic.so.1"));
	assert_false(check_stack_is_ours("/spank_elastic.so/pyxis.so"));
}

static void stack_file(void **state)
{
	struct good_site *g = good_site(NULL);

	g->s.host.stack.error = ENOENT;
	g->s.host.stack.nlines = 0;
	expect_one(&g->s, CHECK_PLUGSTACK, "PlugStackConfig=" FIXTURE_STACK,
		   "no such file: sbatch, salloc and srun here know no "
		   "--elastic-* option",
		   "create it with the line: required spank_elastic.so "
		   "elastic_conf=" FIXTURE_CONF);
	g->s.host.stack.error = EACCES;
	expect_one(&g->s, CHECK_PLUGSTACK, "PlugStackConfig=" FIXTURE_STACK,
		   "cannot read it: Permission denied",
		   "readable by every user");
	g->s.host.stack.error = 0;
	expect_one(&g->s, CHECK_PLUGSTACK, "PlugStackConfig=" FIXTURE_STACK,
		   "no line loads spank_elastic.so",
		   "add to it the line: required spank_elastic.so");
	/* Not read (no slurm.conf to name it): not checked. */
	g->s.host.stack_read = false;
	expect_none(&g->s);
	free(g);
}

static void stack_plugin(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_spank_line *l = &g->s.host.stack.line[0];

	l->found[0] = '\0';
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "required " FIXTURE_SO ": no such plugin: every sbatch, "
		   "salloc and srun fails here",
		   "install slurm-elastic's plugins");
	l->required = false;
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "optional " FIXTURE_SO ": no such plugin: Slurm skips it",
		   NULL);
	snprintf(l->found, sizeof(l->found), FIXTURE_SO);
	snprintf(l->load_error, sizeof(l->load_error),
		 "undefined symbol: slurm_foo");
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "cannot be loaded (undefined symbol: slurm_foo)",
		   "rebuild and reinstall");
	l->load_error[0] = '\0';
	/* Built for 23.02: Slurm 22.05 loads SPANK plugins of its own
	 * major.minor only... */
	l->version = (23u << 16) | (2u << 8) | 1u;
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "was built for Slurm 23.02, this is Slurm 22.05, which "
		   "refuses it",
		   "rebuild");
	/* ... of any micro release; unknown: not a finding. */
	l->version = (22u << 16) | (5u << 8) | 2u;
	expect_none(&g->s);
	l->version = 0;
	expect_none(&g->s);
	free(g);
}

static void stack_args(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_spank_line *l = &g->s.host.stack.line[0];
	char conf[64];
	elastic_error_t err;

	snprintf(l->args, sizeof(l->args), "conf=/x");
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "unknown argument 'conf=/x' (allowed: elastic_conf=PATH, "
		   "on_error=fail-job|drain): "
		   "every sbatch, salloc and srun fails here",
		   "give it elastic_conf=" FIXTURE_CONF
		   " (and on_error=fail-job|drain, if wanted), nothing else");
	snprintf(l->args, sizeof(l->args), "elastic_conf=/other/elastic.conf");
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "elastic_conf=/other/elastic.conf: slurmstepd reads another "
		   "file than slurmctld and elasticd (" FIXTURE_CONF ")",
		   "set elastic_conf=" FIXTURE_CONF " to the line");
	l->conf_missing = true;
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "elastic_conf=/other/elastic.conf: no such file: slurmstepd "
		   "takes the built-in defaults",
		   NULL);
	assert_int_equal(
	    check_stack_args("elastic_conf=/a b", conf, sizeof(conf), &err),
	    -1);
	assert_int_equal(check_stack_args("", conf, sizeof(conf), &err), 0);
	assert_string_equal(conf, "");
	free(g);
}

/* Without elastic_conf=, slurmstepd of 23.02 on reads Slurm's
 * configuration directory; before, the file beside slurm.conf. */
static void stack_no_conf(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_spank_line *l = &g->s.host.stack.line[0];

	l->args[0] = '\0';
	expect_none(&g->s);
	g->s.stepd_knows_conf = false;
	expect_none(&g->s); /* elastic.conf is in that directory */
	g->s.policy_path = "/srv/slurm/elastic.conf";
	expect_one(&g->s, CHECK_PLUGSTACK, LINE1,
		   "no elastic_conf=: this Slurm's slurmstepd knows no "
		   "slurm.conf path and reads /etc/slurm/elastic.conf, not "
		   "/srv/slurm/elastic.conf",
		   "add elastic_conf=/srv/slurm/elastic.conf to the line");
	free(g);
}

/* Every line that names the plugin is looked at, in the order read. */
static void stack_several(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_stack *st = &g->s.host.stack;
	struct check_findings out;

	st->line[1] = st->line[0];
	snprintf(st->line[1].file, sizeof(st->line[1].file),
		 "/etc/slurm/plugstack.conf.d/elastic.conf");
	st->line[1].line = 3;
	st->line[1].found[0] = '\0';
	st->nlines = 2;
	run_checks(&g->s, &out);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.f[0].subject,
			    "/etc/slurm/plugstack.conf.d/elastic.conf:3");
	check_findings_free(&out);
	free(g);
}

static void elasticd(void **state)
{
	static const struct {
		enum check_elasticd ed;
		long status;
		const char *why, *problem, *fix;
	} cases[] = {
		{ CHECK_ED_NO_ANSWER, 0,
		  "elasticd at ctl:6830: Connection refused",
		  "no answer (elasticd at ctl:6830: Connection refused): "
		  "groups run at --elastic-min",
		  "start elasticd on its host" },
		{ CHECK_ED_UNVERIFIED, 200, "signed by uid 1000",
		  "something answered, but not as elasticd (signed by uid "
		  "1000)",
		  "ElasticdUser" },
		{ CHECK_ED_REFUSED, 401, "munge credential from the future",
		  "refused this host's request (401: munge credential from "
		  "the future)",
		  "munge key" },
		{ CHECK_ED_NOT_READY, 503, "starting", "not ready (starting)",
		  "wait for its first cycle" },
		{ CHECK_ED_MUNGE, 0, "cannot make a munge credential",
		  "no request made (cannot make", "start munged here" },
		{ CHECK_ED_OTHER, 500, "oops", "answered (500: oops)",
		  "same release" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct good_site *g = good_site(NULL);

		g->s.host.ed = cases[i].ed;
		g->s.host.ed_status = cases[i].status;
		g->s.host.ed_clock = false;
		snprintf(g->s.host.ed_why, sizeof(g->s.host.ed_why), "%s",
			 cases[i].why);
		expect_one(&g->s, CHECK_ELASTICD,
			   "elasticd at ctl:6830 (ElasticdServer)",
			   cases[i].problem, cases[i].fix);
		free(g);
	}
}

static void elasticd_address(void **state)
{
	struct good_site *g = good_site(NULL);

	g->s.host.ed = CHECK_ED_NONE;
	g->s.host.ed_clock = false;
	expect_one(&g->s, CHECK_ELASTICD, "ElasticdServer",
		   "not set in elastic.conf: launchers on the compute nodes "
		   "cannot reach elasticd, so groups never grow",
		   "set ElasticdServer=HOST:PORT in " FIXTURE_CONF);
	g->s.host.ed = CHECK_ED_BAD_CONF;
	snprintf(g->s.host.ed_why, sizeof(g->s.host.ed_why),
		 "ElasticdUser=elastic: no such user here");
	expect_one(&g->s, CHECK_ELASTICD, "elasticd",
		   "ElasticdUser=elastic: no such user here: launchers", NULL);
	free(g);
}

static void clocks(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_findings out;

	g->s.host.ctld_skew = 5.0;
	g->s.host.ed_skew = -5.0;
	expect_none(&g->s);
	g->s.host.ctld_skew = 12.2;
	expect_one(&g->s, CHECK_CLOCK, "clock",
		   "this host's clock is 12 s behind slurmctld's (more than "
		   "5 s)",
		   "NTP");
	g->s.host.ctld_skew = 0;
	g->s.host.ed_skew = -90;
	expect_one(&g->s, CHECK_CLOCK, "clock",
		   "this host's clock is 90 s ahead of elasticd's", NULL);
	/* Not measured (no answer): not a finding of its own. */
	g->s.host.ed_clock = false;
	expect_none(&g->s);
	g->s.host.ed_clock = g->s.host.ctld_clock = true;
	g->s.host.ctld_skew = 30;
	run_checks(&g->s, &out);
	assert_int_equal(out.n, 2);
	check_findings_free(&out);
	free(g);
}

static void munge(void **state)
{
	struct good_site *g = good_site(NULL);
	struct check_host *h = &g->s.host;

	snprintf(h->munge[0].error, sizeof(h->munge[0].error),
		 "Failed to access \"/run/munge/munge.socket.2\"");
	expect_one(&g->s, CHECK_MUNGE,
		   "munge (Slurm's AuthInfo: munge's default socket)",
		   "no credential made and read back: Failed to access",
		   "start munged");
	h->munge[0].error[0] = '\0';
	h->nmunge = 2;
	h->munge[1].who = "ElasticdMungeSocket";
	snprintf(h->munge[1].socket, sizeof(h->munge[1].socket),
		 "/run/elastic/munge.sock");
	snprintf(h->munge[1].error, sizeof(h->munge[1].error), "refused");
	expect_one(&g->s, CHECK_MUNGE,
		   "munge (ElasticdMungeSocket: /run/elastic/munge.sock)",
		   "refused", NULL);
	free(g);
}

/* SpareCheck: on this host, executable, changed by root alone. */
static void spare_check(void **state)
{
	struct good_site *g =
	    good_site("SpareCheck=/usr/local/sbin/gpu-health\n");
	struct check_program *p = &g->s.host.spare_check;
	const char *subject = "SpareCheck=/usr/local/sbin/gpu-health";

	(void)state;
	*p = (struct check_program){
		.probed = true, .regular = true, .mode = 0755, .dir_mode = 0755
	};
	expect_none(&g->s);
	p->err = ENOENT;
	expect_one(&g->s, CHECK_ELASTIC_CONF, subject,
		   "not on this host (No such file or directory): every "
		   "spare here fails its check",
		   "install it on every compute node, or unset SpareCheck");
	p->err = 0;
	p->mode = 0644;
	expect_one(&g->s, CHECK_ELASTIC_CONF, subject, "not an executable file",
		   "chmod 755");
	p->mode = 0757;
	expect_one(&g->s, CHECK_ELASTIC_CONF, subject,
		   "writable by another than root",
		   "chown root and chmod go-w");
	p->mode = 0755;
	p->dir_mode = 01777; /* /tmp */
	expect_one(&g->s, CHECK_ELASTIC_CONF, subject,
		   "writable by another than root", NULL);
	p->dir_mode = 0755;
	p->uid = 1001;
	expect_one(&g->s, CHECK_ELASTIC_CONF, subject,
		   "writable by another than root", NULL);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stack_lines),
		cmocka_unit_test(stack_file),
		cmocka_unit_test(stack_plugin),
		cmocka_unit_test(stack_args),
		cmocka_unit_test(stack_no_conf),
		cmocka_unit_test(stack_several),
		cmocka_unit_test(elasticd),
		cmocka_unit_test(elasticd_address),
		cmocka_unit_test(clocks),
		cmocka_unit_test(munge),
		cmocka_unit_test(spare_check),
	};
	return cmocka_run_group_tests_name("check_host", tests, NULL, NULL);
}
