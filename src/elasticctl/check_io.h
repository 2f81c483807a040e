#ifndef ELASTICCTL_CHECK_IO_H
#define ELASTICCTL_CHECK_IO_H

/*
 * elasticctl check's looking (check.h has the deciding): check_read.c
 * asks Slurm, check_probe.c this host, check_node.c a compute node;
 * check_cmd.c runs them.  They fill the site or findings and print
 * nothing.
 */
#include "check.h"

/*
 * slurm.conf from slurmctld, its partitions (and this host's clock
 * against slurmctld's), and Slurm's QOS when the site needs them (p:
 * elastic.conf, may be NULL) into s->slurm and s->host; s->slurm.error
 * says why slurmctld could not be asked.  The answers are kept in the
 * returned reading until check_read_free(); NULL when out of memory.
 */
struct check_reading;
struct check_reading *check_read_slurm(struct check_site *s,
				       const struct elastic_policy *p);
void check_read_free(struct check_reading *r);

/* Where this host's clients reach elasticd and make their munge
 * credentials: the options, the environment, elastic.conf. */
struct check_client {
	const char *server, *server_from; /* NULL: elastic.conf's */
	const char *munge, *munge_from;	  /* NULL: elastic.conf's */
};

/* plugstack.conf, as SPANK reads it here, into s->host.stack. */
void check_probe_stack(struct check_site *s);
/* A request to elasticd (and its clock), as this host's clients make it. */
void check_probe_elasticd(struct check_site *s, const struct check_client *c);
/* A munge credential made and read back, on Slurm's socket and on the
 * clients'. */
void check_probe_munge(struct check_site *s, const struct check_client *c);
/* SpareCheck's program and its directory, when elastic.conf sets it. */
void check_probe_spare_check(struct check_site *s);

/*
 * This host's checks on compute node node, in a one-task step: self (this
 * program's path, the same on the node) with "check --local --json" and
 * the client's options.  Their findings, or what stopped them, go to out
 * with the node's name.
 */
void check_on_node(const char *node, const char *self,
		   const struct check_client *c, struct check_findings *out);

#endif
