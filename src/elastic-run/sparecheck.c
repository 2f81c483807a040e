/*
 * Health before use (elastic-run.h): a spare joins a world only once its
 * nodes are up in Slurm and not drained (the site's HealthCheckProgram
 * drains a node that fails it), and the site's SpareCheck (elastic.conf)
 * exited 0 on each of them, run as the job's owner in the spare's
 * allocation.  A spare that fails is cancelled, its nodes reported to
 * elasticd (suspect "spare-check"); elasticd hears which spares passed at
 * every poll (sparecheck_list()) and takes no other into a world.  The
 * nodes of a spare that passed are read again every RECHECK_S.
 */
#include "config.h"

#include <signal.h>
#include <sys/wait.h>

#include "elastic-run.h"

#define CHECKS_MAX (2 * MEMBERS_SPARES_MAX)
#define RECHECK_S  10
/* Each task's last line: "spare-check NODE RC". */
#define CHECK_SCRIPT                                                           \
	"\"$0\"; rc=$?; echo \"spare-check $SLURMD_NODENAME $rc\"; exit $rc"

enum check_state { CHECK_RUNNING, CHECK_OK, CHECK_FAILED };

struct check {
	uint32_t job;
	enum check_state state;
	pid_t pid; /* the SpareCheck's srun, while running */
	int out;   /* its output, non-blocking */
	char buf[1024];
	size_t len;
	double deadline, next_read;
};

static struct check checks[CHECKS_MAX];
static size_t nchecks;
static char list[MEMBERS_SPARES_MAX * 11 + 1];

static struct check *find(uint32_t job)
{
	for (size_t i = 0; i < nchecks; i++)
		if (checks[i].job == job)
			return &checks[i];
	return NULL;
}

static bool listed(const struct members *ms, uint32_t job)
{
	for (size_t i = 0; i < ms->n; i++)
		if (ms->m[i].job_id == job)
			return true;
	return members_has_spare(ms, job);
}

/* Why node cannot take a world's ranks now, in why; false when it can. */
static bool node_unfit(const char *node, char *why, size_t len)
{
	node_info_msg_t *msg = NULL;
	bool bad = false;

	if (slurm_load_node_single(&msg, (char *)node, SHOW_ALL) !=
		SLURM_SUCCESS ||
	    !msg)
		return false; /* Slurm cannot say: the check goes on */
	if (msg->record_count == 1) {
		const node_info_t *n = &msg->node_array[0];
		uint32_t s = n->node_state;

		bad = (s & NODE_STATE_DRAIN) || node_state_down(s);
		if (bad)
			snprintf(why, len, "%s in Slurm (%.80s)",
				 s & NODE_STATE_DRAIN ? "drained"
				 : (s & NODE_STATE_BASE) == NODE_STATE_DOWN
				     ? "down"
				     : "not responding",
				 n->reason ? n->reason : "no reason");
	}
	slurm_free_node_info_msg(msg);
	return bad;
}

/* The first node of a node list, into node. */
static void first_node(const char *nodes, char *node, size_t len)
{
	compat_hostlist_t h = slurm_hostlist_create(nodes);
	char *first = h ? slurm_hostlist_shift(h) : NULL;

	snprintf(node, len, "%s", first ? first : nodes);
	free(first);
	if (h)
		slurm_hostlist_destroy(h);
}

/* The first node of nodes that Slurm says is unfit, into node. */
static bool nodes_unfit(const char *nodes, char *node, size_t nlen, char *why,
			size_t len)
{
	compat_hostlist_t h = slurm_hostlist_create(nodes);
	char *name;
	bool bad = false;

	while (h && !bad && (name = slurm_hostlist_shift(h))) {
		if ((bad = node_unfit(name, why, len)))
			snprintf(node, nlen, "%s", name);
		free(name);
	}
	if (h)
		slurm_hostlist_destroy(h);
	return bad;
}

