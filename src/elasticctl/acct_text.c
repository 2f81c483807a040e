/*
 * A job's accounting as text (acct.h, elasticctl(1) report): who and
 * when, goodput and ETTR, the node-hours held by cause, training by world
 * size, the steps, the events and the resizes by kind and path.  Pure:
 * it returns the text, elasticctl prints it.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acct.h"
#include "textbuf.h"

/* "42s", "2m30s", "3h05m", "2d03h". */
static const char *acct_text_duration(char *buf, size_t len, double s)
{
	long long v = s > 0 ? (long long)llround(s) : 0;

	if (v < 60)
		snprintf(buf, len, "%llds", v);
	else if (v < 3600)
		snprintf(buf, len, "%lldm%02llds", v / 60, v % 60);
	else if (v < 86400)
		snprintf(buf, len, "%lldh%02lldm", v / 3600, v / 60 % 60);
	else
		snprintf(buf, len, "%lldd%02lldh", v / 86400, v / 3600 % 24);
	return buf;
}

/* "2025-12-01 23:10:00 UTC", or "?" for none. */
static const char *acct_text_when(char *buf, size_t len, double t)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&s, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(buf, len, "?");
	return buf;
}

/* "87.5%" of whole, "-" when whole is 0. */
static const char *acct_text_share(char *buf, size_t len, double part,
				   double whole)
{
	if (whole > 0)
		snprintf(buf, len, "%.1f%%", 100.0 * part / whole);
	else
		snprintf(buf, len, "-");
	return buf;
}

static int acct_text_by_seconds(const void *x, const void *y)
{
	double p = *(const double *)x, q = *(const double *)y;

	return (p > q) - (p < q);
}

/* The pair kind, path in out[0..n): its index, or n. */
static int acct_text_pair(const struct acct_resize_stat *out, int n,
			  const struct acct_event *e)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(out[i].kind, e->kind) &&
		    !strcmp(out[i].path, e->path))
			break;
	return i;
}

int acct_text_resizes(const struct acct *a, struct acct_resize_stat *out)
{
	double *s = a->nevents ? malloc(a->nevents * sizeof(*s)) : NULL;
	int n = 0;

	if (a->nevents && !s)
		return -1;
	for (size_t i = 0; i < a->nevents; i++) {
		const struct acct_event *e = &a->events[i];
		int k = acct_text_pair(out, n, e);

		if (!e->path[0] || k < n)
			continue;
		/* A pair seen for the first time: all its resizes. */
		out[n] = (struct acct_resize_stat){ .kind = e->kind,
						    .path = e->path };
		for (size_t j = i; j < a->nevents; j++)
			if (a->events[j].path[0] &&
			    !strcmp(a->events[j].kind, e->kind) &&
			    !strcmp(a->events[j].path, e->path))
				s[out[n].count++] = a->events[j].seconds;
		qsort(s, out[n].count, sizeof(*s), acct_text_by_seconds);
		out[n].max_s = s[out[n].count - 1];
		out[n].median_s =
		    out[n].count % 2
			? s[out[n].count / 2]
			: (s[out[n].count / 2 - 1] + s[out[n].count / 2]) / 2;
		n++;
	}
	free(s);
	return n;
}

/* Who, when, how long; goodput and ETTR. */
static void acct_text_head(struct textbuf *b, const struct acct *a)
{
	char t1[64], t2[64], d1[32], d2[32];

	textbuf_printf(b, "job %u", a->id);
	if (a->user[0])
		textbuf_printf(b, " of %s", a->user);
	if (a->account[0] || a->partition[0])
		textbuf_printf(b, " (account %s, partition %s)",
			       a->account[0] ? a->account : "-",
			       a->partition[0] ? a->partition : "-");
	if (a->ended)
		textbuf_printf(b, ": ended\n");
	else
		textbuf_printf(b, ": running, %s, world %u of %u nodes held\n",
			       a->phase[0] ? a->phase : "?", a->world, a->held);
	textbuf_printf(b, "started %s, %s %s\n",
		       acct_text_when(t1, sizeof(t1), a->start),
		       a->ended ? "ended" : "updated",
		       acct_text_when(t2, sizeof(t2), a->updated));
	textbuf_printf(b, "held %s, of it training %s\n",
		       acct_text_duration(d1, sizeof(d1), a->wall_s),
		       acct_text_duration(d2, sizeof(d2), a->train_wall_s));
	textbuf_printf(b,
		       "goodput %.3f (node-time trained / held), "
		       "ETTR %.3f (time trained / held)\n",
		       a->goodput, a->ettr);
}

static void acct_text_cause_row(struct textbuf *b, const char *name, double s,
				double held)
{
	char share[16];

	textbuf_printf(b, "%-18s %10.3f %7s\n", name, s / 3600.0,
		       acct_text_share(share, sizeof(share), s, held));
}

