/* The launcher's ledger fed, and its reports (ledger.h). */
#include "config.h"

#include <slurm/slurm.h>

#include "elastic-run.h"
#include "common/options.h"
#include "common/slurm_compat.h"
#include "elastic-event/jobload.h"
#include "tally.h"
#include "detect.h"
#include "ledger.h"

/* Nodes whose last save is remembered (more: their saves go unseen). */
#define LEDGER_NODES 1024
#define LEDGER_LINE  4096
/* How long the launcher's end waits for elasticd to write the ratios
 * into the base's AdminComment. */
#define LEDGER_NOTE_WAIT_MS 3000

struct ledger_save {
	char node[64];
	uint64_t save_ms;
};

static struct ledger {
	bool on;
	uint32_t job;
	struct tally a;
	unsigned interval_s;
	double next; /* the next periodic report (monotonic s) */
	/* What elasticd's answers said, once each. */
	bool said_404, said_failed;
	/* A world launched or up since the last event: an event now is a
	 * new one, not the last said again. */
	bool launched;
	/* The spares last seen: one in the next world is a swap. */
	uint32_t spare[MEMBERS_SPARES_MAX];
	size_t nspare;
	/* Each node's last save heard (a new value is a new save). */
	struct ledger_save save[LEDGER_NODES];
	size_t nsave;
} lg;

static uint64_t ledger_ms(double mono_s)
{
	return (uint64_t)(mono_s * 1000.0);
}

static uint64_t ledger_now(void)
{
	return ledger_ms(now_s());
}

int ledger_start(const struct config *c)
{
	const char *v = getenv("ELASTIC_ACCOUNT_INTERVAL");
	unsigned long n = LEDGER_INTERVAL_DEFAULT;
	enum parse_result r;
	uint64_t merge;

	if (v && *v &&
	    (r = parse_uint(v, 1, LEDGER_INTERVAL_MAX, &n)) != PARSE_OK) {
		elog_error("ELASTIC_ACCOUNT_INTERVAL=%s: %s (allowed: 1..%u "
			   "seconds)",
			   v, parse_strerror(r), LEDGER_INTERVAL_MAX);
		return -1;
	}
	lg.interval_s = (unsigned)n;
	lg.job = c->job_id;
	/* Every node says a save at its next beat: those within two beats
	 * are one save. */
	merge = c->heartbeat_timeout
		    ? 2 * (uint64_t)detect_interval_ms(c->heartbeat_timeout)
		    : 0;
	tally_init(&lg.a, ledger_now(), merge);
	lg.next = now_s() + lg.interval_s;
	lg.on = true;
	return 0;
}

/* Nodes held: the world's and its spares'. */
static unsigned ledger_held(const struct members *ms)
{
	unsigned h = ms->nnodes;

	for (size_t i = 0; i < ms->nspare; i++)
		h += ms->spare[i].nnodes;
	return h;
}

void ledger_world(const struct members *ms)
{
	if (!lg.on)
		return;
	tally_sizes(&lg.a, ledger_now(), ledger_held(ms), ms->nnodes);
	lg.nspare = ms->nspare;
	for (size_t i = 0; i < ms->nspare; i++)
		lg.spare[i] = ms->spare[i].job_id;
}

/* Is a member of ms one of the spares last seen? */
static bool ledger_swapped(const struct members *ms)
{
	for (size_t i = 0; i < ms->n; i++)
		for (size_t k = 0; k < lg.nspare; k++)
			if (ms->m[i].job_id == lg.spare[k])
				return true;
	return false;
}

void ledger_launch(const struct members *ms, unsigned restart)
{
	if (!lg.on)
		return;
	lg.launched = true;
	if (restart > 0)
		tally_path(&lg.a, ledger_now(),
			   ledger_swapped(ms) ? ACCTNAMES_PATH_SWAP
					      : ACCTNAMES_PATH_RESTART);
	ledger_world(ms);
	/* New processes: their saves are all to come. */
	lg.nsave = 0;
}

void ledger_up(void)
{
	if (!lg.on)
		return;
	lg.launched = true;
	tally_up(&lg.a, ledger_now());
}

void ledger_event(const struct watch *w)
{
	uint64_t t = ledger_now();

	if (!lg.on || !w->cause || w->stopping)
		return;
	/* The same event again (an in-place resize that fell back to a
	 * relaunch): a new one comes after a launch. */
	if (lg.a.phase == TALLY_PH_RESIZE && !lg.launched)
		return;
	lg.launched = false;
	if (w->onset > 0)
		tally_detect(&lg.a, t, ledger_ms(w->onset),
			     tally_kind_of(w->cause));
	else
		tally_event(&lg.a, t, tally_kind_of(w->cause));
}

void ledger_relaunch(bool retry)
{
	/* After an event the resize is under way already: that event is
	 * its cause, not a second one. */
	if (lg.on && lg.a.phase != TALLY_PH_RESIZE)
		tally_event(&lg.a, ledger_now(),
			    retry ? TALLY_CRASH : TALLY_CHANGE);
}

void ledger_path(const char *path)
{
	if (lg.on)
		tally_path(&lg.a, ledger_now(),
			   !strcmp(path, "swap") ? ACCTNAMES_PATH_SWAP
						 : ACCTNAMES_PATH_INPLACE);
}

/* Node's save of save_ms, as its heartbeat says: a new one when it
 * differs from the last it said. */
