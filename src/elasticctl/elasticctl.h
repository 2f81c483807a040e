#ifndef ELASTICCTL_H
#define ELASTICCTL_H

/*
 * What the parts of elasticctl share: elasticctl.c (options, the command
 * and its run), client.c (which elasticd, the request and what its status
 * says), render.c (groups and events as text; the tables),
 * checkpoints.c (the checkpoints command), check_*.c (the check command:
 * check.h, check_io.h), report.c (the report command: acct.h, its pure
 * parts; gnuplot.h).  Private to the program.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "apiclient/apiclient.h"
#include "common/error.h"
#include "common/log.h"
#include "common/policy.h"

#define PROG "elasticctl"

enum exit_code {
	EXIT_OK = 0,
	EXIT_FAIL = 1,
	EXIT_USAGE = 2,
	EXIT_UNREACHABLE = 3,
	EXIT_DENIED = 4,
	EXIT_NOT_FOUND = 5,
};

/* Where the server address and munge socket came from, for messages. */
struct ctl {
	struct apiclient api;	 /* server, munge socket, elasticd's user */
	const char *server_from; /* "--server", "ElasticdServer", ... */
	char munge_socket[POLICY_PATH_MAX + 1]; /* "" = libmunge's default */
	const char *munge_from;
	char conf_path[POLICY_PATH_MAX + 32];
	bool json;
};

enum command { CMD_STATUS, CMD_EVENTS, CMD_RAISE };

/* client.c */
int ctl_configure(struct ctl *c, const char *opt_server, const char *opt_munge);
int ctl_request(const struct ctl *c, const char *method, const char *path,
		uint32_t job, struct apiclient_body *b);
/* The "error" of elasticd's JSON error body, or a short excerpt of the
 * body, into buf (len bytes). */
void ctl_answer_error(const struct apiclient_body *b, char *buf, size_t len);

/* render.c */

/* A table printed with aligned columns. */
#define MAX_COLS 12
struct table {
	size_t ncols;
	const char *head[MAX_COLS];
	bool right[MAX_COLS]; /* numbers: right-aligned */
	char **cells;	      /* nrows * ncols, malloc'd */
	size_t nrows;
};

void ctl_table_add(struct table *t, ...);
void ctl_table_print(struct table *t, const char *indent);
void ctl_render(enum command cmd, uint32_t job, json_object *d);

/* report.c: the report command */
struct report_opts {
	uint32_t job;	       /* 0: any (with from_file only) */
	const char *from_file; /* --from-file: a saved document; NULL */
	const char *png, *svg; /* --png, --svg: the picture's files; NULL */
	bool json;	       /* --json: the document as it came */
};
int ctl_report(const struct ctl *c, const struct report_opts *o);

/* checkpoints.c */
int ctl_checkpoints(const char *arg, const char *opt_dir, bool json);

/* check_cmd.c: the check command (check.h) */
struct check_opts {
	const char *server, *munge; /* --server, --munge-socket; NULL */
	const char *node;	    /* --node: also there; NULL */
	bool local, json;	    /* --local, --json */
};
int ctl_check(const struct check_opts *o);

#endif
