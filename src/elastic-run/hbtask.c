/*
 * elastic-run --heartbeat=MS: a heartbeat step's task, one per node
 * (heartbeat.c starts the steps).  Every MS it prints its node's name,
 * "TERM" once Slurm signals it to end, and the progress of the ranks on
 * its node ("r<RANK>=<STEP>/<AGE_MS>/<STATE>/<RUN_MS>/<WAIT_MS>", from their
 * records in ELASTIC_PROGRESS_DIR of this launch's ELASTIC_RESTART_COUNT,
 * and the CPU their threads wanted: straggle.h).  A line
 * "STACKS" on its input asks it for the stacks of its node's ranks: the
 * signal each registered for it, and their state from /proc; "PROBE"
 * which other nodes it reaches (hbprobe.c); "RING" the world's nodes, of
 * which it checks the next few at every heartbeat (hbring.c); "EVENT SIG"
 * the elastic event, which it passes on at once to the processes of its
 * job's other steps on its node (hbrelay.c).
 */
#include "config.h"

#include <dirent.h>
#include <sys/stat.h>

#include "elastic-run.h"
#include "common/progress_rec.h"
#include "detect.h"
#include "ring.h"

/* Ranks of one node read, at most. */
#define HB_RANKS_MAX 256
#define HB_LINE_MAX                                                            \
	1000 /* under slurmstepd's chunk: lines never interleave               \
	      */

struct hb_rank {
	unsigned rank;
	struct progress_rec rec;
	long long run_ms, wait_ms; /* its threads' run time and run delay;
				    * -1: unknown */
	char pstate; /* its scheduler state (/proc/PID/stat): R, S, D, T... */
};

static volatile sig_atomic_t hb_term;

static void on_hb_term(int sig)
{
	(void)sig;
	hb_term = 1;
}

static uint64_t mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* The progress directory, if it is ours alone: no other user feeds the
 * launcher or has a rank signalled. */
static DIR *hb_progress_dir(const char *dir)
{
	struct stat st;
	int fd;

	if (!dir || dir[0] != '/')
		return NULL;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || st.st_uid != getuid() ||
	    (st.st_mode & 077)) {
		close(fd);
		return NULL;
	}
	return fdopendir(fd);
}

/* /proc/PID/FILE read whole into buf (NUL-ended): its length, or -1. */
static ssize_t proc_read(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[352];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, file);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/*
 * How long the threads of pid ran, and waited ready for a CPU, in ms:
 * the sums over /proc/PID/task/TID/schedstat of its first two fields
 * (-1 when unknown).  A thread asleep in a collective adds to neither;
 * one on a throttled or oversubscribed CPU waits (straggle.h).
 */
static void hb_cpu_ms(pid_t pid, long long *run_ms, long long *wait_ms)
{
	char path[64];
	unsigned long long run_ns = 0, wait_ns = 0;
	struct dirent *e;
	DIR *d;

	*run_ms = *wait_ms = -1;
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		char name[300], buf[128];
		unsigned long long run, delay;

		if (e->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "task/%s/schedstat", e->d_name);
		if (proc_read(pid, name, buf, sizeof(buf)) < 0)
			continue;
		if (sscanf(buf, "%llu %llu", &run, &delay) == 2) {
			run_ns += run;
			wait_ns += delay;
		}
	}
	closedir(d);
	*run_ms = (long long)(run_ns / 1000000);
	*wait_ms = (long long)(wait_ns / 1000000);
}

/* The scheduler state of pid ('?' unknown): the field after the
 * command's closing parenthesis (the command may hold any byte). */
static char hb_pstate(pid_t pid)
{
	char buf[512];
	const char *e;

	if (proc_read(pid, "stat", buf, sizeof(buf)) < 0 ||
	    !(e = strrchr(buf, ')')) || e[1] != ' ' || !e[2])
		return '?';
	return e[2];
}