static bool ledger_new_save(const char *node, size_t len, uint64_t save_ms)
{
	struct ledger_save *s = NULL;

	if (len >= sizeof(s->node))
		return false;
	for (size_t i = 0; i < lg.nsave && !s; i++)
		if (!strncmp(lg.save[i].node, node, len) &&
		    !lg.save[i].node[len])
			s = &lg.save[i];
	if (!s && lg.nsave == LEDGER_NODES)
		return false;
	if (!s) {
		s = &lg.save[lg.nsave++];
		memcpy(s->node, node, len);
		s->node[len] = '\0';
		s->save_ms = 0;
	}
	if (s->save_ms == save_ms)
		return false;
	s->save_ms = save_ms;
	return true;
}

void ledger_heard(const char *line, double now, double world_t)
{
	size_t len = strcspn(line, " ");
	uint64_t t = ledger_ms(now), top = 0;
	bool stepped = false;

	if (!lg.on)
		return;
	for (const char *w = strchr(line, ' '); w; w = strchr(w + 1, ' ')) {
		unsigned rank;
		unsigned long long step, age;
		char state;

		if (sscanf(w + 1, "r%u=%llu/%llu/%c", &rank, &step, &age,
			   &state) == 4) {
			/* A record of this world's ranks. */
			if (now - (double)age / 1000.0 >= world_t &&
			    step >= top) {
				top = step;
				stepped = true;
			}
		} else if (sscanf(w + 1, "s%u=%llu", &rank, &step) == 2 &&
			   ledger_new_save(line, len, step))
			tally_save(&lg.a, t, step);
	}
	if (stepped)
		tally_step(&lg.a, t, top);
}

static uint64_t ledger_unix_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
}

/* Is there an elasticd that knows the group to report to? */
static bool ledger_to_elasticd(const struct source *src)
{
	return src->have_ed && src->ed_mode;
}

/* The report to elasticd; what it answered said once.  0 when it was
 * kept, 1 when elasticd keeps no accounts, -1 when it failed. */
static int ledger_send(const struct source *src, bool final)
{
	char q[LEDGER_LINE];
	elastic_error_t err;
	int rc;

	if (tally_format(&lg.a, ledger_unix_ms(), '&', final, q, sizeof(q)) < 0)
		return -1;
	rc = elasticd_account(&src->ed, lg.job, q, LEDGER_TIMEOUT_MS, &err);
	if (rc == 0) {
		tally_sent(&lg.a);
		lg.said_failed = false;
		return 0;
	}
	if (rc > 0) {
		/* An elasticd that keeps no accounts: the ledger is ours. */
		if (!lg.said_404)
			elog_info("elasticd at %s keeps no account of job %u "
				  "(404): the account is at the end of this "
				  "output alone",
				  src->ed.server, lg.job);
		lg.said_404 = true;
		tally_sent(&lg.a);
		return 1;
	}
	if (!lg.said_failed)
		elog_warn("the account to elasticd: %s (sent again in %u s)",
			  err.text, lg.interval_s);
	else
		elog_debug("the account to elasticd: %s", err.text);
	lg.said_failed = true;
	tally_tried(&lg.a);
	return -1;
}

void ledger_tick(const struct source *src, const struct members *ms)
{
	double now = now_s();

	if (!lg.on)
		return;
	if (ms)
		ledger_world(ms);
	tally_advance(&lg.a, ledger_ms(now));
	if (!ledger_to_elasticd(src) || (!lg.a.changed && now < lg.next))
		return;
	lg.next = now + lg.interval_s;
	ledger_send(src, false);
}

/* Does the job's AdminComment carry elasticd's note of its end? */
static bool ledger_noted(void)
{
	job_info_msg_t *msg = NULL;
	bool noted = false;

	if (job_load(lg.job, &msg, NULL) == 0 && msg->record_count > 0) {
		const char *c = msg->job_array[0].admin_comment;

		noted = c && strstr(c, ELASTIC_TAG_END "goodput=");
	}
	if (msg)
		compat_free_job_info_msg(msg);
	return noted;
}

/* elasticd writes the ratios into the base's AdminComment at the cycle
 * the final report wakes, and Slurm refuses it once the job ended: the
 * launcher, whose end ends the job, waits for it (a few reads of its
 * own job, once) so that sacct keeps them. */
static void ledger_wait_noted(void)
{
	double end = now_s() + LEDGER_NOTE_WAIT_MS / 1000.0;

	while (!ledger_noted()) {
		if (now_s() >= end) {
			elog_info("elasticd did not note job %u's account in "
				  "its AdminComment within %u ms: sacct will "
				  "not show it",
				  lg.job, LEDGER_NOTE_WAIT_MS);
			return;
		}
		sleep_ms(100);
	}
}

void ledger_end(const struct source *src)
{
	char line[LEDGER_LINE];

	if (!lg.on)
		return;
	tally_end(&lg.a, ledger_now());
	if (ledger_to_elasticd(src) && ledger_send(src, true) == 0)
		ledger_wait_noted();
	if (tally_format(&lg.a, ledger_unix_ms(), ' ', true, line,
			 sizeof(line)) < 0)
		return;
	fprintf(stderr, PROG ": account: %s goodput=%.3f ettr=%.3f\n", line,
		tally_goodput(&lg.a), tally_ettr(&lg.a));
	fflush(stderr);
}
