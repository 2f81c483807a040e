/*
 * elasticctl check --node (check_io.h): this host's checks run on a
 * compute node, in a one-task step of a job of the caller's, where the
 * launchers run: "elasticctl check --local --json" there, its findings
 * read back.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "check_io.h"

/* The step's answer: a few findings. */
#define NODE_OUT_MAX (1UL << 20)
/* How long srun waits for the node (a busy node is not a finding). */
#define NODE_WAIT "--immediate=120"

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) &&
		       json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : "";
}

/* The step's findings into out; -1 if its output is not a report. */
static int take_report(const char *text, const char *node,
		       struct check_findings *out)
{
	json_object *d = json_tokener_parse(text), *a, *o;
	enum check_area area;
	struct check_finding *f;

	if (!d || !json_object_object_get_ex(d, "findings", &a) ||
	    !json_object_is_type(a, json_type_array)) {
		json_object_put(d);
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		o = json_object_array_get_idx(a, i);
		if (check_area_parse(jstr(o, "check"), &area) < 0)
			area = CHECK_NODE;
		if (!(f = check_add(out, area, "%s", jstr(o, "subject"))))
			break;
		snprintf(f->node, sizeof(f->node), "%s", node);
		check_say(f->problem, sizeof(f->problem), "%s",
			  jstr(o, "problem"));
		check_say(f->fix, sizeof(f->fix), "%s", jstr(o, "fix"));
	}
	json_object_put(d);
	return 0;
}

/* Run argv with its standard output into *text (malloc'd, at most
 * NODE_OUT_MAX bytes); its wait status, or -1 with errno. */
static int run_captured(char *const argv[], char **text)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *more;
	int p[2], st = -1, e;
	ssize_t n;
	pid_t pid;

	*text = NULL;
	if (!buf || pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		e = buf ? errno : ENOMEM;
		free(buf);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	for (;;) {
		if (len == cap - 1) {
			more =
			    cap < NODE_OUT_MAX ? realloc(buf, 2 * cap) : NULL;
			if (!more)
				break; /* srun then ends on a closed pipe */
			buf = more;
			cap *= 2;
		}
		n = read(p[0], buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(p[0]);
	buf[len] = '\0';
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*text = buf;
	return st;
}

void check_on_node(const char *node, const char *self,
		   const struct check_client *c, struct check_findings *out)
{
	char nodelist[POLICY_NAME_MAX + 16], server[POLICY_LISTEN_MAX + 16];
	char munge[POLICY_PATH_MAX + 24];
	char *argv[20], *text;
	struct check_finding *f;
	int n = 0, st;

	snprintf(nodelist, sizeof(nodelist), "--nodelist=%s", node);
	argv[n++] = "srun";
	argv[n++] = "--nodes=1";
	argv[n++] = "--ntasks=1";
	argv[n++] = nodelist;
	argv[n++] = NODE_WAIT;
	argv[n++] = "--quiet";
	argv[n++] = "--job-name=elasticctl-check";
	argv[n++] = "--";
	argv[n++] = (char *)self;
	/* The environment (ELASTICCTL_*) goes with the step; options not. */
	if (c->server && !strcmp(c->server_from, "--server")) {
		snprintf(server, sizeof(server), "--server=%s", c->server);
		argv[n++] = server;
	}
	if (c->munge && !strcmp(c->munge_from, "--munge-socket")) {
		snprintf(munge, sizeof(munge), "--munge-socket=%s", c->munge);
		argv[n++] = munge;
	}
	argv[n++] = "check";
	argv[n++] = "--local";
	argv[n++] = "--json";
	argv[n] = NULL;
	out->ran |= 1u << CHECK_NODE;
	st = run_captured(argv, &text);
	if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) <= 1 &&
	    take_report(text, node, out) == 0) {
		free(text);
		return;
	}
	if ((f = check_add(out, CHECK_NODE, "srun --nodelist=%s", node))) {
		snprintf(f->node, sizeof(f->node), "%s", node);
		if (st == -1)
			check_say(f->problem, sizeof(f->problem),
				  "cannot run srun: %s", strerror(errno));
		else
			check_say(f->problem, sizeof(f->problem),
				  "the checks did not run there (srun %s %d, "
				  "its error above)",
				  WIFEXITED(st) ? "exited" : "killed by signal",
				  WIFEXITED(st) ? WEXITSTATUS(st)
						: WTERMSIG(st));
		check_say(f->fix, sizeof(f->fix),
			  "is %s up and in the default partition (else set "
			  "SLURM_PARTITION), with %s installed there?",
			  node, self);
	}
	free(text);
}
