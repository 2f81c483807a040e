/*
 * Heartbeats: one step per member job, a task per node that prints its
 * node's name every interval, read by the launcher; a node silent past
 * --elastic-heartbeat-timeout whose host does not answer either is lost
 * (detect.h decides; elastic-run.h).  Slurm learns of a dead node only
 * after SlurmdTimeout (300 s by default); its heartbeat stops at once.
 */
#include "config.h"

#include "elastic-run.h"
#include "common/pipewrite.h"
#include "common/tcpprobe.h"
#include "detect.h"
#include "pace.h"
#include "straggle.h"
#include "split.h"

/* How long a stopped heartbeat step has to end before its srun is
 * killed, and how long the host of a silent node has to answer. */
#define HB_STOP_WAIT_S 2
#define HB_PROBE_MS    1000
/* How long a probe's answers may take (each task waits 1 s for its
 * connections). */
#define HB_SPLIT_WAIT_S 3.0
/* The ring's list sent again while nodes' ports come in; a ring line
 * acted on (the full probe) at most this often. */
#define HB_RING_RESEND_S  5.0
#define HB_RING_HOLDOFF_S 10.0
/* After the stacks were asked for: time for every rank to print them. */
#define HB_STACKS_WAIT_MS 2000

struct hb_step {
	pid_t pid;
	int out, in; /* its output, its input (closing it ends the tasks) */
	uint32_t job;
	bool heard; /* a line came: the tasks started */
	size_t len;
	char buf[2048];
};

/* Where a node's host is asked whether it is up: its slurmd, read from
 * Slurm once a launch.  Finding a dead node then asks the controller
 * nothing: each call to a controller out of reach waits some 25 s. */
struct hb_host {
	char addr[64]; /* NodeAddr, "" when not known */
	unsigned port; /* slurmd's */
};

/* The heartbeats of the launch that runs: owned here alone. */
static struct heartbeats {
	bool on;
	size_t n;
	struct hb_step step[MAX_MEMBERS];
	struct detect table;
	struct pace pace;
	struct straggle slow; /* its rule's steps > 0 while watched */
	struct split *probe;  /* a probe's answers, while it is asked */
	unsigned timeout;
	bool stacks_asked;
	bool grace_said; /* a save too long for the grace, said once */
	int hung;	 /* the rank heartbeat_hung found (pace's index) */
	/* The ring probe (ring.h): nodes in the last RING sent, when; the
	 * last "R=" line naming a peer, when, and when it was acted on. */
	size_t ring_n;
	double ring_sent, ring_cut, ring_acted;
	char ring_by[160];
	uint32_t lost_job; /* its srun waits for a dead node: not waited for */
	struct hb_host *host; /* by the table's index */
} hb;

