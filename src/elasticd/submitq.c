/* Unit submissions beside the reconcile loop (submitq.h). */
#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "submitq.h"

enum slot_state { SLOT_FREE, SLOT_WAITING, SLOT_RUNNING, SLOT_DONE };

struct subq_slot {
	enum slot_state st;
	uint64_t seq; /* queued (WAITING, RUNNING) or answered (DONE) */
	struct submitq_item it;
};

struct submitq {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct subq_slot *slot; /* SUBMITQ_MAX */
	uint64_t seq;
	size_t busy; /* WAITING + RUNNING */
	bool stop;
	submitq_fn fn;
	void *arg;
	void (*answered)(void);
	unsigned nthreads;
	pthread_t th[SUBMITQ_WORKERS];
};

/* The oldest waiting submission of a group with none running. */
static struct subq_slot *next_eligible(struct submitq *q)
{
	uint32_t running[SUBMITQ_WORKERS];
	size_t nrun = 0;
	struct subq_slot *best = NULL;

	for (size_t i = 0; i < SUBMITQ_MAX && nrun < SUBMITQ_WORKERS; i++)
		if (q->slot[i].st == SLOT_RUNNING)
			running[nrun++] = q->slot[i].it.group;
	for (size_t i = 0; i < SUBMITQ_MAX; i++) {
		struct subq_slot *s = &q->slot[i];
		bool held = false;

		if (s->st != SLOT_WAITING || (best && best->seq < s->seq))
			continue;
		for (size_t k = 0; k < nrun && !held; k++)
			held = running[k] == s->it.group;
		if (!held)
			best = s;
	}
	return best;
}

static void *worker(void *arg)
{
	struct submitq *q = arg;

	pthread_mutex_lock(&q->lock);
	while (!q->stop) {
		struct subq_slot *s = next_eligible(q);
		elastic_error_t err = { "" };
		uint32_t job = 0;

		if (!s) {
			pthread_cond_wait(&q->work, &q->lock);
			continue;
		}
		s->st = SLOT_RUNNING;
		pthread_mutex_unlock(&q->lock);
		if (q->fn(q->arg, &s->it.unit, &job, &err) < 0)
			job = 0;
		pthread_mutex_lock(&q->lock);
		s->it.job = job;
		snprintf(s->it.err, sizeof(s->it.err), "%s",
			 job	       ? ""
			 : err.text[0] ? err.text
				       : "refused");
		s->st = SLOT_DONE;
		s->seq = ++q->seq;
		q->busy--;
		/* The group's next submission may go now. */
		pthread_cond_broadcast(&q->work);
		if (q->answered) {
			pthread_mutex_unlock(&q->lock);
			q->answered();
			pthread_mutex_lock(&q->lock);
		}
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

struct submitq *submitq_create(unsigned workers, submitq_fn fn, void *arg)
{
	struct submitq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->slot = calloc(SUBMITQ_MAX, sizeof(*q->slot));
	if (!q->slot) {
		free(q);
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	q->fn = fn;
	q->arg = arg;
	if (workers < 1)
		workers = 1;
	if (workers > SUBMITQ_WORKERS)
		workers = SUBMITQ_WORKERS;
	for (; q->nthreads < workers; q->nthreads++)
		if (pthread_create(&q->th[q->nthreads], NULL, worker, q))
			break;
	if (!q->nthreads) {
		submitq_destroy(q);
		return NULL;
	}
	return q;
}

void submitq_on_answer(struct submitq *q, void (*cb)(void))
{
	pthread_mutex_lock(&q->lock);
	q->answered = cb;
	pthread_mutex_unlock(&q->lock);
}

/* A string of the request into its copy; false if it does not fit. */
static bool copy_str(const char **field, char *buf, size_t len)
{
	if (!*field)
		return true;
	if (strlen(*field) >= len)
		return false;
	strcpy(buf, *field);
	*field = buf;
	return true;
}

int submitq_push(struct submitq *q, uint32_t group, uint32_t token,
		 const struct unit_request *u, const char *text)
{
	struct subq_slot *s = NULL;
	int rc = -1;

	pthread_mutex_lock(&q->lock);
	if (q->stop)
		goto out;
	for (size_t i = 0; i < SUBMITQ_MAX && !s; i++)
		if (q->slot[i].st == SLOT_FREE)
			s = &q->slot[i];
	if (!s)
		goto out;
	memset(&s->it, 0, sizeof(s->it));
	s->it.group = group;
	s->it.token = token;
	s->it.unit = *u;
	snprintf(s->it.text, sizeof(s->it.text), "%s", text ? text : "");
	if (!copy_str(&s->it.unit.account, s->it.account,
		      sizeof(s->it.account)) ||
	    !copy_str(&s->it.unit.tres_per_node, s->it.tres_per_node,
		      sizeof(s->it.tres_per_node)) ||
	    !copy_str(&s->it.unit.features, s->it.features,
		      sizeof(s->it.features)))
		goto out;
	s->st = SLOT_WAITING;
	s->seq = ++q->seq;
	q->busy++;
	pthread_cond_broadcast(&q->work);
	rc = 0;
out:
	pthread_mutex_unlock(&q->lock);
	return rc;
}

size_t submitq_take(struct submitq *q, struct submitq_item *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&q->lock);
	while (n < max) {
		struct subq_slot *oldest = NULL;

		for (size_t i = 0; i < SUBMITQ_MAX; i++)
			if (q->slot[i].st == SLOT_DONE &&
			    (!oldest || q->slot[i].seq < oldest->seq))
				oldest = &q->slot[i];
		if (!oldest)
			break;
		out[n] = oldest->it;
		/* The strings are the slot's: no longer the answer's. */
		out[n].unit.account = NULL;
		out[n].unit.tres_per_node = NULL;
		out[n].unit.features = NULL;
		oldest->st = SLOT_FREE;
		n++;
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

size_t submitq_busy(struct submitq *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->busy;
	pthread_mutex_unlock(&q->lock);
	return n;
}

void submitq_stop(struct submitq *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_broadcast(&q->work);
	pthread_mutex_unlock(&q->lock);
	for (unsigned i = 0; i < q->nthreads; i++)
		pthread_join(q->th[i], NULL);
	q->nthreads = 0;
	pthread_mutex_lock(&q->lock);
	for (size_t i = 0; i < SUBMITQ_MAX; i++)
		if (q->slot[i].st == SLOT_WAITING) {
			q->slot[i].st = SLOT_FREE;
			q->busy--;
		}
	pthread_mutex_unlock(&q->lock);
}

void submitq_destroy(struct submitq *q)
{
	if (!q)
		return;
	submitq_stop(q);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->lock);
	free(q->slot);
	free(q);
}
