/*
 * elasticd's answers as text (elasticctl.h): the groups, a group and its
 * members, a group's events; and the aligned tables they and the
 * checkpoints listing print.  It only prints: no requests, no exit codes
 * (but out of memory, it exits).
 */
#include "config.h"

#include <stdarg.h>
#include <time.h>

#include "elasticctl.h"

/* JSON access that tolerates missing fields */

static json_object *field(json_object *o, const char *key)
{
	json_object *v = NULL;

	return (o && json_object_object_get_ex(o, key, &v)) ? v : NULL;
}

static const char *str(json_object *o, const char *key, const char *dflt)
{
	json_object *v = field(o, key);

	return (v && json_object_is_type(v, json_type_string))
		   ? json_object_get_string(v)
		   : dflt;
}

static long long num(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return v ? (long long)json_object_get_int64(v) : 0;
}

static size_t alen(json_object *o, const char *key)
{
	json_object *v = field(o, key);

	return (v && json_object_is_type(v, json_type_array))
		   ? json_object_array_length(v)
		   : 0;
}

static json_object *aget(json_object *o, const char *key, size_t i)
{
	return json_object_array_get_idx(field(o, key), i);
}

void ctl_table_add(struct table *t, ...)
{
	va_list ap;
	char **cells =
	    realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof(*cells));

	if (!cells) {
		elog_error("out of memory");
		exit(EXIT_FAIL);
	}
	t->cells = cells;
	va_start(ap, t);
	for (size_t i = 0; i < t->ncols; i++) {
		const char *s = va_arg(ap, const char *);

		cells[t->nrows * t->ncols + i] = strdup(s ? s : "-");
	}
	va_end(ap);
	t->nrows++;
}

void ctl_table_print(struct table *t, const char *indent)
{
	size_t w[MAX_COLS];

	for (size_t i = 0; i < t->ncols; i++) {
		w[i] = strlen(t->head[i]);
		for (size_t r = 0; r < t->nrows; r++) {
			const char *s = t->cells[r * t->ncols + i];
			size_t n = s ? strlen(s) : 0;

			if (n > w[i])
				w[i] = n;
		}
	}
	for (size_t r = 0; r <= t->nrows; r++) {
		fputs(indent, stdout);
		for (size_t i = 0; i < t->ncols; i++) {
			const char *s =
			    r ? t->cells[(r - 1) * t->ncols + i] : t->head[i];
			bool last = i + 1 == t->ncols;

			if (!s)
				s = "?";
			if (t->right[i])
				printf("%*s", (int)w[i], s);
			else
				printf("%-*s", last ? 0 : (int)w[i], s);
			fputs(last ? "\n" : "  ", stdout);
		}
	}
	for (size_t k = 0; k < t->nrows * t->ncols; k++)
		free(t->cells[k]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = 0;
}

static const char *fmt_num(char *buf, size_t len, long long v)
{
	snprintf(buf, len, "%lld", v);
	return buf;
}

/* The group's part of the groups' nodes, "50%"; "-" from an older
 * elasticd. */
static const char *fmt_share(char *buf, size_t len, json_object *g)
{
	json_object *s = field(g, "share");

	if (!s)
		return "-";
	snprintf(buf, len, "%.0f%%", 100.0 * json_object_get_double(s));
	return buf;
}

/* How long the group has waited to grow, "2m05s"; else what holds it
 * below its max ("cap", "time", "backoff", "partition"), or "-". */
static const char *fmt_wait(char *buf, size_t len, json_object *g)
{
	json_object *w = field(g, "growth_wait_seconds");
	const char *held = str(g, "held", NULL);
	long long s;

	if (!w || json_object_is_type(w, json_type_null))
		return held && strcmp(held, "nodes") ? held : "-";
	s = (long long)json_object_get_double(w);
	if (s >= 3600)
		snprintf(buf, len, "%lldh%02lldm", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%lldm%02llds", s / 60, s % 60);
	else
		snprintf(buf, len, "%llds", s);
	return buf;
}

/* "3 running, 1 pending": the members by state. */
static void members_summary(json_object *g, char *buf, size_t len)
{
	static const char *const states[] = { "running", "pending", "preempted",
					      "releasing" };
	size_t n = alen(g, "members"), used = 0;

	buf[0] = '\0';
	for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			k += !strcmp(str(aget(g, "members", i), "state", ""),
				     states[s]);
		if (k && used < len)
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%zu %s",
					     used ? ", " : "", k, states[s]);
	}
	if (!buf[0])
		snprintf(buf, len, "none");
	else if (num(g, "spares") > 0 && used < len)
		snprintf(buf + used, len - used, " (%lld spare)",
			 num(g, "spares"));
}

