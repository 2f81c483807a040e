/*
 * elasticctl check (check.h): what this host found about itself:
 * whether its plugstack.conf loads the plugin, whether elasticd answers
 * it, its clock against slurmctld's and elasticd's, and munge.  Pure:
 * check_probe.c did the looking.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SEPARATORS " \t\n" /* SPANK's, as Slurm splits the lines */

enum check_stack_kind check_stack_line(const char *text, char *path, size_t len,
				       char *args, size_t args_len)
{
	char buf[4096], *save = NULL, *w;
	enum check_stack_kind kind;
	size_t used = 0;

	path[0] = args[0] = '\0';
	check_copy(buf, sizeof(buf), text);
	buf[strcspn(buf, "#")] = '\0';
	if (!(w = strtok_r(buf, SEPARATORS, &save)))
		return CHECK_STACK_BLANK;
	if (!strcmp(w, "required"))
		kind = CHECK_STACK_REQUIRED;
	else if (!strcmp(w, "optional"))
		kind = CHECK_STACK_OPTIONAL;
	else if (!strcmp(w, "include"))
		kind = CHECK_STACK_INCLUDE;
	else
		return CHECK_STACK_INVALID;
	if (!(w = strtok_r(NULL, SEPARATORS, &save)))
		return CHECK_STACK_INVALID;
	check_copy(path, len, w);
	while ((w = strtok_r(NULL, SEPARATORS, &save)) && used < args_len) {
		int n = snprintf(args + used, args_len - used, "%s%s",
				 used ? " " : "", w);

		used += n > 0 ? (size_t)n : 0;
	}
	return kind;
}

bool check_stack_is_ours(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, CHECK_SPANK_SO);
}

/* "required spank_elastic.so elastic_conf=PATH", for the fixes. */
static void stack_line_fix(const struct check_site *s, char *buf, size_t len)
{
	snprintf(buf, len,
		 "required " CHECK_SPANK_SO " elastic_conf=%s (a bare name "
		 "is looked up in PluginDir)",
		 s->policy_path);
}

/* The file itself: there, readable, naming the plugin. */
static bool stack_file(const struct check_site *s, struct check_findings *out)
{
	const struct check_stack *st = &s->host.stack;
	char line[CHECK_TEXT_MAX];
	struct check_finding *f;

	if (!st->error && st->nlines)
		return true;
	if (!(f = check_add(out, CHECK_PLUGSTACK, "PlugStackConfig=%s",
			    st->path)))
		return false;
	stack_line_fix(s, line, sizeof(line));
	if (st->error && st->error != ENOENT) {
		check_say(f->problem, sizeof(f->problem), "cannot read it: %s",
			  strerror(st->error));
		check_say(f->fix, sizeof(f->fix),
			  "make it readable by every user: sbatch and srun "
			  "read it as the user");
		return false;
	}
	check_say(f->problem, sizeof(f->problem),
		  "%s: sbatch, salloc and srun here know no --elastic-* "
		  "option, and ranks get no elastic environment",
		  st->error ? "no such file" : "no line loads " CHECK_SPANK_SO);
	check_say(f->fix, sizeof(f->fix), "%s the line: %s",
		  st->error ? "create it with" : "add to it", line);
	return false;
}

/* Is the plugin there, and loadable by this Slurm? */
static void stack_plugin(const struct check_site *s, struct check_findings *out,
			 const struct check_spank_line *l)
{
	const char *fails = l->required ? "every sbatch, salloc and srun fails "
					  "here"
					: "Slurm skips it, and elastic options "
					  "are unknown here";
	unsigned have = s->slurm_version >> 8, built = l->version >> 8;
	struct check_finding *f;

	if (l->found[0] && !l->load_error[0] && (!l->version || have == built))
		return;
	if (!(f = check_add(out, CHECK_PLUGSTACK, "%s:%u", l->file, l->line)))
		return;
	if (!l->found[0])
		check_say(
		    f->problem, sizeof(f->problem), "%s %s: no such plugin: %s",
		    l->required ? "required" : "optional", l->path, fails);
	else if (l->load_error[0])
		check_say(f->problem, sizeof(f->problem),
			  "%s cannot be loaded (%s): %s", l->found,
			  l->load_error, fails);
	else
		check_say(f->problem, sizeof(f->problem),
			  "%s was built for Slurm %u.%02u, this is Slurm "
			  "%u.%02u, which refuses it: %s",
			  l->found, built >> 8, built & 0xff, have >> 8,
			  have & 0xff, fails);
	check_say(f->fix, sizeof(f->fix), "%s",
		  l->found[0] ? "rebuild and reinstall slurm-elastic "
				"for this Slurm"
			      : "install slurm-elastic's plugins, or "
				"name where " CHECK_SPANK_SO " is");
}