/* This launch's ranks on the node, from their records. */
static size_t hb_ranks(const char *dir, unsigned restart, struct hb_rank *out)
{
	DIR *d = hb_progress_dir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && n < HB_RANKS_MAX && (e = readdir(d))) {
		char buf[PROGRESS_REC_LEN];
		unsigned long rank;
		int fd;

		if (strncmp(e->d_name, "rank.", 5) != 0 ||
		    parse_uint(e->d_name + 5, 0, UINT32_MAX, &rank) != PARSE_OK)
			continue;
		fd = openat(dirfd(d), e->d_name,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (pread(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf) &&
		    progress_rec_parse(buf, sizeof(buf), &out[n].rec) == 0 &&
		    out[n].rec.restart == restart) {
			/* A rank that is gone (its node crashed, it left in
			 * place) wrote its last: its record goes. */
			if (kill(out[n].rec.pid, 0) != 0 && errno == ESRCH)
				unlinkat(dirfd(d), e->d_name, 0);
			else {
				hb_cpu_ms(out[n].rec.pid, &out[n].run_ms,
					  &out[n].wait_ms);
				out[n].pstate = hb_pstate(out[n].rec.pid);
				out[n++].rank = (unsigned)rank;
			}
		}
		close(fd);
	}
	if (d)
		closedir(d);
	return n;
}

/* One heartbeat line: the node, TERM, its probe port, the ranks'
 * progress. */
static int hb_line(const char *node, unsigned port, const struct hb_rank *r,
		   size_t n, char *line, size_t len)
{
	uint64_t now = mono_ms();
	size_t k, slow = 0;
	int j = snprintf(line, len, "%s%s p=%u", node, hb_term ? " TERM" : "",
			 port);

	for (size_t i = 0; i < n && j > 0 && (size_t)j < len - 64; i++) {
		uint64_t age =
		    now > r[i].rec.mono_ms ? now - r[i].rec.mono_ms : 0;

		j += snprintf(line + j, len - (size_t)j, " r%u=%llu/%llu/%c",
			      r[i].rank, (unsigned long long)r[i].rec.step,
			      (unsigned long long)age, r[i].rec.state);
		if (j > 0 && (size_t)j < len && r[i].run_ms >= 0)
			j +=
			    snprintf(line + j, len - (size_t)j, "/%lld/%lld/%c",
				     r[i].run_ms, r[i].wait_ms, r[i].pstate);
		if (r[i].rec.save_ms > r[slow].rec.save_ms)
			slow = i;
	}
	/* The node's longest save, once (pace.h): the steps' words first. */
	if (n && r[slow].rec.save_ms && j > 0 && (size_t)j < len - 32)
		j += snprintf(line + j, len - (size_t)j, " s%u=%llu",
			      r[slow].rank,
			      (unsigned long long)r[slow].rec.save_ms);
	k = (size_t)j;
	if (j <= 0 || k >= len - 1)
		return -1;
	line[k] = '\n';
	return j + 1;
}

/* The first line of /proc/PID/FILE that starts with key (all of it for
 * an empty key), without its newline. */
static void proc_line(pid_t pid, const char *file, const char *key, char *out,
		      size_t len)
{
	char buf[4096];

	snprintf(out, len, "?");
	if (proc_read(pid, file, buf, sizeof(buf)) < 0)
		return;
	for (char *l = buf; l && *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, strlen(key)) == 0) {
			snprintf(out, len, "%.*s", (int)strcspn(l, "\n"), l);
			return;
		}
	}
}

/* Stacks asked for: each rank's state, then its own stack dump. */
static void hb_stacks(const char *node, const struct hb_rank *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char st[128], wchan[128];

		proc_line(r[i].rec.pid, "status", "State:", st, sizeof(st));
		proc_line(r[i].rec.pid, "wchan", "", wchan, sizeof(wchan));
		fprintf(stderr,
			PROG ": stacks: rank %u (pid %ld) on %s at step %llu: "
			     "%s, wchan %s%s\n",
			r[i].rank, (long)r[i].rec.pid, node,
			(unsigned long long)r[i].rec.step, st, wchan,
			r[i].rec.sig ? "" : " (no stack signal registered)");
		if (r[i].rec.sig)
			kill(r[i].rec.pid, r[i].rec.sig);
	}
	fflush(stderr);
}

/* "EVENT SIG": the event, to the ranks of this node's other steps of the
 * job (hbrelay.c); a signal that is not an elastic one is ignored. */