/* Node-hours held, training, lost by cause; whether they add up. */
static void acct_text_causes(struct textbuf *b, const struct acct *a)
{
	double lost = acct_lost_s(a), off;
	char name[40];

	textbuf_printf(b, "\n%-18s %10s %7s\n", "", "node-hours", "share");
	acct_text_cause_row(b, "held", a->held_s, a->held_s);
	acct_text_cause_row(b, "training", a->cause_s[ACCTNAMES_CAUSE_TRAINING],
			    a->held_s);
	acct_text_cause_row(b, "lost", lost, a->held_s);
	for (int c = 0; c < ACCTNAMES_NCAUSES; c++) {
		if (c == ACCTNAMES_CAUSE_TRAINING)
			continue;
		snprintf(name, sizeof(name), "  %s", acctnames_cause_name(c));
		acct_text_cause_row(b, name, a->cause_s[c], a->held_s);
	}
	if (acct_adds_up(a, &off))
		textbuf_printf(b,
			       "held = training + lost: %.1f = %.1f + %.1f "
			       "node-seconds: adds up\n",
			       a->held_s, a->cause_s[ACCTNAMES_CAUSE_TRAINING],
			       lost);
	else
		textbuf_printf(b,
			       "held = training + lost: %.1f != %.1f + %.1f "
			       "node-seconds: does NOT add up (off by %.1f)\n",
			       a->held_s, a->cause_s[ACCTNAMES_CAUSE_TRAINING],
			       lost, off);
}

/* Training at each world size; the steps. */
static void acct_text_worlds(struct textbuf *b, const struct acct *a)
{
	char wall[32], share[16];

	if (a->nat) {
		textbuf_printf(b, "\n%-6s %10s %8s %7s\n", "world",
			       "node-hours", "time", "share");
		for (size_t i = 0; i < a->nat; i++)
			textbuf_printf(
			    b, "%-6u %10.3f %8s %7s\n", a->at[i].world,
			    a->at[i].node_s / 3600.0,
			    acct_text_duration(wall, sizeof(wall),
					       a->at[i].node_s /
						   a->at[i].world),
			    acct_text_share(
				share, sizeof(share), a->at[i].node_s,
				a->cause_s[ACCTNAMES_CAUSE_TRAINING]));
	}
	textbuf_printf(b, "\nsteps %llu done, %llu redone\n",
		       (unsigned long long)a->steps,
		       (unsigned long long)a->redone);
}

/* The events by kind, in the order each kind first appears. */
static void acct_text_events(struct textbuf *b, const struct acct *a)
{
	size_t shown = 0;

	textbuf_printf(b, "events");
	for (size_t i = 0; i < a->nevents; i++) {
		size_t n = 0, j;

		if (a->events[i].path[0])
			continue;
		for (j = 0; j < i; j++)
			if (!a->events[j].path[0] &&
			    !strcmp(a->events[j].kind, a->events[i].kind))
				break;
		if (j < i)
			continue;
		for (j = i; j < a->nevents; j++)
			n += !a->events[j].path[0] &&
			     !strcmp(a->events[j].kind, a->events[i].kind);
		textbuf_printf(b, "%s %s %zu", shown++ ? "," : "",
			       a->events[i].kind, n);
	}
	textbuf_printf(b, "%s\n", shown ? "" : " none");
}

/* The resizes by kind and path: 0, or -1 if out of memory. */
static int acct_text_resize_table(struct textbuf *b, const struct acct *a)
{
	struct acct_resize_stat *r =
	    a->nevents ? calloc(a->nevents, sizeof(*r)) : NULL;
	int n = a->nevents && !r ? -1 : acct_text_resizes(a, r);
	size_t total = 0;

	if (n < 0) {
		free(r);
		return -1;
	}
	for (int i = 0; i < n; i++)
		total += r[i].count;
	textbuf_printf(b, "resizes %zu\n", total);
	if (n)
		textbuf_printf(b, "%-12s %-8s %5s %9s %9s\n", "kind", "path",
			       "count", "median s", "max s");
	for (int i = 0; i < n; i++)
		textbuf_printf(b, "%-12s %-8s %5zu %9.2f %9.2f\n", r[i].kind,
			       r[i].path, r[i].count, r[i].median_s,
			       r[i].max_s);
	free(r);
	return 0;
}

char *acct_text(const struct acct *a)
{
	struct textbuf b = { 0 };

	acct_text_head(&b, a);
	acct_text_causes(&b, a);
	acct_text_worlds(&b, a);
	acct_text_events(&b, a);
	if (acct_text_resize_table(&b, a)) {
		free(textbuf_take(&b));
		return NULL;
	}
	return textbuf_take(&b);
}
