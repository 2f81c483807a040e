/* Unit tests of rankenv.c: a rank's environment, from Slurm's ids and
 * the launcher's variables, through a fake getenv and a recording set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rankenv.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The step's environment: a small table of NAME, value. */
struct env {
	unsigned n;
	const char *name[16];
	const char *value[16];
};

static const char *env_get(const char *name, void *arg)
{
	const struct env *e = arg;

	for (unsigned i = 0; i < e->n; i++)
		if (!strcmp(e->name[i], name))
			return e->value[i];
	return NULL;
}

static void env_put(struct env *e, const char *name, const char *value)
{
	assert_true(e->n < N(e->name));
	e->name[e->n] = name;
	e->value[e->n] = value;
	e->n++;
}

/* What set() was called with; it fails on the name fail_on. */
struct rec {
	unsigned n;
	char name[64][64];
	char value[64][ELASTIC_PATH_MAX + 1];
	const char *fail_on;
};

static int rec_set(const char *name, const char *value, void *arg)
{
	struct rec *r = arg;

	assert_non_null(name);
	assert_non_null(value);
	if (r->fail_on && !strcmp(name, r->fail_on))
		return -1;
	assert_true(r->n < N(r->name));
	snprintf(r->name[r->n], sizeof(r->name[0]), "%s", name);
	snprintf(r->value[r->n], sizeof(r->value[0]), "%s", value);
	r->n++;
	return 0;
}

/* The value set for name; fails the test if it was not set once. */
static const char *got(const struct rec *r, const char *name)
{
	const char *v = NULL;

	for (unsigned i = 0; i < r->n; i++) {
		if (strcmp(r->name[i], name))
			continue;
		if (v)
			fail_msg("%s set twice", name);
		v = r->value[i];
	}
	if (!v)
		fail_msg("%s not set", name);
	return v;
}

static bool was_set(const struct rec *r, const char *name)
{
	for (unsigned i = 0; i < r->n; i++)
		if (!strcmp(r->name[i], name))
			return true;
	return false;
}

/* The variables rankenv_build always sets. */
#define NVARS 14

struct fixture {
	struct elastic_opts opts;
	struct env env;
	struct rec rec;
	struct rankenv_in in;
	struct size_config sc;
};

/* Task 5 of 8 on node 1 of a 2-node step of job 1234, alice's. */
static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->opts.checkpoint_dir, "%h/ck/%j");
	f->opts.signal = SIGUSR1;
	f->in = (struct rankenv_in){
		.job_id = 1234,
		.restart_count = 0,
		.node_id = 1,
		.nnodes = 2,
		.task_id = 5,
		.ntasks = 8,
		.local_id = 1,
		.local_ntasks = 4,
		.first_node = "node017",
		.launch_addr = "10.0.0.1",
		.user = "alice",
		.home = "/home/alice",
		.opts = &f->opts,
		.sc = NULL,
		.getenv = env_get,
		.getenv_arg = &f->env,
	};
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	free(*state);
	return 0;
}

static void build_ok(struct fixture *f)
{
	elastic_error_t err = { "" };

	f->rec.n = 0;
	if (rankenv_build(&f->in, rec_set, &f->rec, &err) != 0)
		fail_msg("rankenv_build: %s", err.text);
}

/* Must fail with msg, having set nothing. */
static void build_fails(struct fixture *f, const char *msg)
{
	elastic_error_t err = { "" };

	f->rec.n = 0;
	assert_int_equal(rankenv_build(&f->in, rec_set, &f->rec, &err), -1);
	assert_string_equal(err.text, msg);
	assert_int_equal(f->rec.n, 0);
}

static void use_sizeconf(struct fixture *f, const char *text)
{
	elastic_error_t err = { "" };

	if (sizeconf_parse(&f->sc, text, "s.conf", &err) != 0)
		fail_msg("sizeconf_parse: %s", err.text);
	f->in.sc = &f->sc;
}

