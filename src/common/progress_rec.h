#ifndef ELASTIC_COMMON_PROGRESS_REC_H
#define ELASTIC_COMMON_PROGRESS_REC_H

/*
 * A rank's progress record: what a rank writes, at offset 0 of its file
 * ELASTIC_PROGRESS_DIR/rank.<RANK> on its node, at each step it reports,
 * and what the node's heartbeat task reads and passes to the launcher.
 * PROGRESS_REC_LEN bytes of text, padded with blanks and ended by a
 * newline, so that one pwrite() replaces the whole of it:
 *
 *   v1 RESTART STEP MONO_MS STATE PID SIG [SAVE_MS]
 *
 * RESTART is ELASTIC_RESTART_COUNT; STEP the rank's step count; MONO_MS
 * CLOCK_MONOTONIC in ms when it was written (the node's clock: only its
 * heartbeat task compares it); STATE 'r' (a step ended) or 's' (saving a
 * checkpoint it announced: not a hang); PID the rank's process; SIG the
 * signal on which it prints its stacks (0: none); SAVE_MS how long its
 * last checkpoint took to save, whole (a periodic save's too: the
 * launcher weighs it against the grace; 0 or absent: none known).  The
 * Python module writes the same text (contribs/python/slurm_elastic/
 * _progress.py).
 */

#include <stdint.h>
#include <sys/types.h>

#define PROGRESS_REC_LEN  64
#define PROGRESS_STEPPING 'r'
#define PROGRESS_SAVING	  's'

struct progress_rec {
	unsigned restart;
	uint64_t step;
	uint64_t mono_ms;
	char state;
	pid_t pid;
	int sig;
	uint64_t save_ms;
};

/* Write r as a record into buf (PROGRESS_REC_LEN bytes, no NUL): 0, or
 * -1 when it does not fit. */
int progress_rec_format(const struct progress_rec *r, char *buf);

/* Parse len bytes of a record (a torn or foreign one fails): 0 or -1,
 * *r untouched on failure. */
int progress_rec_parse(const char *buf, size_t len, struct progress_rec *r);

#endif
