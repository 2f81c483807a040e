#ifndef ELASTIC_COMMON_UNITTAG_H
#define ELASTIC_COMMON_UNITTAG_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * The tag of a unit job: "elastic-unit:v1 group=12 kind=preemptible
 * nodes=2 req=7" in its AdminComment, set only by elasticd (AdminComment is
 * admin-only), read by elasticd and by the launcher (which launches into
 * no job that is not its own group's).
 */
#define UNIT_TAG_PREFIX "elastic-unit:v1"
#define UNIT_TAG_MAX	128

enum unit_kind {
	UNIT_PREEMPTIBLE,
	UNIT_ONDEMAND,
};
const char *unittag_kind_name(enum unit_kind k); /* "preemptible" */

struct unit_tag {
	uint32_t group; /* the base job's id */
	enum unit_kind kind;
	uint32_t nodes; /* what the unit asked for */
	/* elasticd's number for the submission ("req=", optional; 0: none):
	 * a unit seen in Slurm before its submission's answer came back is
	 * known by it */
	uint32_t request;
};

int unittag_format(const struct unit_tag *t, char *buf, size_t len);
/* Strict: the prefix, then group, kind and nodes, each once, and req at
 * most once, in any order; unknown keys (a later release's) are skipped.
 * 0 or -1. */
int unittag_parse(const char *s, struct unit_tag *ret, elastic_error_t *err);

#endif
