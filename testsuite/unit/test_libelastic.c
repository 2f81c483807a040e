/*
 * libelastic: world parsing, signal names, and the event handler.
 *
 * Linked with libelastic_core (the objects of libelastic.so), so its
 * constructor has run before main() with this process's environment.  The
 * chaining and ELASTIC_SIGNAL tests load the real shared library into
 * forked children, each with its own environment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libelastic/elastic.h"
#include "libelastic/signame.h"

static const char *const world_vars[] = {
	"RANK",
	"LOCAL_RANK",
	"WORLD_SIZE",
	"LOCAL_WORLD_SIZE",
	"GROUP_RANK",
	"MASTER_ADDR",
	"MASTER_PORT",
	"ELASTIC_JOB_ID",
	"ELASTIC_RESTART_COUNT",
	"ELASTIC_NNODES",
	"ELASTIC_PREV_NNODES",
	"ELASTIC_CHECKPOINT_DIR",
	"ELASTIC_PREV_CHECKPOINT",
};
#define NVARS (sizeof(world_vars) / sizeof(world_vars[0]))

/* Rank 5 of 8, on the second of two nodes with 4 ranks each. */
static int good_env(void **state)
{
	static const char *const values[NVARS] = {
		"5",
		"1",
		"8",
		"4",
		"1",
		"node1",
		"29500",
		"4242",
		"2",
		"2",
		"3",
		"/ck/4242",
		"/ck/4242/step-100",
	};

	for (size_t i = 0; i < NVARS; i++)
		setenv(world_vars[i], values[i], 1);
	return 0;
}

static int clear_env(void **state)
{
	for (size_t i = 0; i < NVARS; i++)
		unsetenv(world_vars[i]);
	return 0;
}

/* elastic_world() fails with errnum and leaves the struct alone; the
 * explanation starts with want. */
static void world_fails(int errnum, const char *want)
{
	struct elastic_world w;
	char err[128] = "";

	memset(&w, 0xa5, sizeof(w));
	errno = 0;
	assert_int_equal(elastic_world_err(&w, err, sizeof(err)), -1);
	assert_int_equal(errno, errnum);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("error '%s' does not start with '%s'", err, want);
	for (size_t i = 0; i < sizeof(w); i++)
		assert_int_equal(((unsigned char *)&w)[i], 0xa5);
	errno = 0;
	assert_int_equal(elastic_world(&w), -1);
	assert_int_equal(errno, errnum);
}

static void world_good(void **state)
{
	struct elastic_world w;

	assert_int_equal(elastic_world(&w), 0);
	assert_int_equal(w.rank, 5);
	assert_int_equal(w.local_rank, 1);
	assert_int_equal(w.world_size, 8);
	assert_int_equal(w.local_world_size, 4);
	assert_int_equal(w.group_rank, 1);
	assert_int_equal(w.nnodes, 2);
	assert_int_equal(w.prev_nnodes, 3);
	assert_int_equal(w.restart_count, 2);
	assert_int_equal(w.job_id, 4242);
	assert_int_equal(w.master_port, 29500);
	assert_string_equal(w.master_addr, "node1");
	assert_string_equal(w.checkpoint_dir, "/ck/4242");
	assert_string_equal(w.prev_checkpoint, "/ck/4242/step-100");
}

static void world_limits(void **state)
{
	struct elastic_world w;

	setenv("ELASTIC_JOB_ID", "4294967295", 1);
	setenv("MASTER_PORT", "65535", 1);
	setenv("WORLD_SIZE", "2147483647", 1);
	setenv("RANK", "2147483646", 1);
	assert_int_equal(elastic_world(&w), 0);
	assert_true(w.job_id == 4294967295u);
	assert_int_equal(w.master_port, 65535);
	assert_int_equal(w.world_size, 2147483647);
	assert_int_equal(w.rank, 2147483646);
	setenv("RANK", "0007", 1);
	assert_int_equal(elastic_world(&w), 0);
	assert_int_equal(w.rank, 7);
}

/* The three optional variables: unset or (paths) empty. */
static void world_optional(void **state)
{
	struct elastic_world w;

	unsetenv("ELASTIC_PREV_NNODES");
	unsetenv("ELASTIC_CHECKPOINT_DIR");
	setenv("ELASTIC_PREV_CHECKPOINT", "", 1);
	memset(&w, 0x5a, sizeof(w));
	assert_int_equal(elastic_world(&w), 0);
	assert_int_equal(w.prev_nnodes, 0);
	assert_string_equal(w.checkpoint_dir, "");
	assert_string_equal(w.prev_checkpoint, "");
}

