#include "config.h"

#include <ctype.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostport.h"
#include "parse.h"
#include "policy.h"

/* Bounds on what we read: the file is small and hand-written. */
#define POLICY_MAX_LINE 1024
#define MAX_SECONDS	86400
#define MAX_KEEP	1000
#define MAX_NICE	1000000

enum key_type {
	T_NODES,   /* 1..ELASTIC_NODES_LIMIT */
	T_SECONDS, /* 0..MAX_SECONDS */
	T_KEEP,	   /* 1..MAX_KEEP */
	T_NICE,	   /* 0..MAX_NICE */
	T_BOOL,
	T_LIST,
	T_CAPS,
	T_WEIGHTS, /* name:W pairs, W 1..POLICY_WEIGHT_MAX */
	T_NAME,
	T_ONDEMAND,
	T_SIGNAL,
	T_PATH,
	T_LISTEN,  /* where elasticd listens; noted in elasticd_listen_set */
	T_SERVER,  /* where clients reach elasticd: no wildcard; "" = unset */
	T_MSEC,	   /* POLICY_POLL_MS_MIN..POLICY_POLL_MS_MAX */
	T_ABSPATH, /* absolute, no % escapes; empty = unset */
	T_HOLDS,   /* 0..POLICY_RELEASE_HOLDS_MAX */
	T_NOTIFY,  /* yes, no, drop */
	T_SUSPECT, /* drain, report */
	T_STRAGGLERS, /* report, evict, off */
	T_STEPS,      /* POLICY_STRAGGLER_STEPS_MIN..MAX */
	T_FACTOR,     /* a decimal, 1.2 to 100: hundredths */
	T_SPARES,     /* 0..POLICY_SPARES_MAX */
	T_DAYS,	      /* 0..POLICY_ACCOUNT_RETENTION_MAX (0: forever) */
	T_JOBS,	      /* 1..POLICY_ACCOUNT_MAX_JOBS_MAX */
};

