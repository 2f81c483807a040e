/*
 * In-place resizes (elastic-run.h, inplace.h): the world channel's server
 * and the resize itself.  Ranks that use slurm_elastic's in-place API
 * register on the channel; once every rank of the world has, an event no
 * longer stops them: elastic-run starts the joiners' ranks, waits until
 * they are warm (registered), publishes the next world, and the ranks
 * that stay re-form their process group without exiting.  Whatever cannot
 * be done in place (a survivor's node list changed, a joiner never came,
 * a rank failed to join) takes the restart path.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "elastic-run.h"
#include "inplace.h"

/* Connections: at most this many (a rank holds one). */
#define IP_CONNS_MAX 65536
/* An unregistered connection is dropped after this long; beyond this
 * many at once, the oldest is (whoever floods the port cannot keep the
 * ranks out). */
#define IP_HELLO_S   10
#define IP_UNREG_MAX 256
/* How long a send to one rank may block. */
#define IP_SEND_S 2
/* How long joiners have to start and register (import their framework,
 * build their model), and the world to re-form. */
#define IP_JOIN_WAIT_S	 120
#define IP_JOINED_WAIT_S 60
/* Beyond the fault timeout: how long a rank whose collective failed
 * waits for word of the next world. */
#define IP_RECOVER_WAIT_S 300

struct ip_conn {
	int fd;
	char snonce[INPLACE_NONCE_HEX + 1];
	bool registered;
	struct inplace_reg reg;
	char in[INPLACE_LINE_MAX];
	size_t inlen;
	uint64_t joined;	   /* the world it said it joined */
	uint64_t failed;	   /* the world it said it cannot join */
	char why[INPLACE_WHY_MAX]; /* and why, as it said ("": unsaid) */
	double since;
};

struct inplace {
	int lfd;
	char token[INPLACE_TOKEN_HEX + 1];
	char addr[300];
	struct ip_conn *c;
	size_t n, cap;
	uint64_t world;	  /* the last world launched or published */
	uint64_t capable; /* the last world all of whose ranks registered */
	bool joining;	  /* joiners are starting: their ranks register */
	double published; /* when the last world was (monotonic s) */
};

static struct inplace the_ip = { .lfd = -1 };

struct inplace *inplace_open(void)
{
	struct inplace *ip = &the_ip;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	const char *node = getenv("SLURMD_NODENAME");
	char host[256];

	if (inplace_random_hex(ip->token, INPLACE_TOKEN_HEX / 2) < 0)
		return NULL;
	ip->lfd =
	    socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (ip->lfd < 0)
		return NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(ip->lfd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(ip->lfd, 1024) != 0 ||
	    getsockname(ip->lfd, (struct sockaddr *)&sa, &sl) != 0) {
		elog_warn("in-place resizes off: cannot listen: %s",
			  strerror(errno));
		close(ip->lfd);
		ip->lfd = -1;
		return NULL;
	}
	/* Where the ranks reach this host: Slurm's address of our node. */
	if (node && *node)
		node_addr(node, host, sizeof(host));
	else if (gethostname(host, sizeof(host)) != 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	snprintf(ip->addr, sizeof(ip->addr), "%s:%u", host,
		 (unsigned)ntohs(sa.sin_port));
	return ip;
}

/* The channel's variables for ranks launched into world `world` (0: as
 * joiners), in this process (a launcher's child passes them on). */
void inplace_env(const struct config *c, uint64_t world)
{
	char buf[32];

	if (!c->ip)
		return;
	setenv("ELASTIC_INPLACE_ADDR", c->ip->addr, 1);
	setenv("ELASTIC_INPLACE_TOKEN", c->ip->token, 1);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)world);
	setenv("ELASTIC_INPLACE_WORLD", buf, 1);
	/* A survivor whose collective failed waits for the next world: Slurm
	 * sees a dead node within its SlurmdTimeout (minutes at most), then
	 * elasticd waits the fault timeout.  While this program lives, it
	 * says something before then; when it dies, the channel closes. */
	snprintf(buf, sizeof(buf), "%u",
		 c->fault_timeout + FAULT_MARGIN_S + IP_RECOVER_WAIT_S);
	setenv("ELASTIC_INPLACE_WAIT", buf, 1);
}
/* A new world number for a launch: its ranks are in it. */
uint64_t inplace_next_world(const struct config *c)
{
	return c->ip ? ++c->ip->world : 0;
}

