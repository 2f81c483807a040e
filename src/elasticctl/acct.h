#ifndef ELASTICCTL_ACCT_H
#define ELASTICCTL_ACCT_H

/*
 * A job's accounting as elasticd serves it (GET /v1/groups/JOB/account,
 * elasticd-api(7)): where each node-second the group held went, its
 * series over time and its events; and what elasticctl report makes of
 * it: the text (acct_text.c) and the picture's data and gnuplot script
 * (acct_plot.c).  All pure: no I/O, no clock, no log (check-pure.sh).
 * acct.c alone writes a struct acct; acct_free() frees what acct_parse()
 * allocated.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/acctnames.h"
#include "common/error.h"

/* Bounds on what is read (elasticd keeps at most 2000 points and 512
 * events; a saved document may come from a later one). */
#define ACCT_MAX_SERIES 100000
#define ACCT_MAX_EVENTS 10000
#define ACCT_MAX_WORLDS 65536
/* Held = training + lost within this many node-seconds. */
#define ACCT_SLACK_S 1.0

#define ACCT_WORD_MAX 32 /* a kind, path or phase: [a-z0-9_-], 1..31 */
#define ACCT_NAME_MAX 65 /* a user, account or partition, and the NUL */

struct acct_world_time {
	uint32_t world; /* world size */
	double node_s;	/* node-seconds training at that size */
};

struct acct_point {
	double t; /* unix seconds */
	uint32_t world, held;
	uint64_t steps;
	char phase[ACCT_WORD_MAX];
};

struct acct_event {
	double t;		  /* unix seconds */
	char kind[ACCT_WORD_MAX]; /* growth, preemption, crash, ... */
	char path[ACCT_WORD_MAX]; /* "" for an event's start; restart,
				   * inplace, swap for a resize's end */
	double seconds;		  /* a resize's end: event -> first step */
	uint64_t seq;		  /* a resize's end: 1, 2, ... */
};

struct acct {
	uint32_t id;
	char user[ACCT_NAME_MAX], account[ACCT_NAME_MAX],
	    partition[ACCT_NAME_MAX]; /* "" if not given */
	bool ended;
	double start, updated;		   /* unix seconds */
	double wall_s, train_wall_s;	   /* seconds held, of them training */
	double held_s;			   /* node-seconds held */
	double cause_s[ACCTNAMES_NCAUSES]; /* by enum acctnames_cause */
	struct acct_world_time *at;	   /* by world size, ascending */
	size_t nat;
	uint64_t steps, redone;
	double goodput, ettr; /* 0..1 */
	uint32_t world, held; /* nodes now */
	char phase[ACCT_WORD_MAX];
	struct acct_point *series; /* as given (in time order) */
	size_t nseries;
	struct acct_event *events; /* as given (in time order) */
	size_t nevents;
};

/*
 * The document (JSON text) into *a.  0, or -1 with err naming the field
 * that is missing or wrong (*a then holds nothing to free).  A cause, a
 * ratio or a field of the job that is missing counts as 0 or ""; the
 * job's id and its node-seconds held are required.
 */
int acct_parse(const char *text, struct acct *a, elastic_error_t *err);

/* Free what acct_parse() allocated (NULL-safe; *a is emptied). */
void acct_free(struct acct *a);

/* The node-seconds lost: held's causes but training. */
double acct_lost_s(const struct acct *a);

/* Does held = training + lost, within ACCT_SLACK_S? *off: held minus
 * their sum. */
bool acct_adds_up(const struct acct *a, double *off);

/* acct_text.c */

/* The resizes of one kind by one path. */
struct acct_resize_stat {
	const char *kind, *path; /* the acct's own strings */
	size_t count;
	double median_s, max_s;
};

/*
 * The resizes (events with a path) by kind and path, in the order each
 * pair first appears, into out (room for a->nevents).  Returns how many
 * pairs, or -1 if out of memory.
 */
int acct_text_resizes(const struct acct *a, struct acct_resize_stat *out);

/* The report as text (elasticctl(1), report): malloc'd, NULL if out of
 * memory. */
char *acct_text(const struct acct *a);

/* acct_plot.c */

/* The file names the script reads and writes, in its directory. */
#define ACCT_PLOT_DATA "series.dat"
#define ACCT_PLOT_PNG  "report.png"
#define ACCT_PLOT_SVG  "report.svg"

/* The series as gnuplot data: malloc'd, NULL if out of memory. */
char *acct_plot_data(const struct acct *a);

/*
 * The gnuplot script that draws the series (read from ACCT_PLOT_DATA)
 * into ACCT_PLOT_PNG (png) and ACCT_PLOT_SVG (svg): world size and held
 * nodes over time, the step rate on a second axis, each event a vertical
 * line labelled with its kind, each resize a band from its event to its
 * first step.  malloc'd, NULL if out of memory.
 */
char *acct_plot_script(const struct acct *a, bool png, bool svg);

#endif
