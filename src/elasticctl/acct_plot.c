/*
 * A job's accounting as a picture (acct.h, elasticctl(1) report): the
 * series as gnuplot data and the gnuplot script that draws it to PNG and
 * SVG.  Pure: elasticctl writes them to a directory and runs gnuplot.
 * Only numbers and the document's words (kinds, checked by acct.c) reach
 * the script.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "acct.h"
#include "textbuf.h"

/* Each event kind's colours: its line and label, its resize's band.  A
 * kind without (a later elasticd's) is drawn in the others' grey. */
static const struct {
	const char *line, *band;
} acct_plot_kinds[ACCTNAMES_NKINDS] = {
	[ACCTNAMES_KIND_GROWTH] = { "#2e7d32", "#e3f1e4" },
	[ACCTNAMES_KIND_PREEMPTION] = { "#ef6c00", "#fdebd9" },
	[ACCTNAMES_KIND_CRASH] = { "#c62828", "#f9e0e0" },
	[ACCTNAMES_KIND_HANG] = { "#6a1b9a", "#eee2f3" },
	[ACCTNAMES_KIND_STRAGGLER] = { "#8d6e63", "#f1ece9" },
	[ACCTNAMES_KIND_SPARE_SWAP] = { "#1565c0", "#e0eaf6" },
	[ACCTNAMES_KIND_SHRINK] = { "#546e7a", "#e8ecee" },
};
#define OTHER_LINE "#424242"
#define OTHER_BAND "#eeeeee"

/* The picture's size in pixels. */
#define WIDTH  1280
#define HEIGHT 720

/* Seconds between an event and the end of its resize that the end may
 * be early by and still be that event's (the two reports' delays). */
#define MATCH_SLACK_S 2.0

/* The time axis: seconds since the start, in a unit that suits. */
struct acct_plot_axis {
	double origin; /* unix seconds at 0 */
	double unit;   /* seconds per unit */
	const char *name;
	double max; /* the axis' end, in units */
};

static struct acct_plot_axis acct_plot_time(const struct acct *a)
{
	struct acct_plot_axis x = { 0 };
	double end = a->updated;

	x.origin = a->start > 0 ? a->start
		   : a->nseries ? a->series[0].t
		   : a->nevents ? a->events[0].t
				: 0;
	for (size_t i = 0; i < a->nseries; i++)
		end = fmax(end, a->series[i].t);
	for (size_t i = 0; i < a->nevents; i++)
		end = fmax(end, a->events[i].t);
	end -= x.origin;
	if (end <= 1200)
		x.unit = 1, x.name = "s";
	else if (end <= 18000)
		x.unit = 60, x.name = "min";
	else if (end <= 864000)
		x.unit = 3600, x.name = "h";
	else
		x.unit = 86400, x.name = "days";
	x.max = end > 0 ? end / x.unit : 1;
	return x;
}

/* Unix seconds t on the axis, never before its start. */
static double acct_plot_x(const struct acct_plot_axis *x, double t)
{
	return t > x->origin ? (t - x->origin) / x->unit : 0;
}

/* Steps per second from series point i - 1 to i (0 for the first). */
static double acct_plot_rate(const struct acct *a, size_t i)
{
	const struct acct_point *p = &a->series[i], *q = p - 1;

	if (!i || p->t <= q->t || p->steps < q->steps)
		return 0;
	return (double)(p->steps - q->steps) / (p->t - q->t);
}

/* The highest rate, 1 if none. */
static double acct_plot_top_rate(const struct acct *a)
{
	double top = 0;

	for (size_t i = 0; i < a->nseries; i++)
		top = fmax(top, acct_plot_rate(a, i));
	return top > 0 ? top : 1;
}

char *acct_plot_data(const struct acct *a)
{
	struct acct_plot_axis x = acct_plot_time(a);
	struct textbuf b = { 0 };

	textbuf_printf(&b,
		       "# job %u: time (%s), world, held, steps, "
		       "steps/s since the point before\n",
		       a->id, x.name);
	for (size_t i = 0; i < a->nseries; i++) {
		const struct acct_point *p = &a->series[i];

		textbuf_printf(&b, "%.6f %u %u %llu %.6f\n",
			       acct_plot_x(&x, p->t), p->world, p->held,
			       (unsigned long long)p->steps,
			       acct_plot_rate(a, i));
	}
	return textbuf_take(&b);
}

static const char *acct_plot_line(const char *kind)
{
	int k = acctnames_kind_find(kind);

	return k >= 0 && acct_plot_kinds[k].line ? acct_plot_kinds[k].line
						 : OTHER_LINE;
}

static const char *acct_plot_band(const char *kind)
{
	int k = acctnames_kind_find(kind);

	return k >= 0 && acct_plot_kinds[k].band ? acct_plot_kinds[k].band
						 : OTHER_BAND;
}

