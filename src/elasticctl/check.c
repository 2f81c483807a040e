/*
 * elasticctl check (check.h): the findings, and the checks of slurmctld,
 * elastic.conf, the names it gives Slurm, job_submit and the preemption
 * signal.  Pure: no Slurm call, no file, no output.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/error.h"
#include "check.h"

static const char *const area_names[CHECK_NAREAS] = {
	[CHECK_SLURMCTLD] = "slurmctld",
	[CHECK_ELASTIC_CONF] = "elastic.conf",
	[CHECK_PARTITIONS] = "partitions",
	[CHECK_PREEMPTION] = "preemption",
	[CHECK_GRACE] = "grace",
	[CHECK_SIGNAL] = "signal",
	[CHECK_JOB_SUBMIT] = "job_submit",
	[CHECK_PLUGSTACK] = "plugstack",
	[CHECK_ELASTICD] = "elasticd",
	[CHECK_CLOCK] = "clock",
	[CHECK_MUNGE] = "munge",
	[CHECK_NODE] = "node",
};

const char *check_area_name(enum check_area a)
{
	return (unsigned)a < CHECK_NAREAS ? area_names[a] : "?";
}

int check_area_parse(const char *name, enum check_area *ret)
{
	for (unsigned a = 0; a < CHECK_NAREAS; a++)
		if (!strcmp(name, area_names[a])) {
			*ret = (enum check_area)a;
			return 0;
		}
	return -1;
}

static const char *const mode_names[] = {
	[CHECK_MODE_INHERIT] = "(the cluster's)",
	[CHECK_MODE_OFF] = "OFF",
	[CHECK_MODE_SUSPEND] = "SUSPEND",
	[CHECK_MODE_REQUEUE] = "REQUEUE",
	[CHECK_MODE_CANCEL] = "CANCEL",
};

const char *check_mode_name(enum check_mode m)
{
	return (unsigned)m <= CHECK_MODE_CANCEL ? mode_names[m] : "?";
}

void check_findings_free(struct check_findings *out)
{
	free(out->f);
	out->f = NULL;
	out->n = out->cap = 0;
}

void check_say(char *buf, size_t len, const char *fmt, ...)
{
	char raw[CHECK_TEXT_MAX * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Names and texts come from files and daemons: one line each. */
	elastic_escape(buf, len, raw);
}

void check_copy(char *dst, size_t len, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= len)
		n = len - 1;
	if (n)
		memcpy(dst, src, n);
	dst[n] = '\0';
}

void check_text(struct check_finding *f, const char *problem, const char *fix)
{
	check_copy(f->problem, sizeof(f->problem), problem);
	check_copy(f->fix, sizeof(f->fix), fix);
}

struct check_finding *check_add(struct check_findings *out,
				enum check_area area, const char *fmt, ...)
{
	struct check_finding *f;
	char raw[CHECK_SUBJECT_MAX];
	va_list ap;

	if (out->n == out->cap) {
		size_t cap = out->cap ? 2 * out->cap : 16;

		f = realloc(out->f, cap * sizeof(*f));
		if (!f) {
			out->oom = true;
			return NULL;
		}
		out->f = f;
		out->cap = cap;
	}
	f = &out->f[out->n++];
	memset(f, 0, sizeof(*f));
	f->area = area;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	elastic_escape(f->subject, sizeof(f->subject), raw);
	return f;
}

bool check_need_slurm(const struct check_site *s, struct check_findings *out,
		      enum check_area a)
{
	if (s->slurm.error) {
		if (!out->skipped[0])
			snprintf(out->skipped, sizeof(out->skipped),
				 "slurmctld did not answer");
		return false;
	}
	out->ran |= 1u << a;
	return true;
}

bool check_need_policy(const struct check_site *s, struct check_findings *out,
		       enum check_area a)
{
	if (!s->policy) {
		if (!out->skipped[0])
			snprintf(out->skipped, sizeof(out->skipped),
				 "elastic.conf is not valid");
		return false;
	}
	return check_need_slurm(s, out, a);
}

void check_slurmctld(const struct check_site *s, struct check_findings *out)
{
	struct check_finding *f;

	out->ran |= 1u << CHECK_SLURMCTLD;
	if (!s->slurm.error ||
	    !(f = check_add(out, CHECK_SLURMCTLD, "slurmctld")))
		return;
	check_say(f->problem, sizeof(f->problem),
		  "cannot read slurm.conf from it: %s", s->slurm.error);
	check_say(f->fix, sizeof(f->fix),
		  "start slurmctld, or set SLURM_CONF to this cluster's "
		  "slurm.conf; the checks of Slurm's settings wait for it");
}