static void conn_drop(struct inplace *ip, size_t i)
{
	close(ip->c[i].fd);
	ip->c[i] = ip->c[--ip->n];
}
/* Make room for one more unregistered connection. */
static void conn_room(struct inplace *ip)
{
	size_t i, n = 0, oldest = 0;

	for (i = 0; i < ip->n; i++) {
		if (ip->c[i].registered)
			continue;
		if (!n++ || ip->c[i].since < ip->c[oldest].since)
			oldest = i;
	}
	if (n >= IP_UNREG_MAX)
		conn_drop(ip, oldest);
}
static void conn_accept(struct inplace *ip)
{
	struct timeval tv = { IP_SEND_S, 0 };
	char hello[128];
	int fd, one = 1, len;

	while ((fd = accept4(ip->lfd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0) {
		struct ip_conn *k;

		conn_room(ip);
		if (ip->n == ip->cap) {
			size_t cap = ip->cap ? ip->cap * 2 : 64;
			void *p = cap <= IP_CONNS_MAX
				      ? realloc(ip->c, cap * sizeof(*ip->c))
				      : NULL;

			if (!p) {
				close(fd);
				continue;
			}
			ip->c = p;
			ip->cap = cap;
		}
		k = &ip->c[ip->n];
		memset(k, 0, sizeof(*k));
		k->fd = fd;
		k->since = now_s();
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (inplace_random_hex(k->snonce, INPLACE_NONCE_HEX / 2) < 0 ||
		    (len = inplace_hello(k->snonce, hello, sizeof(hello))) <
			0 ||
		    send(fd, hello, (size_t)len, MSG_NOSIGNAL) != len) {
			close(fd);
			continue;
		}
		ip->n++;
	}
}
/* Send all of buf (the socket is non-blocking: wait for room, bounded). */
static int send_all(int fd, const char *buf, size_t len)
{
	double deadline = now_s() + IP_SEND_S;

	while (len > 0) {
		ssize_t w = send(fd, buf, len, MSG_NOSIGNAL);

		if (w > 0) {
			buf += w;
			len -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    now_s() < deadline) {
			struct pollfd p = { fd, POLLOUT, 0 };

			poll(&p, 1, 100);
			continue;
		}
		return -1;
	}
	return 0;
}
/* One line from connection i: false to drop it. */
static bool conn_line(struct inplace *ip, size_t i, const char *line)
{
	struct ip_conn *k = &ip->c[i];
	const char *why;
	uint64_t n;
	long long step;

	if (!k->registered) {
		if (inplace_parse_register(line, ip->token, k->snonce, &k->reg,
					   &why) < 0) {
			elog_warn("in-place channel: a connection's "
				  "register refused: %s",
				  why);
			return false;
		}
		k->registered = true;
		return true;
	}
	if (inplace_parse_status(line, &n, &step, k->why) < 0)
		return false;
	if (step < 0)
		k->failed = n;
	else
		k->joined = n;
	return true;
}
/* Read what connection i sent: false to drop it. */
static bool conn_read(struct inplace *ip, size_t i)
{
	struct ip_conn *k = &ip->c[i];
	ssize_t r;
	char *nl;

	for (;;) {
		r = recv(k->fd, k->in + k->inlen, sizeof(k->in) - 1 - k->inlen,
			 0);
		if (r == 0)
			return false;
		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ||
			       errno == EINTR;
		k->inlen += (size_t)r;
		k->in[k->inlen] = '\0';
		while ((nl = strchr(k->in, '\n'))) {
			*nl = '\0';
			if (!conn_line(ip, i, k->in))
				return false;
			k->inlen -= (size_t)(nl + 1 - k->in);
			memmove(k->in, nl + 1, k->inlen + 1);
		}
		if (k->inlen >= sizeof(k->in) - 1)
			return false;
	}
}
/*
 * Serve the channel: wait up to ms for it (and for fd, if not -1, which
 * the caller reads), accept, read.
 */
void inplace_serve(const struct config *c, int fd, unsigned ms)
{
	struct inplace *ip = c->ip;
	struct pollfd p[2];
	nfds_t np = 0;
	size_t i;

	if (fd >= 0)
		p[np++] = (struct pollfd){ fd, POLLIN, 0 };
	if (ip)
		p[np++] = (struct pollfd){ ip->lfd, POLLIN, 0 };
	/* The connections are read every pass: few lines, and a rank
	 * waiting on an answer is answered within a pass. */
	if (np)
		poll(p, np, (int)(ip && ip->n ? (ms < 20 ? ms : 20) : ms));
	else
		sleep_ms(ms);
	if (!ip)
		return;
	conn_accept(ip);
	for (i = 0; i < ip->n;) {
		if (!conn_read(ip, i) ||
		    (!ip->c[i].registered &&
		     now_s() > ip->c[i].since + IP_HELLO_S))
			conn_drop(ip, i);
		else
			i++;
	}
}
/* Registered ranks in world w (launched in it, or joined it). */
static size_t in_world(const struct inplace *ip, uint64_t w)
{
	size_t i, n = 0;

	for (i = 0; i < ip->n; i++)
		if (ip->c[i].registered &&
		    (ip->c[i].reg.world == w || ip->c[i].joined == w))
			n++;
	return n;
}
/*
 * Do all the ranks of the world use the in-place API?  Once they all
 * registered, it stays so for the world: ranks that died since (a node
 * crashed) are the resize's to handle, in place or by falling back.
 */
bool inplace_capable(const struct config *c, const struct members *ms)
{
	struct inplace *ip = c->ip;

	if (!ip || c->mpirun)
		return false;
	if (ip->capable != ip->world &&
	    in_world(ip, ip->world) >= (size_t)ms->nnodes * c->nproc_per_node)
		ip->capable = ip->world;
	return ip->capable == ip->world;
}
/* Warm joiners of member job `job`. */
static size_t joiners_of(const struct inplace *ip, uint32_t job)
{
	size_t i, n = 0;

	for (i = 0; i < ip->n; i++)
		if (ip->c[i].registered && ip->c[i].reg.world == 0 &&
		    ip->c[i].reg.job == job)
			n++;
	return n;
}
/* The ranks in world w; *failed names why one cannot join it (the
 * first reason a rank gave), else stays NULL. */
static size_t joined(const struct inplace *ip, uint64_t w, const char **failed)
{
	size_t i, n = 0;

	for (i = 0; i < ip->n; i++) {
		if (ip->c[i].joined == w)
			n++;
		if (ip->c[i].failed == w && (!*failed || !**failed))
			*failed = ip->c[i].why;
	}
	return n;
}

/* Publish world ++ip->world to every registered rank: 0, or -1. */
static int publish(const struct config *c, enum inplace_path path,
		   const struct members *ms, unsigned port, unsigned src,
		   const char *lost)
{
	struct inplace *ip = c->ip;
	size_t plen = 0, i;
	char *payload = inplace_payload(c, path, ms, port, src, lost, &plen);
	char head[256];
	int hl;

	if (!payload)
		return -1;
	ip->world++;
	ip->published = now_s();
	for (i = 0; i < ip->n;) {
		struct ip_conn *k = &ip->c[i];

		if (!k->registered) {
			i++;
			continue;
		}
		hl = inplace_world_header(ip->token, k->reg.cnonce, ip->world,
					  payload, plen, head, sizeof(head));
		if (hl < 0 || send_all(k->fd, head, (size_t)hl) < 0 ||
		    send_all(k->fd, payload, plen) < 0)
			conn_drop(ip, i);
		else
			i++;
	}
	free(payload);
	return 0;
}
double inplace_published(const struct config *c)
{
	return c->ip ? c->ip->published : 0;
}
/* Tell the ranks on the channel to take the restart path, or that the
 * job ends: they heed its word, not the event signal. */
void inplace_abandon(const struct config *c, bool stop)
{
	static const struct members none;
	size_t i;

	if (!c->ip)
		return;
	for (i = 0; i < c->ip->n && !c->ip->c[i].registered; i++)
		;
	if (i < c->ip->n)
		publish(c, stop ? INPLACE_STOP : INPLACE_RESTART, &none, 0, 0,
			NULL);
}

/* A port for the next world's rendezvous, as launches pick theirs. */
static unsigned fresh_port(const struct config *c)
{
	uint16_t r;

	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return c->port;
	return RANKENV_PORT_FIRST + r % RANKENV_PORT_COUNT;
}

/* What the resize found: who stays, who joins, who leaves. */
struct diff {
	size_t stay, join, leave;
	unsigned src;  /* the first survivor's rank offset */
	char why[128]; /* why not in place */
};
static bool diff_worlds(const struct config *c, const struct members *cur,
			const struct launch *l, const struct members *nm,
			struct diff *d)
{
	unsigned off = 0;
	size_t i, j;
	bool src_set = false;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < nm->n; i++) {
		int k = launch_index(l, nm->m[i].job_id);

		if (k < 0) {
			d->join++;
		} else {
			for (j = 0;
			     j < cur->n && cur->m[j].job_id != nm->m[i].job_id;
			     j++)
				;
			/* The cause first: a lost node ends the member's
			 * step too. */
			if (j == cur->n ||
			    strcmp(member_nodes(cur, j), member_nodes(nm, i))) {
				snprintf(d->why, sizeof(d->why),
					 "job=%u nodes-changed", l->job[k]);
				return false;
			}
			if (l->done[k]) {
				snprintf(d->why, sizeof(d->why),
					 "job=%u ranks-ended", l->job[k]);
				return false;
			}
			d->stay++;
			if (!src_set)
				d->src = off;
			src_set = true;
		}
		off += nm->m[i].nnodes * c->nproc_per_node;
	}
	d->leave = cur->n - d->stay;
	if (!d->stay) {
		snprintf(d->why, sizeof(d->why), "no-survivor");
		return false;
	}
	return true;
}

/* How many ranks member job of nm has. */
static size_t joiner_ranks(const struct config *c, const struct members *nm,
			   uint32_t job)
{
	for (size_t i = 0; i < nm->n; i++)
		if (nm->m[i].job_id == job)
			return (size_t)nm->m[i].nnodes * c->nproc_per_node;
	return 0;
}

/* Every rank of l ended, each with status 0: the training is over. */
static bool all_finished(const struct launch *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!l->done[i] || member_end_of(l->status[i]) != MEMBER_OK)
			return false;
	return l->n > 0;
}

