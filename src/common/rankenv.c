#include "config.h"

#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "policy.h"
#include "rankenv.h"

#define RANKS_LIMIT 16777216 /* bound on any rank count or offset */

unsigned rankenv_default_port(unsigned job_id)
{
	return RANKENV_PORT_FIRST + job_id % RANKENV_PORT_COUNT;
}

/* A launcher variable as a bounded number; def if unset. */
static int get_uint(const struct rankenv_in *in, const char *name,
		    unsigned long lo, unsigned long hi, unsigned def,
		    unsigned *ret, elastic_error_t *err)
{
	const char *v = in->getenv(name, in->getenv_arg);
	unsigned long n;
	enum parse_result r;

	if (!v) {
		*ret = def;
		return 0;
	}
	r = parse_uint(v, lo, hi, &n);
	if (r != PARSE_OK)
		return elastic_errorf(err, "%s=%s: %s (allowed: %lu to %lu)",
				      name, v, parse_strerror(r), lo, hi);
	*ret = n;
	return 0;
}

/* A launcher variable copied into buf (getenv may reuse its storage). */
static int get_str(const struct rankenv_in *in, const char *name,
		   const char *def, char *buf, size_t size,
		   elastic_error_t *err)
{
	const char *v = in->getenv(name, in->getenv_arg);

	if (!v)
		v = def;
	if (strlen(v) >= size)
		return elastic_errorf(err, "%s: longer than %zu characters",
				      name, size - 1);
	strcpy(buf, v);
	return 0;
}

struct setter {
	rankenv_set_fn set;
	void *arg;
};

static int set_u(struct setter *s, const char *name, unsigned v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", v);
	return s->set(name, buf, s->arg);
}

static int set_size_var(const char *name, const char *value, void *arg)
{
	struct setter *s = arg;

	return s->set(name, value, s->arg);
}

/* Rank 0 (and torch's TCPStore with it) lives on the step's first node,
 * wherever srun ran: a login node's address would be no rendezvous. */
static const char *default_master(const struct rankenv_in *in)
{
	if (in->first_node && *in->first_node)
		return in->first_node;
	return in->launch_addr ? in->launch_addr : "127.0.0.1";
}

int rankenv_build(const struct rankenv_in *in, rankenv_set_fn set, void *arg,
		  elastic_error_t *err)
{
	struct setter s = { set, arg };
	unsigned rank_off = 0, world = 0, node_off = 0, world_nodes = 0;
	unsigned port = 0, restart = 0, prev = 0;
	char addr[256], group[16], prev_ckpt[ELASTIC_PATH_MAX + 1];
	char job[16], ckpt[ELASTIC_PATH_MAX + 1];

	unsigned long group_id;

	/* The group's id first: the default port follows from it, so that
	 * every allocation of one world agrees on the rendezvous. */
	snprintf(job, sizeof(job), "%u", in->job_id);
	if (get_str(in, "ELASTIC_JOB_ID", job, group, sizeof(group), err) < 0)
		return -1;
	if (parse_uint(group, 1, 0xffffffffUL, &group_id) != PARSE_OK)
		return elastic_errorf(err, "ELASTIC_JOB_ID=%s: not a job id",
				      group);
	if (get_uint(in, "ELASTIC_RANK_OFFSET", 0, RANKS_LIMIT, 0, &rank_off,
		     err) < 0 ||
	    get_uint(in, "ELASTIC_WORLD_SIZE", 1, RANKS_LIMIT,
		     rank_off + in->ntasks, &world, err) < 0 ||
	    get_uint(in, "ELASTIC_NODE_OFFSET", 0, ELASTIC_NODES_LIMIT, 0,
		     &node_off, err) < 0 ||
	    get_uint(in, "ELASTIC_WORLD_NNODES", 1, ELASTIC_NODES_LIMIT,
		     node_off + in->nnodes, &world_nodes, err) < 0 ||
	    get_uint(in, "ELASTIC_MASTER_PORT", 1, 65535,
		     rankenv_default_port(group_id), &port, err) < 0 ||
	    get_uint(in, "ELASTIC_RESTART_COUNT", 0, 1000000, in->restart_count,
		     &restart, err) < 0 ||
	    get_uint(in, "ELASTIC_PREV_NNODES", 0, ELASTIC_NODES_LIMIT, 0,
		     &prev, err) < 0 ||
	    get_str(in, "ELASTIC_MASTER_ADDR", default_master(in), addr,
		    sizeof(addr), err) < 0 ||
	    get_str(in, "ELASTIC_PREV_CHECKPOINT", "", prev_ckpt,
		    sizeof(prev_ckpt), err) < 0)
		return -1;
	if ((unsigned long)rank_off + in->ntasks > world)
		return elastic_errorf(err,
				      "ELASTIC_WORLD_SIZE=%u is smaller than "
				      "ELASTIC_RANK_OFFSET=%u + %u tasks",
				      world, rank_off, in->ntasks);
	if ((unsigned long)node_off + in->nnodes > world_nodes)
		return elastic_errorf(err,
				      "ELASTIC_WORLD_NNODES=%u is smaller "
				      "than ELASTIC_NODE_OFFSET=%u + %u nodes",
				      world_nodes, node_off, in->nnodes);
	/* Totals the launcher left unset follow from the offsets: bound
	 * them like the ones it sets. */
	if (world > RANKS_LIMIT)
		return elastic_errorf(err,
				      "ELASTIC_RANK_OFFSET=%u + %u tasks is "
				      "more than %d ranks",
				      rank_off, in->ntasks, RANKS_LIMIT);
	if (world_nodes > ELASTIC_NODES_LIMIT)
		return elastic_errorf(err,
				      "ELASTIC_NODE_OFFSET=%u + %u nodes is "
				      "more than %d nodes",
				      node_off, in->nnodes,
				      ELASTIC_NODES_LIMIT);
	if (options_expand_path(
		in->opts->checkpoint_dir, group, in->user ? in->user : "",
		in->home ? in->home : "", ckpt, sizeof(ckpt)) < 0)
		return elastic_errorf(err,
				      "checkpoint dir %s: cannot expand it "
				      "(the job owner's name or home is "
				      "unknown, or it is too long)",
				      in->opts->checkpoint_dir);

	if (set_u(&s, "RANK", rank_off + in->task_id) ||
	    set_u(&s, "LOCAL_RANK", in->local_id) ||
	    set_u(&s, "WORLD_SIZE", world) ||
	    set_u(&s, "LOCAL_WORLD_SIZE", in->local_ntasks) ||
	    set_u(&s, "GROUP_RANK", node_off + in->node_id) ||
	    set("MASTER_ADDR", addr, arg) || set_u(&s, "MASTER_PORT", port) ||
	    set("ELASTIC_JOB_ID", group, arg) ||
	    set_u(&s, "ELASTIC_RESTART_COUNT", restart) ||
	    set_u(&s, "ELASTIC_NNODES", world_nodes) ||
	    set_u(&s, "ELASTIC_PREV_NNODES", prev) ||
	    set("ELASTIC_CHECKPOINT_DIR", ckpt, arg) ||
	    set("ELASTIC_PREV_CHECKPOINT", prev_ckpt, arg) ||
	    set("ELASTIC_SIGNAL", parse_signal_name(in->opts->signal), arg))
		return elastic_errorf(err, "cannot set the rank environment");
	if (in->sc &&
	    sizeconf_foreach(in->sc, world_nodes, set_size_var, &s) != 0)
		return elastic_errorf(err, "cannot set the size config");
	return 0;
}
