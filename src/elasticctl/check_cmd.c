/*
 * elasticctl check (elasticctl.h): look (check_read.c, check_probe.c,
 * check_node.c), decide (check.h) and print one line per finding with
 * its fix, then a summary; or one JSON object.  Exit 0 without a
 * finding, 1 with any.
 */
#include "config.h"

#include <unistd.h>

#include <curl/curl.h>

#include "check_io.h"
#include "elasticctl.h"

#define PREFIX PROG " check: "

/* The areas run, or not run, as "a, b, c" (len at least 8). */
static void list_areas(const struct check_findings *out, bool ran, char *buf,
		       size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned a = 0; a < CHECK_NAREAS && used < len; a++) {
		if (!(out->ran & (1u << a)) != !ran || a == CHECK_NODE)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : "",
					 check_area_name((enum check_area)a));
	}
}

static void print_text(const struct check_findings *out)
{
	char ran[256], not_ran[256];

	for (size_t i = 0; i < out->n; i++) {
		const struct check_finding *f = &out->f[i];

		printf(PREFIX "%s%s%s%s: %s; %s\n", f->node[0] ? "on " : "",
		       f->node, f->node[0] ? ": " : "", f->subject, f->problem,
		       f->fix);
	}
	if (out->oom)
		printf(PREFIX "out of memory: some findings are missing\n");
	list_areas(out, true, ran, sizeof(ran));
	list_areas(out, false, not_ran, sizeof(not_ran));
	if (out->n)
		printf(PREFIX "%zu finding%s (checked: %s", out->n,
		       out->n == 1 ? "" : "s", ran);
	else
		printf(PREFIX "no findings (checked: %s", ran);
	if (not_ran[0])
		printf("; not checked: %s, as %s", not_ran,
		       out->skipped[0] ? out->skipped : "not asked");
	printf(")\n");
}

static json_object *jstring_or_null(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

static json_object *areas_json(const struct check_findings *out, bool ran)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < CHECK_NAREAS; i++)
		if (!(out->ran & (1u << i)) == !ran && i != CHECK_NODE)
			json_object_array_add(
			    a, json_object_new_string(
				   check_area_name((enum check_area)i)));
	return a;
}

static void print_json(const struct check_findings *out)
{
	json_object *d = json_object_new_object();
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < out->n; i++) {
		const struct check_finding *f = &out->f[i];
		json_object *o = json_object_new_object();

		json_object_object_add(
		    o, "check",
		    json_object_new_string(check_area_name(f->area)));
		json_object_object_add(o, "node", jstring_or_null(f->node));
		json_object_object_add(o, "subject",
				       json_object_new_string(f->subject));
		json_object_object_add(o, "problem",
				       json_object_new_string(f->problem));
		json_object_object_add(o, "fix",
				       json_object_new_string(f->fix));
		json_object_array_add(a, o);
	}
	json_object_object_add(d, "findings", a);
	json_object_object_add(d, "incomplete",
			       json_object_new_boolean(out->oom));
	json_object_object_add(d, "checked", areas_json(out, true));
	json_object_object_add(d, "not_checked", areas_json(out, false));
	json_object_object_add(d, "not_checked_why",
			       jstring_or_null(out->skipped));
	printf("%s\n",
	       json_object_to_json_string_ext(
		   d, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(d);
}

/* An option's value (name: its name), else the environment variable
 * env's if set and not empty; *val and *from untouched if neither. */
static void given(const char *opt, const char *name, const char *env,
		  const char **val, const char **from)
{
	const char *e = getenv(env);

	if (opt) {
		*val = opt;
		*from = name;
	} else if (e && *e) {
		*val = e;
		*from = env;
	}
}

/* Where this host's clients reach elasticd and munged: the options, else
 * the environment (else elastic.conf's, when probed). */
static void client_of(const struct check_opts *o, struct check_client *c)
{
	given(o->server, "--server", "ELASTICCTL_SERVER", &c->server,
	      &c->server_from);
	given(o->munge, "--munge-socket", "ELASTICCTL_MUNGE_SOCKET", &c->munge,
	      &c->munge_from);
}

/* Ask Slurm and this host, into s (p: room for the policy). */
static struct check_reading *look(struct check_site *s,
				  struct elastic_policy *p,
				  const struct check_client *c, char *perr,
				  size_t perr_len)
{
	struct check_reading *r;
	elastic_error_t err;

	if (policy_load(p, s->policy_path, NULL, &err) == 0) {
		s->policy = p;
	} else {
		snprintf(perr, perr_len, "%s", err.text);
		s->policy_error = perr;
	}
	r = check_read_slurm(s, s->policy);
	if (!s->slurm.error)
		check_probe_stack(s);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) == 0) {
		check_probe_elasticd(s, c);
		curl_global_cleanup();
	} else {
		s->host.ed = CHECK_ED_OTHER;
		snprintf(s->host.ed_why, sizeof(s->host.ed_why),
			 "cannot initialise libcurl");
	}
	check_probe_munge(s, c);
	check_probe_spare_check(s);
	return r;
}

int ctl_check(const struct check_opts *o)
{
	struct check_site *s = calloc(1, sizeof(*s));
	struct elastic_policy *p = malloc(sizeof(*p));
	char path[POLICY_PATH_MAX + 32], self[POLICY_PATH_MAX + 1];
	char perr[sizeof(elastic_error_t)] = "";
	struct check_findings out = { 0 };
	struct check_client c = { 0 };
	struct check_reading *r;
	ssize_t n;
	int rc;

	if (!s || !p) {
		elog_error("out of memory");
		free(s);
		free(p);
		return EXIT_FAIL;
	}
	/* Beside slurm.conf, as the plugins and elasticd find it. */
	policy_conf_path(getenv("SLURM_CONF"), path, sizeof(path));
	s->policy_path = path;
	s->local = o->local;
	client_of(o, &c);
	r = look(s, p, &c, perr, sizeof(perr));
	check_site(s, &out);
	if (o->node) {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		self[n > 0 ? n : 0] = '\0';
		check_on_node(o->node, n > 0 ? self : PROG, &c, &out);
	}
	if (o->json)
		print_json(&out);
	else
		print_text(&out);
	rc = out.n || out.oom ? EXIT_FAIL : EXIT_OK;
	if (fflush(stdout) || ferror(stdout)) {
		elog_error("write error on standard output");
		rc = EXIT_FAIL;
	}
	check_findings_free(&out);
	check_read_free(r);
	free(p);
	free(s);
	return rc;
}