/*
 * Start the joiners' ranks and wait until they are warm: every one has
 * registered.  Meanwhile the world (l) trains on.  false with why on
 * failure (a joiner's srun ended, the wait ran out, the job is stopping,
 * the world's ranks ended: "ranks-finished" when all did with status 0).
 */
static bool start_joiners(const struct config *c, const struct members *nm,
			  struct launch *l, unsigned restart, struct launch *jl,
			  double deadline, char *why, size_t wl)
{
	struct members *jm = calloc(1, sizeof(*jm));
	struct launch *more = calloc(1, sizeof(*more));
	elastic_error_t err;
	size_t i, ready, want = 0;
	bool ok = false;

	memset(jl, 0, sizeof(*jl));
	if (!jm || !more)
		goto out;
	/* Warm spares' ranks are adopted, the others started. */
	for (i = 0; i < nm->n; i++) {
		if (launch_index(l, nm->m[i].job_id) >= 0)
			continue;
		want++;
		if (!spares_take(nm->m[i].job_id, jl))
			members_add(jm, nm->m[i].job_id, nm->m[i].nnodes,
				    member_nodes(nm, i), &err);
	}
	if (jm->n && launch_members(c, jm, nm, restart, more) < 0) {
		kill_launch(jl);
		snprintf(why, wl, "joiners-not-started");
		goto out;
	}
	for (i = 0; i < more->n && jl->n < MAX_MEMBERS; i++)
		launch_append(jl, more, i);
	for (;;) {
		inplace_serve(c, -1, POLL_MS);
		reap(jl);
		inplace_reap();
		for (i = 0, ready = 0; i < jl->n; i++)
			if (joiners_of(c->ip, jl->job[i]) >=
			    joiner_ranks(c, nm, jl->job[i]))
				ready++;
		if (ready == want)
			break;
		/* The world's ranks are not told of the join: ending, they
		 * ended on their own (a training that finished meanwhile). */
		reap(l);
		if (l->running < l->n) {
			snprintf(why, wl, "ranks-%s",
				 all_finished(l) ? "finished" : "ended");
			kill_launch(jl);
			goto out;
		}
		if (jl->running < jl->n || got_stop || now_s() >= deadline) {
			snprintf(why, wl, "joiners-%s",
				 got_stop	       ? "stopped"
				 : jl->running < jl->n ? "ended"
						       : "not-ready");
			kill_launch(jl);
			goto out;
		}
	}
	ok = true;
out:
	free(jm);
	free(more);
	return ok;
}

