/* A suspect node drained in Slurm (drain.h): elasticd as root or
 * SlurmUser, the only one that may. */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "drain.h"

int drain_node(const char *node, const char *reason, elastic_error_t *err)
{
	update_node_msg_t m;

	slurm_init_update_node_msg(&m);
	m.node_names = (char *)node;
	m.node_state = NODE_STATE_DRAIN;
	m.reason = (char *)reason;
	m.reason_uid = getuid();
	if (slurm_update_node(&m) != SLURM_SUCCESS)
		return elastic_errorf(err, "drain %s: %s", node,
				      slurm_strerror(errno));
	return 0;
}
