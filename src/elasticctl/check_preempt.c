/*
 * elasticctl check (check.h): does Slurm preempt the units, and give
 * their ranks the grace they need?  As Slurm decides it:
 * preempt/partition_prio takes a job from a partition whose PreemptMode
 * is not OFF for a job of a partition with a higher PriorityTier that
 * shares nodes with it; preempt/qos takes a job of a QOS listed in the
 * preemptor's QOS's Preempt.  The grace is the partition's GraceTime
 * (partition_prio) or the QOS's (qos).  Pure.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check.h"

enum preempt_type { TYPE_NONE, TYPE_PARTITION, TYPE_QOS, TYPE_OTHER };

static enum preempt_type preempt_type(const char *t)
{
	/* 24.11 gives none as NULL, 22.05 as "preempt/none". */
	if (!t || !*t || !strcmp(t, "preempt/none"))
		return TYPE_NONE;
	if (!strcmp(t, "preempt/partition_prio"))
		return TYPE_PARTITION;
	if (!strcmp(t, "preempt/qos"))
		return TYPE_QOS;
	return TYPE_OTHER;
}

/* Slurm's own mode for a partition or QOS that has none. */
static enum check_mode effective(const struct check_site *s, enum check_mode m)
{
	return m == CHECK_MODE_INHERIT ? s->slurm.mode : m;
}

/* Do two node index lists (partition_info_t.node_inx) share a node? */
static bool overlap(const int32_t *a, const int32_t *b)
{
	if (!a || !b)
		return false;
	for (size_t i = 0; a[i] >= 0 && a[i + 1] >= 0; i += 2)
		for (size_t j = 0; b[j] >= 0 && b[j + 1] >= 0; j += 2)
			if (a[i] <= b[j + 1] && b[j] <= a[i + 1])
				return true;
	return false;
}

/* A mode that leaves units unpreempted, or preempted without a grace:
 * what = "PartitionName=x" or "PreemptibleQOS=x". */
static void bad_mode(const struct check_site *s, struct check_findings *out,
		     const char *what, enum check_mode own, const char *fix)
{
	enum check_mode m = effective(s, own);
	const char *whose = own == CHECK_MODE_INHERIT ? " (the cluster's)" : "";
	struct check_finding *f;

	if (m != CHECK_MODE_OFF && m != CHECK_MODE_SUSPEND)
		return;
	if (!(f = check_add(out, CHECK_PREEMPTION, "%s", what)))
		return;
	if (m == CHECK_MODE_OFF)
		check_say(f->problem, sizeof(f->problem),
			  "PreemptMode=OFF%s: Slurm never preempts its jobs, "
			  "so units there keep their nodes from the work that "
			  "should have them",
			  whose);
	else
		check_say(f->problem, sizeof(f->problem),
			  "PreemptMode=SUSPEND%s: Slurm stops a preempted "
			  "unit at once instead of ending it after a grace: "
			  "its ranks cannot checkpoint",
			  whose);
	check_say(f->fix, sizeof(f->fix), "%s", fix);
}

static void partition_preempted(const struct check_site *s,
				struct check_findings *out,
				const struct check_partition *p)
{
	const struct check_slurm *sl = &s->slurm;
	char what[CHECK_SUBJECT_MAX], fix[CHECK_TEXT_MAX];
	struct check_finding *f;

	snprintf(what, sizeof(what), "PartitionName=%s", p->name);
	snprintf(fix, sizeof(fix),
		 "set PreemptMode=REQUEUE on PartitionName=%s in slurm.conf",
		 p->name);
	bad_mode(s, out, what, p->mode, fix);
	for (size_t i = 0; i < sl->nparts; i++)
		if (&sl->parts[i] != p && sl->parts[i].tier > p->tier &&
		    overlap(sl->parts[i].node_inx, p->node_inx))
			return;
	if (!(f = check_add(out, CHECK_PREEMPTION, "%s", what)))
		return;
	check_say(f->problem, sizeof(f->problem),
		  "no partition with a PriorityTier above its %u shares its "
		  "nodes: under preempt/partition_prio no job can preempt its "
		  "units",
		  p->tier);
	check_say(f->fix, sizeof(f->fix),
		  "give the partitions whose jobs should take these nodes "
		  "back a PriorityTier above %u (or lower PartitionName=%s's)",
		  p->tier, p->name);
}

