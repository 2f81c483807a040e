#ifndef ELASTIC_COMMON_POLICY_H
#define ELASTIC_COMMON_POLICY_H

#include "error.h"

/* Hard bound on any node count we accept, whatever the site allows. */
#define ELASTIC_NODES_LIMIT 65535

/*
 * The site's policy, from elastic.conf (slurm.conf-style Key=Value lines).
 * A plain value type: copy it freely, nothing to free.
 */
struct elastic_policy {
	unsigned max_nodes; /* MaxNodes: cap on --elastic-max */
	unsigned
	    default_min_nodes; /* DefaultMinNodes: --elastic-min if omitted */
	unsigned default_max_nodes; /* DefaultMaxNodes: --elastic-max if
				       omitted; 0 means MaxNodes */
};

/* The built-in policy, used when elastic.conf does not exist. */
void policy_defaults(struct elastic_policy *p);

/*
 * Parse a whole elastic.conf held in memory; name is used in messages
 * ("elastic.conf:3: ...").  On failure *p is left untouched and err says
 * file:line, the key and what is allowed.
 */
int policy_parse(struct elastic_policy *p, const char *text, const char *name,
		 elastic_error_t *err);

/*
 * Read and parse the file at path.  A missing file yields the defaults
 * (and returns 0); an unreadable or invalid one fails.
 */
int policy_load(struct elastic_policy *p, const char *path,
		elastic_error_t *err);

#endif
