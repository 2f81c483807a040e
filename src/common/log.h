#ifndef ELASTIC_COMMON_LOG_H
#define ELASTIC_COMMON_LOG_H

#include <stdbool.h>
#include <stdio.h>

/*
 * The human log of elasticd and the tools: one line per message on
 * stderr, "[<N>]IDENT: [TIME ]TEXT", where <N> is the syslog level for
 * journald (ELOG_JOURNAL) and TEXT of a warning starts with
 * "warning: " and of a debug message with "debug: ".  Messages above the
 * chosen level are dropped.  elastic-run's timeline is not this log: it is
 * the machine-readable event record and is written beside it.
 *
 * Errors are filled where they happen (elastic_error_t) and logged once,
 * here, by the top level that owns the context.
 */
enum elog_level {
	ELOG_ERROR,
	ELOG_WARN,
	ELOG_INFO,
	ELOG_DEBUG,
};

#define ELOG_TIME    0x1 /* prefix the local time (not under journald) */
#define ELOG_JOURNAL 0x2 /* prefix "<N>", the syslog level, for journald */

/* Name the program, choose the level and flags.  Before any call the
 * identity is "elastic", the level ELOG_INFO, no time. */
void elog_init(const char *ident, enum elog_level level, unsigned flags);

/*
 * Is fd the journal's stream?  journal_stream is $JOURNAL_STREAM, the
 * "DEVICE:INODE" of the stream systemd gave a unit's output.  Children
 * inherit the variable, not always the stream (a test's daemon writes to
 * a file), so the two are compared.
 */
bool elog_journal_stream(const char *journal_stream, int fd);

/* Write to f instead of stderr (tests). */
void elog_set_stream(FILE *f);

void elog_set_level(enum elog_level level);
void elog_set_flags(unsigned flags);
bool elog_enabled(enum elog_level level);

void elog(enum elog_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define elog_error(...) elog(ELOG_ERROR, __VA_ARGS__)
#define elog_warn(...)	elog(ELOG_WARN, __VA_ARGS__)
#define elog_info(...)	elog(ELOG_INFO, __VA_ARGS__)
#define elog_debug(...) elog(ELOG_DEBUG, __VA_ARGS__)

#endif