static void qos_preempted(const struct check_site *s,
			  struct check_findings *out, const char *name)
{
	const struct check_slurm *sl = &s->slurm;
	const struct check_qos *q = check_find_qos(sl, name);
	char what[CHECK_SUBJECT_MAX], fix[CHECK_TEXT_MAX];
	struct check_finding *f;

	if (!q) /* check_names() said so */
		return;
	snprintf(what, sizeof(what), "PreemptibleQOS=%s", name);
	snprintf(fix, sizeof(fix),
		 "sacctmgr modify qos %s set PreemptMode=REQUEUE", q->name);
	bad_mode(s, out, what, q->mode, fix);
	/* A QOS preempts its own jobs only by priority (WITHIN). */
	for (size_t i = 0; i < sl->nqos; i++) {
		const char *const *pre = sl->qos[i].preempts;

		for (size_t j = 0; pre && pre[j] && &sl->qos[i] != q; j++)
			if (!strcasecmp(pre[j], q->name))
				return;
	}
	if (!(f = check_add(out, CHECK_PREEMPTION, "%s", what)))
		return;
	check_say(f->problem, sizeof(f->problem),
		  "no other QOS lists it in its Preempt: under preempt/qos no "
		  "job can preempt the units");
	check_say(f->fix, sizeof(f->fix),
		  "sacctmgr modify qos HIGHER set Preempt+=%s, for the QOS "
		  "whose jobs should take the nodes back",
		  q->name);
}

/* preempt/qos: units run in PreemptibleQOS, which some QOS preempts. */
static void qos_type(const struct check_site *s, struct check_findings *out)
{
	const char *name = s->policy->preemptible_qos;
	struct check_finding *f;

	if (name[0] && s->slurm.qos_read) {
		qos_preempted(s, out, name);
		return;
	}
	if (name[0]) /* check_names() said why the QOS are not known */
		return;
	if (!(f = check_add(out, CHECK_PREEMPTION, "PreemptibleQOS")))
		return;
	check_text(
	    f,
	    "not set, and Slurm preempts by QOS (PreemptType=preempt/"
	    "qos): units run in their owners' default QOS, which another "
	    "QOS may not preempt",
	    "set PreemptibleQOS in elastic.conf to a QOS that the QOS of "
	    "higher-priority work lists in its Preempt");
}

/* Spares taken before a world's unit: each spare partition (p) below
 * every preemptible partition it shares nodes with. */
static void spares_first(const struct check_site *s, struct check_findings *out,
			 const struct check_partition *p)
{
	const struct policy_list *l = &s->policy->preemptible_partitions;
	struct check_finding *f;

	for (unsigned i = 0; i < l->n; i++) {
		const struct check_partition *w =
		    check_find_partition(&s->slurm, l->name[i]);

		if (!w || w == p || w->tier > p->tier ||
		    !overlap(w->node_inx, p->node_inx) ||
		    !(f = check_add(out, CHECK_PREEMPTION, "PartitionName=%s",
				    p->name)))
			continue;
		check_say(
		    f->problem, sizeof(f->problem),
		    "SparePartitions: its PriorityTier %u is not below "
		    "PartitionName=%s's %u: Slurm may take a world's unit "
		    "before a spare",
		    p->tier, w->name, w->tier);
		check_say(f->fix, sizeof(f->fix),
			  "give PartitionName=%s a PriorityTier below %u in "
			  "slurm.conf",
			  p->name, w->tier);
		return;
	}
}

