/*
 * The elastic event: a signal handler that sets a flag, and the flag.
 *
 * The flag is read with a relaxed atomic load, a plain load on every CPU
 * we run on: no system call, no fence, so ranks can poll it every step.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elastic.h"
#include "common/parse.h"
#include "signame.h"

/* 0, or the signal that raised the first event since the last clear: one
 * word, so the flag and the signal can never disagree. */
static volatile sig_atomic_t event_state;

/* Written by install() before the handler can run, read-only after. */
static int event_sig;
static struct sigaction prev_event, prev_term;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_errno;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *prev =
	    sig == SIGTERM ? &prev_term : &prev_event;
	sig_atomic_t none = 0;
	int saved = errno;

	__atomic_compare_exchange_n(&event_state, &none, sig, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);

	/* Keep the application's own handler working. */
	if (prev->sa_flags & SA_SIGINFO) {
		if (prev->sa_sigaction)
			prev->sa_sigaction(sig, si, uc);
	} else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
	}
	errno = saved;
}

static void install(void)
{
	const char *name = secure_getenv("ELASTIC_SIGNAL");
	struct sigaction sa;
	int sig;

	if (signame_parse(name ? name : SIGNAME_DEFAULT, &sig) < 0) {
		init_errno = EINVAL;
		return;
	}
	event_sig = sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	sigaddset(&sa.sa_mask, SIGTERM);

	/* sigaction() stores the old action before this thread can take the
	 * signal, so the handler never chains to a stale one. */
	if (sig != SIGTERM && sigaction(sig, &sa, &prev_event) < 0) {
		init_errno = errno;
		return;
	}
	if (sigaction(SIGTERM, &sa, &prev_term) < 0) {
		init_errno = errno;
		if (sig != SIGTERM)
			sigaction(sig, &prev_event, NULL);
	}
}

static int init(void)
{
	int rc = pthread_once(&once, install);

	if (rc != 0) {
		errno = rc;
		return -1;
	}
	if (init_errno) {
		errno = init_errno;
		return -1;
	}
	return 0;
}

/*
 * A handler as early as possible: before main(), or at dlopen().  A bad
 * ELASTIC_SIGNAL fails loudly here, the one case the library prints: a
 * rank without a handler would never see an event and train on while
 * Slurm takes its nodes.
 */
__attribute__((constructor)) static void elastic_constructor(void)
{
	static const char pre[] = "libelastic: ELASTIC_SIGNAL=";
	static const char post[] =
	    ": not an elastic event signal (allowed: " PARSE_SIGNALS ")\n";
	const char *v;
	int saved = errno;

	if (init() < 0 && init_errno == EINVAL) {
		v = secure_getenv("ELASTIC_SIGNAL");
		if (!v)
			v = "";
		/* write(2): no stdio before main(). */
		if (write(2, pre, sizeof(pre) - 1) < 0 ||
		    write(2, v, strnlen(v, 64)) < 0 ||
		    write(2, post, sizeof(post) - 1) < 0)
			_exit(ELASTIC_EXIT_BAD_SIGNAL);
		_exit(ELASTIC_EXIT_BAD_SIGNAL);
	}
	errno = saved;
}

int elastic_init(void)
{
	return init();
}

int elastic_event_detected(void)
{
	return __atomic_load_n(&event_state, __ATOMIC_RELAXED) != 0;
}

int elastic_event_signal(void)
{
	return __atomic_load_n(&event_state, __ATOMIC_RELAXED);
}

void elastic_event_clear(void)
{
	__atomic_store_n(&event_state, 0, __ATOMIC_RELAXED);
}

void elastic_exit_event(void)
{
	exit(ELASTIC_EXIT_EVENT);
}

int elastic_signal(void)
{
	if (init() < 0)
		return -1;
	return event_sig;
}