/* The launcher reported ranks slow to leave: say so under the group. */
static void print_grace_warning(json_object *g, const char *indent)
{
	json_object *w = field(g, "grace_warning"),
		    *s = field(g, "last_exit_seconds");

	if (!w || !json_object_get_boolean(w) || !s)
		return;
	/* Killed at the grace's end: most likely ranks deaf to the event,
	 * for which a longer grace only makes each resize longer. */
	if (json_object_get_double(s) >= (double)num(g, "grace"))
		printf("%sWARNING: group %lld: the ranks were still running "
		       "at the end of the %lld s grace and were killed: ranks "
		       "that do not watch the elastic event pay the whole "
		       "grace on each resize (elastic-run(1))\n",
		       indent, num(g, "id"), num(g, "grace"));
	else
		printf("%sWARNING: group %lld: the ranks took %.1f s of the "
		       "%lld s grace to checkpoint and exit: raise "
		       "--elastic-grace (or checkpoint faster)\n",
		       indent, num(g, "id"), json_object_get_double(s),
		       num(g, "grace"));
}

/* Its share of the groups' nodes, and whether it waits to grow: who is
 * held back, and why (elasticd(8), SHARING). */
static void print_share(json_object *g)
{
	static const struct {
		const char *held, *why;
	} whys[] = {
		{ "cap", "held at the site's cap on its owner (elastic.conf "
			 "UserMaxNodes, AccountMaxNodes, MaxNodes)" },
		{ "time", "its job has too little time left for a unit" },
		{ "backoff", "Slurm refused its units: asking again later" },
		{ "partition", "no partition for its units (elastic.conf "
			       "PreemptiblePartitions, BasePartitions)" },
	};
	const char *held = str(g, "held", NULL);
	char share[16], wait[24];

	if (!field(g, "share"))
		return;
	printf("  share: %s of the groups' nodes, weight %lld",
	       fmt_share(share, sizeof(share), g), num(g, "weight"));
	if (held && !strcmp(held, "nodes"))
		printf("; waiting %s to grow (a unit pending, no idle node "
		       "for it yet)",
		       fmt_wait(wait, sizeof(wait), g));
	for (size_t i = 0; held && i < sizeof(whys) / sizeof(whys[0]); i++)
		if (!strcmp(held, whys[i].held))
			printf("; below its max: %s", whys[i].why);
	printf("\n");
}

static void print_groups(json_object *d)
{
	struct table t = {
		.ncols = 11,
		.head = { "GROUP", "USER", "ACCOUNT", "STATE", "NODES", "MIN",
			  "MAX", "SHARE", "WAIT", "GEN", "MEMBERS" },
		.right = { true, false, false, false, true, true, true, true,
			   true, true, false },
	};
	size_t n = alen(d, "groups");

	if (n == 0) {
		printf("no elastic groups\n");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *g = aget(d, "groups", i);
		char id[24], nodes[24], min[24], max[24], gen[24], user[32];
		char members[128], share[16], wait[24];

		members_summary(g, members, sizeof(members));
		snprintf(user, sizeof(user), "%s",
			 str(g, "user", NULL) ? str(g, "user", NULL) : "");
		if (!*user)
			snprintf(user, sizeof(user), "%lld", num(g, "uid"));
		ctl_table_add(
		    &t, fmt_num(id, sizeof(id), num(g, "id")), user,
		    str(g, "account", "-"), str(g, "state", "?"),
		    fmt_num(nodes, sizeof(nodes), num(g, "world_nodes")),
		    fmt_num(min, sizeof(min), num(g, "min")),
		    fmt_num(max, sizeof(max), num(g, "max")),
		    fmt_share(share, sizeof(share), g),
		    fmt_wait(wait, sizeof(wait), g),
		    fmt_num(gen, sizeof(gen), num(g, "generation")), members);
	}
	ctl_table_print(&t, "");
	for (size_t i = 0; i < n; i++)
		print_grace_warning(aget(d, "groups", i), "");
}

