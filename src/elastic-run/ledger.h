#ifndef ELASTIC_RUN_LEDGER_H
#define ELASTIC_RUN_LEDGER_H

/*
 * The launcher's ledger of node-time (tally.h) fed where the launcher
 * learns each thing, and its reports: POST /v1/groups/JOB/account to
 * elasticd every ELASTIC_ACCOUNT_INTERVAL seconds and at once when its
 * phase changes, and the line "elastic-run: account: key=value ..." on
 * standard error at the end (elastic-run(1), ACCOUNTING).  A report that
 * fails is sent again at the next; the launcher waits on none for long.
 * The ledger is this file's alone.
 */

#include <stdbool.h>
#include <stdint.h>

struct config;
struct source;
struct members;
struct watch;

#define LEDGER_INTERVAL_DEFAULT 10
#define LEDGER_INTERVAL_MAX	3600
/* How long a report may take: the loop it runs in waits for it. */
#define LEDGER_TIMEOUT_MS 1000

/* ELASTIC_ACCOUNT_INTERVAL read and the clock started: 0, or -1 when the
 * variable is bad (said). */
int ledger_start(const struct config *c);
/* A launch (restart > 0: a relaunch, the restart path) over ms. */
void ledger_launch(const struct members *ms, unsigned restart);
/* The nodes now held and in the world: ms's, and its spares. */
void ledger_world(const struct members *ms);
/* The world's ranks are all up (launched, or resized in place). */
void ledger_up(void);
/* The launcher acts on w's cause (an event, a fault found). */
void ledger_event(const struct watch *w);
/* The decision after a launch that no event ended: a relaunch, retry
 * (the ranks failed on their own) or not. */
void ledger_relaunch(bool retry);
/* A resize in place took path ("in-place", "swap"). */
void ledger_path(const char *path);
/* A heartbeat line heard at now (monotonic s) of the world that runs
 * since world_t: its ranks' steps and saves. */
void ledger_heard(const char *line, double now, double world_t);
/* At every poll: ms (NULL: unchanged) the nodes held and in the world;
 * the report, when one is due. */
void ledger_tick(const struct source *src, const struct members *ms);
/* The launcher ends: the final report and the line on standard error. */
void ledger_end(const struct source *src);

#endif