#define F(field) offsetof(struct elastic_policy, field)
static const struct key {
	const char *name;
	enum key_type type;
	size_t off;
} keys[] = {
	{ "MaxNodes", T_NODES, F(max_nodes) },
	{ "UserMaxNodes", T_CAPS, F(user_caps) },
	{ "AccountMaxNodes", T_CAPS, F(account_caps) },
	{ "BasePartitions", T_LIST, F(base_partitions) },
	{ "PreemptiblePartitions", T_LIST, F(preemptible_partitions) },
	{ "OnDemandPartitions", T_LIST, F(ondemand_partitions) },
	{ "BaseQOS", T_NAME, F(base_qos) },
	{ "PreemptibleQOS", T_NAME, F(preemptible_qos) },
	{ "OnDemandQOS", T_NAME, F(ondemand_qos) },
	{ "SparePartitions", T_LIST, F(spare_partitions) },
	{ "SpareQOS", T_NAME, F(spare_qos) },
	{ "SpareCheck", T_ABSPATH, F(spare_check) },
	{ "SpareCheckTimeout", T_SECONDS, F(spare_check_timeout) },
	{ "EvalPartition", T_NAME, F(eval_partition) },
	{ "OnDemand", T_BOOL, F(ondemand_allowed) },
	{ "OnDemandUsers", T_LIST, F(ondemand_users) },
	{ "OnDemandAccounts", T_LIST, F(ondemand_accounts) },
	{ "MaxGrace", T_SECONDS, F(max_grace) },
	{ "MaxKeep", T_KEEP, F(max_keep) },
	{ "MaxSpares", T_SPARES, F(max_spares) },
	{ "UnitNice", T_NICE, F(unit_nice) },
	{ "AccountShareWeights", T_WEIGHTS, F(account_weights) },
	{ "QOSShareWeights", T_WEIGHTS, F(qos_weights) },
	{ "ShareNiceStep", T_NICE, F(share_nice_step) },
	{ "Rebalance", T_BOOL, F(rebalance) },
	{ "RebalanceInterval", T_SECONDS, F(rebalance_interval) },
	{ "DefaultMinNodes", T_NODES, F(default_min_nodes) },
	{ "DefaultMaxNodes", T_NODES, F(default_max_nodes) },
	{ "DefaultStep", T_NODES, F(default_step) },
	{ "DefaultGrace", T_SECONDS, F(default_grace) },
	{ "DefaultScaleDelay", T_SECONDS, F(default_scale_delay) },
	{ "DefaultFaultTimeout", T_SECONDS, F(default_fault_timeout) },
	{ "DefaultHeartbeatTimeout", T_SECONDS, F(default_heartbeat_timeout) },
	{ "MinHeartbeatTimeout", T_SECONDS, F(min_heartbeat_timeout) },
	{ "DefaultOnDemand", T_ONDEMAND, F(default_ondemand) },
	{ "DefaultSignal", T_SIGNAL, F(default_signal) },
	{ "DefaultKeep", T_KEEP, F(default_keep) },
	{ "DefaultSpares", T_SPARES, F(default_spares) },
	{ "DefaultCheckpointDir", T_PATH, F(default_checkpoint_dir) },
	{ "SharedCheckpointDirs", T_BOOL, F(shared_checkpoint_dirs) },
	{ "ExpeditedRequeue", T_BOOL, F(expedited_requeue) },
	{ "ElasticdServer", T_SERVER, F(elasticd_server) },
	{ "ElasticdListen", T_LISTEN, F(elasticd_listen) },
	{ "ElasticdPollInterval", T_MSEC, F(elasticd_poll_ms) },
	{ "ElasticdAdmins", T_LIST, F(elasticd_admins) },
	{ "ElasticdUser", T_NAME, F(elasticd_user) },
	{ "ElasticdMungeSocket", T_ABSPATH, F(elasticd_munge_socket) },
	{ "ElasticdStateDir", T_ABSPATH, F(elasticd_state_dir) },
	{ "ElasticdReleaseLaunchHolds", T_HOLDS, F(elasticd_release_holds) },
	{ "ElasticdResyncInterval", T_SECONDS, F(elasticd_resync_s) },
	{ "ElasticdQueueInterval", T_SECONDS, F(elasticd_queue_s) },
	{ "ElasticdNotify", T_NOTIFY, F(elasticd_notify) },
	{ "SuspectNodes", T_SUSPECT, F(suspect_nodes) },
	{ "SuspectDrainsPerHour", T_NICE, F(suspect_drains_per_hour) },
	{ "DefaultStragglers", T_STRAGGLERS, F(default_stragglers) },
	{ "StragglerSteps", T_STEPS, F(straggler_steps) },
	{ "StragglerFactor", T_FACTOR, F(straggler_factor) },
	{ "ElasticdUnitProgram", T_ABSPATH, F(elasticd_unit_program) },
	{ "AccountRetention", T_DAYS, F(account_retention_days) },
	{ "AccountMaxJobs", T_JOBS, F(account_max_jobs) },
};
#undef F
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* "2", "2.5", "1.25": hundredths, within the factor's bounds. */
static int parse_factor(const char *v, unsigned *ret)
{
	unsigned long whole;
	unsigned frac = 0, digits = 0;
	const char *dot = strchr(v, '.');
	char buf[16];

	if (!dot && parse_uint(v, 1, 100, &whole) != PARSE_OK)
		return -1;
	if (dot) {
		if (dot == v || (size_t)(dot - v) >= sizeof(buf))
			return -1;
		memcpy(buf, v, (size_t)(dot - v));
		buf[dot - v] = '\0';
		if (parse_uint(buf, 1, 100, &whole) != PARSE_OK)
			return -1;
		for (const char *c = dot + 1; *c; c++, digits++) {
			if (*c < '0' || *c > '9' || digits == 2)
				return -1;
			frac = frac * 10 + (unsigned)(*c - '0');
		}
		if (!digits)
			return -1;
		if (digits == 1)
			frac *= 10;
	}
	*ret = (unsigned)whole * 100 + frac;
	return *ret >= POLICY_STRAGGLER_FACTOR_MIN &&
		       *ret <= POLICY_STRAGGLER_FACTOR_MAX
		   ? 0
		   : -1;
}