/* The site's SpareCheck on each node of the spare: 0, or -1. */
static int check_start(const struct config *c, struct check *k, unsigned nnodes)
{
	char jobarg[64], narg[32];
	int p[2];

	if (pipe(p) != 0)
		return -1;
	snprintf(jobarg, sizeof(jobarg), "--jobid=%u", k->job);
	snprintf(narg, sizeof(narg), "-N%u", nnodes);
	fflush(NULL);
	k->pid = fork();
	if (k->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		for (size_t i = 0; stale_vars[i]; i++)
			unsetenv(stale_vars[i]);
		execlp(c->srun, c->srun, jobarg, narg, "--ntasks-per-node=1",
		       "--overlap", "-Q", "--kill-on-bad-exit=0",
		       "--job-name=elastic-spare-check", "/bin/sh", "-c",
		       CHECK_SCRIPT, c->spare_check, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (k->pid < 0) {
		close(p[0]);
		return -1;
	}
	k->out = p[0];
	fcntl(k->out, F_SETFD, FD_CLOEXEC);
	fcntl(k->out, F_SETFL, fcntl(k->out, F_GETFL) | O_NONBLOCK);
	k->len = 0;
	k->deadline = now_s() + c->spare_check_timeout;
	return 0;
}

/* The spare failed on node: reported, cancelled, never in a world. */
static void check_failed(const struct config *c, struct source *src,
			 struct check *k, const char *node, const char *why,
			 unsigned restart, unsigned nnodes)
{
	k->state = CHECK_FAILED;
	timeline("spare-failed", restart, nnodes, "job=%u node=%s why=%s",
		 k->job, node, why);
	/* Before the cancel: elasticd takes only a node the group holds. */
	suspect_node(c, src, node, "spare-check");
	if (compat_kill_job(k->job, SIGKILL, 0) != SLURM_SUCCESS)
		elog_warn("cancel spare %u: %s", k->job, slurm_strerror(errno));
}

/* What the check wrote so far (the pipe never blocks; what does not fit
 * is left in it). */
static void check_read(struct check *k)
{
	ssize_t r;

	while (k->len < sizeof(k->buf) - 1 &&
	       (r = read(k->out, k->buf + k->len,
			 sizeof(k->buf) - 1 - k->len)) > 0)
		k->len += (size_t)r;
}

/* Read what the check's tasks said; at its end (or its deadline), the
 * first node that failed, in node, or "" for none. */
static bool check_done(const struct config *c, struct check *k,
		       const char *nodes, char *node, size_t nlen, char *why,
		       size_t len)
{
	int status = 0;
	bool late = now_s() >= k->deadline;
	char *line, *save = NULL;
	unsigned ok = 0, nn = 0;

	check_read(k);
	if (!late && waitpid(k->pid, &status, WNOHANG) == 0)
		return false;
	if (late) {
		kill(k->pid, SIGKILL);
		waitpid(k->pid, &status, 0);
	}
	/* What it wrote before its end is in the pipe (never a blocking
	 * read: a task's child could hold the pipe open). */
	check_read(k);
	close(k->out);
	k->buf[k->len] = '\0';
	node[0] = '\0';
	for (line = strtok_r(k->buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[65];
		int rc;

		if (sscanf(line, "spare-check %64s %d", name, &rc) != 2)
			continue;
		nn++;
		if (rc == 0) {
			ok++;
		} else if (!node[0]) {
			snprintf(node, nlen, "%s", name);
			snprintf(why, len, "SpareCheck exited %d", rc);
		}
	}
	if (!node[0] && (late || ok < nn || !WIFEXITED(status) ||
			 WEXITSTATUS(status) != 0 || !nn)) {
		/* No word of the node at fault (a check that hangs, an srun
		 * that failed): the spare's first node. */
		first_node(nodes, node, nlen);
		if (late)
			snprintf(why, len, "SpareCheck ran over %u s",
				 c->spare_check_timeout);
		else
			snprintf(why, len, "SpareCheck did not run");
	}
	return true;
}

/* A spare seen for the first time: its nodes, then the site's check. */
static void check_new(const struct config *c, struct source *src,
		      const struct members *ms, size_t i, unsigned restart)
{
	struct check *k;
	char node[65], why[160];

	if (nchecks == CHECKS_MAX) {
		/* A failure's entry: its unit is cancelled. */
		size_t f;

		for (f = 0; f < nchecks && checks[f].state != CHECK_FAILED; f++)
			;
		if (f == nchecks)
			return;
		checks[f] = checks[--nchecks];
	}
	k = &checks[nchecks++];
	memset(k, 0, sizeof(*k));
	k->job = ms->spare[i].job_id;
	k->next_read = now_s() + RECHECK_S;
	if (nodes_unfit(spare_nodes(ms, i), node, sizeof(node), why,
			sizeof(why))) {
		check_failed(c, src, k, node, why, restart, ms->nnodes);
		return;
	}
	if (!c->spare_check[0]) {
		k->state = CHECK_OK;
		timeline("spare-checked", restart, ms->nnodes,
			 "job=%u nodes=%s", k->job, spare_nodes(ms, i));
		return;
	}
	k->state = CHECK_RUNNING;
	if (check_start(c, k, ms->spare[i].nnodes) < 0) {
		first_node(spare_nodes(ms, i), node, sizeof(node));
		check_failed(c, src, k, node, "SpareCheck did not start",
			     restart, ms->nnodes);
	}
}

/* The spares that passed, then those members that did (swapped in by
 * this launcher before elasticd's next world): MEMBERS_SPARES_MAX ids at
 * most, elasticd's bound. */
static void list_update(const struct members *ms)
{
	size_t off = 0, n = 0;

	list[0] = '\0';
	for (int spares = 1; spares >= 0; spares--)
		for (size_t i = 0; i < nchecks && n < MEMBERS_SPARES_MAX; i++) {
			if (checks[i].state != CHECK_OK ||
			    members_has_spare(ms, checks[i].job) != spares)
				continue;
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%u", off ? "," : "",
						checks[i].job);
			n++;
		}
}

void sparecheck_tend(const struct config *c, struct source *src,
		     const struct members *ms, unsigned restart)
{
	char node[65], why[160];

	/* Forgotten once the group no longer has it; a failure stays
	 * known while its unit may still be listed. */
	for (size_t i = 0; i < nchecks;) {
		if (checks[i].state != CHECK_FAILED &&
		    !listed(ms, checks[i].job)) {
			if (checks[i].state == CHECK_RUNNING) {
				kill(checks[i].pid, SIGKILL);
				waitpid(checks[i].pid, NULL, 0);
				close(checks[i].out);
			}
			checks[i] = checks[--nchecks];
			continue;
		}
		i++;
	}
	for (size_t s = 0; s < ms->nspare; s++) {
		struct check *k = find(ms->spare[s].job_id);

		if (!k) {
			check_new(c, src, ms, s, restart);
		} else if (k->state == CHECK_RUNNING &&
			   check_done(c, k, spare_nodes(ms, s), node,
				      sizeof(node), why, sizeof(why))) {
			if (node[0]) {
				check_failed(c, src, k, node, why, restart,
					     ms->nnodes);
				continue;
			}
			k->state = CHECK_OK;
			timeline("spare-checked", restart, ms->nnodes,
				 "job=%u nodes=%s", k->job, spare_nodes(ms, s));
		} else if (k->state == CHECK_OK && now_s() >= k->next_read) {
			k->next_read = now_s() + RECHECK_S;
			if (nodes_unfit(spare_nodes(ms, s), node, sizeof(node),
					why, sizeof(why)))
				check_failed(c, src, k, node, why, restart,
					     ms->nnodes);
		}
	}
	list_update(ms);
}

bool sparecheck_ok(uint32_t job)
{
	const struct check *k = find(job);

	return k && k->state == CHECK_OK;
}

const char *sparecheck_list(void)
{
	return list;
}

void sparecheck_usable(struct members *ms)
{
	for (size_t k = 0; k < ms->nspare;)
		if (sparecheck_ok(ms->spare[k].job_id))
			k++;
		else
			ms->spare[k] = ms->spare[--ms->nspare];
}