static void default_port(void **state)
{
	assert_int_equal(rankenv_default_port(0), 20000);
	assert_int_equal(rankenv_default_port(1234), 21234);
	assert_int_equal(rankenv_default_port(9999), 29999);
	assert_int_equal(rankenv_default_port(10000), 20000);
	assert_int_equal(rankenv_default_port(123456), 23456);
	assert_int_equal(rankenv_default_port(4294967295u), 27295);
}

/* Without launcher variables the step is the whole world. */
static void plain(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;

	build_ok(f);
	assert_int_equal(r->n, NVARS);
	assert_string_equal(got(r, "RANK"), "5");
	assert_string_equal(got(r, "LOCAL_RANK"), "1");
	assert_string_equal(got(r, "WORLD_SIZE"), "8");
	assert_string_equal(got(r, "LOCAL_WORLD_SIZE"), "4");
	assert_string_equal(got(r, "GROUP_RANK"), "1");
	assert_string_equal(got(r, "MASTER_ADDR"), "node017");
	assert_string_equal(got(r, "MASTER_PORT"), "21234");
	assert_string_equal(got(r, "ELASTIC_JOB_ID"), "1234");
	assert_string_equal(got(r, "ELASTIC_RESTART_COUNT"), "0");
	assert_string_equal(got(r, "ELASTIC_NNODES"), "2");
	assert_string_equal(got(r, "ELASTIC_PREV_NNODES"), "0");
	assert_string_equal(got(r, "ELASTIC_CHECKPOINT_DIR"),
			    "/home/alice/ck/1234");
	assert_string_equal(got(r, "ELASTIC_PREV_CHECKPOINT"), "");
	assert_string_equal(got(r, "ELASTIC_SIGNAL"), "USR1");
}

static void plain_variants(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;

	/* Slurm's restart count, when the launcher gives none. */
	f->in.restart_count = 2;
	build_ok(f);
	assert_string_equal(got(r, "ELASTIC_RESTART_COUNT"), "2");

	/* No first node: srun's address.  None either: loopback.  No user
	 * or home: no checkpoint dir that needs them (never "/ck//1234"). */
	f->in.first_node = "";
	build_ok(f);
	assert_string_equal(got(r, "MASTER_ADDR"), "10.0.0.1");
	f->in.first_node = NULL;
	f->in.launch_addr = NULL;
	f->in.user = NULL;
	f->in.home = NULL;
	strcpy(f->opts.checkpoint_dir, "%h/ck/%u/%j/100%%");
	build_fails(f, "checkpoint dir %h/ck/%u/%j/100%%: cannot expand it "
		       "(the job owner's name or home is unknown, or it is "
		       "too long)");
	strcpy(f->opts.checkpoint_dir, "/ck/%j/100%%");
	build_ok(f);
	assert_string_equal(got(r, "MASTER_ADDR"), "127.0.0.1");
	assert_string_equal(got(r, "ELASTIC_CHECKPOINT_DIR"), "/ck/1234/100%");

	/* The first task of a one-node, one-task step. */
	f->in = (struct rankenv_in){
		.job_id = 7,
		.nnodes = 1,
		.ntasks = 1,
		.local_ntasks = 1,
		.opts = &f->opts,
		.getenv = env_get,
		.getenv_arg = &f->env,
	};
	build_ok(f);
	assert_string_equal(got(r, "RANK"), "0");
	assert_string_equal(got(r, "WORLD_SIZE"), "1");
	assert_string_equal(got(r, "GROUP_RANK"), "0");
	assert_string_equal(got(r, "ELASTIC_NNODES"), "1");
	assert_string_equal(got(r, "MASTER_PORT"), "20007");
}

static void signals(void **state)
{
	static const struct {
		int sig;
		const char *name;
	} all[] = {
		{ SIGURG, "URG" },   { SIGWINCH, "WINCH" }, { SIGUSR1, "USR1" },
		{ SIGUSR2, "USR2" }, { SIGHUP, "HUP" },	    { SIGINT, "INT" },
		{ SIGTERM, "TERM" },
	};
	struct fixture *f = *state;

	for (size_t i = 0; i < N(all); i++) {
		f->opts.signal = all[i].sig;
		build_ok(f);
		assert_string_equal(got(&f->rec, "ELASTIC_SIGNAL"),
				    all[i].name);
	}
}