static void world_missing(void **state)
{
	static const char *const required[] = {
		"RANK",
		"LOCAL_RANK",
		"WORLD_SIZE",
		"LOCAL_WORLD_SIZE",
		"GROUP_RANK",
		"MASTER_ADDR",
		"MASTER_PORT",
		"ELASTIC_JOB_ID",
		"ELASTIC_RESTART_COUNT",
		"ELASTIC_NNODES",
	};

	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		char want[64];

		good_env(state);
		unsetenv(required[i]);
		snprintf(want, sizeof(want), "%s is not set", required[i]);
		world_fails(ENOENT, want);
	}
	assert_int_equal(elastic_world(NULL), -1);
	assert_int_equal(errno, EINVAL);
}

static void world_garbage(void **state)
{
	static const char *const bad[] = {
		"-1", "+1", " 1", "1 ", "1k", "0x10", "1.5", "abc", "1e3", "٣",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		good_env(state);
		setenv("WORLD_SIZE", bad[i], 1);
		snprintf(want, sizeof(want),
			 "WORLD_SIZE=%s: not a whole number", bad[i]);
		world_fails(EINVAL, want);
	}
	good_env(state);
	setenv("MASTER_PORT", "", 1);
	world_fails(EINVAL, "MASTER_PORT=: empty value");
	good_env(state);
	setenv("MASTER_ADDR", "", 1);
	world_fails(EINVAL, "MASTER_ADDR=: empty value");
	good_env(state);
	setenv("ELASTIC_PREV_NNODES", "", 1);
	world_fails(EINVAL, "ELASTIC_PREV_NNODES=: empty value");
}

static void world_overflow(void **state)
{
	static const struct {
		const char *var, *value, *want;
	} cases[] = {
		{ "RANK", "2147483648", "RANK=2147483648: out of range" },
		{ "WORLD_SIZE", "18446744073709551616",
		  "WORLD_SIZE=18446744073709551616: out of range" },
		{ "WORLD_SIZE", "99999999999999999999999999999999",
		  "WORLD_SIZE=99999999999999999999999999999999: out of range" },
		{ "WORLD_SIZE", "0", "WORLD_SIZE=0: out of range (allowed: 1" },
		{ "ELASTIC_NNODES", "0", "ELASTIC_NNODES=0: out of range" },
		{ "ELASTIC_JOB_ID", "0", "ELASTIC_JOB_ID=0: out of range" },
		{ "ELASTIC_JOB_ID", "4294967296",
		  "ELASTIC_JOB_ID=4294967296: out of range" },
		{ "MASTER_PORT", "0", "MASTER_PORT=0: out of range" },
		{ "MASTER_PORT", "65536",
		  "MASTER_PORT=65536: out of range (allowed: 1 to 65535)" },
	};
	char big[ELASTIC_WORLD_PATH_MAX + 1];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		good_env(state);
		setenv(cases[i].var, cases[i].value, 1);
		world_fails(ERANGE, cases[i].want);
	}

	/* Strings: the longest that fits works, one byte more does not. */
	memset(big, 'a', sizeof(big));
	big[ELASTIC_WORLD_ADDR_MAX - 1] = '\0';
	good_env(state);
	setenv("MASTER_ADDR", big, 1);
	{
		struct elastic_world w;

		assert_int_equal(elastic_world(&w), 0);
		assert_int_equal(strlen(w.master_addr),
				 ELASTIC_WORLD_ADDR_MAX - 1);
	}
	big[ELASTIC_WORLD_ADDR_MAX - 1] = 'a';
	big[ELASTIC_WORLD_ADDR_MAX] = '\0';
	setenv("MASTER_ADDR", big, 1);
	world_fails(ENAMETOOLONG, "MASTER_ADDR is too long (256 bytes; "
				  "at most 255)");

	memset(big, '/', sizeof(big));
	big[ELASTIC_WORLD_PATH_MAX] = '\0';
	good_env(state);
	setenv("ELASTIC_CHECKPOINT_DIR", big, 1);
	world_fails(ENAMETOOLONG, "ELASTIC_CHECKPOINT_DIR is too long");
	good_env(state);
	setenv("ELASTIC_PREV_CHECKPOINT", big, 1);
	world_fails(ENAMETOOLONG, "ELASTIC_PREV_CHECKPOINT is too long");
}

static void world_inconsistent(void **state)
{
	setenv("RANK", "8", 1);
	world_fails(EINVAL, "RANK=8 is not below WORLD_SIZE=8");
	good_env(state);
	setenv("LOCAL_RANK", "4", 1);
	world_fails(EINVAL, "LOCAL_RANK=4 is not below LOCAL_WORLD_SIZE=4");
	good_env(state);
	setenv("LOCAL_WORLD_SIZE", "9", 1);
	setenv("LOCAL_RANK", "0", 1);
	world_fails(EINVAL, "LOCAL_WORLD_SIZE=9 is above WORLD_SIZE=8");
	good_env(state);
	setenv("GROUP_RANK", "2", 1);
	world_fails(EINVAL, "GROUP_RANK=2 is not below ELASTIC_NNODES=2");
}