static void print_group(json_object *g)
{
	struct table t = {
		.ncols = 6,
		.head = { "JOB", "KIND", "STATE", "NODES", "NODELIST",
			  "IN WORLD" },
		.right = { true, false, false, true, false, false },
	};
	const char *user = str(g, "user", NULL);
	size_t n = alen(g, "members");

	printf("group %lld: %s\n", num(g, "id"), str(g, "state", "?"));
	if (user)
		printf("  user %s", user);
	else
		printf("  uid %lld", num(g, "uid"));
	printf(", account %s\n", str(g, "account", "-"));
	printf("  world: %lld nodes (min %lld, max %lld), generation %lld, "
	       "master %s",
	       num(g, "world_nodes"), num(g, "min"), num(g, "max"),
	       num(g, "generation"), str(g, "master_addr", "-"));
	if (num(g, "spares") > 0)
		printf("; %lld spare unit%s beside it", num(g, "spares"),
		       num(g, "spares") == 1 ? "" : "s");
	printf("\n");
	print_share(g);
	print_grace_warning(g, "  ");
	if (n == 0)
		return;
	printf("\n");
	for (size_t i = 0; i < n; i++) {
		json_object *m = aget(g, "members", i);
		json_object *in = field(m, "in_world"),
			    *spare = field(m, "spare");
		char id[24], nodes[24];

		ctl_table_add(&t, fmt_num(id, sizeof(id), num(m, "job_id")),
			      str(m, "kind", "?"), str(m, "state", "?"),
			      fmt_num(nodes, sizeof(nodes), num(m, "nnodes")),
			      str(m, "nodes", "-"),
			      (in && json_object_get_boolean(in)) ? "yes"
			      : (spare && json_object_get_boolean(spare))
				  ? "spare"
				  : "no");
	}
	ctl_table_print(&t, "  ");
}

/* elasticd's UTC time ("2024-05-01T12:34:56.789Z") in local time, with
 * its offset; as is if it is not in that form. */
static void local_time(const char *s, char *buf, size_t len)
{
	struct tm tm = { 0 }, lt;
	int ms = 0, n = 0;
	time_t t;
	char off[8], day[32];

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ%n", &tm.tm_year, &tm.tm_mon,
		   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms,
		   &n) != 7 ||
	    s[n] != '\0') {
		snprintf(buf, len, "%s", s);
		return;
	}
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (t == (time_t)-1 || !localtime_r(&t, &lt) ||
	    !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &lt) ||
	    !strftime(off, sizeof(off), "%z", &lt) || strlen(off) != 5) {
		snprintf(buf, len, "%s", s);
		return;
	}
	snprintf(buf, len, "%s.%03d%.3s:%s", day, ms, off, off + 3);
}

static void print_events(json_object *d)
{
	struct table t = {
		.ncols = 5,
		.head = { "TIME", "CAUSE", "GEN", "NODES", "DETAIL" },
		.right = { false, false, true, true, false },
	};
	size_t n = alen(d, "events");

	if (n == 0) {
		printf("group %lld: no events yet\n", num(d, "id"));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *e = aget(d, "events", i);
		char when[64], gen[24], nodes[24];

		local_time(str(e, "time", "?"), when, sizeof(when));
		ctl_table_add(
		    &t, when, str(e, "cause", "?"),
		    fmt_num(gen, sizeof(gen), num(e, "generation")),
		    fmt_num(nodes, sizeof(nodes), num(e, "world_nodes")),
		    str(e, "detail", ""));
	}
	ctl_table_print(&t, "");
}

/* What elasticd answered to cmd: d, a JSON object. */
void ctl_render(enum command cmd, uint32_t job, json_object *d)
{
	switch (cmd) {
	case CMD_STATUS:
		if (job)
			print_group(d);
		else
			print_groups(d);
		break;
	case CMD_EVENTS:
		print_events(d);
		break;
	default:
		printf("group %lld: elastic event requested; elasticd raises "
		       "it at its next cycle\n",
		       num(d, "id"));
		break;
	}
}
