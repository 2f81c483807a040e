/* Where the site's files are and whose they may be (policy.h): elastic.conf
 * beside slurm.conf, the SPANK plugin's arguments, the paths a policy
 * names, checkpoint directories per user. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "policy.h"

void policy_conf_path(const char *slurm_conf, char *buf, size_t len)
{
	const char *slash = slurm_conf ? strrchr(slurm_conf, '/') : NULL;

	if (slash)
		snprintf(buf, len, "%.*s/elastic.conf",
			 (int)(slash - slurm_conf), slurm_conf);
	else
		snprintf(buf, len, "%s/elastic.conf", SLURM_SYSCONFDIR);
}

/* on_error=: what an error of the plugin in slurmstepd does. */
static int plugstack_on_error(const char *v, bool *drain, const char *who,
			      elastic_error_t *err)
{
	if (!strcmp(v, "fail-job") || !strcmp(v, "drain")) {
		if (drain)
			*drain = v[0] == 'd';
		return 0;
	}
	return elastic_errorf(err,
			      "%s: on_error=%.64s: not fail-job or drain "
			      "(what an error in slurmstepd does)",
			      who, v);
}

int policy_plugstack_args(int ac, char *const *av, char *conf, size_t len,
			  bool *drain, elastic_error_t *err)
{
	static const char key[] = "elastic_conf=", oe[] = "on_error=";
	static const char who[] = "plugstack.conf: spank_elastic.so";

	conf[0] = '\0';
	if (drain)
		*drain = false;
	for (int i = 0; i < ac; i++) {
		const char *v = av[i] + sizeof(key) - 1;

		if (!strncmp(av[i], oe, sizeof(oe) - 1)) {
			if (plugstack_on_error(av[i] + sizeof(oe) - 1, drain,
					       who, err) < 0)
				return -1;
			continue;
		}
		if (strncmp(av[i], key, sizeof(key) - 1))
			return elastic_errorf(err,
					      "%s: unknown argument '%s' "
					      "(allowed: elastic_conf=PATH, "
					      "on_error=fail-job|drain)",
					      who, av[i]);
		if (strlen(v) >= len || strlen(v) > POLICY_PATH_MAX)
			return elastic_errorf(err,
					      "%s: elastic_conf: path longer "
					      "than %d characters",
					      who, POLICY_PATH_MAX);
		if (v[0] != '/')
			return elastic_errorf(err,
					      "%s: elastic_conf=%s: must be an "
					      "absolute path",
					      who, v);
		for (const char *c = v; *c; c++)
			if (iscntrl((unsigned char)*c))
				return elastic_errorf(err,
						      "%s: elastic_conf: "
						      "control character in "
						      "path",
						      who);
		strcpy(conf, v);
	}
	return 0;
}

int policy_check_path(const char *path, const char *what, elastic_error_t *err)
{
	if (!*path)
		return elastic_errorf(err, "%s: empty path", what);
	if (strlen(path) > POLICY_PATH_MAX)
		return elastic_errorf(err, "%s: path longer than %d characters",
				      what, POLICY_PATH_MAX);
	if (path[0] != '/' && strncmp(path, "%h", 2))
		return elastic_errorf(err,
				      "%s=%s: must be an absolute path or "
				      "start with %%h (home directory)",
				      what, path);
	for (const char *c = path; *c; c++) {
		if (iscntrl((unsigned char)*c))
			return elastic_errorf(
			    err, "%s: control character in path", what);
		if (*c == '%') {
			if (!c[1] || !strchr("jhu%", c[1]))
				return elastic_errorf(
				    err,
				    "%s=%s: unknown %%%c "
				    "(allowed: %%j job id, "
				    "%%u user, %%h home, %%%%)",
				    what, path, c[1] ? c[1] : ' ');
			c++;
		}
	}
	return 0;
}

bool policy_path_per_user(const char *path, const char *user)
{
	size_t ulen = user ? strlen(user) : 0;

	for (const char *c = path; *c; c++) {
		if (*c == '%' && (c[1] == 'u' || c[1] == 'h'))
			return true;
		if (*c == '%' && c[1])
			c++;
		/* A component that is the user's name, literally. */
		else if (*c == '/' && ulen && !strncmp(c + 1, user, ulen) &&
			 (c[1 + ulen] == '/' || !c[1 + ulen]))
			return true;
	}
	return false;
}
