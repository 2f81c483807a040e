#ifndef ELASTIC_COMMON_CKPT_H
#define ELASTIC_COMMON_CKPT_H

/*
 * Checkpoints of an elastic job: naming, listing, retention, and the
 * --elastic-resume-from addresses.
 *
 * A checkpoint is an entry (a file or a directory) of the job's checkpoint
 * dir named "ckpt-<STEP>[.<ext>]": STEP decimal with any zero padding
 * ("ckpt-00000100.pt", "ckpt-42.bin", "ckpt-7/").  Entries whose names
 * start with '.' are incomplete writes (write ".ckpt-100.pt.tmp", then
 * rename it) and are never listed.  Symbolic links are never followed nor
 * listed: a checkpoint is what the job itself wrote, in a directory of
 * the job's owner, by the owner (safeopen.h).
 *
 * What a launcher (elastic-run) calls
 * -----------------------------------
 * The options come from the job's tag (options_parse_tag):
 * opts.checkpoint_dir (a pattern: expand it with options_expand_path,
 * %j = the base job id), opts.keep, opts.resume_from and opts.eval_cmd
 * ("" when not given).
 *
 * 1. Before each launch, ELASTIC_PREV_CHECKPOINT:
 *
 *        char prev[CKPT_PATH_MAX];
 *        if (ckpt_prev_checkpoint(dir, opts.resume_from, job_dir, &ctx,
 *                                 prev, sizeof(prev), NULL, &err) < 0)
 *                fail the job with err.text (one line);
 *        setenv("ELASTIC_PREV_CHECKPOINT", prev, 1);   (may be "")
 *
 *    The newest checkpoint of the job's own dir (its earlier worlds, an
 *    earlier run of a requeued job), else what --elastic-resume-from
 *    names, else "".  Only a resume spec that names nothing fails.
 *    job_dir (ckpt_job_dir_fn) gives another job's checkpoint dir: load
 *    that job (slurm_load_job) and call ckpt_job_dir(id, its
 *    admin_comment or NULL if slurmctld no longer knows it,
 *    opts.checkpoint_dir, user, home, ...); %u and %h are this job's
 *    user's.  Resolve as the user (the launcher runs as the user).
 *
 * 2. Every few seconds while the ranks run, and once after they exit:
 *
 *        struct ckpt_tick t = {
 *                .ckpt_dir = dir, .keep = opts.keep, .prev = prev,
 *                .eval_cmd = opts.eval_cmd, .job_id = base_job_id,
 *                .partition = ckpt_eval_partition(&policy),
 *                .active = eval_job_active, .arg = &ctx,
 *        };
 *        struct ckpt_tick_result res;
 *        if (ckpt_tick(&t, &res, &err) < 0)
 *                log err.text (not fatal);
 *
 *    (ckpt_eval.h).  It lists the dir; for each checkpoint newer than
 *    every one evaluated so far it submits an eval job
 *    (ckpt_eval_submit: sbatch with the job's SPANK options removed from
 *    its environment, so the eval job is not elastic) and records it in
 *    DIR/eval/index; then it deletes checkpoints beyond --elastic-keep,
 *    oldest first, never the newest, never prev, never one whose eval job
 *    eval_job_active() (slurm_load_job: pending or running) says is still
 *    reading it.  res says what it did, for the timeline.
 *
 * Lower-level pieces, for other callers: ckpt_list, ckpt_newest,
 * ckpt_find, ckpt_retention (pure), ckpt_retain, ckpt_resolve.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "error.h"

#define CKPT_PREFIX	 "ckpt-"
#define CKPT_NAME_MAX	 255	/* one entry's name */
#define CKPT_PATH_MAX	 4096	/* a checkpoint's full path, with NUL */
#define CKPT_STEP_DIGITS 18	/* at most, padding included */
#define CKPT_LIST_MAX	 100000 /* entries of a dir we look at */
#define CKPT_DIR_DEPTH	 64	/* a directory checkpoint's depth */

/*
 * Parse an entry name: "ckpt-<digits>" then the end or '.' and an
 * extension of letters, digits and "._-".  0 and *step, or -1.
 */
int ckpt_parse_name(const char *name, uint64_t *step);

struct ckpt_entry {
	uint64_t step;
	char name[CKPT_NAME_MAX + 1];
	bool is_dir;
	uint64_t size; /* bytes: a file's; a directory's regular files' */
	time_t mtime;
};

/* A dir's checkpoints, sorted by step (then name), oldest first. */
struct ckpt_list {
	char dir[CKPT_PATH_MAX];
	bool missing; /* the dir does not exist (yet): n == 0 */
	size_t n;
	struct ckpt_entry *e; /* malloc'd */
	/* Entries named as checkpoints but not the caller's own (another
	 * owner, or writable by others): never listed. */
	size_t foreign;
	char foreign_name[CKPT_NAME_MAX + 1]; /* the first of them */
};