/* DefaultStragglers, StragglerSteps, StragglerFactor. */
static int set_straggler_key(void *field, const struct key *k, const char *val,
			     const char *where, elastic_error_t *err)
{
	unsigned long v;

	if (k->type == T_STRAGGLERS && policy_parse_stragglers(val, field) < 0)
		return elastic_errorf(err,
				      "%s: %s=%s: not valid (allowed: report, "
				      "evict, off)",
				      where, k->name, val);
	if (k->type == T_STEPS) {
		if (parse_uint(val, POLICY_STRAGGLER_STEPS_MIN,
			       POLICY_STRAGGLER_STEPS_MAX, &v) != PARSE_OK)
			return elastic_errorf(err,
					      "%s: %s=%s: steps of a window "
					      "(allowed: 2 to 100000)",
					      where, k->name, val);
		*(unsigned *)field = (unsigned)v;
	}
	if (k->type == T_FACTOR && parse_factor(val, field) < 0)
		return elastic_errorf(err,
				      "%s: %s=%s: times the others' median "
				      "step (allowed: 1.2 to 100, two decimals "
				      "at most)",
				      where, k->name, val);
	return 0;
}

bool policy_list_has(const struct policy_list *l, const char *name)
{
	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->name[i], name))
			return true;
	return false;
}

size_t policy_list_join(const struct policy_list *l, char *out, size_t len)
{
	size_t off = 0;

	if (!len)
		return 0;
	out[0] = '\0';
	for (unsigned i = 0; i < l->n; i++) {
		const char *sep = i ? ", " : "";
		/* Room for this name and, if more follow, for ", ...". */
		size_t need = strlen(sep) + strlen(l->name[i]) +
			      (i + 1 < l->n ? strlen(", ...") : 0);

		if (off + need >= len) {
			const char *mark = i ? ", ..." : "...";

			if (off + strlen(mark) < len)
				off += (size_t)snprintf(out + off, len - off,
							"%s", mark);
			break;
		}
		off += (size_t)snprintf(out + off, len - off, "%s%s", sep,
					l->name[i]);
	}
	return off;
}

unsigned policy_caps_get(const struct policy_caps *c, const char *name)
{
	if (!name)
		return 0;
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->cap[i].name, name))
			return c->cap[i].nodes;
	return 0;
}

bool policy_expedite(bool want, bool has, const char *params, const char **why)
{
	const char *k = "enable_expedited_requeue", *at;
	size_t n = strlen(k);

	*why = NULL;
	if (!want)
		return false;
	if (!has) {
		*why = "this Slurm has no --requeue=expedite (25.11 and later)";
		return false;
	}
	/* A word of the comma-separated list. */
	for (at = params; at && (at = strstr(at, k)); at += n)
		if ((at == params || at[-1] == ',') &&
		    (at[n] == '\0' || at[n] == ','))
			return true;
	*why = "slurmctld does not enable it (SlurmctldParameters="
	       "enable_expedited_requeue), without which it refuses the job";
	return false;
}

unsigned policy_poll_ms(const struct elastic_policy *p, bool notified)
{
	if (p->elasticd_poll_ms)
		return p->elasticd_poll_ms;
	return notified ? POLICY_POLL_MS_NOTIFIED : POLICY_POLL_MS_DEFAULT;
}

void policy_defaults(struct elastic_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->max_nodes = POLICY_DEFAULT_MAX_NODES;
	p->max_grace = 3600;
	p->max_keep = 100;
	p->max_spares = POLICY_DEFAULT_MAX_SPARES;
	p->unit_nice = 10000;
	p->share_nice_step = POLICY_SHARE_NICE_STEP_DEFAULT;
	p->rebalance_interval = POLICY_REBALANCE_INTERVAL_DEFAULT;
	p->default_min_nodes = 1;
	p->default_max_nodes = 0;
	p->default_step = 1;
	p->default_grace = 60;
	p->default_scale_delay = 30;
	p->default_fault_timeout = 60;
	p->default_heartbeat_timeout = POLICY_DEFAULT_HEARTBEAT_TIMEOUT;
	p->default_ondemand = ELASTIC_ONDEMAND_NEVER;
	p->default_signal = SIGURG;
	p->default_keep = 3;
	strcpy(p->default_checkpoint_dir, "%h/elastic-checkpoints/%j");
	strcpy(p->elasticd_listen, POLICY_DEFAULT_LISTEN);
	p->elasticd_release_holds = POLICY_RELEASE_HOLDS_DEFAULT;
	p->elasticd_notify = POLICY_NOTIFY_YES;
	p->elasticd_resync_s = POLICY_RESYNC_S_DEFAULT;
	p->elasticd_queue_s = POLICY_QUEUE_S_DEFAULT;
	p->suspect_nodes = POLICY_SUSPECT_DRAIN;
	p->suspect_drains_per_hour = POLICY_SUSPECT_DRAINS_DEFAULT;
	p->default_stragglers = POLICY_STRAGGLERS_REPORT;
	p->straggler_steps = POLICY_STRAGGLER_STEPS_DEFAULT;
	p->straggler_factor = POLICY_STRAGGLER_FACTOR_DEFAULT;
	p->spare_check_timeout = POLICY_SPARE_CHECK_TIMEOUT_DEFAULT;
	p->account_retention_days = POLICY_ACCOUNT_RETENTION_DEFAULT;
	p->account_max_jobs = POLICY_ACCOUNT_MAX_JOBS_DEFAULT;
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < NKEYS; i++)
		if (!strcasecmp(name, keys[i].name))
			return &keys[i];
	return NULL;
}