/* One member's heartbeat step: srun over its nodes, a task each. */
static int hb_spawn(const char *self, unsigned interval_ms, uint32_t job,
		    unsigned nnodes, unsigned restart, struct hb_step *s)
{
	char jobarg[64], narg[32], arg[64], rs[16];
	int p[2], q[2];

	if (pipe(p) != 0)
		return -1;
	if (pipe(q) != 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	snprintf(jobarg, sizeof(jobarg), "--jobid=%u", job);
	snprintf(narg, sizeof(narg), "-N%u", nnodes);
	snprintf(arg, sizeof(arg), "--heartbeat=%u", interval_ms);
	snprintf(rs, sizeof(rs), "%u", restart);
	fflush(NULL);
	s->pid = fork();
	if (s->pid == 0) {
		size_t k;

		dup2(p[1], 1);
		dup2(q[0], 0);
		close(p[0]);
		close(p[1]);
		close(q[0]);
		close(q[1]);
		for (k = 0; stale_vars[k]; k++)
			unsetenv(stale_vars[k]);
		setenv("ELASTIC_RESTART_COUNT", rs, 1);
		execlp("srun", "srun", jobarg, narg, "--ntasks-per-node=1",
		       "--overlap", "--input=all", "-Q", "--kill-on-bad-exit=0",
		       "--job-name=" HEARTBEAT_NAME, self, arg, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	close(q[0]);
	if (s->pid < 0) {
		close(p[0]);
		close(q[1]);
		return -1;
	}
	s->out = p[0];
	s->in = q[1];
	s->job = job;
	s->len = 0;
	s->heard = false;
	fcntl(s->in, F_SETFD, FD_CLOEXEC);
	fcntl(s->out, F_SETFD, FD_CLOEXEC);
	fcntl(s->out, F_SETFL, fcntl(s->out, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* Expect every node of member i. */
static int hb_expect(const struct members *ms, size_t i)
{
	compat_hostlist_t h = slurm_hostlist_create(member_nodes(ms, i));
	char *name;
	int rc = h ? 0 : -1;

	while (h && (name = slurm_hostlist_shift(h))) {
		if (detect_add(&hb.table, name, ms->m[i].job_id) < 0)
			rc = -1;
		free(name);
	}
	if (h)
		slurm_hostlist_destroy(h);
	return rc;
}

/* Each node's slurmd address and port, from one read of Slurm's nodes. */
static void hb_hosts_load(void)
{
	node_info_msg_t *msg = NULL;

	hb.host = calloc(hb.table.n ? hb.table.n : 1, sizeof(*hb.host));
	if (!hb.host || slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS)
		return;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		const node_info_t *n = &msg->node_array[i];

		for (size_t k = 0; n->name && n->node_addr && k < hb.table.n;
		     k++) {
			/* An address too long to keep: asked through Slurm. */
			if (strcmp(hb.table.node[k].name, n->name) != 0 ||
			    strlen(n->node_addr) >= sizeof(hb.host[k].addr))
				continue;
			strcpy(hb.host[k].addr, n->node_addr);
			hb.host[k].port = n->port ? n->port : 6818;
		}
	}
	slurm_free_node_info_msg(msg);
}

/* Does the host of the table's node i answer (on its slurmd's port)? */
static bool hb_answers(size_t i)
{
	const struct hb_host *h = hb.host ? &hb.host[i] : NULL;

	if (h && h->addr[0])
		return tcp_answers(h->addr, h->port, HB_PROBE_MS);
	return slurmd_answers(hb.table.node[i].name, HB_PROBE_MS);
}

void heartbeat_start(const struct config *c, const struct members *ms,
		     unsigned restart, double world_t)
{
	char self[4096];
	unsigned iv;

	heartbeat_stop();
	if (!c->heartbeat_timeout)
		return;
	if (self_exe(self, sizeof(self)) < 0)
		return;
	hb.timeout = c->heartbeat_timeout;
	iv = detect_interval_ms(hb.timeout);
	detect_init(&hb.table, now_s(), hb.timeout);
	pace_init(&hb.pace, world_t, c->opts.hang_timeout);
	if (c->opts.stragglers != POLICY_STRAGGLERS_OFF)
		straggle_init(&hb.slow, c->straggler_steps,
			      c->straggler_factor / 100.0);
	for (size_t i = 0; i < ms->n; i++) {
		if (hb_expect(ms, i) < 0 ||
		    hb_spawn(self, iv, ms->m[i].job_id, ms->m[i].nnodes,
			     restart, &hb.step[hb.n]) < 0) {
			elog_warn("no heartbeats for job %u: a lost node "
				  "is found when Slurm finds it",
				  ms->m[i].job_id);
			heartbeat_stop();
			return;
		}
		hb.n++;
	}
	hb_hosts_load();
	hb.on = true;
}

/* The heartbeat steps of job that are still in Slurm (their srun did not
 * end them in time): SIGKILL. */
static void hb_kill_steps(uint32_t job)
{
	job_step_info_response_msg_t *r = NULL;

	if (compat_get_job_steps(job, &r, SHOW_ALL | SHOW_LOCAL) !=
	    SLURM_SUCCESS)
		return;
	for (uint32_t i = 0; i < r->job_step_count; i++) {
		const job_step_info_t *st = &r->job_steps[i];

		if (st->name && !strcmp(st->name, HEARTBEAT_NAME))
			compat_kill_job_step(job, st->step_id.step_id, SIGKILL);
	}
	slurm_free_job_step_info_response_msg(r);
}

void heartbeat_stop(void)
{
	double deadline = now_s() + HB_STOP_WAIT_S;
	size_t i, left;

	for (i = 0; i < hb.n; i++) {
		if (hb.step[i].in >= 0) {
			close(hb.step[i].in);
			hb.step[i].in = -1;
		}
		if (hb.lost_job && hb.step[i].job == hb.lost_job &&
		    hb.step[i].pid > 0)
			kill(hb.step[i].pid, SIGKILL);
	}
	do {
		for (i = 0, left = 0; i < hb.n; i++) {
			if (hb.step[i].pid > 0 &&
			    waitpid(hb.step[i].pid, NULL, WNOHANG) != 0)
				hb.step[i].pid = -1;
			left += hb.step[i].pid > 0;
		}
		if (left)
			sleep_ms(20);
	} while (left && now_s() < deadline);
	for (i = 0; i < hb.n; i++) {
		struct hb_step *s = &hb.step[i];

		if (s->pid > 0) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
			hb_kill_steps(s->job);
		}
		if (s->out >= 0)
			close(s->out);
	}
	detect_free(&hb.table);
	pace_free(&hb.pace);
	straggle_free(&hb.slow);
	free(hb.host);
	memset(&hb, 0, sizeof(hb));
}

static void hb_ring_send(double now);

/* A node's ring line naming a peer it cannot reach ("NAME R=a,b"). */
static void hb_ring_heard(const char *line, double now)
{
	const char *r = strstr(line, " R=");

	if (!r || !strcmp(r + 3, "-"))
		return;
	hb.ring_cut = now;
	snprintf(hb.ring_by, sizeof(hb.ring_by), "%s", line);
}

/* Feed the table what the steps printed. */
static void hb_read(double now)
{
	for (size_t i = 0; i < hb.n; i++) {
		struct hb_step *s = &hb.step[i];
		char *nl;
		ssize_t n;

		while (s->out >= 0) {
			n = read(s->out, s->buf + s->len,
				 sizeof(s->buf) - 1 - s->len);
			if (n == 0 ||
			    (n < 0 && errno != EAGAIN && errno != EINTR)) {
				close(s->out);
				s->out = -1;
				/* Never started (its srun's message is in the
				 * job's output): no beat will come. */
				if (!s->heard)
					elog_warn(
					    "the heartbeat step of job %u "
					    "ended without a beat: its "
					    "nodes are watched by Slurm "
					    "alone until the next launch",
					    s->job);
			}
			if (n <= 0)
				break;
			s->len += (size_t)n;
			s->buf[s->len] = '\0';
			s->heard = true;
			while ((nl = strchr(s->buf, '\n'))) {
				*nl = '\0';
				int node = detect_heard(&hb.table, s->buf, now);

				if (node >= 0)
					pace_heard(&hb.pace, (size_t)node,
						   s->buf, now);
				if (node >= 0 && hb.slow.steps)
					straggle_heard(&hb.slow, (size_t)node,
						       s->buf);
				if (node >= 0 && hb.probe)
					split_heard(hb.probe, (size_t)node,
						    s->buf);
				if (node >= 0) {
					hb_ring_heard(s->buf, now);
					ledger_heard(s->buf, now,
						     hb.pace.started);
				}
				s->len -= (size_t)(nl + 1 - s->buf);
				memmove(s->buf, nl + 1, s->len + 1);
			}
			if (s->len == sizeof(s->buf) - 1)
				s->len = 0; /* no line: drop it */
		}
	}
}

static bool hb_lost(const struct detect_node *x, double silent,
		    struct lost_node *ret)
{
	snprintf(ret->node, sizeof(ret->node), "%s", x->name);
	ret->job = x->job;
	ret->silent_s = silent;
	ret->heard = x->heard;
	ret->kind = "node-lost";
	hb.lost_job = x->job;
	return true;
}

bool heartbeat_lost(unsigned restart, unsigned nnodes, struct lost_node *ret)
{
	double now = now_s(), silent;
	int i;

	if (!hb.on)
		return false;
	hb_read(now);
	hb_ring_send(now);
	while ((i = detect_silent(&hb.table, now, &silent)) >= 0) {
		const struct detect_node *x = &hb.table.node[i];

		/* A host that is up answers even when its heartbeat is
		 * late (a loaded machine); a dead or cut-off one does not. */
		if (!hb_answers((size_t)i))
			return hb_lost(x, silent, ret);
		timeline("heartbeat-late", restart, nnodes,
			 "node=%s job=%u silent=%.1f host=answers", x->name,
			 x->job, silent);
		detect_defer(&hb.table, (size_t)i, now);
	}
	/* Not heard yet, past the timeout: a host that crashed just after
	 * the launch does not answer either. */
	while ((i = detect_unheard(&hb.table, now)) >= 0) {
		const struct detect_node *x = &hb.table.node[i];

		if (!hb_answers((size_t)i))
			return hb_lost(x, now - hb.table.started, ret);
		detect_probed(&hb.table, (size_t)i, now);
	}
	return false;
}

/*
 * A line to a heartbeat step's input.  The step's srun may have ended (its
 * node crashed): EPIPE then, not SIGPIPE, which would end the launcher and
 * the job with it (seen in chaos); the step's input is closed.
 */
static int hb_write(struct hb_step *s, const char *line, size_t len)
{
	if (s->in < 0)
		return -1;
	if (pipe_write(s->in, line, len) == 0)
		return 0;
	if (errno == EPIPE) {
		close(s->in);
		s->in = -1;
		errno = EPIPE;
	}
	return -1;
}

/* Has every node of job's heartbeat step spoken (its task reads its
 * input)? */
static bool hb_all_heard(uint32_t job)
{
	size_t n = 0;

	for (size_t i = 0; i < hb.table.n; i++) {
		if (hb.table.node[i].job != job)
			continue;
		if (!hb.table.node[i].heard)
			return false;
		n++;
	}
	return n > 0;
}

int heartbeat_relay(uint32_t job, int sig)
{
	char line[32];
	int n = snprintf(line, sizeof(line), "EVENT %s\n", signame(sig));

	for (size_t i = 0; hb.on && i < hb.n; i++) {
		struct hb_step *s = &hb.step[i];

		if (s->job != job || s->in < 0 || s->out < 0 ||
		    !hb_all_heard(job))
			continue;
		if (hb_write(s, line, (size_t)n) == 0)
			return 0;
		elog_debug("relay: job %u: %s", job, strerror(errno));
	}
	return -1;
}

/* Ask every node for its ranks' stacks, once per launch. */
static void hb_ask_stacks(void)
{
	if (hb.stacks_asked)
		return;
	hb.stacks_asked = true;
	for (size_t i = 0; i < hb.n; i++)
		if (hb.step[i].in >= 0 &&
		    hb_write(&hb.step[i], "STACKS\n", 7) < 0)
			elog_debug("stacks: job %u: %s", hb.step[i].job,
				   strerror(errno));
}

void heartbeat_grace(const struct config *c, unsigned restart, unsigned nnodes)
{
	double save_s = (double)hb.pace.save_ms / 1000.0;

	if (!hb.on || hb.grace_said || !c->grace || save_s * 2 < c->grace)
		return;
	hb.grace_said = true;
	timeline("grace-warning", restart, nnodes,
		 "source=measured save_seconds=%.3f rank=%u grace=%u", save_s,
		 hb.pace.save_rank, c->grace);
	elog_warn("rank %u's checkpoint took %.1f s to save, more than half "
		  "the %u s grace: at an event it may not be on disk before "
		  "Slurm kills the ranks; raise --elastic-grace (or checkpoint "
		  "faster)",
		  hb.pace.save_rank, save_s, c->grace);
}

bool heartbeat_hung(struct lost_node *ret)
{
	double now = now_s(), stalled;
	const struct pace_rank *r;
	int i;

	if (!hb.on || (i = pace_hung(&hb.pace, now, &stalled)) < 0)
		return false;
	r = &hb.pace.r[i];
	snprintf(ret->node, sizeof(ret->node), "%s",
		 hb.table.node[r->node].name);
	ret->job = hb.table.node[r->node].job;
	ret->silent_s = stalled;
	ret->heard = true;
	ret->kind = "hang";
	hb.hung = i;
	return true;
}

void heartbeat_hang_named(unsigned restart, unsigned nnodes,
			  const struct lost_node *h)
{
	const struct pace_rank *r = &hb.pace.r[hb.hung];

	timeline("hang", restart, nnodes,
		 "rank=%u node=%s job=%u step=%llu stalled=%.1f timeout=%.1f "
		 "median_step=%.3f",
		 r->rank, h->node, h->job, (unsigned long long)r->step,
		 h->silent_s, pace_timeout(&hb.pace),
		 pace_median_step(&hb.pace));
	/* Their stacks reach the job's output before the node is let go. */
	hb_ask_stacks();
	sleep_ms(HB_STACKS_WAIT_MS);
}

bool heartbeat_slow(const struct config *c, struct source *src,
		    const struct members *ms, unsigned restart,
		    struct lost_node *ret)
{
	const struct straggle_rank *r;
	const char *action = "evict";
	double ratio;
	int i;

	if (!hb.on || !hb.slow.steps ||
	    (i = straggle_find(&hb.slow, &ratio)) < 0)
		return false;
	r = &hb.slow.r[i];
	snprintf(ret->node, sizeof(ret->node), "%s",
		 hb.table.node[r->node].name);
	ret->job = hb.table.node[r->node].job;
	ret->silent_s = 0;
	ret->heard = true;
	ret->kind = "straggler";
	/* Evicted only where the world goes on without it: never the batch
	 * host, never below the job's min. */
	if (c->opts.stragglers != POLICY_STRAGGLERS_EVICT)
		action = "report";
	else if (!strcmp(ret->node, ms->master_host))
		action = "report (the batch host)";
	else if (ms->nnodes <= c->opts.min)
		action = "report (the world is at its min)";
	timeline("straggler", restart, ms->nnodes,
		 "rank=%u node=%s job=%u ms_per_step=%.1f waiting=%.1f "
		 "others=%.1f ratio=%.1f steps=%u action=%s",
		 r->rank, ret->node, ret->job, r->per_step, r->wait_per_step,
		 straggle_median(&hb.slow, r->node), ratio, hb.slow.steps,
		 action);
	if (!strcmp(action, "evict"))
		return true;
	suspect_node(c, src, ret->node, "straggler");
	return false;
}

/* Where the table's node i's task takes probes: "NAME=ADDR:PORT" into
 * out (ADDR its NodeAddr, else its name). */
static void hb_peer(size_t i, char *out, size_t len)
{
	const struct detect_node *x = &hb.table.node[i];
	const char *addr =
	    hb.host && hb.host[i].addr[0] ? hb.host[i].addr : x->name;

	snprintf(out, len, " %s=%s:%u", x->name, addr, x->port);
}

static int hb_send_list(const char *cmd);

/* Every node with a probe port known, in the world's order, to every
 * node's task for its ring (ring.h): once all are known, or every
 * HB_RING_RESEND_S while more come. */
static void hb_ring_send(double now)
{
	size_t known = 0;

	for (size_t i = 0; i < hb.table.n; i++)
		known += hb.table.node[i].port != 0;
	if (known < 2 || known <= hb.ring_n ||
	    (known < hb.table.n && now - hb.ring_sent < HB_RING_RESEND_S))
		return;
	if (hb_send_list("RING") == 0) {
		hb.ring_n = known;
		hb.ring_sent = now;
	}
}

/* Is a node the ring line names one whose heartbeat is on time?  A
 * silent one is the heartbeats' to judge (lost, or not), not a split. */
static bool hb_ring_live(const char *line, double now)
{
	const char *r = strstr(line, " R=");
	char names[sizeof(hb.ring_by)], *save = NULL;

	if (!r)
		return false;
	snprintf(names, sizeof(names), "%s", r + 3);
	for (char *w = strtok_r(names, ",", &save); w;
	     w = strtok_r(NULL, ",", &save))
		for (size_t i = 0; i < hb.table.n; i++)
			if (!strcmp(hb.table.node[i].name, w) &&
			    hb.table.node[i].heard &&
			    now - hb.table.node[i].last <= hb.timeout / 2.0)
				return true;
	return false;
}

bool heartbeat_ring_cut(void)
{
	double now = now_s();

	if (!hb.on || hb.ring_cut <= hb.ring_acted ||
	    now - hb.ring_acted < HB_RING_HOLDOFF_S)
		return false;
	hb.ring_acted = now;
	if (!hb_ring_live(hb.ring_by, now))
		return false;
	elog_info("ring probe: %s", hb.ring_by);
	return true;
}

/* Ask every node's task which others it reaches: 0 when asked. */
static int hb_ask_probe(void)
{
	return hb_send_list("PROBE");
}

/* "CMD NAME=ADDR:PORT ..." (the nodes with a port, in the world's
 * order) to every node's task. */
static int hb_send_list(const char *cmd)
{
	size_t cap = 16 + hb.table.n * (DETECT_NAME_MAX * 2 + 16), len = 5;
	char *line = malloc(cap);
	int rc = 0;

	if (!line)
		return -1;
	len = strlen(cmd);
	memcpy(line, cmd, len);
	for (size_t i = 0; i < hb.table.n; i++) {
		if (!hb.table.node[i].port)
			continue;
		hb_peer(i, line + len, cap - len);
		len += strlen(line + len);
	}
	line[len++] = '\n';
	for (size_t i = 0; i < hb.n; i++)
		if (hb.step[i].in >= 0 && hb_write(&hb.step[i], line, len) < 0)
			rc = -1;
	free(line);
	return rc;
}

/* The nodes a probe leaves out, into w (the first as its lost node). */
static void hb_split_out(const bool *keep, const struct members *ms,
			 unsigned restart, struct watch *w)
{
	char left[512] = "";
	size_t k = 0;

	w->nalso = 0;
	for (size_t i = 0; i < hb.table.n; i++) {
		const struct detect_node *x = &hb.table.node[i];

		if (keep[i])
			continue;
		if (k++ == 0) {
			snprintf(w->lost_node, sizeof(w->lost_node), "%s",
				 x->name);
			w->lost_job = x->job;
		} else if (w->nalso < WATCH_ALSO_MAX) {
			snprintf(w->also[w->nalso], sizeof(w->also[0]), "%s",
				 x->name);
			w->also_job[w->nalso++] = x->job;
		}
		snprintf(left + strlen(left), sizeof(left) - strlen(left),
			 "%s%s", k > 1 ? "," : "", x->name);
	}
	w->cause = "split";
	snprintf(w->detail, sizeof(w->detail), "node=%s job=%u left=%s",
		 w->lost_node, w->lost_job, left);
	timeline("split", restart, ms->nnodes, "left=%s kept=%zu", left,
		 hb.table.n - k);
}

bool heartbeat_split(const struct members *ms, unsigned restart,
		     struct watch *w)
{
	char(*names)[DETECT_NAME_MAX];
	struct split sp;
	size_t master = (size_t)-1, left = 0;
	double deadline = now_s() + HB_SPLIT_WAIT_S;
	bool *keep, all;

	/* Two nodes, one the batch host: no split that both reach it.  A
	 * node Slurm is ending (preemption, cancel) explains a failure. */
	if (!hb.on || hb.table.n < 3)
		return false;
	for (size_t i = 0; i < hb.table.n; i++)
		if (hb.table.node[i].leaving)
			return false;
	names = calloc(hb.table.n, sizeof(*names));
	keep = calloc(hb.table.n, sizeof(*keep));
	if (!names || !keep ||
	    split_init(&sp, hb.table.n, (const char(*)[DETECT_NAME_MAX])names) <
		0) {
		free(names);
		free(keep);
		return false;
	}
	for (size_t i = 0; i < hb.table.n; i++) {
		memcpy(names[i], hb.table.node[i].name, DETECT_NAME_MAX);
		if (!strcmp(names[i], ms->master_host))
			master = i;
		/* (keep doubles as "heard before" until split_keep) */
		keep[i] = hb.table.node[i].heard && hb.table.node[i].port;
	}
	hb.probe = &sp;
	if (hb_ask_probe() == 0)
		while (!split_complete(&sp) && now_s() < deadline) {
			sleep_ms(20);
			hb_read(now_s());
		}
	hb.probe = NULL;
	all = split_complete(&sp);
	/* A node never heard, or silent now, is the heartbeats' to judge
	 * (lost or not): the split is between nodes that answer. */
	for (size_t i = 0; i < hb.table.n; i++)
		if (!keep[i] || !sp.answered[i])
			split_unknown(&sp, i);
	if (master != (size_t)-1)
		left = split_keep(&sp, master, keep);
	if (left)
		hb_split_out(keep, ms, restart, w);
	else
		timeline("probe", restart, ms->nnodes, "split=no answered=%s",
			 all ? "all" : "not all");
	split_free(&sp);
	free(names);
	free(keep);
	return left > 0;
}