/* Every rank of world wn (want of them) joined: true; else why not. */
static bool wait_joined(const struct config *c, struct launch *l, uint64_t wn,
			size_t want, char *why, size_t len)
{
	double deadline = now_s() + IP_JOINED_WAIT_S;
	const char *failed = NULL;
	size_t got;

	while ((got = joined(c->ip, wn, &failed)) < want) {
		inplace_serve(c, -1, POLL_MS);
		inplace_reap();
		reap(l);
		if (failed || l->running < l->n || got_stop ||
		    now_s() >= deadline) {
			snprintf(why, len, "%s joined=%zu/%zu",
				 failed && *failed   ? failed
				 : failed	     ? "a-rank-failed-to-join"
				 : l->running < l->n ? "ranks-ended"
				 : got_stop	     ? "stopped"
						     : "join-timeout",
				 got, want);
			return false;
		}
	}
	return true;
}

/* No resize in place, for why: the restart path, or nothing to do when
 * the ranks finished meanwhile (decide.h). */
static void not_resized(const struct config *c, unsigned restart,
			unsigned nnodes, const char *why, struct watch *w)
{
	if (!strcmp(why, "ranks-finished")) {
		timeline("unjoined", restart, nnodes, "path=in-place why=%s",
			 why);
		w->finished = true;
		return;
	}
	timeline("fallback", restart, nnodes, "path=restart why=%s", why);
	inplace_abandon(c, false);
	inplace_leavers_kill();
	snprintf(w->detail, sizeof(w->detail), "in-place-fallback=%s", why);
}

