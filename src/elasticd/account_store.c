/* The groups' accounts in memory and on disk (account_store.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/filesave.h"
#include "account_store.h"

#define STORE_MAX      4096	 /* groups' accounts in memory */
#define STORE_FINALS   256	 /* finals not taken yet */
#define STORE_FILE_MAX (4 << 20) /* an account's file, bytes */

struct store_entry {
	struct account *a;
	bool final;	    /* its final report came */
	bool dirty;	    /* changed since written */
	int64_t written_ms; /* its last write, or 0 */
	uint64_t last_seq;  /* the last resize counted */
};

static struct {
	pthread_mutex_t lock;
	char dir[PATH_MAX]; /* "" = memory only */
	struct store_entry e[STORE_MAX];
	size_t n;
	struct account_hist hist;
	struct account_final finals[STORE_FINALS];
	size_t nfinals;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

int account_store_open(const char *state_dir, elastic_error_t *err)
{
	char dir[PATH_MAX];

	pthread_mutex_lock(&st.lock);
	st.dir[0] = '\0';
	pthread_mutex_unlock(&st.lock);
	if (!state_dir || !*state_dir)
		return 0;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/accounts", state_dir) >=
	    sizeof(dir))
		return elastic_errorf(err, "%s/accounts: path too long",
				      state_dir);
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return elastic_errorf(err, "%s: %s", dir, strerror(errno));
	pthread_mutex_lock(&st.lock);
	strcpy(st.dir, dir);
	pthread_mutex_unlock(&st.lock);
	return 0;
}

/* Under the lock. */
static struct store_entry *find(uint32_t id)
{
	for (size_t i = 0; i < st.n; i++)
		if (st.e[i].a->id == id)
			return &st.e[i];
	return NULL;
}

/* The account in dir/ID.json (never through a symlink), or NULL. */
static struct account *load_file(const char *dir, uint32_t id)
{
	char path[PATH_MAX + 32], *text = NULL;
	struct account *a = NULL;
	struct stat sb;
	elastic_error_t err;
	ssize_t got = 0;
	int fd;

	if (!*dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%u.json", dir, id);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_size < STORE_FILE_MAX &&
	    (text = malloc((size_t)sb.st_size + 1))) {
		got = read(fd, text, (size_t)sb.st_size);
		if (got == sb.st_size) {
			text[got] = '\0';
			a = account_parse(text, &err);
		}
	}
	free(text);
	close(fd);
	if (a && a->id != id) {
		account_destroy(a);
		a = NULL;
	}
	return a;
}

/* Under the lock: group g's entry, made (from its file after a restart
 * of elasticd, or new) when it has none. */
static struct store_entry *entry_for(const struct group_info *g,
				     const char **why)
{
	struct store_entry *e = find(g->base_job_id);
	struct account *a;

	if (e)
		return e;
	if (st.n == STORE_MAX) {
		*why = "too many groups' accounts kept: try again later";
		return NULL;
	}
	a = load_file(st.dir, g->base_job_id);
	if (!a)
		a = account_create(g->base_job_id, g->user_id, g->user,
				   g->account, g->partition);
	if (!a) {
		*why = "out of memory";
		return NULL;
	}
	e = &st.e[st.n++];
	memset(e, 0, sizeof(*e));
	e->a = a;
	for (size_t i = 0; i < a->nevents; i++)
		if (a->events[i].end && a->events[i].seq > e->last_seq)
			e->last_seq = a->events[i].seq;
	return e;
}

int account_store_report(const struct group_info *g,
			 const struct account_report *r, const char **why)
{
	struct store_entry *e;
	int rc = -1;

	pthread_mutex_lock(&st.lock);
	e = entry_for(g, why);
	if (e && account_apply(e->a, r) < 0)
		*why = "out of memory";
	else if (e) {
		rc = 0;
		e->dirty = true;
		/* A resize counts once, however often it is said. */
		if (r->resized && r->resize_seq > e->last_seq) {
			e->last_seq = r->resize_seq;
			account_hist_add(&st.hist, r->resize_kind,
					 r->resize_path, r->resize_ms);
		}
		if (r->final && !e->final && st.nfinals < STORE_FINALS) {
			struct account_final *f = &st.finals[st.nfinals++];

			f->id = e->a->id;
			account_summary(e->a, f->summary, sizeof(f->summary));
		}
		e->final = e->final || r->final;
	}
	pthread_mutex_unlock(&st.lock);
	return rc;
}