void check_policy(const struct check_site *s, struct check_findings *out)
{
	struct check_finding *f;

	out->ran |= 1u << CHECK_ELASTIC_CONF;
	if (s->policy ||
	    !(f = check_add(out, CHECK_ELASTIC_CONF, "%s", s->policy_path)))
		return;
	check_say(f->problem, sizeof(f->problem),
		  "%s: job_submit/elastic refuses every elastic job while it "
		  "is so",
		  s->policy_error ? s->policy_error : "not valid");
	check_say(f->fix, sizeof(f->fix),
		  "correct it (elastic.conf(5)); the same file on the "
		  "controller and every node");
}

const struct check_partition *check_find_partition(const struct check_slurm *s,
						   const char *name)
{
	for (size_t i = 0; i < s->nparts; i++)
		if (!strcmp(s->parts[i].name, name))
			return &s->parts[i];
	return NULL;
}

const struct check_qos *check_find_qos(const struct check_slurm *s,
				       const char *name)
{
	/* Slurm's database keeps QOS names in lower case. */
	for (size_t i = 0; i < s->nqos; i++)
		if (!strcasecmp(s->qos[i].name, name))
			return &s->qos[i];
	return NULL;
}

/* "a, b, c" of the partitions (qos false) or QOS, cut short with "..."
 * to fit len (at least 8) bytes. */
static void join_names(const struct check_slurm *s, bool qos, char *buf,
		       size_t len)
{
	size_t n = qos ? s->nqos : s->nparts, used = 0;

	snprintf(buf, len, "none");
	for (size_t i = 0; i < n; i++) {
		const char *name = qos ? s->qos[i].name : s->parts[i].name;
		const char *sep = i ? ", " : "";

		if (used + strlen(sep) + strlen(name) + 6 > len) {
			snprintf(buf + used, len - used, "%s...", sep);
			return;
		}
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%s", sep, name);
	}
}

static void missing_partition(const struct check_site *s,
			      struct check_findings *out, const char *key,
			      const char *name)
{
	char names[256];
	struct check_finding *f;

	if (check_find_partition(&s->slurm, name) ||
	    !(f = check_add(out, CHECK_PARTITIONS, "%s=%s", key, name)))
		return;
	join_names(&s->slurm, false, names, sizeof(names));
	check_say(f->problem, sizeof(f->problem),
		  "no such partition in slurm.conf (partitions: %s)", names);
	check_say(f->fix, sizeof(f->fix),
		  "name a partition of slurm.conf in %s, or add "
		  "PartitionName=%s to slurm.conf",
		  key, name);
}

static void missing_qos(const struct check_site *s, struct check_findings *out,
			const char *key, const char *name)
{
	struct check_finding *f;
	char names[256];

	if (!name[0] || (s->slurm.qos_read && check_find_qos(&s->slurm, name)))
		return;
	if (!(f = check_add(out, CHECK_PARTITIONS, "%s=%s", key, name)))
		return;
	if (!s->slurm.qos_read) {
		check_say(f->problem, sizeof(f->problem),
			  "cannot tell whether the QOS exists: %s",
			  s->slurm.qos_error ? s->slurm.qos_error
					     : "Slurm's QOS were not read");
		check_say(f->fix, sizeof(f->fix),
			  "let this user read Slurm's QOS (slurmdbd running, "
			  "PrivateData without qos), then check again");
		return;
	}
	join_names(&s->slurm, true, names, sizeof(names));
	check_say(f->problem, sizeof(f->problem),
		  "no such QOS in Slurm's database (QOS: %s): units or bases "
		  "submitted with it are refused",
		  names);
	check_say(f->fix, sizeof(f->fix),
		  "name an existing QOS in %s, or create it (sacctmgr add qos "
		  "%s)",
		  key, name);
}

static void missing_list(const struct check_site *s, struct check_findings *out,
			 const char *key, const struct policy_list *l)
{
	for (unsigned i = 0; i < l->n; i++)
		missing_partition(s, out, key, l->name[i]);
}

/* The partitions and QOS elastic.conf names exist; units have somewhere
 * to go. */
