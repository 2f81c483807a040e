/* The accounts in Prometheus's text format (account.h).  Pure. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "account.h"

/* The buckets' upper bounds in ms; the last is +Inf. */
static const uint64_t bucket_ms[ACCOUNT_BUCKETS - 1] = {
	100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 120000, 300000,
};

void account_hist_add(struct account_hist *h, enum acctnames_kind kind,
		      enum acctnames_path path, uint64_t ms)
{
	size_t b = 0;

	if ((unsigned)kind >= ACCTNAMES_NKINDS ||
	    (unsigned)path >= ACCTNAMES_NPATHS)
		return;
	while (b < ACCOUNT_BUCKETS - 1 && ms > bucket_ms[b])
		b++;
	h->bucket[kind][path][b]++;
	h->ms_sum[kind][path] += ms;
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label's value, escaped as the format wants (\\, \", \n). */
static void label(FILE *f, const char *key, const char *v, bool comma)
{
	fprintf(f, "%s=\"", key);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fprintf(f, "\"%s", comma ? "," : "");
}

/* job_id, not "job": Prometheus gives every series the scrape job's
 * name in that label (a target's own "job" would become
 * "exported_job"). */
static void labels(FILE *f, const struct account *a)
{
	fprintf(f, "job_id=\"%u\",", a->id);
	label(f, "user", a->user[0] ? a->user : "?", true);
	label(f, "account", a->account, true);
	label(f, "partition", a->partition, false);
}

/* One gauge or counter of every live group. */
enum group_figure {
	FIG_HELD,
	FIG_GOODPUT,
	FIG_ETTR,
	FIG_STEPS,
	FIG_REDONE,
	FIGS
};

static void group_figures(FILE *f, struct account *const *live, size_t n)
{
	static const struct {
		const char *name, *type, *help;
	} fam[FIGS] = {
		{ "elasticd_group_held_nodes", "gauge",
		  "Nodes the group's launcher holds (its world's, spares' and "
		  "joining units')." },
		{ "elasticd_group_goodput_ratio", "gauge",
		  "Node-seconds training over node-seconds held." },
		{ "elasticd_group_ettr_ratio", "gauge",
		  "Wall time training over wall time held (effective training "
		  "time ratio)." },
		{ "elasticd_group_steps_total", "counter",
		  "The highest training step the group reached." },
		{ "elasticd_group_redone_steps_total", "counter",
		  "Training steps done again after a restart from a "
		  "checkpoint." },
	};

	for (int k = 0; k < FIGS; k++) {
		family(f, fam[k].name, fam[k].type, fam[k].help);
		for (size_t i = 0; i < n; i++) {
			const struct account_report *r = &live[i]->last;

			fprintf(f, "%s{", fam[k].name);
			labels(f, live[i]);
			if (k == FIG_GOODPUT || k == FIG_ETTR)
				fprintf(f, "} %.6f\n",
					k == FIG_GOODPUT ? account_goodput(r)
							 : account_ettr(r));
			else
				fprintf(f, "} %" PRIu64 "\n",
					k == FIG_HELD	 ? (uint64_t)r->held
					: k == FIG_STEPS ? r->steps
							 : r->redone);
		}
	}
}

static void histogram(FILE *f, const struct account_hist *h)
{
	family(f, "elasticd_resize_seconds", "histogram",
	       "Resizes from the event to the new world's first step, as the "
	       "launchers measured them, by kind and path.");
	for (unsigned k = 0; k < ACCTNAMES_NKINDS; k++) {
		for (unsigned p = 0; p < ACCTNAMES_NPATHS; p++) {
			const char *kn = acctnames_kind_name(k);
			const char *pn = acctnames_path_name(p);
			uint64_t sum = 0;

			for (size_t b = 0; b < ACCOUNT_BUCKETS; b++) {
				sum += h->bucket[k][p][b];
				if (b < ACCOUNT_BUCKETS - 1)
					fprintf(f,
						"elasticd_resize_seconds_bucket"
						"{kind=\"%s\",path=\"%s\","
						"le=\"%g\"} %" PRIu64 "\n",
						kn, pn,
						(double)bucket_ms[b] / 1000.0,
						sum);
				else
					fprintf(f,
						"elasticd_resize_seconds_bucket"
						"{kind=\"%s\",path=\"%s\","
						"le=\"+Inf\"} %" PRIu64 "\n",
						kn, pn, sum);
			}
			fprintf(f,
				"elasticd_resize_seconds_sum{kind=\"%s\","
				"path=\"%s\"} %.3f\n",
				kn, pn, (double)h->ms_sum[k][p] / 1000.0);
			fprintf(f,
				"elasticd_resize_seconds_count{kind=\"%s\","
				"path=\"%s\"} %" PRIu64 "\n",
				kn, pn, sum);
		}
	}
}

void account_metrics(FILE *f, struct account *const *live, size_t n,
		     const struct account_hist *h)
{
	family(f, "elasticd_group_node_seconds_total", "counter",
	       "Node-seconds the group held, by where they went (training, "
	       "or what was lost: waiting, resizes by path, detection, work "
	       "redone, checkpoints, nodes outside the world).");
	for (size_t i = 0; i < n; i++) {
		for (unsigned c = 0; c < ACCTNAMES_NCAUSES; c++) {
			fprintf(f, "elasticd_group_node_seconds_total{");
			labels(f, live[i]);
			fprintf(f, ",cause=\"%s\"} %.3f\n",
				acctnames_cause_name(c),
				(double)live[i]->last.nms[c] / 1000.0);
		}
	}
	group_figures(f, live, n);
	histogram(f, h);
}