void check_preemption(const struct check_site *s, struct check_findings *out)
{
	const struct policy_list *l;
	enum preempt_type t;
	struct check_finding *f;

	if (!check_need_policy(s, out, CHECK_PREEMPTION))
		return;
	l = &s->policy->preemptible_partitions;
	if (!l->n) /* check_names() said so */
		return;
	switch ((t = preempt_type(s->slurm.preempt_type))) {
	case TYPE_PARTITION:
		for (unsigned i = 0; i < l->n; i++) {
			const struct check_partition *p =
			    check_find_partition(&s->slurm, l->name[i]);

			if (p)
				partition_preempted(s, out, p);
		}
		l = &s->policy->spare_partitions;
		for (unsigned i = 0; i < l->n; i++) {
			const struct check_partition *p =
			    check_find_partition(&s->slurm, l->name[i]);

			if (p) {
				partition_preempted(s, out, p);
				spares_first(s, out, p);
			}
		}
		return;
	case TYPE_QOS:
		qos_type(s, out);
		return;
	default:
		break;
	}
	if (!(f = check_add(out, CHECK_PREEMPTION, "PreemptType=%s",
			    t == TYPE_NONE ? "preempt/none"
					   : s->slurm.preempt_type)))
		return;
	if (t == TYPE_NONE)
		check_say(
		    f->problem, sizeof(f->problem),
		    "Slurm preempts no job: units in PreemptiblePartitions "
		    "keep their nodes until their time limit");
	else
		check_say(f->problem, sizeof(f->problem),
			  "not a preemption plugin of Slurm's own: this check "
			  "cannot tell whether it preempts the units");
	check_say(f->fix, sizeof(f->fix),
		  "set PreemptType=preempt/partition_prio and "
		  "PreemptMode=REQUEUE in slurm.conf (or preempt/qos with "
		  "PreemptibleQOS)");
}

/* Is a grace of grace seconds (where: "GraceTime=10 of
 * PartitionName=x") enough for the grace the policy lets jobs have? */
static void short_grace(const struct check_site *s, struct check_findings *out,
			const char *what, unsigned grace, const char *fix)
{
	const struct elastic_policy *p = s->policy;
	struct check_finding *f;

	if (grace >= p->max_grace)
		return;
	if (!(f = check_add(out, CHECK_GRACE, "%s", what)))
		return;
	if (!grace)
		check_say(f->problem, sizeof(f->problem),
			  "no GraceTime: Slurm ends a preempted unit at once, "
			  "so its ranks have no time to checkpoint");
	else if (grace < p->default_grace)
		check_say(f->problem, sizeof(f->problem),
			  "GraceTime=%u is shorter than DefaultGrace=%u: Slurm "
			  "ends a preempted unit before its ranks finish the "
			  "checkpoint they have %u s for",
			  grace, p->default_grace, p->default_grace);
	else
		check_say(f->problem, sizeof(f->problem),
			  "GraceTime=%u is shorter than MaxGrace=%u: a job "
			  "given more than --elastic-grace=%u loses a "
			  "preempted unit's ranks before they checkpoint",
			  grace, p->max_grace, grace);
	if (!grace)
		check_say(f->fix, sizeof(f->fix), "%s", fix);
	else
		check_say(f->fix, sizeof(f->fix),
			  "%s, or lower MaxGrace (and DefaultGrace) in "
			  "elastic.conf to %u",
			  fix, grace);
}

void check_grace(const struct check_site *s, struct check_findings *out)
{
	const struct policy_list *l;
	char what[CHECK_SUBJECT_MAX], fix[CHECK_TEXT_MAX];

	if (!check_need_policy(s, out, CHECK_GRACE))
		return;
	if (preempt_type(s->slurm.preempt_type) == TYPE_QOS) {
		const struct check_qos *q =
		    s->slurm.qos_read
			? check_find_qos(&s->slurm, s->policy->preemptible_qos)
			: NULL;

		if (!q)
			return;
		snprintf(what, sizeof(what), "PreemptibleQOS=%s", q->name);
		snprintf(fix, sizeof(fix),
			 "sacctmgr modify qos %s set GraceTime=%u", q->name,
			 s->policy->max_grace);
		short_grace(s, out, what, q->grace, fix);
		return;
	}
	l = &s->policy->preemptible_partitions;
	for (unsigned i = 0; i < l->n; i++) {
		const struct check_partition *p =
		    check_find_partition(&s->slurm, l->name[i]);

		if (!p)
			continue;
		snprintf(what, sizeof(what), "PartitionName=%s", p->name);
		snprintf(fix, sizeof(fix),
			 "set GraceTime=%u on PartitionName=%s in slurm.conf",
			 s->policy->max_grace, p->name);
		short_grace(s, out, what, p->grace, fix);
	}
}
