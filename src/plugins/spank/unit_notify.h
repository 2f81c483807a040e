#ifndef ELASTIC_SPANK_UNIT_NOTIFY_H
#define ELASTIC_SPANK_UNIT_NOTIFY_H

#include <stdint.h>

#include "common/error.h"
#include "common/policy.h"

/*
 * slurmstepd, as root, tells elasticd that unit job started on nodes (the
 * list slurmctld sent with the batch launch): POST
 * /v1/groups/JOB/notify?event=start&nodes=NODES with a root credential
 * (elasticd(8), NOTIFICATIONS).  Plain HTTP over a socket, within
 * timeout_ms: slurmstepd must not load libcurl.  The answer is only
 * checked for 202; nothing in it is believed, nothing is done with it.
 * p: elastic.conf as read from conf.  0; 1 when elasticd is not
 * configured (no ElasticdServer) or notifications are off; -1 with err.
 */
/* The longest list elasticd takes (elasticd-api(7)); a longer one is
 * not sent. */
#define UNIT_NOTIFY_NODES_MAX 512
int unit_notify_start(const struct elastic_policy *p, const char *conf,
		      uint32_t job, const char *nodes, unsigned timeout_ms,
		      elastic_error_t *err);

#endif
