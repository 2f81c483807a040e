/*
 * elastic_world(): the rank's place in the world, from the environment the
 * SPANK plugin sets.  Pure: reads the environment, nothing else.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic.h"

/* Fill err (if any), set errno, return -1. */
__attribute__((format(printf, 4, 5))) static int
fail(char *err, size_t errlen, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	errno = errnum;
	return -1;
}

/*
 * NAME as a decimal in [min, max] into *ret.  Returns 0, or 1 (and *ret
 * untouched) for an unset optional variable, or -1.
 */
static int env_num(const char *name, unsigned long min, unsigned long max,
		   bool required, unsigned long *ret, char *err, size_t errlen)
{
	const char *s = secure_getenv(name);
	unsigned long v = 0;
	bool over = false;

	if (!s) {
		if (!required)
			return 1;
		return fail(err, errlen, ENOENT, "%s is not set", name);
	}
	if (!*s)
		return fail(err, errlen, EINVAL, "%s=: empty value", name);
	for (const char *p = s; *p; p++) {
		unsigned long d = (unsigned long)(*p - '0');

		if (*p < '0' || *p > '9')
			return fail(err, errlen, EINVAL,
				    "%s=%.64s: not a whole number", name, s);
		/* Saturate rather than wrap: a huge value is out of range,
		 * not a small one. */
		if (v > (ULONG_MAX - d) / 10)
			over = true;
		else
			v = v * 10 + d;
	}
	if (over || v < min || v > max)
		return fail(err, errlen, ERANGE,
			    "%s=%.64s: out of range (allowed: %lu to %lu)",
			    name, s, min, max);
	*ret = v;
	return 0;
}

static int env_int(const char *name, unsigned long min, bool required, int *ret,
		   char *err, size_t errlen)
{
	unsigned long v;
	int rc = env_num(name, min, INT_MAX, required, &v, err, errlen);

	if (rc == 0)
		*ret = (int)v;
	return rc;
}

/*
 * NAME into buf (bounded).  Returns 0, or 1 (buf "") for an unset optional
 * variable, or -1.  An optional variable may be empty; a required one not.
 */
static int env_str(const char *name, char *buf, size_t len, bool required,
		   char *err, size_t errlen)
{
	const char *s = secure_getenv(name);
	size_t n;

	buf[0] = '\0';
	if (!s) {
		if (!required)
			return 1;
		return fail(err, errlen, ENOENT, "%s is not set", name);
	}
	n = strlen(s);
	if (n == 0 && required)
		return fail(err, errlen, EINVAL, "%s=: empty value", name);
	if (n >= len)
		return fail(err, errlen, ENAMETOOLONG,
			    "%s is too long (%zu bytes; at most %zu)", name, n,
			    len - 1);
	memcpy(buf, s, n + 1);
	return 0;
}

int elastic_world_err(struct elastic_world *ret, char *err, size_t errlen)
{
	/* A local copy (8.5 KiB of stack) keeps *ret untouched on failure. */
	struct elastic_world w;
	unsigned long v;

	if (!ret)
		return fail(err, errlen, EINVAL, "no struct elastic_world");
	memset(&w, 0, sizeof(w));

	if (env_int("RANK", 0, true, &w.rank, err, errlen) < 0 ||
	    env_int("LOCAL_RANK", 0, true, &w.local_rank, err, errlen) < 0 ||
	    env_int("WORLD_SIZE", 1, true, &w.world_size, err, errlen) < 0 ||
	    env_int("LOCAL_WORLD_SIZE", 1, true, &w.local_world_size, err,
		    errlen) < 0 ||
	    env_int("GROUP_RANK", 0, true, &w.group_rank, err, errlen) < 0 ||
	    env_int("ELASTIC_NNODES", 1, true, &w.nnodes, err, errlen) < 0 ||
	    env_int("ELASTIC_PREV_NNODES", 0, false, &w.prev_nnodes, err,
		    errlen) < 0 ||
	    env_int("ELASTIC_RESTART_COUNT", 0, true, &w.restart_count, err,
		    errlen) < 0)
		return -1;
	if (env_num("ELASTIC_JOB_ID", 1, UINT32_MAX, true, &v, err, errlen) < 0)
		return -1;
	w.job_id = (uint32_t)v;
	if (env_num("MASTER_PORT", 1, 65535, true, &v, err, errlen) < 0)
		return -1;
	w.master_port = (uint16_t)v;
	if (env_str("MASTER_ADDR", w.master_addr, sizeof(w.master_addr), true,
		    err, errlen) < 0 ||
	    env_str("ELASTIC_CHECKPOINT_DIR", w.checkpoint_dir,
		    sizeof(w.checkpoint_dir), false, err, errlen) < 0 ||
	    env_str("ELASTIC_PREV_CHECKPOINT", w.prev_checkpoint,
		    sizeof(w.prev_checkpoint), false, err, errlen) < 0)
		return -1;

	if (w.rank >= w.world_size)
		return fail(err, errlen, EINVAL,
			    "RANK=%d is not below WORLD_SIZE=%d", w.rank,
			    w.world_size);
	if (w.local_rank >= w.local_world_size)
		return fail(err, errlen, EINVAL,
			    "LOCAL_RANK=%d is not below LOCAL_WORLD_SIZE=%d",
			    w.local_rank, w.local_world_size);
	if (w.local_world_size > w.world_size)
		return fail(err, errlen, EINVAL,
			    "LOCAL_WORLD_SIZE=%d is above WORLD_SIZE=%d",
			    w.local_world_size, w.world_size);
	if (w.group_rank >= w.nnodes)
		return fail(err, errlen, EINVAL,
			    "GROUP_RANK=%d is not below ELASTIC_NNODES=%d",
			    w.group_rank, w.nnodes);

	memcpy(ret, &w, sizeof(w));
	return 0;
}

int elastic_world(struct elastic_world *w)
{
	return elastic_world_err(w, NULL, 0);
}