void check_names(const struct check_site *s, struct check_findings *out)
{
	const struct elastic_policy *p = s->policy;
	struct check_finding *f;

	if (!check_need_policy(s, out, CHECK_PARTITIONS))
		return;
	missing_list(s, out, "BasePartitions", &p->base_partitions);
	missing_list(s, out, "PreemptiblePartitions",
		     &p->preemptible_partitions);
	missing_list(s, out, "OnDemandPartitions", &p->ondemand_partitions);
	missing_list(s, out, "SparePartitions", &p->spare_partitions);
	if (p->eval_partition[0])
		missing_partition(s, out, "EvalPartition", p->eval_partition);
	missing_qos(s, out, "BaseQOS", p->base_qos);
	missing_qos(s, out, "PreemptibleQOS", p->preemptible_qos);
	missing_qos(s, out, "OnDemandQOS", p->ondemand_qos);
	missing_qos(s, out, "SpareQOS", p->spare_qos);
	if (p->preemptible_partitions.n ||
	    !(f = check_add(out, CHECK_PARTITIONS, "PreemptiblePartitions")))
		return;
	check_say(f->problem, sizeof(f->problem),
		  "empty in %s: elasticd submits no unit jobs, so every group "
		  "runs at its --elastic-min and never grows",
		  s->policy_path);
	check_say(f->fix, sizeof(f->fix),
		  "set PreemptiblePartitions to partitions Slurm may preempt "
		  "(PreemptMode=REQUEUE, a GraceTime)");
}

/* Is name in Slurm's comma-separated plugin list, as "name" or
 * "type/name"? */
static bool plugin_listed(const char *list, const char *type, const char *name)
{
	size_t tlen = strlen(type), nlen = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		const char *w = p, *end = p + len;

		while (w < end && (*w == ' ' || *w == '\t'))
			w++;
		while (end > w && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if ((size_t)(end - w) > tlen && !strncmp(w, type, tlen) &&
		    w[tlen] == '/')
			w += tlen + 1;
		if ((size_t)(end - w) == nlen && !strncmp(w, name, nlen))
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

void check_job_submit(const struct check_site *s, struct check_findings *out)
{
	const char *list = s->slurm.job_submit_plugins;
	struct check_finding *f;

	if (!check_need_slurm(s, out, CHECK_JOB_SUBMIT) ||
	    plugin_listed(list, "job_submit", "elastic"))
		return;
	if (!(f = check_add(out, CHECK_JOB_SUBMIT, "JobSubmitPlugins=%s",
			    list && *list ? list : "(none)")))
		return;
	check_text(f,
		   "no elastic: slurmctld neither checks --elastic-* options "
		   "nor makes elastic jobs the base of a group, so elasticd "
		   "never sees one",
		   "add elastic to JobSubmitPlugins (last, if other plugins "
		   "set AdminComment), then scontrol reconfigure");
}

/* Does Slurm send the job's warning signal at a preemption?  As
 * slurmctld decides (a case-insensitive search of either list). */
static bool sends_user_signal(const struct check_slurm *s)
{
	return (s->slurmctld_params &&
		strcasestr(s->slurmctld_params, "preempt_send_user_signal")) ||
	       (s->preempt_params &&
		strcasestr(s->preempt_params, "send_user_signal"));
}

void check_signal(const struct check_site *s, struct check_findings *out)
{
	const char *key = s->slurm.has_preempt_params ? "PreemptParameters"
						      : "SlurmctldParameters";
	const char *word = s->slurm.has_preempt_params
			       ? "send_user_signal"
			       : "preempt_send_user_signal";
	const char *val;
	struct check_finding *f;

	if (!check_need_slurm(s, out, CHECK_SIGNAL) ||
	    sends_user_signal(&s->slurm))
		return;
	val = s->slurm.has_preempt_params ? s->slurm.preempt_params
					  : s->slurm.slurmctld_params;
	if (!(f = check_add(out, CHECK_SIGNAL, "%s=%s", key,
			    val && *val ? val : "(none)")))
		return;
	check_say(f->problem, sizeof(f->problem),
		  "no %s: at a preemption Slurm sends the unit's ranks SIGTERM "
		  "instead of the elastic signal, so the group does not "
		  "checkpoint in the grace and ranks without a handler die",
		  word);
	check_say(f->fix, sizeof(f->fix),
		  "add %s to %s (comma-separated) and run scontrol "
		  "reconfigure",
		  word, key);
}

void check_site(const struct check_site *s, struct check_findings *out)
{
	check_slurmctld(s, out);
	check_policy(s, out);
	if (s->local)
		snprintf(out->skipped, sizeof(out->skipped),
			 "--local: this host's checks only");
	else {
		check_names(s, out);
		check_preemption(s, out);
		check_grace(s, out);
		check_signal(s, out);
		check_job_submit(s, out);
	}
	check_plugstack(s, out);
	check_elasticd(s, out);
	check_clock(s, out);
	check_munge(s, out);
	check_spare_check(s, out);
}
