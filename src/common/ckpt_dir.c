/*
 * Checkpoint directories on disk (ckpt.h): listing, deleting, resolving a
 * resume spec.  In libcommonio: it opens directories and deletes files;
 * the names, specs and retention choice stay pure in ckpt.c.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt.h"
#include "safeopen.h"

/* Bytes of the regular files under the directory fd (closed here). */
static uint64_t dir_size(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	uint64_t total = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (S_ISREG(st.st_mode)) {
			total += (uint64_t)st.st_size;
		} else if (S_ISDIR(st.st_mode) && depth < CKPT_DIR_DEPTH) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					     O_CLOEXEC);

			if (sub >= 0)
				total += dir_size(sub, depth + 1);
		}
	}
	closedir(d);
	return total;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct ckpt_entry *x = a, *y = b;

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The checkpoint dir, open.  A launcher runs as the job's user, who must
 * own it (and it must be writable by no one else), reached through no
 * link another user made.  Root (elasticctl for an admin) lists what
 * users own: through no link a user made, and never blocked by a FIFO.
 */
static int open_dir(const char *dir, elastic_error_t *err)
{
	if (geteuid() == 0)
		return safeopen_dir(dir, true, err);
	return safeopen_dir_owned(dir, geteuid(), getegid(), err);
}

static int list(const char *dir, struct ckpt_list *l, bool sizes,
		elastic_error_t *err)
{
	struct dirent *de;
	size_t cap = 0, seen = 0;
	DIR *d;
	int fd;

	memset(l, 0, sizeof(*l));
	if (strlen(dir) >= sizeof(l->dir))
		return elastic_errorf(err, "%.64s...: path too long", dir);
	strcpy(l->dir, dir);
	fd = open_dir(dir, err);
	if (fd < 0) {
		if (errno == ENOENT) {
			l->missing = true;
			return 0;
		}
		return -1;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return elastic_errorf(err, "%s: %s", dir, strerror(errno));
	}
	while ((errno = 0, de = readdir(d))) {
		struct ckpt_entry *e;
		struct stat st;
		uint64_t step;

		if (++seen > CKPT_LIST_MAX) {
			closedir(d);
			return elastic_errorf(err, "%s: more than %d entries",
					      dir, CKPT_LIST_MAX);
		}
		if (ckpt_parse_name(de->d_name, &step) < 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone meanwhile */
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			continue;
		if (geteuid() != 0 &&
		    !safeopen_owned(&st, geteuid(), getegid())) {
			/* Not the job's own: another user's file is never a
			 * checkpoint to resume from. */
			if (!l->foreign++)
				strcpy(l->foreign_name, de->d_name);
			continue;
		}
		if (l->n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct ckpt_entry *ne =
			    realloc(l->e, ncap * sizeof(*ne));

			if (!ne) {
				closedir(d);
				return elastic_errorf(err, "out of memory");
			}
			l->e = ne;
			cap = ncap;
		}
		e = &l->e[l->n++];
		memset(e, 0, sizeof(*e));
		e->step = step;
		strcpy(e->name, de->d_name);
		e->is_dir = S_ISDIR(st.st_mode);
		e->mtime = st.st_mtime;
		if (e->is_dir && sizes) {
			int sub = openat(dirfd(d), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					     O_CLOEXEC);

			e->size = sub >= 0 ? dir_size(sub, 1) : 0;
		} else if (!e->is_dir) {
			e->size = (uint64_t)st.st_size;
		}
	}
	if (errno) {
		int e = errno;

		closedir(d);
		return elastic_errorf(err, "%s: %s", dir, strerror(e));
	}
	closedir(d);
	if (l->n)
		qsort(l->e, l->n, sizeof(*l->e), entry_cmp);
	return 0;
}

int ckpt_list(const char *dir, struct ckpt_list *l, elastic_error_t *err)
{
	return list(dir, l, true, err);
}

int ckpt_list_fast(const char *dir, struct ckpt_list *l, elastic_error_t *err)
{
	return list(dir, l, false, err);
}

/* Remove everything in the directory fd (closed here), not following
 * links. */
static int empty_dir(int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(fd);
		return -1;
	}
	while ((errno = 0, de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT)
				rc = -1;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub;

			if (depth >= CKPT_DIR_DEPTH) {
				errno = ELOOP;
				rc = -1;
				continue;
			}
			sub = openat(dirfd(d), de->d_name,
				     O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
					 O_CLOEXEC);
			if (sub < 0 || empty_dir(sub, depth + 1) < 0 ||
			    unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR))
				rc = -1;
		} else if (unlinkat(dirfd(d), de->d_name, 0) &&
			   errno != ENOENT) {
			rc = -1;
		}
	}
	if (errno)
		rc = -1;
	closedir(d);
	return rc;
}