/* An event of kind at time t: a vertical line, its kind beside it. */
static void acct_plot_mark(struct textbuf *b, const struct acct_plot_axis *x,
			   const char *kind, double t)
{
	double at = acct_plot_x(x, t);
	const char *c = acct_plot_line(kind);

	textbuf_printf(b,
		       "set arrow from first %.6f, graph 0 to first %.6f, "
		       "graph 1 nohead front lw 1.5 dt 2 lc rgb \"%s\"\n",
		       at, at, c);
	textbuf_printf(b,
		       "set label \"%s\" at first %.6f, graph 0.98 rotate by "
		       "90 right front offset character -1, 0 "
		       "tc rgb \"%s\"\n",
		       kind, at, c);
}

/* Has the resize that ended with e an event's start in the document? */
static bool acct_plot_started(const struct acct *a, const struct acct_event *e)
{
	for (size_t i = 0; i < a->nevents; i++) {
		const struct acct_event *s = &a->events[i];

		if (!s->path[0] && !strcmp(s->kind, e->kind) && s->t <= e->t &&
		    s->t >= e->t - e->seconds - MATCH_SLACK_S)
			return true;
	}
	return false;
}

/* Each event's mark; each resize's band from its event to its first
 * step, and the mark of its event when the document lost it. */
static void acct_plot_events(struct textbuf *b, const struct acct *a,
			     const struct acct_plot_axis *x)
{
	for (size_t i = 0; i < a->nevents; i++) {
		const struct acct_event *e = &a->events[i];

		if (!e->path[0]) {
			acct_plot_mark(b, x, e->kind, e->t);
			continue;
		}
		textbuf_printf(b,
			       "set object rect from first %.6f, graph 0 to "
			       "first %.6f, graph 1 behind fillcolor rgb "
			       "\"%s\" fillstyle solid 1.0 noborder\n",
			       acct_plot_x(x, e->t - e->seconds),
			       acct_plot_x(x, e->t), acct_plot_band(e->kind));
		if (!acct_plot_started(a, e))
			acct_plot_mark(b, x, e->kind, e->t - e->seconds);
	}
}

/* The title, axes and key. */
static void acct_plot_frame(struct textbuf *b, const struct acct *a,
			    const struct acct_plot_axis *x)
{
	uint32_t top = a->held > a->world ? a->held : a->world;

	for (size_t i = 0; i < a->nseries; i++) {
		if (a->series[i].held > top)
			top = a->series[i].held;
		if (a->series[i].world > top)
			top = a->series[i].world;
	}
	textbuf_printf(b,
		       "set title \"job %u: goodput %.3f, ETTR %.3f, "
		       "%llu steps (%llu redone)%s\"\n",
		       a->id, a->goodput, a->ettr, (unsigned long long)a->steps,
		       (unsigned long long)a->redone,
		       a->ended ? ", ended" : ", running");
	textbuf_printf(b, "set xlabel \"time since the job's start (%s)\"\n",
		       x->name);
	textbuf_printf(b, "set xrange [0:%.6f]\n", x->max);
	textbuf_printf(b, "set ylabel \"nodes\"\n"
			  "set y2label \"steps/s\"\n"
			  "set ytics nomirror\n"
			  "set y2tics\n"
			  "set grid xtics ytics\n"
			  "set key outside top center horizontal\n");
	/* Room above the curves for the events' labels. */
	textbuf_printf(b, "set yrange [0:%.1f]\n", top * 1.4 + 1);
	if (top <= 16)
		textbuf_printf(b, "set ytics 1\n");
	textbuf_printf(b, "set y2range [0:%.6g]\n",
		       acct_plot_top_rate(a) * 1.4);
}

static void acct_plot_plot(struct textbuf *b)
{
	textbuf_printf(b,
		       "plot \"" ACCT_PLOT_DATA "\" using 1:3 with steps "
		       "lw 2 dt 2 lc rgb \"#8c8c8c\" title \"held nodes\", \\\n"
		       "  \"\" using 1:2 with steps lw 2.5 lc rgb \"#0d2a5c\" "
		       "title \"world size\", \\\n"
		       "  \"\" using 1:5 axes x1y2 with fsteps lw 1.2 "
		       "lc rgb \"#ad1457\" title \"steps/s\"\n");
}

char *acct_plot_script(const struct acct *a, bool png, bool svg)
{
	struct acct_plot_axis x = acct_plot_time(a);
	struct textbuf b = { 0 };

	textbuf_printf(&b, "# elasticctl report: job %u\n", a->id);
	acct_plot_frame(&b, a, &x);
	acct_plot_events(&b, a, &x);
	if (png) {
		textbuf_printf(
		    &b,
		    "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		    "  set terminal pngcairo size %d,%d noenhanced "
		    "font \"sans,10\"\n"
		    "} else {\n"
		    "  set terminal png size %d,%d noenhanced\n"
		    "}\n"
		    "set output \"" ACCT_PLOT_PNG "\"\n",
		    WIDTH, HEIGHT, WIDTH, HEIGHT);
		acct_plot_plot(&b);
		textbuf_printf(&b, "set output\n");
	}
	if (svg) {
		textbuf_printf(&b,
			       "set terminal svg size %d,%d noenhanced "
			       "font \"sans,10\" background \"white\"\n"
			       "set output \"" ACCT_PLOT_SVG "\"\n",
			       WIDTH, HEIGHT);
		acct_plot_plot(&b);
		textbuf_printf(&b, "set output\n");
	}
	return textbuf_take(&b);
}
