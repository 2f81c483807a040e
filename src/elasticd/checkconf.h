#ifndef ELASTICD_CHECKCONF_H
#define ELASTICD_CHECKCONF_H

#include <stdbool.h>

#include "common/error.h"
#include "common/policy.h"

/*
 * What elasticd checks of its settings before it talks to Slurm or opens
 * its port: its start and "elasticd --check-config" share these checks,
 * and the latter runs nothing else.
 */

/* ElasticdUser (root when unset) is the user this process runs as:
 * clients believe only answers signed by it (elasticd-api(7)).  0, or -1
 * with err naming the file conf_path and the fix. */
int checkconf_user(const struct elastic_policy *p, const char *conf_path,
		   elastic_error_t *err);

/* ElasticdStateDir is a directory of ours that only we can write (who can
 * write there decides our groups' worlds).  0; 1 with err when it does not
 * exist; -1 with err. */
int checkconf_state_dir(const char *dir, elastic_error_t *err);

/* The program units run: ElasticdUnitProgram, else elastic-run, or NULL
 * with ElasticdNotify=no.  -1, *ret_prog untouched and err set, when it
 * cannot run here: the nodes most likely lack it too, and units then
 * only hold their nodes. */
int checkconf_unit_program(const struct elastic_policy *p,
			   const char **ret_prog, elastic_error_t *err);

/*
 * elasticd --check-config: elastic.conf at conf_path (which must exist
 * when explicit_path) parsed as elasticd's start parses it, each error
 * logged on its own line (the file and line, the key, what is allowed),
 * then the checks above, whose faults that do not stop a start are
 * warnings.  Then a last line on stdout: "PATH: OK" or "PATH: N errors".
 * Nothing is asked of Slurm, no port is opened, nothing is written.  The
 * exit status: 0 when elasticd would start, 1 when not.
 */
int checkconf_run(const char *conf_path, bool explicit_path);

#endif
