#ifndef ELASTIC_COMMON_SIZECONF_H
#define ELASTIC_COMMON_SIZECONF_H

#include <stddef.h>

#include "error.h"

/*
 * Per-size overrides (--elastic-size-config=FILE): environment variables a
 * job's ranks get at each world size, e.g. batch size and learning rate.
 *
 *     # comment
 *     default BATCH_SIZE=256 LR=0.1
 *     4       BATCH_SIZE=64  LR=0.025
 *
 * The first word of a line is a node count or "default"; the rest are
 * NAME=VALUE.  A size with no line gets the default line; a size's line
 * overrides the default's variables one by one.  The canonical form (what
 * travels to slurmctld and the ranks) joins normalized lines with ';'.
 */
/* Where the canonical form travels: spank_job_env and the job env. */
#define SIZE_CONFIG_ENV "ELASTIC_SIZE_CONFIG"

#define SIZECONF_FILE_MAX    (64 * 1024)
#define SIZECONF_TEXT_MAX    4096 /* canonical form */
#define SIZECONF_ENTRIES_MAX 65
#define SIZECONF_VARS_MAX    32
#define SIZECONF_NAME_MAX    64
#define SIZECONF_VALUE_MAX   256

/* Parsed config: the canonical text plus an index into it.  A value type. */
struct size_config {
	char text[SIZECONF_TEXT_MAX + 1];
	unsigned n;
	struct {
		unsigned size; /* 0 = the default line */
		unsigned off, len;
	} entry[SIZECONF_ENTRIES_MAX];
};

/*
 * Parse a file's text or a canonical string (';' separates lines too).
 * name is used in messages ("sizes.conf:3: ...").  On failure *sc is
 * untouched.
 */
int sizeconf_parse(struct size_config *sc, const char *text, const char *name,
		   elastic_error_t *err);

/*
 * Call fn(name, value, arg) for each variable at world size `size`: the
 * default line's variables not overridden, then the size's own.  Stops and
 * returns fn's value if nonzero.
 */
typedef int (*sizeconf_var_fn)(const char *name, const char *value, void *arg);
int sizeconf_foreach(const struct size_config *sc, unsigned size,
		     sizeconf_var_fn fn, void *arg);

#endif