/*
 * List dir's checkpoints.  A missing dir is an empty list (missing set);
 * an unreadable one, or more than CKPT_LIST_MAX entries, fails.  Free with
 * ckpt_list_free() (also after a failure).
 * As a user (a launcher runs as the job's), the dir must be the user's
 * own, reached through no symbolic link another user made, and writable
 * by no one else; an entry that is not the user's own is left out
 * (counted in foreign).  As root, through links only root made.
 */
int ckpt_list(const char *dir, struct ckpt_list *l, elastic_error_t *err);
void ckpt_list_free(struct ckpt_list *l);

/* The same without walking directory checkpoints for their sizes (0):
 * for the launcher's frequent passes. */
int ckpt_list_fast(const char *dir, struct ckpt_list *l, elastic_error_t *err);

/* The newest checkpoint (highest step), or NULL if there is none. */
const struct ckpt_entry *ckpt_newest(const struct ckpt_list *l);

/* The checkpoint of this step (the first by name if several), or NULL. */
const struct ckpt_entry *ckpt_find(const struct ckpt_list *l, uint64_t step);

/* "dir/name" into buf; -1 if it does not fit. */
int ckpt_entry_path(const struct ckpt_list *l, const struct ckpt_entry *e,
		    char *buf, size_t len);

/* "10, 20, 40" (the steps, with "..." in the middle if many) into buf. */
void ckpt_steps_text(const struct ckpt_list *l, char *buf, size_t len);

/*
 * Retention, pure: which entries of l to delete so that the newest keep
 * checkpoints (keep 0 counts as 1) and every one in use remain.  in_use
 * holds paths (a checkpoint's path, or a path inside a directory
 * checkpoint; extra '/' ignored); a bare entry name matches too.  Never
 * the newest step.  Fills out (room for l->n) with indices into l->e,
 * oldest first; returns how many.
 */
size_t ckpt_retention(const struct ckpt_list *l, unsigned keep,
		      const char *const *in_use, size_t n_in_use, size_t *out);

/*
 * Delete the checkpoint name of dir: only a name ckpt_parse_name()
 * accepts, directly in dir, never through a symbolic link (a directory
 * checkpoint is first renamed to a hidden name, then removed without
 * following links).  A name that is already gone is not an error.
 */
int ckpt_delete(const char *dir, const char *name, elastic_error_t *err);

/*
 * ckpt_retention() then ckpt_delete() of each.  *deleted (may be NULL)
 * counts what was deleted; on a failure the rest is still tried and the
 * first error is returned.
 */
int ckpt_retain(const struct ckpt_list *l, unsigned keep,
		const char *const *in_use, size_t n_in_use, unsigned *deleted,
		elastic_error_t *err);

/*
 * --elastic-resume-from=JOBID | JOBID@STEP | PATH | PATH@STEP.  PATH is
 * absolute: a checkpoint (file or directory) or a directory of
 * checkpoints.  In PATH@STEP the step follows the last '@'.
 */
enum ckpt_spec_kind { CKPT_SPEC_JOB, CKPT_SPEC_PATH };
struct ckpt_spec {
	enum ckpt_spec_kind kind;
	uint32_t job_id;
	char path[CKPT_PATH_MAX];
	bool has_step;
	uint64_t step;
};
#define CKPT_SPEC_MAX	1024 /* characters of a spec */
#define CKPT_SPEC_WORDS "JOBID, JOBID@STEP, PATH, PATH@STEP (PATH absolute)"
/* The option a spec comes from, for its errors. */
#define CKPT_SPEC_OPT "--elastic-resume-from"

/* Syntax only (what sbatch and slurmctld check); err names the option. */
int ckpt_spec_parse(const char *text, struct ckpt_spec *s,
		    elastic_error_t *err);

/* The checkpoint dir of job_id, for resolving JOBID specs. */
typedef int (*ckpt_job_dir_fn)(uint32_t job_id, void *arg, char *dir,
			       size_t len, elastic_error_t *err);

/*
 * The checkpoint dir of job_id: its tag's ckpt= pattern (tag may be NULL:
 * the job is gone), else fallback_pattern (this job's), expanded with
 * %j = job_id and the user's name and home.
 */
int ckpt_job_dir(uint32_t job_id, const char *tag, const char *fallback_pattern,
		 const char *user, const char *home, char *dir, size_t len,
		 elastic_error_t *err);

/*
 * Resolve a spec to one checkpoint's path (and its step, may be NULL):
 * the newest or the given step.  Errors are one line starting with
 * "--elastic-resume-from=TEXT: ", e.g. "job 123 has no checkpoint at step
 * 50 (has 10, 20, 40)".
 */
int ckpt_resolve(const char *text, ckpt_job_dir_fn job_dir, void *arg,
		 char *path, size_t len, uint64_t *step, elastic_error_t *err);

/*
 * ELASTIC_PREV_CHECKPOINT before a launch: the newest of ckpt_dir, else
 * the resolved resume spec (NULL: none), else "".  See the top of this
 * file.
 */
int ckpt_prev_checkpoint(const char *ckpt_dir, const char *resume_from,
			 ckpt_job_dir_fn job_dir, void *arg, char *path,
			 size_t len, uint64_t *step, elastic_error_t *err);

#endif