/* The size config's variables at the world's node count. */
static void size_config(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;

	use_sizeconf(f, "default BATCH_SIZE=256 LR=0.1\n2 BATCH_SIZE=128\n");
	build_ok(f);
	assert_int_equal(r->n, NVARS + 2);
	assert_string_equal(got(r, "BATCH_SIZE"), "128");
	assert_string_equal(got(r, "LR"), "0.1");
	/* After the rank's own variables. */
	assert_string_equal(r->name[NVARS], "LR");
	assert_string_equal(r->name[NVARS + 1], "BATCH_SIZE");

	f->in.nnodes = 4;
	build_ok(f);
	assert_string_equal(got(r, "BATCH_SIZE"), "256");

	use_sizeconf(f, "8 A=1");
	build_ok(f);
	assert_int_equal(r->n, NVARS);
	assert_false(was_set(r, "A"));
}

/* One step of a world that spans allocations. */
static void launcher(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;

	env_put(&f->env, "ELASTIC_RANK_OFFSET", "8");
	env_put(&f->env, "ELASTIC_WORLD_SIZE", "24");
	env_put(&f->env, "ELASTIC_NODE_OFFSET", "2");
	env_put(&f->env, "ELASTIC_WORLD_NNODES", "6");
	env_put(&f->env, "ELASTIC_MASTER_ADDR", "node001");
	env_put(&f->env, "ELASTIC_MASTER_PORT", "29500");
	env_put(&f->env, "ELASTIC_JOB_ID", "1000");
	env_put(&f->env, "ELASTIC_RESTART_COUNT", "3");
	env_put(&f->env, "ELASTIC_PREV_NNODES", "4");
	env_put(&f->env, "ELASTIC_PREV_CHECKPOINT", "/ck/1000/step-10");
	use_sizeconf(f, "default B=1\n2 B=2\n6 B=6\n");
	f->in.restart_count = 9; /* the launcher's count wins */
	build_ok(f);
	assert_int_equal(r->n, NVARS + 1);
	assert_string_equal(got(r, "RANK"), "13");
	assert_string_equal(got(r, "LOCAL_RANK"), "1");
	assert_string_equal(got(r, "WORLD_SIZE"), "24");
	assert_string_equal(got(r, "LOCAL_WORLD_SIZE"), "4");
	assert_string_equal(got(r, "GROUP_RANK"), "3");
	assert_string_equal(got(r, "MASTER_ADDR"), "node001");
	assert_string_equal(got(r, "MASTER_PORT"), "29500");
	assert_string_equal(got(r, "ELASTIC_JOB_ID"), "1000");
	assert_string_equal(got(r, "ELASTIC_RESTART_COUNT"), "3");
	assert_string_equal(got(r, "ELASTIC_NNODES"), "6");
	assert_string_equal(got(r, "ELASTIC_PREV_NNODES"), "4");
	/* %j is the group's job id, not this allocation's. */
	assert_string_equal(got(r, "ELASTIC_CHECKPOINT_DIR"),
			    "/home/alice/ck/1000");
	assert_string_equal(got(r, "ELASTIC_PREV_CHECKPOINT"),
			    "/ck/1000/step-10");
	assert_string_equal(got(r, "ELASTIC_SIGNAL"), "USR1");
	assert_string_equal(got(r, "B"), "6");
}

/* Offsets alone: the totals follow from them. */
static void launcher_offsets_only(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;

	env_put(&f->env, "ELASTIC_RANK_OFFSET", "8");
	env_put(&f->env, "ELASTIC_NODE_OFFSET", "3");
	build_ok(f);
	assert_string_equal(got(r, "RANK"), "13");
	assert_string_equal(got(r, "WORLD_SIZE"), "16");
	assert_string_equal(got(r, "GROUP_RANK"), "4");
	assert_string_equal(got(r, "ELASTIC_NNODES"), "5");
	assert_string_equal(got(r, "MASTER_PORT"), "21234");
}