char *account_store_get(uint32_t id, bool live, uint32_t uid, bool admin)
{
	struct store_entry *e;
	struct account *a;
	char dir[PATH_MAX], *text = NULL;

	pthread_mutex_lock(&st.lock);
	e = find(id);
	if (e && (admin || e->a->uid == uid))
		text = account_render(e->a, e->final || !live);
	strcpy(dir, st.dir);
	pthread_mutex_unlock(&st.lock);
	if (e)
		return text;
	/* An ended group's, or one not reported since elasticd started. */
	a = load_file(dir, id);
	if (a && (admin || a->uid == uid))
		text = account_render(a, !live || a->last.phase ==
						      ACCTNAMES_PHASE_ENDED);
	account_destroy(a);
	return text;
}

static bool is_live(const struct elasticd_view *v, uint32_t id)
{
	for (size_t i = 0; v && i < v->ngroups; i++)
		if (v->groups[i].base_job_id == id)
			return v->groups[i].state != GROUP_ENDED;
	return false;
}

char *account_store_metrics(const struct elasticd_view *v)
{
	struct account **live = NULL;
	char *buf = NULL;
	size_t len = 0, n = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	pthread_mutex_lock(&st.lock);
	live = calloc(st.n + 1, sizeof(*live));
	for (size_t i = 0; live && i < st.n; i++)
		if (st.e[i].a->reported && is_live(v, st.e[i].a->id))
			live[n++] = st.e[i].a;
	if (live)
		account_metrics(f, live, n, &st.hist);
	pthread_mutex_unlock(&st.lock);
	free(live);
	if (fclose(f) || !live) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* One account to write: rendered under the lock, written outside. */
struct pending_write {
	uint32_t id;
	char *text;
};

/* Under the lock: the accounts due, into w[] (at most max). */
static size_t due(const struct elasticd_view *v, int64_t now_ms,
		  struct pending_write *w, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < st.n && n < max; i++) {
		struct store_entry *e = &st.e[i];
		bool live = is_live(v, e->a->id);

		if (!e->dirty || !*st.dir)
			continue;
		if (now_ms >= 0 && !e->final && live &&
		    now_ms - e->written_ms < ACCOUNT_WRITE_S * 1000)
			continue;
		w[n].id = e->a->id;
		w[n].text = account_render(e->a, e->final || !live);
		if (!w[n].text)
			continue;
		e->dirty = false;
		e->written_ms = now_ms;
		n++;
	}
	return n;
}

/* Under the lock: forget the accounts written whose group ended. */
/* Ended groups' accounts are served from their files; without a state
 * directory they stay in memory (elasticctl report of a job that just
 * ended) while the store is less than half full. */
#define STORE_ENDED_MAX (STORE_MAX / 2)

static void forget_ended(const struct elasticd_view *v)
{
	for (size_t i = 0; i < st.n;) {
		struct store_entry *e = &st.e[i];
		bool kept = *st.dir ? e->dirty : v && st.n <= STORE_ENDED_MAX;

		if (kept || is_live(v, e->a->id)) {
			i++;
			continue;
		}
		account_destroy(e->a);
		st.e[i] = st.e[--st.n];
	}
}

static int write_one(const char *dir, const struct pending_write *w,
		     elastic_error_t *err)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 40];

	snprintf(path, sizeof(path), "%s/%u.json", dir, w->id);
	snprintf(tmp, sizeof(tmp), "%s/.%u.json.new", dir, w->id);
	return file_save_atomic(path, tmp, 0600, w->text, strlen(w->text), err);
}