/*
 * The launcher saw w's cause while every rank uses the in-place API:
 * resize in place.  true when the ranks go on in the next world (ms and l
 * are that world's), false for the restart path (the ranks were told).
 */
bool inplace_resize(const struct config *c, struct source *src,
		    struct members *ms, struct launch *l, unsigned restart,
		    struct watch *w)
{
	struct members *nm = malloc(sizeof(*nm));
	struct launch *jl = calloc(1, sizeof(*jl));
	double t0 = now_s(), deadline;
	elastic_error_t err;
	struct diff d;
	char why[160] = "", lost[1024];
	const char *path;
	unsigned port;
	size_t want;
	bool ok = false, own;
	uint64_t wn;

	if (!nm || !jl)
		goto out;
	got_event = 0;
	timeline("event", restart, ms->nnodes, "cause=%s %s path=in-place",
		 w->cause, w->detail);
	ledger_event(w);
	/* A member's ranks ended (its node died): elasticd's next world
	 * waits the fault timeout for a replacement, and so do we. */
	if (src->ed_mode && !strcmp(w->cause, "member-exit"))
		src->degraded = true;
	if (w->lost_job)
		release_lost(c, src, ms, l, w, restart);
	own = own_world(c, src, ms, w, nm);
	if (!own &&
	    current_members(c, src, ms->generation, restart, nm, &err) != 0) {
		snprintf(why, sizeof(why), "no-world");
		goto out;
	}
	if (members_same(nm, ms) && l->running < l->n) {
		snprintf(why, sizeof(why), "ranks-ended");
		goto out;
	}
	if (members_same(nm, ms)) {
		ms->generation = nm->generation;
		timeline("unchanged", restart, ms->nnodes,
			 "path=in-place world=%llu",
			 (unsigned long long)c->ip->world);
		ok = true;
		goto out;
	}
	if (!diff_worlds(c, ms, l, nm, &d)) {
		snprintf(why, sizeof(why), "%s", d.why);
		goto out;
	}
	if (d.join) {
		/* Leavers are in a grace: they wait at most half of it. */
		deadline = now_s() + (d.leave && c->grace / 2 < IP_JOIN_WAIT_S
					  ? c->grace / 2
					  : IP_JOIN_WAIT_S);
		timeline("joining", restart, ms->nnodes,
			 "path=in-place joiners=%zu", d.join);
		if (!start_joiners(c, nm, l, restart, jl, deadline, why,
				   sizeof(why)))
			goto out;
	}
	port = fresh_port(c);
	if (publish(c, INPLACE_IN_PLACE, nm, port, d.src,
		    lost_addrs(w, lost, sizeof(lost))) < 0) {
		snprintf(why, sizeof(why), "publish-failed");
		goto out;
	}
	wn = c->ip->world;
	/* Spares in the places of members that left: a swap. */
	path =
	    d.join == d.leave && nm->nnodes == ms->nnodes ? "swap" : "in-place";
	timeline("resize", restart, nm->nnodes,
		 "path=%s world=%llu from=%u to=%u stay=%zu join=%zu "
		 "leave=%zu master=%s:%u generation=%llu source=%s",
		 path, (unsigned long long)wn, ms->nnodes, nm->nnodes, d.stay,
		 d.join, d.leave, nm->master_addr, port,
		 (unsigned long long)nm->generation,
		 own ? "launcher" : "elasticd");
	ledger_path(path);
	inplace_relaunch_table(c, l, nm, jl);
	*ms = *nm;
	want = (size_t)nm->nnodes * c->nproc_per_node;
	if (!wait_joined(c, l, wn, want, why, sizeof(why)))
		goto out;
	timeline("resized", restart, ms->nnodes,
		 "path=%s world=%llu ranks=%zu seconds=%.3f", path,
		 (unsigned long long)wn, want, now_s() - t0);
	c->ip->capable = wn;
	if (!own)
		report_up(c, src, ms);
	ok = true;
out:
	if (!ok)
		not_resized(c, restart, ms->nnodes, why, w);
	free(nm);
	free(jl);
	return ok;
}