/* Allocations of one world agree on the port: it follows the group id. */
static void launcher_group_port(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;

	env_put(&f->env, "ELASTIC_JOB_ID", "77");
	build_ok(f);
	assert_string_equal(got(r, "MASTER_PORT"), "20077");
	assert_string_equal(got(r, "ELASTIC_JOB_ID"), "77");
}

/* Exact bounds pass, one past fails. */
static void launcher_bounds(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;

	env_put(&f->env, "ELASTIC_RANK_OFFSET", "16");
	env_put(&f->env, "ELASTIC_WORLD_SIZE", "24");
	env_put(&f->env, "ELASTIC_NODE_OFFSET", "4");
	env_put(&f->env, "ELASTIC_WORLD_NNODES", "6");
	env_put(&f->env, "ELASTIC_MASTER_PORT", "65535");
	env_put(&f->env, "ELASTIC_JOB_ID", "4294967295");
	build_ok(f);
	assert_string_equal(got(r, "RANK"), "21");
	assert_string_equal(got(r, "GROUP_RANK"), "5");
	assert_string_equal(got(r, "MASTER_PORT"), "65535");
	assert_string_equal(got(r, "ELASTIC_JOB_ID"), "4294967295");

	f->env.value[1] = "23";
	build_fails(f, "ELASTIC_WORLD_SIZE=23 is smaller than "
		       "ELASTIC_RANK_OFFSET=16 + 8 tasks");
	f->env.value[1] = "24";
	f->env.value[3] = "5";
	build_fails(f, "ELASTIC_WORLD_NNODES=5 is smaller than "
		       "ELASTIC_NODE_OFFSET=4 + 2 nodes");
	f->env.value[3] = "6";
	f->env.value[4] = "1";
	build_ok(f);
	assert_string_equal(got(r, "MASTER_PORT"), "1");
}

