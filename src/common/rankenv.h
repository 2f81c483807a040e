#ifndef ELASTIC_COMMON_RANKENV_H
#define ELASTIC_COMMON_RANKENV_H

#include "error.h"
#include "options.h"
#include "sizeconf.h"

/*
 * The environment of one rank: torchrun's variables plus ELASTIC_*.
 *
 * One world may span several allocations (the base job and its units),
 * each launched by its own srun.  The launcher says where this step sits
 * in the world through variables in the step's environment:
 *   ELASTIC_RANK_OFFSET, ELASTIC_WORLD_SIZE   first rank, total ranks
 *   ELASTIC_NODE_OFFSET, ELASTIC_WORLD_NNODES first node, total nodes
 *   ELASTIC_MASTER_ADDR, ELASTIC_MASTER_PORT  rendezvous
 *   ELASTIC_JOB_ID                            the group's (base) job id
 *   ELASTIC_RESTART_COUNT, ELASTIC_PREV_NNODES, ELASTIC_PREV_CHECKPOINT
 * Without them the step is the whole world.
 */
struct rankenv_in {
	/* From Slurm, for this task and step. */
	unsigned job_id;
	unsigned restart_count;
	unsigned node_id, nnodes;	 /* within the step */
	unsigned task_id, ntasks;	 /* global within the step */
	unsigned local_id, local_ntasks; /* on this node */
	const char *first_node;	 /* the step's first node (rank 0's), or NULL */
	const char *launch_addr; /* srun's address, may be NULL */
	const char *user, *home;
	/* The job's finalized options, and its size config (may be NULL). */
	const struct elastic_opts *opts;
	const struct size_config *sc;
	/* Reads a variable of the step's environment (NULL if unset). */
	const char *(*getenv)(const char *name, void *arg);
	void *getenv_arg;
};

typedef int (*rankenv_set_fn)(const char *name, const char *value, void *arg);

/*
 * Compute the rank's variables and call set() for each.  Fails (err names
 * the variable) on a malformed or inconsistent launcher variable, or a
 * set() failure, leaving what was already set.
 */
int rankenv_build(const struct rankenv_in *in, rankenv_set_fn set, void *arg,
		  elastic_error_t *err);

/* The default rendezvous port for a job: stable, in 20000..29999, and
 * so predictable: elastic-run picks one at random instead. */
unsigned rankenv_default_port(unsigned job_id);
/* Rendezvous ports, below Linux's ephemeral range (32768 up). */
#define RANKENV_PORT_FIRST 20000u
#define RANKENV_PORT_COUNT 10000u

#endif