/* Slurm names: letters, digits and "-_.@+", bounded. */
static int check_name(const char *s, const char *where, const char *key,
		      elastic_error_t *err)
{
	size_t n = strlen(s);

	if (n == 0 || n > POLICY_NAME_MAX)
		return elastic_errorf(err,
				      "%s: %s: name '%s' must have 1 to %d "
				      "characters",
				      where, key, s, POLICY_NAME_MAX);
	for (const char *c = s; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_.@+", *c))
			return elastic_errorf(err,
					      "%s: %s: bad character in "
					      "name '%s' (allowed: letters, "
					      "digits, - _ . @ +)",
					      where, key, s);
	return 0;
}

/* Comma list into names (and ":N" pairs when caps != NULL: nodes up to
 * ELASTIC_NODES_LIMIT, or weights up to POLICY_WEIGHT_MAX). */
static int set_list(char *val, struct policy_list *l, struct policy_caps *c,
		    bool weights, const char *where, const char *key,
		    elastic_error_t *err)
{
	const char *what = weights ? "weight" : "nodes";
	unsigned long hi = weights ? POLICY_WEIGHT_MAX : ELASTIC_NODES_LIMIT;

	char *save = NULL, *item;
	unsigned n = 0;

	for (item = strtok_r(val, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		char *colon = NULL;

		item = parse_trim(item);
		if (n == POLICY_LIST_MAX)
			return elastic_errorf(err,
					      "%s: %s: more than %d entries",
					      where, key, POLICY_LIST_MAX);
		if (c) {
			unsigned long v;
			enum parse_result r;

			colon = strchr(item, ':');
			if (!colon)
				return elastic_errorf(err,
						      "%s: %s: '%s' is not "
						      "name:%s",
						      where, key, item, what);
			*colon = '\0';
			r = parse_uint(colon + 1, 1, hi, &v);
			if (r != PARSE_OK)
				return elastic_errorf(
				    err,
				    "%s: %s: %s:%s: %s (allowed: 1 to %lu)",
				    where, key, item, colon + 1,
				    parse_strerror(r), hi);
			c->cap[n].nodes = v;
		}
		if (check_name(item, where, key, err) < 0)
			return -1;
		strcpy(c ? c->cap[n].name : l->name[n], item);
		n++;
	}
	if (c)
		c->n = n;
	else
		l->n = n;
	return 0;
}

/* HOST:PORT into field; for a server (where clients connect) a wildcard
 * host is refused. */
static int set_hostport(char *field, const char *val, bool server,
			const char *where, const char *key,
			elastic_error_t *err)
{
	char host[HOSTPORT_HOST_MAX + 1];
	elastic_error_t e;
	unsigned port;

	if (strlen(val) > POLICY_LISTEN_MAX)
		return elastic_errorf(err, "%s: %s: longer than %d characters",
				      where, key, POLICY_LISTEN_MAX);
	if ((server ? hostport_parse_server : hostport_parse)(val, host, &port,
							      &e) < 0)
		return elastic_errorf(err, "%s: %s=%s", where, key, e.text);
	strcpy(field, val);
	return 0;
}

/* A whole number within the bounds of its type (T_NODES, T_SECONDS,
 * T_KEEP, T_NICE, T_HOLDS, T_SPARES, T_DAYS, T_JOBS). */
static int set_count_key(void *field, const struct key *k, const char *val,
			 const char *where, elastic_error_t *err)
{
	enum parse_result r;
	unsigned long v;
	unsigned long lo =
	    (k->type == T_NODES || k->type == T_KEEP || k->type == T_JOBS) ? 1
									   : 0;
	unsigned long hi = (k->type == T_NODES)	 ? ELASTIC_NODES_LIMIT
			   : (k->type == T_DAYS) ? POLICY_ACCOUNT_RETENTION_MAX
			   : (k->type == T_JOBS) ? POLICY_ACCOUNT_MAX_JOBS_MAX
			   : (k->type == T_SECONDS) ? MAX_SECONDS
			   : (k->type == T_NICE)    ? MAX_NICE
			   : (k->type == T_HOLDS)   ? POLICY_RELEASE_HOLDS_MAX
			   : (k->type == T_SPARES)  ? POLICY_SPARES_MAX
						    : MAX_KEEP;

	r = parse_uint(val, lo, hi, &v);
	if (r != PARSE_OK)
		return elastic_errorf(err,
				      "%s: %s=%s: %s (allowed: %lu to "
				      "%lu)",
				      where, k->name, val, parse_strerror(r),
				      lo, hi);
	*(unsigned *)field = v;
	return 0;
}

/* Milliseconds, within the bounds of elasticd's poll interval. */
static int set_msec_key(void *field, const struct key *k, const char *val,
			const char *where, elastic_error_t *err)
{
	enum parse_result r;
	unsigned long v;

	r = parse_uint(val, POLICY_POLL_MS_MIN, POLICY_POLL_MS_MAX, &v);
	if (r != PARSE_OK)
		return elastic_errorf(err,
				      "%s: %s=%s: %s (allowed: %d to %d "
				      "milliseconds)",
				      where, k->name, val, parse_strerror(r),
				      POLICY_POLL_MS_MIN, POLICY_POLL_MS_MAX);
	*(unsigned *)field = v;
	return 0;
}

/* A path elasticd uses as it is: absolute, no % escapes; "" unsets. */
static int set_abspath_key(char *field, const struct key *k, const char *val,
			   const char *where, elastic_error_t *err)
{
	if (strlen(val) > POLICY_PATH_MAX)
		return elastic_errorf(err,
				      "%s: %s: path longer than %d "
				      "characters",
				      where, k->name, POLICY_PATH_MAX);
	if (*val && val[0] != '/')
		return elastic_errorf(err,
				      "%s: %s=%s: must be an absolute "
				      "path",
				      where, k->name, val);
	for (const char *c = val; *c; c++)
		if (iscntrl((unsigned char)*c))
			return elastic_errorf(err,
					      "%s: %s: control "
					      "character in path",
					      where, k->name);
	strcpy(field, val);
	return 0;
}

static int set_key(struct elastic_policy *p, const struct key *k, char *val,
		   const char *where, elastic_error_t *err)
{
	void *field = (char *)p + k->off;
	char what[320];

	switch (k->type) {
	case T_NODES:
	case T_SECONDS:
	case T_KEEP:
	case T_NICE:
	case T_HOLDS:
	case T_SPARES:
	case T_DAYS:
	case T_JOBS:
		return set_count_key(field, k, val, where, err);
	case T_BOOL:
		if (parse_bool(val, field) != PARSE_OK)
			return elastic_errorf(err,
					      "%s: %s=%s: not valid (allowed: "
					      "yes, no)",
					      where, k->name, val);
		return 0;
	case T_LIST:
		return set_list(val, field, NULL, false, where, k->name, err);
	case T_CAPS:
	case T_WEIGHTS:
		return set_list(val, NULL, field, k->type == T_WEIGHTS, where,
				k->name, err);
	case T_NAME:
		if (!*val) { /* unset */
			*(char *)field = '\0';
			return 0;
		}
		if (check_name(val, where, k->name, err) < 0)
			return -1;
		strcpy(field, val);
		return 0;
	case T_ONDEMAND:
		if (policy_parse_ondemand(val, field) < 0)
			return elastic_errorf(err,
					      "%s: %s=%s: not valid (allowed: "
					      "%s)",
					      where, k->name, val,
					      ELASTIC_ONDEMAND_WORDS);
		return 0;
	case T_SIGNAL:
		if (parse_signal(val, field) != PARSE_OK)
			return elastic_errorf(err,
					      "%s: %s=%s: not valid (allowed: "
					      "%s)",
					      where, k->name, val,
					      PARSE_SIGNALS);
		return 0;
	case T_PATH:
		snprintf(what, sizeof(what), "%s: %s", where, k->name);
		if (policy_check_path(val, what, err) < 0)
			return -1;
		strcpy(field, val);
		return 0;
	case T_LISTEN:
		if (set_hostport(field, val, false, where, k->name, err) < 0)
			return -1;
		p->elasticd_listen_set = true;
		return 0;
	case T_SERVER:
		if (!*val) { /* unset */
			*(char *)field = '\0';
			return 0;
		}
		return set_hostport(field, val, true, where, k->name, err);
	case T_MSEC:
		return set_msec_key(field, k, val, where, err);
	case T_NOTIFY:
		if (policy_parse_notify(val, field) < 0)
			return elastic_errorf(err,
					      "%s: %s=%s: not valid (allowed: "
					      "yes, no, drop)",
					      where, k->name, val);
		return 0;
	case T_ABSPATH:
		return set_abspath_key(field, k, val, where, err);
	case T_SUSPECT:
		if (policy_parse_suspect(val, field) < 0)
			return elastic_errorf(err,
					      "%s: %s=%s: not valid (allowed: "
					      "drain, report)",
					      where, k->name, val);
		return 0;
	case T_STRAGGLERS:
	case T_STEPS:
	case T_FACTOR:
		return set_straggler_key(field, k, val, where, err);
	}
	return elastic_errorf(err, "%s: %s: internal error", where, k->name);
}

static int parse_line(struct elastic_policy *p, char *line, const char *where,
		      elastic_error_t *err)
{
	char *hash = strchr(line, '#');
	char *eq, *key, *val;
	const struct key *k;

	if (hash)
		*hash = '\0';
	line = parse_trim(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq)
		return elastic_errorf(err, "%s: expected Key=Value, got '%s'",
				      where, line);
	*eq = '\0';
	key = parse_trim(line);
	val = parse_trim(eq + 1);
	k = find_key(key);
	if (!k)
		return elastic_errorf(err,
				      "%s: unknown key '%s' (see "
				      "elastic.conf(5) for the keys)",
				      where, key);
	return set_key(p, k, val, where, err);
}

/* Relations between keys, checked once the whole file is read. */
static int check_policy(const struct elastic_policy *p, const char *name,
			elastic_error_t *err)
{
	if (p->default_min_nodes > p->max_nodes)
		return elastic_errorf(
		    err, "%s: DefaultMinNodes=%u is above MaxNodes=%u", name,
		    p->default_min_nodes, p->max_nodes);
	if (p->default_max_nodes > p->max_nodes)
		return elastic_errorf(
		    err, "%s: DefaultMaxNodes=%u is above MaxNodes=%u", name,
		    p->default_max_nodes, p->max_nodes);
	if (p->default_max_nodes && p->default_max_nodes < p->default_min_nodes)
		return elastic_errorf(
		    err, "%s: DefaultMaxNodes=%u is below DefaultMinNodes=%u",
		    name, p->default_max_nodes, p->default_min_nodes);
	if (p->default_grace > p->max_grace)
		return elastic_errorf(err,
				      "%s: DefaultGrace=%u is above "
				      "MaxGrace=%u",
				      name, p->default_grace, p->max_grace);
	if (p->default_heartbeat_timeout &&
	    (p->default_heartbeat_timeout < POLICY_HEARTBEAT_MIN ||
	     p->default_heartbeat_timeout > POLICY_HEARTBEAT_MAX))
		return elastic_errorf(
		    err,
		    "%s: DefaultHeartbeatTimeout=%u: seconds "
		    "of a node's silence (allowed: 2 to 3600, "
		    "or 0 for none)",
		    name, p->default_heartbeat_timeout);
	if (p->default_heartbeat_timeout &&
	    p->default_heartbeat_timeout < p->min_heartbeat_timeout)
		return elastic_errorf(err,
				      "%s: DefaultHeartbeatTimeout=%u is below "
				      "MinHeartbeatTimeout=%u",
				      name, p->default_heartbeat_timeout,
				      p->min_heartbeat_timeout);
	if (p->default_keep > p->max_keep)
		return elastic_errorf(err,
				      "%s: DefaultKeep=%u is above MaxKeep=%u",
				      name, p->default_keep, p->max_keep);
	if (!p->spare_check_timeout)
		return elastic_errorf(err,
				      "%s: SpareCheckTimeout=0: seconds a "
				      "spare's check may take (allowed: 1 "
				      "to %u)",
				      name, MAX_SECONDS);
	if (p->default_spares > p->max_spares)
		return elastic_errorf(err,
				      "%s: DefaultSpares=%u is above "
				      "MaxSpares=%u",
				      name, p->default_spares, p->max_spares);
	if (!p->shared_checkpoint_dirs &&
	    !policy_path_per_user(p->default_checkpoint_dir, NULL))
		return elastic_errorf(err,
				      "%s: DefaultCheckpointDir=%s has no "
				      "per-user part (%%u or %%h): another "
				      "user could make a job's directory "
				      "first (or SharedCheckpointDirs=yes)",
				      name, p->default_checkpoint_dir);
	if (p->rebalance_interval < POLICY_REBALANCE_INTERVAL_MIN)
		return elastic_errorf(err,
				      "%s: RebalanceInterval=%u: seconds "
				      "between two units moved (allowed: %d "
				      "to %u)",
				      name, p->rebalance_interval,
				      POLICY_REBALANCE_INTERVAL_MIN,
				      MAX_SECONDS);
	if (p->default_ondemand != ELASTIC_ONDEMAND_NEVER &&
	    !p->ondemand_allowed)
		return elastic_errorf(
		    err,
		    "%s: DefaultOnDemand=%s needs "
		    "OnDemand=yes",
		    name, policy_ondemand_name(p->default_ondemand));
	return 0;
}

/* An error of parse_text: handed to each, if any (else left in err). */
static void fault(policy_error_fn each, void *arg, const elastic_error_t *err,
		  unsigned *nerr)
{
	(*nerr)++;
	if (each)
		each(arg, err->text);
}

/* Every line of text, then the relations, into *p if all is valid.  With
 * each, on past an invalid line, each error handed to it; without, up to
 * the first, left in err.  The number of errors. */
static unsigned parse_text(struct elastic_policy *p, const char *text,
			   const char *name, policy_error_fn each, void *arg,
			   elastic_error_t *err)
{
	struct elastic_policy *tmp = malloc(sizeof(*tmp));
	char line[POLICY_MAX_LINE + 1];
	char where[256];
	const char *s = text;
	unsigned nerr = 0;
	int lineno = 0;

	if (!tmp) {
		elastic_errorf(err, "%s: out of memory", name);
		fault(each, arg, err, &nerr);
		return nerr;
	}
	policy_defaults(tmp);
	while (*s && (each || !nerr)) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		if (len > POLICY_MAX_LINE) {
			elastic_errorf(err, "%s: line longer than %d bytes",
				       where, POLICY_MAX_LINE);
			fault(each, arg, err, &nerr);
		} else {
			memcpy(line, s, len);
			line[len] = '\0';
			if (parse_line(tmp, line, where, err) < 0)
				fault(each, arg, err, &nerr);
		}
		s += len + (nl ? 1 : 0);
	}
	/* With a line left out, a relation could name a fault not there. */
	if (!nerr && check_policy(tmp, name, err) < 0)
		fault(each, arg, err, &nerr);
	if (!nerr)
		*p = *tmp;
	free(tmp);
	return nerr;
}

int policy_parse(struct elastic_policy *p, const char *text, const char *name,
		 elastic_error_t *err)
{
	return parse_text(p, text, name, NULL, NULL, err) ? -1 : 0;
}

unsigned policy_parse_all(struct elastic_policy *p, const char *text,
			  const char *name, policy_error_fn each, void *arg)
{
	elastic_error_t err;

	return parse_text(p, text, name, each, arg, &err);
}