static const struct {
	const char *name, *value, *msg;
} bad_vars[] = {
	{ "ELASTIC_RANK_OFFSET", "abc",
	  "ELASTIC_RANK_OFFSET=abc: not a whole number (allowed: 0 to "
	  "16777216)" },
	{ "ELASTIC_RANK_OFFSET", "-1",
	  "ELASTIC_RANK_OFFSET=-1: not a whole number (allowed: 0 to "
	  "16777216)" },
	{ "ELASTIC_RANK_OFFSET", "",
	  "ELASTIC_RANK_OFFSET=: empty value (allowed: 0 to 16777216)" },
	{ "ELASTIC_RANK_OFFSET", "16777217",
	  "ELASTIC_RANK_OFFSET=16777217: out of range (allowed: 0 to "
	  "16777216)" },
	{ "ELASTIC_RANK_OFFSET", "16777216",
	  "ELASTIC_RANK_OFFSET=16777216 + 8 tasks is more than 16777216 "
	  "ranks" },
	{ "ELASTIC_WORLD_SIZE", "0",
	  "ELASTIC_WORLD_SIZE=0: out of range (allowed: 1 to 16777216)" },
	{ "ELASTIC_WORLD_SIZE", "7",
	  "ELASTIC_WORLD_SIZE=7 is smaller than ELASTIC_RANK_OFFSET=0 + 8 "
	  "tasks" },
	{ "ELASTIC_WORLD_SIZE", "8 ",
	  "ELASTIC_WORLD_SIZE=8 : not a whole number (allowed: 1 to "
	  "16777216)" },
	{ "ELASTIC_NODE_OFFSET", "x1",
	  "ELASTIC_NODE_OFFSET=x1: not a whole number (allowed: 0 to 65535)" },
	{ "ELASTIC_NODE_OFFSET", "65536",
	  "ELASTIC_NODE_OFFSET=65536: out of range (allowed: 0 to 65535)" },
	{ "ELASTIC_NODE_OFFSET", "99999999999999999999999",
	  "ELASTIC_NODE_OFFSET=99999999999999999999999: out of range "
	  "(allowed: 0 to 65535)" },
	{ "ELASTIC_NODE_OFFSET", "65534",
	  "ELASTIC_NODE_OFFSET=65534 + 2 nodes is more than 65535 nodes" },
	{ "ELASTIC_WORLD_NNODES", "0",
	  "ELASTIC_WORLD_NNODES=0: out of range (allowed: 1 to 65535)" },
	{ "ELASTIC_WORLD_NNODES", "65536",
	  "ELASTIC_WORLD_NNODES=65536: out of range (allowed: 1 to 65535)" },
	{ "ELASTIC_WORLD_NNODES", "1",
	  "ELASTIC_WORLD_NNODES=1 is smaller than ELASTIC_NODE_OFFSET=0 + 2 "
	  "nodes" },
	{ "ELASTIC_MASTER_PORT", "0",
	  "ELASTIC_MASTER_PORT=0: out of range (allowed: 1 to 65535)" },
	{ "ELASTIC_MASTER_PORT", "65536",
	  "ELASTIC_MASTER_PORT=65536: out of range (allowed: 1 to 65535)" },
	{ "ELASTIC_MASTER_PORT", "http",
	  "ELASTIC_MASTER_PORT=http: not a whole number (allowed: 1 to "
	  "65535)" },
	{ "ELASTIC_RESTART_COUNT", "1000001",
	  "ELASTIC_RESTART_COUNT=1000001: out of range (allowed: 0 to "
	  "1000000)" },
	{ "ELASTIC_PREV_NNODES", "65536",
	  "ELASTIC_PREV_NNODES=65536: out of range (allowed: 0 to 65535)" },
	{ "ELASTIC_JOB_ID", "abc", "ELASTIC_JOB_ID=abc: not a job id" },
	{ "ELASTIC_JOB_ID", "", "ELASTIC_JOB_ID=: not a job id" },
	{ "ELASTIC_JOB_ID", "0", "ELASTIC_JOB_ID=0: not a job id" },
	{ "ELASTIC_JOB_ID", "-5", "ELASTIC_JOB_ID=-5: not a job id" },
	{ "ELASTIC_JOB_ID", "1234_5", "ELASTIC_JOB_ID=1234_5: not a job id" },
	{ "ELASTIC_JOB_ID", "4294967296",
	  "ELASTIC_JOB_ID=4294967296: not a job id" },
	{ "ELASTIC_JOB_ID", "1234567890123456",
	  "ELASTIC_JOB_ID: longer than 15 characters" },
};

/* A malformed launcher variable: an error naming it, and nothing set. */
static void bad_launcher_vars(void **state)
{
	struct fixture *f = *state;

	for (size_t i = 0; i < N(bad_vars); i++) {
		f->env.n = 0;
		env_put(&f->env, bad_vars[i].name, bad_vars[i].value);
		build_fails(f, bad_vars[i].msg);
	}
	/* One below each bad bound passes. */
	f->env.n = 0;
	env_put(&f->env, "ELASTIC_NODE_OFFSET", "65533");
	build_ok(f);
	assert_string_equal(got(&f->rec, "ELASTIC_NNODES"), "65535");
	f->env.n = 0;
	env_put(&f->env, "ELASTIC_RANK_OFFSET", "16777208");
	build_ok(f);
	assert_string_equal(got(&f->rec, "WORLD_SIZE"), "16777216");
	f->env.n = 0;
	env_put(&f->env, "ELASTIC_RESTART_COUNT", "1000000");
	env_put(&f->env, "ELASTIC_PREV_NNODES", "65535");
	env_put(&f->env, "ELASTIC_JOB_ID", "1");
	build_ok(f);
	assert_string_equal(got(&f->rec, "ELASTIC_JOB_ID"), "1");
	assert_string_equal(got(&f->rec, "ELASTIC_RESTART_COUNT"), "1000000");
	assert_string_equal(got(&f->rec, "ELASTIC_PREV_NNODES"), "65535");
}

