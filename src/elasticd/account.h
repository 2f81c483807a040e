#ifndef ELASTICD_ACCOUNT_H
#define ELASTICD_ACCOUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/acctnames.h"
#include "common/error.h"

/*
 * A group's account: where its node-seconds went, as its launcher sums
 * them and reports them (POST /v1/groups/ID/account, elasticd-api(7)),
 * with the series of its reports and the events that started and ended
 * its resizes.  Pure: no locks, no I/O, no clock; account_store.c keeps
 * one per group and writes them to disk.  The names of its causes, kinds,
 * paths and phases are the contract's (common/acctnames.h).
 */

/* Bounds of the report's numbers (node-ms, then counts and times). */
#define ACCOUNT_NMS_MAX	  (1ULL << 53)
#define ACCOUNT_COUNT_MAX (1ULL << 40)
#define ACCOUNT_WORLD_MAX 65536
#define ACCOUNT_AT_MAX	  64
/* The causes add up to held within this many node-ms. */
#define ACCOUNT_SLACK_NMS 1000
/* A group's series of reports, and its events, at most. */
#define ACCOUNT_SERIES_MAX 2000
#define ACCOUNT_EVENTS_MAX 512

/* One report, as api_route.c parses it (route_parse_account). */
struct account_report {
	uint64_t t_ms;		/* the launcher's clock, unix ms */
	uint64_t wall_ms;	/* since the job's start */
	uint64_t train_wall_ms; /* of those, training */
	uint64_t held_nms;
	uint64_t nms[ACCTNAMES_NCAUSES];
	size_t nat; /* training by world size */
	uint32_t at_world[ACCOUNT_AT_MAX];
	uint64_t at_nms[ACCOUNT_AT_MAX];
	uint64_t steps, redone;
	uint32_t world, held; /* nodes now */
	enum acctnames_phase phase;
	int event; /* an enum acctnames_kind starting a resize, or -1 */
	/* a resize ended (resized): its kind, path, ms and sequence number */
	bool resized;
	enum acctnames_kind resize_kind;
	enum acctnames_path resize_path;
	uint64_t resize_ms, resize_seq;
	bool final;
};

/* Do the causes add up to held, and the sums by size to training,
 * within ACCOUNT_SLACK_NMS?  NULL, or a static message. */
const char *account_check(const struct account_report *r);

/* goodput = training / held, ettr = training wall / wall (0 without). */
double account_goodput(const struct account_report *r);
double account_ettr(const struct account_report *r);

struct account_point {
	int64_t t_ms;
	uint32_t world, held;
	uint64_t steps;
	enum acctnames_phase phase;
};
struct account_event {
	int64_t t_ms;
	enum acctnames_kind kind;
	bool end; /* a resize's end: path, ms and seq say how */
	enum acctnames_path path;
	uint64_t ms, seq;
};

#define ACCOUNT_NAME_MAX 64
struct account {
	uint32_t id, uid;
	char user[ACCOUNT_NAME_MAX + 1], account[ACCOUNT_NAME_MAX + 1];
	char partition[ACCOUNT_NAME_MAX + 1];
	bool reported;		    /* last holds a report */
	struct account_report last; /* its at[], event and resize unused */
	struct account_point *series;
	size_t npoints, cap;
	struct account_event *events; /* ACCOUNT_EVENTS_MAX, oldest first */
	size_t nevents;
};

/* A new account for group id of uid (names may be NULL: unknown), or
 * NULL when out of memory.  account_destroy() frees it; NULL is fine. */
struct account *account_create(uint32_t id, uint32_t uid, const char *user,
			       const char *account, const char *partition);
void account_destroy(struct account *a);

/* Take a report: its figures, a point of the series (the older half
 * thinned when full) and its events.  0, or -1 when out of memory. */
int account_apply(struct account *a, const struct account_report *r);

/* The account as JSON (elasticd-api(7)), with the owner's uid, which
 * account_parse reads back.  ended: the group ended.  malloc'd, or NULL
 * when out of memory. */
char *account_render(const struct account *a, bool ended);
/* An account from what account_render wrote, or NULL with err set. */
struct account *account_parse(const char *text, elastic_error_t *err);

/* What the base's AdminComment gets after its tag at the end:
 * "goodput=0.875 ettr=0.900 held_s=2400".  snprintf's return. */
int account_summary(const struct account *a, char *buf, size_t len);

/*
 * Which stored accounts to remove (AccountRetention, AccountMaxJobs):
 * those written more than days ago (0: none for age), and beyond the
 * newest max_jobs.  mtime[] is each file's time; remove[] is set for
 * each.  Returns how many to remove.
 */
size_t account_purge_select(const time_t *mtime, size_t n, time_t now,
			    unsigned days, unsigned max_jobs, bool *remove);

/*
 * The site's resizes, event to first step, by kind and path
 * (elasticd_resize_seconds): counts per bucket (le 0.1 ... 300 s, then
 * +Inf), their sum and count, since elasticd started.
 */
#define ACCOUNT_BUCKETS 12
struct account_hist {
	uint64_t bucket[ACCTNAMES_NKINDS][ACCTNAMES_NPATHS][ACCOUNT_BUCKETS];
	uint64_t ms_sum[ACCTNAMES_NKINDS][ACCTNAMES_NPATHS];
};
void account_hist_add(struct account_hist *h, enum acctnames_kind kind,
		      enum acctnames_path path, uint64_t ms);

/* The live groups' accounts and the histogram in Prometheus's text
 * format (elasticd(8), METRICS): each family once, with its help. */
void account_metrics(FILE *f, struct account *const *live, size_t n,
		     const struct account_hist *h);

#endif
