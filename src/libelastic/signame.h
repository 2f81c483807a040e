#ifndef ELASTIC_LIBELASTIC_SIGNAME_H
#define ELASTIC_LIBELASTIC_SIGNAME_H

/*
 * The signals an elastic event may travel by, named as in ELASTIC_SIGNAL
 * and --elastic-signal: without "SIG", upper case.  KILL, STOP and the
 * signals Slurm or the C runtime use for other things are not among them.
 */

/* Default: ignored by processes without a handler. */
#define SIGNAME_DEFAULT "URG"

/* "URG" -> SIGURG in *ret.  Exact match only; -1 with errno EINVAL (and
 * *ret untouched) for anything else, NULL included. */
int signame_parse(const char *name, int *ret);

/* SIGURG -> "URG"; NULL for a signal that is not an event signal. */
const char *signame_name(int sig);

/* For messages: "URG, WINCH, USR1, USR2, HUP, INT, TERM". */
const char *signame_allowed(void);

#endif