int account_store_flush(const struct elasticd_view *v, int64_t now_ms,
			elastic_error_t *err)
{
	static struct pending_write w[STORE_MAX];
	char dir[PATH_MAX];
	size_t n;
	int rc = 0;

	pthread_mutex_lock(&st.lock);
	n = due(v, now_ms, w, STORE_MAX);
	strcpy(dir, st.dir);
	pthread_mutex_unlock(&st.lock);
	for (size_t i = 0; i < n; i++) {
		elastic_error_t e1;

		if (write_one(dir, &w[i], &e1) < 0) {
			struct store_entry *e;

			if (!rc)
				*err = e1;
			rc = -1;
			pthread_mutex_lock(&st.lock);
			if ((e = find(w[i].id)))
				e->dirty = true;
			pthread_mutex_unlock(&st.lock);
		}
		free(w[i].text);
	}
	pthread_mutex_lock(&st.lock);
	forget_ended(v);
	pthread_mutex_unlock(&st.lock);
	return rc;
}

int account_store_close(elastic_error_t *err)
{
	int rc = account_store_flush(NULL, -1, err);

	pthread_mutex_lock(&st.lock);
	for (size_t i = 0; i < st.n; i++)
		account_destroy(st.e[i].a);
	st.n = 0;
	st.nfinals = 0;
	pthread_mutex_unlock(&st.lock);
	return rc;
}

size_t account_store_take_finals(struct account_final *out, size_t max)
{
	size_t n;

	pthread_mutex_lock(&st.lock);
	n = st.nfinals < max ? st.nfinals : max;
	memcpy(out, st.finals, n * sizeof(*out));
	memmove(st.finals, st.finals + n, (st.nfinals - n) * sizeof(*out));
	st.nfinals -= n;
	pthread_mutex_unlock(&st.lock);
	return n;
}

/* The files of dir that are accounts ("ID.json", regular): their names
 * and times, in growing arrays.  -1 when out of memory. */
struct listing {
	char (*name)[32];
	time_t *mtime;
	size_t n, cap;
};

static int list_accounts(DIR *d, struct listing *l)
{
	struct dirent *de;
	struct stat sb;

	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 6 || len >= 32 ||
		    strcmp(de->d_name + len - 5, ".json") ||
		    strspn(de->d_name, "0123456789") != len - 5 ||
		    fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 256;
			void *nm = realloc(l->name, cap * sizeof(*l->name));

			if (nm)
				l->name = nm;
			nm = nm ? realloc(l->mtime, cap * sizeof(*l->mtime))
				: NULL;
			if (!nm)
				return -1;
			l->mtime = nm;
			l->cap = cap;
		}
		strcpy(l->name[l->n], de->d_name);
		l->mtime[l->n++] = sb.st_mtime;
	}
	return 0;
}

long account_store_purge(time_t now, unsigned days, unsigned max_jobs,
			 elastic_error_t *err)
{
	struct listing l = { 0 };
	char dir[PATH_MAX];
	bool *remove = NULL;
	long removed = -1;
	DIR *d;

	pthread_mutex_lock(&st.lock);
	strcpy(dir, st.dir);
	pthread_mutex_unlock(&st.lock);
	if (!*dir)
		return 0;
	d = opendir(dir);
	if (!d)
		return elastic_errorf(err, "%s: %s", dir, strerror(errno));
	if (list_accounts(d, &l) < 0 ||
	    !(remove = calloc(l.n + 1, sizeof(*remove)))) {
		elastic_errorf(err, "%s: out of memory", dir);
		goto out;
	}
	account_purge_select(l.mtime, l.n, now, days, max_jobs, remove);
	removed = 0;
	for (size_t i = 0; i < l.n; i++)
		if (remove[i] && unlinkat(dirfd(d), l.name[i], 0) == 0)
			removed++;
out:
	closedir(d);
	free(l.name);
	free(l.mtime);
	free(remove);
	return removed;
}
