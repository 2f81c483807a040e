/*
 * elasticctl checkpoints (elasticctl.h): a job's checkpoints and their
 * evaluations, read locally as the user, and slurmctld asked about the
 * job and its eval jobs.  It never talks to elasticd.
 */
#include "config.h"

#include <inttypes.h>
#include <pwd.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>

#include "common/ckpt.h"
#include "common/ckpt_eval.h"
#include "common/options.h"
#include "elastic-event/jobload.h"
#include "elasticctl.h"

#define MAX_EVAL_LOOKUPS 64 /* eval jobs asked about per listing */

struct ckpt_ctx {
	const char *opt_dir;		    /* --dir, may hold %j */
	char fallback[POLICY_PATH_MAX + 1]; /* DefaultCheckpointDir */
	bool slurm_ready, no_slurm;
};

/* An error of the ckpt library without its option name: this is not
 * --elastic-resume-from. */
static const char *plain(const char *text)
{
	static const char opt[] = "--elastic-resume-from";
	size_t n = strlen(opt);

	if (!strncmp(text, opt, n) && (text[n] == '=' || text[n] == ':'))
		return text + n + (text[n] == '=' ? 1 : 2);
	return text;
}

/*
 * libslurm, once, if there is a slurm.conf to read: slurm_init() exits
 * the process when it finds no configuration, and a listing of a path
 * needs no Slurm.
 */
static bool slurm_ready(struct ckpt_ctx *c)
{
	const char *conf = getenv("SLURM_CONF");

	if (c->slurm_ready || c->no_slurm)
		return c->slurm_ready;
	if (access((conf && *conf) ? conf : SLURM_SYSCONFDIR "/slurm.conf",
		   R_OK)) {
		c->no_slurm = true;
		return false;
	}
	slurm_init(NULL);
	c->slurm_ready = true;
	return true;
}

/* The job's record, or NULL (gone, or slurmctld unreachable). */
static job_info_msg_t *load_job_info(struct ckpt_ctx *c, uint32_t job)
{
	job_info_msg_t *msg = NULL;

	if (!slurm_ready(c) || job_load(job, &msg, NULL) < 0)
		return NULL;
	return msg;
}

/* ckpt_job_dir_fn: --dir, else the job's tag, else the site's pattern. */
static int job_dir(uint32_t job, void *arg, char *dir, size_t len,
		   elastic_error_t *err)
{
	struct ckpt_ctx *c = arg;
	job_info_msg_t *msg = NULL;
	struct passwd pw, *pwp = NULL;
	char pwbuf[4096], id[16];
	uid_t uid = getuid();
	const char *tag = NULL;
	int rc;

	snprintf(id, sizeof(id), "%u", job);
	if (c->opt_dir) {
		if (options_expand_path(c->opt_dir, id, "", "", dir, len) < 0)
			return elastic_errorf(err,
					      "--dir=%s: does not expand (%%j "
					      "job id, %%%% a '%%')",
					      c->opt_dir);
		return 0;
	}
	msg = load_job_info(c, job);
	if (msg) {
		tag = msg->job_array[0].admin_comment;
		uid = msg->job_array[0].user_id;
	}
	/* %u and %h are the job's owner's. */
	getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &pwp);
	rc = ckpt_job_dir(job, tag, c->fallback, pwp ? pw.pw_name : "",
			  pwp ? pw.pw_dir : "", dir, len, err);
	if (msg)
		slurm_free_job_info_msg(msg);
	return rc;
}

static const char *eval_state(struct ckpt_ctx *c, uint32_t eval_job,
			      const char *ckpt_dir, uint64_t step,
			      unsigned *lookups)
{
	job_info_msg_t *msg;
	char out[CKPT_PATH_MAX];
	const char *state;
	unsigned s;

	if (!eval_job)
		return "not-submitted";
	if (++*lookups > MAX_EVAL_LOOKUPS || !slurm_ready(c))
		return "?";
	msg = load_job_info(c, eval_job);
	if (!msg) {
		/* Forgotten by slurmctld: it ended long ago. */
		if (ckpt_eval_output(ckpt_dir, step, out, sizeof(out)) == 0 &&
		    access(out, F_OK) == 0)
			return "done";
		return "gone";
	}
	s = msg->job_array[0].job_state & JOB_STATE_BASE;
	switch (s) {
	case JOB_PENDING:
		state = "pending";
		break;
	case JOB_RUNNING:
	case JOB_SUSPENDED:
		state = "running";
		break;
	case JOB_COMPLETE:
		state = "done";
		break;
	case JOB_CANCELLED:
	case JOB_PREEMPTED:
		state = "cancelled";
		break;
	default:
		state = "failed";
		break;
	}
	slurm_free_job_info_msg(msg);
	return state;
}

