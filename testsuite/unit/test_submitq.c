/*
 * Submissions beside the loop (elasticd/submitq): a group whose
 * submissions are slow never holds up another group's; a group's own go
 * one at a time, in order; answers keep what was asked; the queue is
 * bounded.  The submit function is the test's (no Slurm).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elasticd/submitq.h"

#define SLOW_GROUP 1

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool gate_shut; /* submissions of every group wait */
	bool slow_shut; /* SLOW_GROUP's submissions wait */
	unsigned running[8], max_running[8]; /* by group */
	char seen_account[64];
} w = { .lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

/* Shut or open a gate (w.gate_shut or w.slow_shut) the submissions wait
 * at. */
static void set_gate(bool *gate, bool shut)
{
	pthread_mutex_lock(&w.lock);
	*gate = shut;
	pthread_cond_broadcast(&w.cv);
	pthread_mutex_unlock(&w.lock);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fake_submit(void *arg, const struct unit_request *u, uint32_t *job,
		       elastic_error_t *err)
{
	unsigned g = u->tag.group % 8;

	(void)arg;
	pthread_mutex_lock(&w.lock);
	while (w.gate_shut)
		pthread_cond_wait(&w.cv, &w.lock);
	if (++w.running[g] > w.max_running[g])
		w.max_running[g] = w.running[g];
	if (u->account)
		snprintf(w.seen_account, sizeof(w.seen_account), "%s",
			 u->account);
	while (u->tag.group == SLOW_GROUP && w.slow_shut)
		pthread_cond_wait(&w.cv, &w.lock);
	w.running[g]--;
	pthread_mutex_unlock(&w.lock);
	if (u->tag.nodes == 99)
		return elastic_errorf(err, "Invalid account");
	*job = u->tag.group * 1000 + u->tag.request;
	return 0;
}

static struct unit_request req(uint32_t group, uint32_t token)
{
	struct unit_request u;

	memset(&u, 0, sizeof(u));
	u.tag.group = group;
	u.tag.nodes = 1;
	u.tag.request = token;
	return u;
}

/* Wait (deadline s) for n answers in all. */
static size_t take_until(struct submitq *q, struct submitq_item *got,
			 size_t have, size_t n, double deadline)
{
	double t0 = now_s();

	while (have < n && now_s() - t0 < deadline) {
		have += submitq_take(q, got + have, n - have);
		if (have < n)
			usleep(5000);
	}
	return have;
}

/* What the loop does when woken: take the answers there are. */
static struct {
	pthread_mutex_t lock;
	struct submitq *q;
	unsigned calls;
	size_t taken;
} woken = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void on_answer(void)
{
	struct submitq_item got[8];

	pthread_mutex_lock(&woken.lock);
	woken.calls++;
	woken.taken += submitq_take(woken.q, got, 8);
	pthread_mutex_unlock(&woken.lock);
}

/* Each answer wakes the loop once it can be taken: the wakes alone take
 * them all. */
static void answers_wake_the_loop(void **state)
{
	struct submitq *q = submitq_create(SUBMITQ_WORKERS, fake_submit, NULL);
	struct unit_request u;
	double t0 = now_s();

	(void)state;
	assert_non_null(q);
	woken.q = q;
	submitq_on_answer(q, on_answer);
	for (uint32_t g = 2; g <= 6; g++) {
		u = req(g, 1);
		assert_int_equal(submitq_push(q, g, 1, &u, "woken"), 0);
	}
	while (submitq_busy(q) && now_s() - t0 < 30.0)
		usleep(5000);
	assert_int_equal(submitq_busy(q), 0);
	submitq_destroy(q);
	assert_int_equal(woken.calls, 5);
	assert_int_equal(woken.taken, 5);
}

static void slow_group_holds_no_other(void **state)
{
	struct submitq *q = submitq_create(SUBMITQ_WORKERS, fake_submit, NULL);
	struct submitq_item got[8];
	struct unit_request u;
	size_t n;

	(void)state;
	assert_non_null(q);
	/* The slow group's submissions take until the gate opens. */
	set_gate(&w.slow_shut, true);
	/* Three of the slow group first, then one of each other group. */
	for (uint32_t t = 1; t <= 3; t++) {
		u = req(SLOW_GROUP, t);
		assert_int_equal(submitq_push(q, SLOW_GROUP, t, &u, "slow"), 0);
	}
	for (uint32_t g = 2; g <= 4; g++) {
		u = req(g, 1);
		assert_int_equal(submitq_push(q, g, 1, &u, "quick"), 0);
	}
	/* Answered while the slow group's first still runs. */
	n = take_until(q, got, 0, 3, 30.0);
	assert_int_equal(n, 3);
	assert_int_equal(submitq_busy(q), 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_not_equal(got[i].group, SLOW_GROUP);
		assert_int_equal(got[i].job, got[i].group * 1000 + 1);
		assert_string_equal(got[i].text, "quick");
	}
	/* The slow group's, one at a time and in order. */
	set_gate(&w.slow_shut, false);
	n = take_until(q, got, 0, 3, 30.0);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(got[i].group, SLOW_GROUP);
		assert_int_equal(got[i].token, i + 1);
		assert_int_equal(got[i].job, SLOW_GROUP * 1000 + i + 1);
	}
	assert_int_equal(w.max_running[SLOW_GROUP], 1);
	assert_int_equal(submitq_busy(q), 0);
	submitq_destroy(q);
}

static void answers_keep_the_request(void **state)
{
	struct submitq *q = submitq_create(2, fake_submit, NULL);
	struct submitq_item got[2];
	struct unit_request u = req(5, 7);
	char account[32] = "physics", big[300];

	(void)state;
	assert_non_null(q);
	/* The request's strings are copied: the caller's may change. */
	u.account = account;
	assert_int_equal(submitq_push(q, 5, 7, &u, "a unit"), 0);
	strcpy(account, "changed");
	assert_int_equal(take_until(q, got, 0, 1, 5.0), 1);
	assert_string_equal(w.seen_account, "physics");
	assert_null(got[0].unit.account);
	assert_int_equal(got[0].unit.tag.request, 7);
	/* A refusal says why. */
	u = req(6, 1);
	u.tag.nodes = 99;
	assert_int_equal(submitq_push(q, 6, 1, &u, "refused"), 0);
	assert_int_equal(take_until(q, got, 0, 1, 5.0), 1);
	assert_int_equal(got[0].job, 0);
	assert_string_equal(got[0].err, "Invalid account");
	/* A string too long for its copy: not queued. */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	u = req(6, 2);
	u.features = big;
	assert_int_equal(submitq_push(q, 6, 2, &u, "long"), -1);
	assert_int_equal(submitq_busy(q), 0);
	submitq_destroy(q);
}

/* Opens the slow group's gate once the queue is stopping (it takes no
 * more); until then its pushes wait behind the slow group's running one. */
static void *open_when_stopped(void *arg)
{
	struct submitq *q = arg;
	struct unit_request u = req(SLOW_GROUP, 50);

	while (submitq_push(q, SLOW_GROUP, 50, &u, "") == 0)
		usleep(10000);
	set_gate(&w.slow_shut, false);
	return NULL;
}

static void bounded(void **state)
{
	struct submitq *q = submitq_create(SUBMITQ_WORKERS, fake_submit, NULL);
	static struct submitq_item got[SUBMITQ_MAX];
	struct unit_request u;
	pthread_t opener;
	size_t n;

	(void)state;
	assert_non_null(q);
	set_gate(&w.gate_shut, true);
	for (uint32_t i = 0; i < SUBMITQ_MAX; i++) {
		u = req(100 + i, 1);
		assert_int_equal(submitq_push(q, 100 + i, 1, &u, ""), 0);
	}
	u = req(9, 1);
	assert_int_equal(submitq_push(q, 9, 1, &u, ""), -1);
	set_gate(&w.gate_shut, false);
	assert_int_equal(take_until(q, got, 0, SUBMITQ_MAX, 20.0), SUBMITQ_MAX);
	/* Stopped with submissions queued behind a running one: that one
	 * is answered, the others dropped; nothing more is taken. */
	set_gate(&w.slow_shut, true);
	for (uint32_t t = 1; t <= 3; t++) {
		u = req(SLOW_GROUP, t);
		assert_int_equal(submitq_push(q, SLOW_GROUP, t, &u, ""), 0);
	}
	for (;;) {
		pthread_mutex_lock(&w.lock);
		n = w.running[SLOW_GROUP];
		pthread_mutex_unlock(&w.lock);
		if (n)
			break;
		usleep(1000);
	}
	assert_int_equal(pthread_create(&opener, NULL, open_when_stopped, q),
			 0);
	submitq_stop(q);
	pthread_join(opener, NULL);
	assert_int_equal(submitq_busy(q), 0);
	assert_int_equal(submitq_take(q, got, SUBMITQ_MAX), 1);
	assert_int_equal(got[0].token, 1);
	assert_int_equal(submitq_push(q, 9, 1, &u, ""), -1);
	submitq_destroy(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(answers_wake_the_loop),
		cmocka_unit_test(slow_group_holds_no_other),
		cmocka_unit_test(answers_keep_the_request),
		cmocka_unit_test(bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