/* Which elastic.conf slurmstepd reads, and whether it is the site's. */
static void stack_conf(const struct check_site *s, struct check_findings *out,
		       const struct check_spank_line *l, const char *conf)
{
	char dflt[POLICY_PATH_MAX + 32];
	struct check_finding *f;

	snprintf(dflt, sizeof(dflt), "%s/elastic.conf", s->sysconfdir);
	if (conf[0] ? !l->conf_missing && !strcmp(conf, s->policy_path)
		    : s->stepd_knows_conf || !strcmp(dflt, s->policy_path))
		return;
	if (!(f = check_add(out, CHECK_PLUGSTACK, "%s:%u", l->file, l->line)))
		return;
	if (!conf[0])
		check_say(f->problem, sizeof(f->problem),
			  "no elastic_conf=: this Slurm's slurmstepd knows no "
			  "slurm.conf path and reads %s, not %s",
			  dflt, s->policy_path);
	else if (l->conf_missing)
		check_say(f->problem, sizeof(f->problem),
			  "elastic_conf=%s: no such file: slurmstepd takes the "
			  "built-in defaults, not the site's policy",
			  conf);
	else
		check_say(f->problem, sizeof(f->problem),
			  "elastic_conf=%s: slurmstepd reads another file than "
			  "slurmctld and elasticd (%s)",
			  conf, s->policy_path);
	check_say(f->fix, sizeof(f->fix), "%s elastic_conf=%s to the line",
		  conf[0] ? "set" : "add", s->policy_path);
}

int check_stack_args(const char *args, char *conf, size_t len,
		     elastic_error_t *err)
{
	char buf[CHECK_ARGS_MAX], *av[64], *save = NULL, *w;
	int ac = 0;

	check_copy(buf, sizeof(buf), args);
	for (w = strtok_r(buf, " ", &save); w && ac < 64;
	     w = strtok_r(NULL, " ", &save))
		av[ac++] = w;
	return policy_plugstack_args(ac, av, conf, len, NULL, err);
}

/* The plugin's arguments, as it takes them. */
static void stack_args(const struct check_site *s, struct check_findings *out,
		       const struct check_spank_line *l)
{
	char conf[POLICY_PATH_MAX + 1];
	struct check_finding *f;
	elastic_error_t err;

	if (!check_stack_args(l->args, conf, sizeof(conf), &err)) {
		stack_conf(s, out, l, conf);
		return;
	}
	if (!(f = check_add(out, CHECK_PLUGSTACK, "%s:%u", l->file, l->line)))
		return;
	check_say(f->problem, sizeof(f->problem), "%s: %s", err.text,
		  l->required ? "every sbatch, salloc and srun fails here"
			      : "the plugin fails to load");
	check_say(f->fix, sizeof(f->fix),
		  "give it elastic_conf=%s (and on_error=fail-job|drain, if "
		  "wanted), nothing else",
		  s->policy_path);
}

void check_plugstack(const struct check_site *s, struct check_findings *out)
{
	const struct check_stack *st = &s->host.stack;

	if (!check_need_slurm(s, out, CHECK_PLUGSTACK) || !s->host.stack_read)
		return;
	if (!stack_file(s, out))
		return;
	for (unsigned i = 0; i < st->nlines; i++) {
		stack_plugin(s, out, &st->line[i]);
		stack_args(s, out, &st->line[i]);
	}
}

/* What each failed request says (WHAT (STATUS: WHY)THEN), and its fix;
 * the last for any other. */
static const struct ed_text {
	enum check_elasticd ed;
	const char *what;
	bool status; /* the HTTP status after what */
	const char *then, *fix;
} ed_texts[] = {
	{ CHECK_ED_NO_ANSWER, "no answer", false,
	  ": groups run at --elastic-min and never grow",
	  "start elasticd on its host (systemctl enable --now elasticd), or "
	  "set ElasticdServer to where it listens; open the port to the "
	  "nodes" },
	{ CHECK_ED_UNVERIFIED, "something answered, but not as elasticd", false,
	  "",
	  "point ElasticdServer at elasticd, and set ElasticdUser to the user "
	  "it runs as" },
	{ CHECK_ED_REFUSED, "refused this host's request", true, "",
	  "give every host the cluster's munge key, and keep their clocks in "
	  "step" },
	{ CHECK_ED_NOT_READY, "not ready", false, "",
	  "wait for its first cycle; if it lasts, read its log (it cannot "
	  "reach slurmctld or its munged)" },
	{ CHECK_ED_MUNGE, "no request made", false, "",
	  "start munged here, or set ElasticdMungeSocket to its socket" },
	{ CHECK_ED_OTHER, "answered", true, "",
	  "run the same release of slurm-elastic on every host; read "
	  "elasticd's log" },
};