int ckpt_delete(const char *dir, const char *name, elastic_error_t *err)
{
	char hidden[CKPT_NAME_MAX + 16];
	struct stat st;
	uint64_t step;
	int dfd, sub, rc = 0;

	if (ckpt_parse_name(name, &step) < 0)
		return elastic_errorf(err, "%s: not a checkpoint name", name);
	dfd = open_dir(dir, err);
	if (dfd < 0)
		return -1;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		rc = errno == ENOENT ? 0
				     : elastic_errorf(err, "%s/%s: %s", dir,
						      name, strerror(errno));
		close(dfd);
		return rc;
	}
	if (S_ISREG(st.st_mode)) {
		if (unlinkat(dfd, name, 0) && errno != ENOENT)
			rc = elastic_errorf(err, "cannot delete %s/%s: %s", dir,
					    name, strerror(errno));
		close(dfd);
		return rc;
	}
	if (!S_ISDIR(st.st_mode)) {
		close(dfd);
		return elastic_errorf(err,
				      "%s/%s: not a file or directory, "
				      "left alone",
				      dir, name);
	}
	/* Hidden first, so no reader takes a half-deleted checkpoint. */
	snprintf(hidden, sizeof(hidden), ".deleting-%s", name);
	if (renameat(dfd, name, dfd, hidden)) {
		int e = errno;

		close(dfd);
		return e == ENOENT
			   ? 0
			   : elastic_errorf(err, "cannot delete %s/%s: %s", dir,
					    name, strerror(e));
	}
	sub = openat(dfd, hidden,
		     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 || empty_dir(sub, 1) < 0 ||
	    unlinkat(dfd, hidden, AT_REMOVEDIR))
		rc = elastic_errorf(err, "cannot delete %s/%s (now %s): %s",
				    dir, name, hidden, strerror(errno));
	close(dfd);
	return rc;
}

int ckpt_retain(const struct ckpt_list *l, unsigned keep,
		const char *const *use, size_t n_use, unsigned *deleted,
		elastic_error_t *err)
{
	size_t *idx, n;
	unsigned done = 0;
	int rc = 0;

	if (deleted)
		*deleted = 0;
	if (!l->n)
		return 0;
	idx = malloc(l->n * sizeof(*idx));
	if (!idx)
		return elastic_errorf(err, "out of memory");
	n = ckpt_retention(l, keep, use, n_use, idx);
	for (size_t i = 0; i < n; i++) {
		elastic_error_t e;

		if (ckpt_delete(l->dir, l->e[idx[i]].name, &e) < 0) {
			if (rc == 0 && err)
				*err = e;
			rc = -1;
		} else {
			done++;
		}
	}
	free(idx);
	if (deleted)
		*deleted = done;
	return rc;
}

/* Pick the newest or s->step from dir; what names the source. */
static int pick_from_dir(const char *text, const struct ckpt_spec *s,
			 const char *dir, const char *what, char *path,
			 size_t len, uint64_t *step, elastic_error_t *err)
{
	struct ckpt_list l;
	const struct ckpt_entry *e;
	elastic_error_t e2;
	char steps[160];
	int rc = 0;

	if (ckpt_list_fast(dir, &l, &e2) < 0) {
		ckpt_list_free(&l);
		return elastic_errorf(err, CKPT_SPEC_OPT "=%s: %s", text,
				      e2.text);
	}
	if (l.missing) {
		rc = elastic_errorf(err,
				    CKPT_SPEC_OPT
				    "=%s: %s has no checkpoint (%s does "
				    "not exist)",
				    text, what, dir);
	} else if (!l.n) {
		rc = elastic_errorf(
		    err, CKPT_SPEC_OPT "=%s: %s has no checkpoint in %s", text,
		    what, dir);
	} else {
		e = s->has_step ? ckpt_find(&l, s->step) : ckpt_newest(&l);
		if (!e) {
			ckpt_steps_text(&l, steps, sizeof(steps));
			rc = elastic_errorf(err,
					    CKPT_SPEC_OPT
					    "=%s: %s has no checkpoint at "
					    "step %" PRIu64 " (has %s)",
					    text, what, s->step, steps);
		} else if (ckpt_entry_path(&l, e, path, len) < 0) {
			rc = elastic_errorf(
			    err, CKPT_SPEC_OPT "=%s: path too long", text);
		} else if (step) {
			*step = e->step;
		}
	}
	ckpt_list_free(&l);
	return rc;
}