static const char *human_size(char *buf, size_t len, uint64_t b)
{
	static const char units[] = "KMGTPE";
	double v = (double)b;
	int u = -1;

	if (b < 1024) {
		snprintf(buf, len, "%" PRIu64, b);
		return buf;
	}
	while (v >= 1024 && u < 5) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%c", v, units[u]);
	return buf;
}

/* The listing as JSON; *arr, its "checkpoints", takes the entries. */
static json_object *listing_json(uint32_t job, const char *dir,
				 const struct ckpt_list *l, json_object **arr)
{
	json_object *top = json_object_new_object();

	*arr = json_object_new_array();
	json_object_object_add(top, "job",
			       job ? json_object_new_int64(job) : NULL);
	json_object_object_add(top, "dir", json_object_new_string(dir));
	json_object_object_add(top, "exists",
			       json_object_new_boolean(!l->missing));
	json_object_object_add(top, "checkpoints", *arr);
	return top;
}

/* One checkpoint as JSON; r: its evaluation, if any, with its state and
 * result. */
static json_object *entry_json(const struct ckpt_list *l,
			       const struct ckpt_entry *e,
			       const struct ckpt_eval_rec *r, const char *state,
			       const char *result)
{
	json_object *o = json_object_new_object();
	json_object *ev = NULL;
	char mtime[32], path[CKPT_PATH_MAX];
	struct tm tm;

	ckpt_entry_path(l, e, path, sizeof(path));
	gmtime_r(&e->mtime, &tm);
	strftime(mtime, sizeof(mtime), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_object_add(o, "step", json_object_new_uint64(e->step));
	json_object_object_add(o, "name", json_object_new_string(e->name));
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(
	    o, "kind", json_object_new_string(e->is_dir ? "dir" : "file"));
	json_object_object_add(o, "size", json_object_new_uint64(e->size));
	json_object_object_add(o, "mtime", json_object_new_string(mtime));
	if (r) {
		ev = json_object_new_object();
		json_object_object_add(
		    ev, "job_id",
		    r->job_id ? json_object_new_int64(r->job_id) : NULL);
		json_object_object_add(ev, "state",
				       json_object_new_string(state));
		json_object_object_add(ev, "result",
				       json_object_new_string(result));
	}
	json_object_object_add(o, "eval", ev);
	return o;
}

/* One checkpoint as a row of the table; r, state, result: as above. */
static void entry_row(struct table *t, const struct ckpt_entry *e,
		      const struct ckpt_eval_rec *r, const char *state,
		      const char *result)
{
	char step[24], size[24], mtime[32], ejob[16];
	char path[CKPT_PATH_MAX];
	struct tm tm;

	if (r)
		snprintf(ejob, sizeof(ejob), "%u", r->job_id);
	localtime_r(&e->mtime, &tm);
	strftime(mtime, sizeof(mtime), "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(step, sizeof(step), "%" PRIu64, e->step);
	ctl_table_add(t, step,
		      e->is_dir ? strcat(strcpy(path, e->name), "/") : e->name,
		      human_size(size, sizeof(size), e->size), mtime,
		      r ? (r->job_id ? ejob : "-") : "-", r ? state : "-",
		      *result ? result : "-");
}

static int list_checkpoints(struct ckpt_ctx *c, bool json, uint32_t job,
			    const char *dir)
{
	struct ckpt_eval_index *ix = calloc(1, sizeof(*ix));
	struct table t = {
		.ncols = 7,
		.head = { "STEP", "NAME", "SIZE", "MTIME", "EVAL", "STATE",
			  "RESULT" },
		.right = { true, false, true, false, true, false, false },
	};
	json_object *top = NULL, *arr = NULL;
	unsigned lookups = 0;
	struct ckpt_list l;
	elastic_error_t err;
	int rc = EXIT_OK;

	if (!ix) {
		elog_error("out of memory");
		return EXIT_FAIL;
	}
	if (ckpt_list(dir, &l, &err) < 0) {
		elog_error("%s", err.text);
		rc = EXIT_FAIL;
		goto out;
	}
	if (ckpt_eval_index_load(dir, ix, &err) < 0) {
		elog_warn("%s (eval jobs not shown)", err.text);
		ix->n = 0;
	}
	if (json) {
		top = listing_json(job, dir, &l, &arr);
	} else if (!l.n) {
		printf("no checkpoints in %s%s\n", dir,
		       l.missing ? " (it does not exist)" : "");
		goto out;
	}
	/* Newest first, as one looks for them. */
	for (size_t k = l.n; k-- > 0;) {
		const struct ckpt_entry *e = &l.e[k];
		const struct ckpt_eval_rec *r =
		    ckpt_eval_index_find(ix, e->step);
		const char *state = NULL;
		char result[256];

		result[0] = '\0';
		if (r) {
			state =
			    eval_state(c, r->job_id, dir, e->step, &lookups);
			ckpt_eval_result(dir, e->step, result, sizeof(result));
		}
		if (json)
			json_object_array_add(
			    arr, entry_json(&l, e, r, state, result));
		else
			entry_row(&t, e, r, state, result);
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(
				   top, JSON_C_TO_STRING_PLAIN |
					    JSON_C_TO_STRING_NOSLASHESCAPE));
	else {
		printf("%s\n\n", dir);
		ctl_table_print(&t, "");
	}
out:
	json_object_put(top);
	ckpt_list_free(&l);
	free(ix);
	if (rc == EXIT_OK && (fflush(stdout) || ferror(stdout))) {
		elog_error("write error on standard output");
		rc = EXIT_FAIL;
	}
	return rc;
}

int ctl_checkpoints(const char *arg, const char *opt_dir, bool json)
{
	struct ckpt_ctx c = { .opt_dir = opt_dir };
	struct elastic_policy *p = malloc(sizeof(*p));
	char conf[POLICY_PATH_MAX + 32], dir[CKPT_PATH_MAX];
	char path[CKPT_PATH_MAX];
	struct ckpt_spec s;
	elastic_error_t err;
	uint64_t named;
	const char *base;
	int rc;

	if (!p) {
		elog_error("out of memory");
		return EXIT_FAIL;
	}
	if (ckpt_spec_parse(arg, &s, &err) < 0) {
		free(p);
		elog_error("checkpoints %s", plain(err.text));
		return EXIT_USAGE;
	}
	/* Where a job's dir is when slurmctld has forgotten the job. */
	policy_conf_path(getenv("SLURM_CONF"), conf, sizeof(conf));
	if (policy_load(p, conf, NULL, &err) < 0) {
		elog_warn("%s (using the built-in DefaultCheckpointDir)",
			  err.text);
		policy_defaults(p);
	}
	snprintf(c.fallback, sizeof(c.fallback), "%s",
		 p->default_checkpoint_dir);
	free(p);

	base = strrchr(s.path, '/');
	base = base ? base + 1 : s.path;
	if (s.has_step ||
	    (s.kind == CKPT_SPEC_PATH && ckpt_parse_name(base, &named) == 0)) {
		/* One checkpoint: its path, for scripts. */
		if (ckpt_resolve(arg, job_dir, &c, path, sizeof(path), NULL,
				 &err) < 0) {
			elog_error("%s", plain(err.text));
			rc = EXIT_NOT_FOUND;
		} else {
			printf("%s\n", path);
			rc = EXIT_OK;
		}
	} else if (s.kind == CKPT_SPEC_JOB) {
		if (job_dir(s.job_id, &c, dir, sizeof(dir), &err) < 0) {
			elog_error("%s", err.text);
			rc = EXIT_FAIL;
		} else {
			rc = list_checkpoints(&c, json, s.job_id, dir);
		}
	} else {
		rc = list_checkpoints(&c, json, 0, s.path);
	}
	if (c.slurm_ready)
		slurm_fini();
	return rc;
}