/* A short buffer truncates the explanation, never overflows it. */
static void world_err_truncates(void **state)
{
	struct elastic_world w;
	char err[8];

	unsetenv("RANK");
	memset(err, 'x', sizeof(err));
	assert_int_equal(elastic_world_err(&w, err, 5), -1);
	assert_string_equal(err, "RANK");
	assert_int_equal(err[5], 'x');
	assert_int_equal(elastic_world_err(&w, err, 0), -1);
	assert_int_equal(elastic_world_err(&w, NULL, 64), -1);
	assert_int_equal(errno, ENOENT);
}

static void signal_names(void **state)
{
	static const struct {
		const char *name;
		int sig;
	} good[] = {
		{ "URG", SIGURG },   { "WINCH", SIGWINCH }, { "USR1", SIGUSR1 },
		{ "USR2", SIGUSR2 }, { "HUP", SIGHUP },	    { "INT", SIGINT },
		{ "TERM", SIGTERM },
	};
	static const char *const bad[] = {
		"",	"urg", "SIGURG", "URG ", " URG", "KILL",
		"STOP", "23",  "USR3",	 "CHLD", "U",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int sig = 0;

		assert_int_equal(signame_parse(good[i].name, &sig), 0);
		assert_int_equal(sig, good[i].sig);
		assert_string_equal(signame_name(good[i].sig), good[i].name);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int sig = -7;

		errno = 0;
		assert_int_equal(signame_parse(bad[i], &sig), -1);
		assert_int_equal(errno, EINVAL);
		assert_int_equal(sig, -7);
	}
	assert_int_equal(signame_parse(NULL, NULL), -1);
	assert_null(signame_name(SIGKILL));
	assert_string_equal(SIGNAME_DEFAULT, "URG");
	assert_string_equal(signame_allowed(),
			    "URG, WINCH, USR1, USR2, HUP, INT, TERM");
}

/* The constructor installed the handler before main(): ELASTIC_SIGNAL is
 * unset here (see main), so the event signal is URG. */
static void handler_sets_flag(void **state)
{
	assert_int_equal(elastic_init(), 0);
	assert_int_equal(elastic_init(), 0);
	assert_int_equal(elastic_signal(), SIGURG);
	elastic_event_clear();
	assert_int_equal(elastic_event_detected(), 0);
	assert_int_equal(elastic_event_signal(), 0);

	assert_int_equal(raise(SIGURG), 0);
	assert_int_equal(elastic_event_detected(), 1);
	assert_int_equal(elastic_event_signal(), SIGURG);
	/* Sticky, and a later signal does not replace the first. */
	assert_int_equal(raise(SIGTERM), 0);
	assert_int_equal(elastic_event_detected(), 1);
	assert_int_equal(elastic_event_signal(), SIGURG);

	elastic_event_clear();
	assert_int_equal(elastic_event_detected(), 0);
	/* SIGTERM is an event too, and no longer ends the process. */
	assert_int_equal(raise(SIGTERM), 0);
	assert_int_equal(elastic_event_detected(), 1);
	assert_int_equal(elastic_event_signal(), SIGTERM);
	elastic_event_clear();

	/* Other signals are not events. */
	{
		struct sigaction sa = { .sa_handler = SIG_IGN }, old;

		sigaction(SIGUSR1, &sa, &old);
		raise(SIGUSR1);
		sigaction(SIGUSR1, &old, NULL);
		assert_int_equal(elastic_event_detected(), 0);
	}
}

/*
 * Fork a child that restores the default action for sig (as in a process
 * without libelastic), send it sig, and let it exit 0 once the signal is
 * surely sent.  Returns its wait status.
 */
static int child_after_signal(int sig)
{
	int ready[2], go[2], status;
	char c;
	pid_t pid;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(sig, SIG_DFL);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(kill(pid, sig), 0);
	/* Sent before "go": the child either ignored it or died of it. */
	(void)!write(go[1], "g", 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	return status;
}

static void child_without_handler_survives(void **state)
{
	int status = child_after_signal(SIGURG);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	status = child_after_signal(SIGWINCH);
	assert_true(WIFEXITED(status));

	/* The check can fail: USR1 kills such a child (why URG is the
	 * default). */
	status = child_after_signal(SIGUSR1);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGUSR1);
}

