#ifndef ELASTIC_COMMON_CKPT_EVAL_H
#define ELASTIC_COMMON_CKPT_EVAL_H

/*
 * Pipelined evaluation (--elastic-eval=CMD): each new checkpoint of a
 * training job is evaluated by CMD in a low-priority one-node job while
 * training goes on.  The launcher submits it (ckpt_eval_argv: the sbatch
 * command line) and records it in the checkpoint dir, in eval/index
 * ("STEP EVAL_JOBID" lines, replaced atomically); CMD's output goes to
 * eval/ckpt-STEP.out, whose last non-empty line is the step's result
 * (elasticctl checkpoints).  An EVAL_JOBID of 0 records a submission that
 * failed (not retried).
 *
 * The eval job gets ELASTIC_EVAL_CHECKPOINT (the checkpoint's path),
 * ELASTIC_EVAL_STEP and ELASTIC_EVAL_JOB (the training job's id).
 */

#include <stddef.h>
#include <stdint.h>

#include "ckpt.h"
#include "error.h"

#define CKPT_EVAL_CMD_MAX    1024 /* characters of --elastic-eval */
#define CKPT_EVAL_NICE	     10000
#define CKPT_EVAL_JOB_NAME   "elastic-eval"
#define CKPT_EVAL_SUBDIR     "eval"
#define CKPT_EVAL_INDEX_MAX  2048 /* records kept; the oldest go first */
#define CKPT_EVAL_RESULT_MAX 256

/* --elastic-eval's value: 1..CKPT_EVAL_CMD_MAX characters, no control
 * characters (newline included).  err names the option. */
int ckpt_eval_check_cmd(const char *cmd, elastic_error_t *err);

struct ckpt_eval_req {
	const char *sbatch;    /* the program; NULL: "sbatch" */
	const char *cmd;       /* --elastic-eval */
	const char *ckpt_dir;  /* the training job's checkpoint dir */
	const char *ckpt_path; /* the checkpoint to evaluate */
	uint64_t step;
	uint32_t job_id;       /* the training job (base) */
	const char *partition; /* NULL or "": Slurm's default */
	const char *account;   /* NULL or "": the user's default */
};

#define CKPT_EVAL_ARGC_MAX 12
struct ckpt_eval_argv {
	char *argv[CKPT_EVAL_ARGC_MAX + 1]; /* NULL-terminated, into buf */
	char buf[3 * CKPT_PATH_MAX + CKPT_EVAL_CMD_MAX + 512];
};

/*
 * sbatch --parsable --job-name=elastic-eval --nodes=1 --nice=10000
 *   [--partition=P] [--account=A] --output=DIR/eval/ckpt-STEP.out
 *   --export=ALL,ELASTIC_EVAL_CHECKPOINT=PATH,ELASTIC_EVAL_STEP=STEP,
 *   ELASTIC_EVAL_JOB=JOB --wrap=CMD
 * Fails on a path with ',' (--export cannot carry it).  Run it with
 * ckpt_eval_env_drop()'s variables removed from sbatch's environment, so
 * the eval job does not become an elastic job itself.
 */
int ckpt_eval_argv(const struct ckpt_eval_req *r, struct ckpt_eval_argv *out,
		   elastic_error_t *err);

/* True for a variable of the training job's environment that sbatch must
 * not see ("_SLURM_SPANK_OPTION_elastic_..." and the like). */
bool ckpt_eval_env_drop(const char *name_eq_value);

/* The partition for eval jobs: EvalPartition, else the first
 * PreemptiblePartitions, else "" (Slurm's default). */
struct elastic_policy;
const char *ckpt_eval_partition(const struct elastic_policy *p);

/* DIR/eval and DIR/eval/ckpt-STEP.out */
int ckpt_eval_dir(const char *ckpt_dir, char *buf, size_t len);
int ckpt_eval_output(const char *ckpt_dir, uint64_t step, char *buf,
		     size_t len);

struct ckpt_eval_rec {
	uint64_t step;
	uint32_t job_id; /* 0: the submission failed */
};
struct ckpt_eval_index {
	size_t n;
	struct ckpt_eval_rec r[CKPT_EVAL_INDEX_MAX]; /* by step */
};