int ckpt_resolve(const char *text, ckpt_job_dir_fn job_dir, void *arg,
		 char *path, size_t len, uint64_t *step, elastic_error_t *err)
{
	struct ckpt_spec s;
	char dir[CKPT_PATH_MAX], what[64];
	const char *base;
	struct stat st;
	uint64_t named;

	if (ckpt_spec_parse(text, &s, err) < 0)
		return -1;
	if (s.kind == CKPT_SPEC_JOB) {
		elastic_error_t e2;

		if (!job_dir || job_dir(s.job_id, arg, dir, sizeof(dir), &e2))
			return elastic_errorf(
			    err, CKPT_SPEC_OPT "=%s: %s", text,
			    job_dir ? e2.text : "no job lookup");
		snprintf(what, sizeof(what), "job %u", s.job_id);
		return pick_from_dir(text, &s, dir, what, path, len, step, err);
	}
	if (stat(s.path, &st))
		return elastic_errorf(err, CKPT_SPEC_OPT "=%s: %s: %s", text,
				      s.path, strerror(errno));
	/* A checkpoint itself (a file, or a directory named like one). */
	base = strrchr(s.path, '/');
	while (base && base > s.path && !base[1]) { /* trailing '/' */
		*(char *)base = '\0';
		base = strrchr(s.path, '/');
	}
	base = base ? base + 1 : s.path;
	if (ckpt_parse_name(base, &named) == 0 || !S_ISDIR(st.st_mode)) {
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
			return elastic_errorf(err,
					      CKPT_SPEC_OPT
					      "=%s: %s is not a file nor "
					      "a directory",
					      text, s.path);
		if (ckpt_parse_name(base, &named) < 0)
			return elastic_errorf(err,
					      CKPT_SPEC_OPT
					      "=%s: %s is not named like a "
					      "checkpoint (ckpt-STEP[.ext])",
					      text, s.path);
		if (s.has_step && named != s.step)
			return elastic_errorf(
			    err,
			    CKPT_SPEC_OPT "=%s: %s is the checkpoint "
					  "of step %" PRIu64 ", not %" PRIu64,
			    text, s.path, named, s.step);
		if (snprintf(path, len, "%s", s.path) >= (int)len)
			return elastic_errorf(
			    err, CKPT_SPEC_OPT "=%s: path too long", text);
		if (step)
			*step = named;
		return 0;
	}
	return pick_from_dir(text, &s, s.path, s.path, path, len, step, err);
}

int ckpt_prev_checkpoint(const char *ckpt_dir, const char *resume_from,
			 ckpt_job_dir_fn job_dir, void *arg, char *path,
			 size_t len, uint64_t *step, elastic_error_t *err)
{
	struct ckpt_list l;
	const struct ckpt_entry *e;
	int rc = 0;

	if (len)
		path[0] = '\0';
	if (step)
		*step = 0;
	if (ckpt_dir && *ckpt_dir) {
		if (ckpt_list_fast(ckpt_dir, &l, err) < 0) {
			ckpt_list_free(&l);
			return -1;
		}
		e = ckpt_newest(&l);
		if (e) {
			if (ckpt_entry_path(&l, e, path, len) < 0)
				rc = elastic_errorf(err, "%s: path too long",
						    ckpt_dir);
			else if (step)
				*step = e->step;
		}
		ckpt_list_free(&l);
		if (e || rc)
			return rc;
	}
	if (!resume_from || !*resume_from)
		return 0;
	return ckpt_resolve(resume_from, job_dir, arg, path, len, step, err);
}