/* A forked child keeps the handler: it survives even TERM. */
static void forked_child_inherits(void **state)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		elastic_event_clear();
		raise(SIGTERM);
		raise(SIGURG);
		_exit(elastic_event_signal() == SIGTERM ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * In a fresh child: set ELASTIC_SIGNAL (NULL: unset), install the
 * application's own handlers for USR2 and TERM, then load libelastic.so as
 * a late dlopen() would, and run body.  Returns the child's wait status.
 */
static volatile sig_atomic_t app_got;

static void app_handler(int sig)
{
	app_got = sig;
}

typedef int (*int_fn)(void);

static int with_dlopen(const char *elastic_signal,
		       int (*body)(void *lib, int_fn detected))
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = app_handler };
		void *lib;
		int_fn detected;

		if (elastic_signal)
			setenv("ELASTIC_SIGNAL", elastic_signal, 1);
		sigaction(SIGUSR2, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		lib = dlopen(LIBELASTIC_SO, RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			_exit(100);
		}
		detected = (int_fn)dlsym(lib, "elastic_event_detected");
		if (!detected)
			_exit(101);
		_exit(body(lib, detected));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static int body_chains(void *lib, int_fn detected)
{
	int_fn init = (int_fn)dlsym(lib, "elastic_init");

	if (!init || init() != 0 || detected())
		return 10;
	raise(SIGUSR2);
	if (!detected() || app_got != SIGUSR2)
		return 11;
	app_got = 0;
	raise(SIGTERM);
	if (app_got != SIGTERM)
		return 12;
	/* Not the event signal here: the application's handler only. */
	raise(SIGURG);
	return 0;
}

/* Never reached: the library ends the process in dlopen(). */
static int body_never_runs(void *lib, int_fn detected)
{
	(void)lib;
	(void)detected;
	return 99;
}

static int body_exports_only_api(void *lib, int_fn detected)
{
	if (dlsym(lib, "signame_parse") || dlsym(lib, "on_signal"))
		return 30;
	return dlsym(lib, "elastic_world_err") ? 0 : 31;
}

static void dlopen_chains_to_app_handler(void **state)
{
	int status = with_dlopen("USR2", body_chains);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A bad ELASTIC_SIGNAL fails loudly at load: one line naming it and what
 * is allowed, exit status ELASTIC_EXIT_BAD_SIGNAL, the body never runs. */
static void dlopen_bad_signal_fails_loudly(void **state)
{
	static const char *const bad[] = { "KILL", "SIGURG", "urg", "" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char out[512], want[256];
		ssize_t n, len = 0;
		int p[2], status;
		pid_t pid;

		assert_int_equal(pipe(p), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			dup2(p[1], 2);
			close(p[0]);
			close(p[1]);
			_exit(WEXITSTATUS(with_dlopen(bad[i], body_never_runs)) +
			      100);
		}
		close(p[1]);
		while ((n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
			len += n;
		out[len] = '\0';
		close(p[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status),
				 100 + ELASTIC_EXIT_BAD_SIGNAL);
		snprintf(want, sizeof(want),
			 "libelastic: ELASTIC_SIGNAL=%s: not an elastic event "
			 "signal (allowed: URG, WINCH, USR1, USR2, HUP, INT, "
			 "TERM)\n",
			 bad[i]);
		assert_string_equal(out, want);
	}
}

static void dlopen_exports_only_api(void **state)
{
	int status = with_dlopen(NULL, body_exports_only_api);

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(world_good, good_env,
						clear_env),
		cmocka_unit_test_setup_teardown(world_limits, good_env,
						clear_env),
		cmocka_unit_test_setup_teardown(world_optional, good_env,
						clear_env),
		cmocka_unit_test_teardown(world_missing, clear_env),
		cmocka_unit_test_teardown(world_garbage, clear_env),
		cmocka_unit_test_teardown(world_overflow, clear_env),
		cmocka_unit_test_setup_teardown(world_inconsistent, good_env,
						clear_env),
		cmocka_unit_test_setup_teardown(world_err_truncates, good_env,
						clear_env),
		cmocka_unit_test(signal_names),
		cmocka_unit_test(handler_sets_flag),
		cmocka_unit_test(child_without_handler_survives),
		cmocka_unit_test(forked_child_inherits),
		cmocka_unit_test(dlopen_chains_to_app_handler),
		cmocka_unit_test(dlopen_bad_signal_fails_loudly),
		cmocka_unit_test(dlopen_exports_only_api),
	};

	/* The constructor ran with the environment make check gave us; the
	 * tests above assume the default signal. */
	if (getenv("ELASTIC_SIGNAL")) {
		printf(
		    "Bail out! unset ELASTIC_SIGNAL to run test_libelastic\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