static void long_strings(void **state)
{
	struct fixture *f = *state;
	char addr[300], ckpt[ELASTIC_PATH_MAX + 2], home[1100];

	memset(addr, 'a', 255);
	addr[255] = '\0';
	env_put(&f->env, "ELASTIC_MASTER_ADDR", addr);
	build_ok(f);
	assert_string_equal(got(&f->rec, "MASTER_ADDR"), addr);
	addr[255] = 'a';
	addr[256] = '\0';
	build_fails(f, "ELASTIC_MASTER_ADDR: longer than 255 characters");

	f->env.n = 0;
	memset(ckpt, 'c', ELASTIC_PATH_MAX);
	ckpt[0] = '/';
	ckpt[ELASTIC_PATH_MAX] = '\0';
	env_put(&f->env, "ELASTIC_PREV_CHECKPOINT", ckpt);
	build_ok(f);
	assert_string_equal(got(&f->rec, "ELASTIC_PREV_CHECKPOINT"), ckpt);
	ckpt[ELASTIC_PATH_MAX] = 'c';
	ckpt[ELASTIC_PATH_MAX + 1] = '\0';
	build_fails(f, "ELASTIC_PREV_CHECKPOINT: longer than 1024 characters");

	/* An expanded checkpoint dir must fit a path. */
	f->env.n = 0;
	memset(home, 'h', 1000);
	home[0] = '/';
	home[1000] = '\0';
	f->in.home = home;
	build_ok(f);
	strcpy(f->opts.checkpoint_dir, "%h/%h");
	build_fails(f, "checkpoint dir %h/%h: cannot expand it (the job "
		       "owner's name or home is unknown, or it is too long)");
}

/* set() fails: an error, and what was set before stays set. */
static void set_fails(void **state)
{
	struct fixture *f = *state;
	struct rec *r = &f->rec;
	elastic_error_t err = { "" };

	r->fail_on = "RANK";
	r->n = 0;
	assert_int_equal(rankenv_build(&f->in, rec_set, r, &err), -1);
	assert_string_equal(err.text, "cannot set the rank environment");
	assert_int_equal(r->n, 0);

	r->fail_on = "MASTER_ADDR";
	r->n = 0;
	assert_int_equal(rankenv_build(&f->in, rec_set, r, &err), -1);
	assert_string_equal(err.text, "cannot set the rank environment");
	assert_string_equal(got(r, "RANK"), "5");
	assert_false(was_set(r, "MASTER_PORT"));
	assert_false(was_set(r, "ELASTIC_SIGNAL"));

	r->fail_on = "ELASTIC_SIGNAL";
	r->n = 0;
	assert_int_equal(rankenv_build(&f->in, rec_set, r, &err), -1);
	assert_string_equal(err.text, "cannot set the rank environment");
	assert_int_equal(r->n, NVARS - 1);

	use_sizeconf(f, "default A=1 B=2 C=3");
	r->fail_on = "B";
	r->n = 0;
	assert_int_equal(rankenv_build(&f->in, rec_set, r, &err), -1);
	assert_string_equal(err.text, "cannot set the size config");
	assert_int_equal(r->n, NVARS + 1);
	assert_string_equal(got(r, "A"), "1");
	assert_false(was_set(r, "C"));
}

int main(void)
{
#define T(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(default_port),
		T(plain),
		T(plain_variants),
		T(signals),
		T(size_config),
		T(launcher),
		T(launcher_offsets_only),
		T(launcher_group_port),
		T(launcher_bounds),
		T(bad_launcher_vars),
		T(long_strings),
		T(set_fails),
	};
#undef T
	return cmocka_run_group_tests_name("rankenv", tests, NULL, NULL);
}
