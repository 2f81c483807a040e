/* elasticd's settings checked as its start checks them (checkconf.h). */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkconf.h"
#include "common/log.h"

int checkconf_user(const struct elastic_policy *p, const char *conf_path,
		   elastic_error_t *err)
{
	const char *name = p->elasticd_user[0] ? p->elasticd_user : "root";
	struct passwd pw, *pwp = NULL;
	char buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof(buf), &pwp) || !pwp)
		return elastic_errorf(err, "%s: ElasticdUser=%s: no such user",
				      conf_path, name);
	if (pw.pw_uid != geteuid())
		return elastic_errorf(
		    err,
		    "%s: ElasticdUser=%s (uid %u), but elasticd runs as uid "
		    "%u: clients would believe none of its answers (set "
		    "ElasticdUser to the user elasticd runs as)",
		    conf_path, name, (unsigned)pw.pw_uid, (unsigned)geteuid());
	return 0;
}

int checkconf_state_dir(const char *dir, elastic_error_t *err)
{
	struct stat st;

	if (lstat(dir, &st) < 0) {
		int missing = errno == ENOENT;

		elastic_errorf(err, "ElasticdStateDir %s: %s", dir,
			       strerror(errno));
		return missing ? 1 : -1;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022))
		return elastic_errorf(err,
				      "ElasticdStateDir %s: not a directory of "
				      "ours, writable by us only",
				      dir);
	return 0;
}

int checkconf_unit_program(const struct elastic_policy *p,
			   const char **ret_prog, elastic_error_t *err)
{
	const char *prog = p->elasticd_unit_program[0]
			       ? p->elasticd_unit_program
			       : BINDIR "/elastic-run";

	if (p->elasticd_notify == POLICY_NOTIFY_NO)
		prog = NULL;
	else if (access(prog, X_OK) < 0)
		return elastic_errorf(
		    err,
		    "ElasticdUnitProgram=%s: %s: units will "
		    "not notify (ElasticdNotify=no to say so)",
		    prog, strerror(errno));
	*ret_prog = prog;
	return 0;
}

static void log_conf_error(void *arg, const char *text)
{
	(void)arg;
	elog_error("%s", text);
}

/* The checks after the file's own: an error only where the start fails. */
static unsigned check_host(const struct elastic_policy *p,
			   const char *conf_path)
{
	elastic_error_t err;
	const char *prog;

	if (checkconf_user(p, conf_path, &err) < 0) {
		elog_error("%s", err.text);
		return 1;
	}
	/* Where it is missing, elasticd makes it at its start. */
	if (p->elasticd_state_dir[0] &&
	    checkconf_state_dir(p->elasticd_state_dir, &err) < 0)
		elog_warn("%s: elasticd would run without saved state",
			  err.text);
	if (checkconf_unit_program(p, &prog, &err) < 0)
		elog_warn("%s", err.text);
	return 0;
}

int checkconf_run(const char *conf_path, bool explicit_path)
{
	struct elastic_policy p;
	bool found = false;
	unsigned n;

	n = policy_load_all(&p, conf_path, &found, log_conf_error, NULL);
	if (!n && !found && explicit_path) {
		elog_error("%s: %s", conf_path, strerror(ENOENT));
		n = 1;
	}
	if (!n)
		n = check_host(&p, conf_path);
	if (n) {
		printf("%s: %u error%s\n", conf_path, n, n > 1 ? "s" : "");
		return 1;
	}
	printf("%s: OK%s\n", conf_path,
	       found ? "" : " (no such file: the built-in defaults apply)");
	return 0;
}
