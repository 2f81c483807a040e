#ifndef ELASTICD_DRAIN_H
#define ELASTICD_DRAIN_H

#include "common/error.h"

/* scontrol update NodeName=node State=DRAIN Reason=reason: 0, or -1 with
 * err set. */
int drain_node(const char *node, const char *reason, elastic_error_t *err);

#endif