static void hb_event(const char *name)
{
	int sig;

	if (parse_signal(name, &sig) == PARSE_OK)
		hbrelay_signal(getenv("SLURM_JOB_ID"), getenv("SLURM_STEP_ID"),
			       getenv("SLURMD_NODENAME"), sig);
}

/* Its input: "STACKS", "PROBE ..." (hbprobe.c), in a buffer of HB_IN_MAX
 * (a probe names every node of the world). */
#define HB_IN_MAX 65536
struct hb_in {
	char buf[HB_IN_MAX];
	size_t len;
	bool stacks;
};

/* Read what came: 0 at its end.  Probes are answered as they come. */
static int hb_input(struct hb_in *in, const char *node)
{
	char *nl;
	ssize_t n = read(0, in->buf + in->len, HB_IN_MAX - 1 - in->len);

	if (n <= 0)
		return 0;
	in->len += (size_t)n;
	in->buf[in->len] = '\0';
	while ((nl = strchr(in->buf, '\n'))) {
		*nl = '\0';
		if (!strcmp(in->buf, "STACKS"))
			in->stacks = true;
		else if (!strncmp(in->buf, "PROBE ", 6))
			probe_answer(node, in->buf + 6);
		else if (!strncmp(in->buf, "RING ", 5))
			hbring_set(node, in->buf + 5);
		else if (!strncmp(in->buf, "EVENT ", 6))
			hb_event(in->buf + 6);
		in->len -= (size_t)(nl + 1 - in->buf);
		memmove(in->buf, nl + 1, in->len + 1);
	}
	if (in->len == HB_IN_MAX - 1)
		in->len = 0; /* no line: drop it */
	return 1;
}

int heartbeat_main(const char *ms_arg)
{
	static const int ignored[] = { SIGURG, SIGWINCH, SIGUSR1, SIGUSR2 };
	static struct hb_rank ranks[HB_RANKS_MAX];
	static char line[HB_LINE_MAX];
	static struct hb_in in;
	const char *node = getenv("SLURMD_NODENAME");
	const char *dir = getenv("ELASTIC_PROGRESS_DIR");
	const char *rs = getenv("ELASTIC_RESTART_COUNT");
	unsigned long ms, restart = 0;
	char host[DETECT_NAME_MAX];
	unsigned port;
	size_t n;
	int len, lfd;

	if (parse_uint(ms_arg, 100, 60000, &ms) != PARSE_OK ||
	    (rs && parse_uint(rs, 0, UINT32_MAX, &restart) != PARSE_OK))
		return 2;
	if (!node || !*node) {
		if (gethostname(host, sizeof(host)) != 0)
			return 1;
		host[sizeof(host) - 1] = '\0';
		node = host;
	}
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		signal(ignored[i], SIG_IGN);
	install(SIGTERM, on_hb_term);
	install(SIGINT, on_hb_term);
	install(SIGHUP, on_hb_term);
	signal(SIGPIPE, SIG_IGN);
	lfd = probe_listen(&port);
	for (double next = 0;;) {
		struct pollfd p[2 + RING_K] = { { 0, POLLIN, 0 },
						{ lfd, POLLIN, 0 } };
		double now = now_s();
		size_t np;

		if (in.stacks) { /* asked for: at once */
			n = hb_ranks(dir, (unsigned)restart, ranks);
			hb_stacks(node, ranks, n);
			in.stacks = false;
		}
		if (now >= next) {
			n = hb_ranks(dir, (unsigned)restart, ranks);
			len = hb_line(node, port, ranks, n, line, sizeof(line));
			if (len <= 0 || write(1, line, (size_t)len) != len)
				return 1;
			next = now + (double)ms / 1000.0;
			hbring_start(now, node);
		}
		np = 2 + hbring_fds(p + 2, RING_K);
		if (poll(p, np,
			 np > 2 ? 100 : (int)((next - now) * 1000) + 1) <= 0) {
			hbring_done(p + 2, 0, now_s(), node);
			continue;
		}
		hbring_done(p + 2, np - 2, now_s(), node);
		if (p[1].revents)
			probe_accept(lfd);
		/* The end of its input (the launcher closed it) ends it. */
		if (p[0].revents && !hb_input(&in, node))
			return 0;
	}
}