/* The index's text; lines "STEP JOBID", '#' comments.  Bad lines fail. */
int ckpt_eval_index_parse(const char *text, struct ckpt_eval_index *ix,
			  elastic_error_t *err);
/* snprintf-style. */
int ckpt_eval_index_format(const struct ckpt_eval_index *ix, char *buf,
			   size_t len);
/* Add or replace the record of step (the oldest goes if full). */
void ckpt_eval_index_add(struct ckpt_eval_index *ix, uint64_t step,
			 uint32_t job_id);
const struct ckpt_eval_rec *
ckpt_eval_index_find(const struct ckpt_eval_index *ix, uint64_t step);

/* DIR/eval/index: a missing file is an empty index; saving creates
 * DIR/eval and replaces the file atomically. */
int ckpt_eval_index_load(const char *ckpt_dir, struct ckpt_eval_index *ix,
			 elastic_error_t *err);
int ckpt_eval_index_save(const char *ckpt_dir, const struct ckpt_eval_index *ix,
			 elastic_error_t *err);

/*
 * Which checkpoints of l need an eval job: those newer than every step of
 * the index (so deleted or old ones are never evaluated again), one per
 * step.  Fills out (room for l->n) with indices into l->e, oldest first.
 */
size_t ckpt_eval_todo(const struct ckpt_list *l,
		      const struct ckpt_eval_index *ix, size_t *out);

/*
 * Steps whose eval job is still active (active() says, from squeue or
 * slurm_load_job), into out (room for max); returns how many.  Their
 * checkpoints are in use for retention.
 */
size_t ckpt_eval_active(const struct ckpt_eval_index *ix,
			bool (*active)(uint32_t job_id, void *arg), void *arg,
			uint64_t *out, size_t max);

/* The last non-empty line of DIR/eval/ckpt-STEP.out (its last 4 KiB),
 * control characters dropped; "" if none.  -1 if it cannot be read. */
int ckpt_eval_result(const char *ckpt_dir, uint64_t step, char *buf,
		     size_t len);

/*
 * Run r's sbatch command line (ckpt_eval_argv) with the environment of
 * this process minus ckpt_eval_env_drop()'s variables, stdin from
 * /dev/null, and read the job id sbatch --parsable prints ("123" or
 * "123;cluster").  Waits at most timeout_s seconds (then kills sbatch).
 * Returns the job id, or 0 with err (sbatch's first line of stderr).
 */
uint32_t ckpt_eval_submit(const struct ckpt_eval_req *r, unsigned timeout_s,
			  elastic_error_t *err);

/*
 * One periodic pass of the launcher over the job's checkpoint dir: submit
 * an eval job for each new checkpoint (if eval_cmd is set) and record it
 * in the index, then apply retention with in use: prev, and the steps
 * whose eval job active() says still runs (and those just submitted).
 */
struct ckpt_tick {
	const char *ckpt_dir; /* ELASTIC_CHECKPOINT_DIR, expanded */
	unsigned keep;	      /* --elastic-keep */
	const char *prev;     /* ELASTIC_PREV_CHECKPOINT of the ranks, or "" */
	const char *eval_cmd; /* --elastic-eval, NULL or "": none */
	uint32_t job_id;      /* the training (base) job */
	const char *partition, *account; /* for eval jobs, may be NULL */
	const char *sbatch;		 /* NULL: "sbatch" from PATH */
	/* Submits one eval job: NULL means ckpt_eval_submit(). */
	uint32_t (*submit)(const struct ckpt_eval_req *r, void *arg,
			   elastic_error_t *err);
	/* Is this eval job still pending or running?  NULL: only those
	 * submitted in this pass are. */
	bool (*active)(uint32_t job_id, void *arg);
	void *arg;
};
struct ckpt_tick_result {
	size_t checkpoints;   /* listed */
	uint64_t newest_step; /* valid if checkpoints > 0 */
	unsigned submitted;   /* eval jobs submitted */
	unsigned failed;      /* eval submissions that failed */
	unsigned deleted;     /* checkpoints deleted */
};
/* 0, or -1 with err for the first problem (the pass still does all it
 * can: a failed eval submission does not stop retention). */
int ckpt_tick(const struct ckpt_tick *t, struct ckpt_tick_result *res,
	      elastic_error_t *err);

#endif