void check_elasticd(const struct check_site *s, struct check_findings *out)
{
	const struct check_host *h = &s->host;
	const struct ed_text *t = ed_texts;
	char status[24] = "";
	struct check_finding *f;

	out->ran |= 1u << CHECK_ELASTICD;
	/* An invalid elastic.conf names no elasticd: check_policy() said. */
	if (h->ed == CHECK_ED_OK || (h->ed == CHECK_ED_NONE && !s->policy))
		return;
	if (h->ed == CHECK_ED_NONE || h->ed == CHECK_ED_BAD_CONF) {
		if (!(f = check_add(out, CHECK_ELASTICD, "%s",
				    h->ed == CHECK_ED_NONE ? "ElasticdServer"
							   : "elasticd")))
			return;
		check_say(f->problem, sizeof(f->problem),
			  "%s: launchers on the compute nodes cannot reach "
			  "elasticd, so groups never grow",
			  h->ed == CHECK_ED_NONE ? "not set in elastic.conf"
						 : h->ed_why);
		check_say(f->fix, sizeof(f->fix),
			  "set ElasticdServer=HOST:PORT in %s: elasticd's host "
			  "as every node resolves it, and its ElasticdListen "
			  "port",
			  s->policy_path);
		return;
	}
	if (!(f = check_add(out, CHECK_ELASTICD, "elasticd at %s (%s)",
			    h->ed_server, h->ed_from ? h->ed_from : "?")))
		return;
	while (t + 1 < ed_texts + sizeof(ed_texts) / sizeof(ed_texts[0]) &&
	       t->ed != h->ed)
		t++;
	if (t->status)
		snprintf(status, sizeof(status), "%ld: ", h->ed_status);
	check_say(f->problem, sizeof(f->problem), "%s (%s%s)%s", t->what,
		  status, h->ed_why, t->then);
	check_copy(f->fix, sizeof(f->fix), t->fix);
}

static void skewed(struct check_findings *out, const char *who, bool known,
		   double skew)
{
	double mag = skew < 0 ? -skew : skew;
	struct check_finding *f;

	if (!known || mag <= CHECK_CLOCK_MAX_SKEW)
		return;
	if (!(f = check_add(out, CHECK_CLOCK, "clock")))
		return;
	check_say(f->problem, sizeof(f->problem),
		  "this host's clock is %.0f s %s %s's (more than %d s): "
		  "munge and elasticd refuse credentials from the future, "
		  "and logs and timelines disagree",
		  mag, skew > 0 ? "behind" : "ahead of", who,
		  CHECK_CLOCK_MAX_SKEW);
	check_say(f->fix, sizeof(f->fix),
		  "keep every host's clock in step with NTP (chrony or "
		  "systemd-timesyncd)");
}

void check_clock(const struct check_site *s, struct check_findings *out)
{
	const struct check_host *h = &s->host;

	out->ran |= 1u << CHECK_CLOCK;
	skewed(out, "slurmctld", h->ctld_clock, h->ctld_skew);
	skewed(out, "elasticd", h->ed_clock, h->ed_skew);
}

void check_munge(const struct check_site *s, struct check_findings *out)
{
	const struct check_host *h = &s->host;
	struct check_finding *f;

	out->ran |= 1u << CHECK_MUNGE;
	for (unsigned i = 0; i < h->nmunge && i < CHECK_MUNGE_MAX; i++) {
		const struct check_munge *m = &h->munge[i];

		if (!m->error[0] ||
		    !(f = check_add(out, CHECK_MUNGE, "munge (%s: %s)", m->who,
				    m->socket[0] ? m->socket
						 : "munge's default socket")))
			continue;
		check_say(f->problem, sizeof(f->problem),
			  "no credential made and read back: %s", m->error);
		check_say(f->fix, sizeof(f->fix),
			  "start munged with the cluster's munge key "
			  "(systemctl enable --now munge)");
	}
}

/* SpareCheck runs on every compute node, as each job's owner: it must be
 * there, and no user may change it (sticky world-writable /tmp
 * included: its files are their owners'). */
void check_spare_check(const struct check_site *s, struct check_findings *out)
{
	const struct check_program *p = &s->host.spare_check;
	struct check_finding *f;

	if (!p->probed)
		return;
	out->ran |= 1u << CHECK_ELASTIC_CONF;
	if (!p->err && p->regular && (p->mode & 0111) && !p->uid &&
	    !(p->mode & 022) && !p->dir_uid && !(p->dir_mode & 022))
		return;
	f = check_add(out, CHECK_ELASTIC_CONF, "SpareCheck=%s",
		      s->policy->spare_check);
	if (!f)
		return;
	if (p->err) {
		check_say(f->problem, sizeof(f->problem),
			  "not on this host (%s): every spare here fails its "
			  "check and is cancelled",
			  strerror(p->err));
		check_say(f->fix, sizeof(f->fix),
			  "install it on every compute node, or unset "
			  "SpareCheck");
	} else if (!p->regular || !(p->mode & 0111)) {
		check_say(f->problem, sizeof(f->problem),
			  "not an executable file: every spare here fails "
			  "its check and is cancelled");
		check_say(f->fix, sizeof(f->fix), "chmod 755 %s",
			  s->policy->spare_check);
	} else {
		check_say(f->problem, sizeof(f->problem),
			  "it or its directory is writable by another than "
			  "root: a user could change what every group's "
			  "launcher runs as its job's owner");
		check_say(f->fix, sizeof(f->fix),
			  "chown root and chmod go-w %s and its directory",
			  s->policy->spare_check);
	}
}
