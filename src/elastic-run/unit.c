/* elastic-run --unit=SIG: what a unit elasticd submitted runs (elasticd(8),
 * NOTIFICATIONS).  It holds the unit's nodes for the group's ranks, tells
 * elasticd when it starts, and when Slurm signals it (the unit's warn
 * signal goes to its batch shell, this program) passes the signal on to
 * the unit's steps, the ranks, and tells elasticd.  A notification only
 * wakes elasticd, which reads the job from Slurm: one that is lost costs
 * time, never a state change.  Nothing is printed (the unit's output is
 * /dev/null); every failure leaves the unit holding its nodes. */
#include "config.h"

#include "elastic-run.h"

/* A notification must not hold up the relay of the next signal. */
#define NOTIFY_TIMEOUT_MS 1000

int unit_main(const char *sigarg)
{
	static struct source src;
	struct elastic_policy *pol = malloc(sizeof(*pol));
	elastic_error_t pol_err, err;
	char pol_path[POLICY_PATH_MAX + 1];
	const char *id_env = getenv("SLURM_JOB_ID");
	unsigned long v;
	uint32_t job_id;
	sigset_t set;
	int sig;

	/* Whatever is wrong, the unit holds its nodes: a unit that ended
	 * at once would only be submitted again. */
	if (parse_signal(sigarg, &sig) != PARSE_OK) {
		elog_error("--unit=%s: not valid (allowed: %s): the signal "
			   "is not passed on",
			   sigarg, PARSE_SIGNALS);
		sig = 0;
	}
	if (!id_env || parse_uint(id_env, 1, UINT32_MAX, &v) != PARSE_OK) {
		elog_error("--unit: SLURM_JOB_ID: not set or not a job id: "
			   "elasticd is not told");
		v = 0;
	}
	job_id = (uint32_t)v;

	/* Taken synchronously, before anything else can miss them. */
	sigemptyset(&set);
	if (sig)
		sigaddset(&set, sig);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);

	policy_conf_path(getenv("SLURM_CONF"), pol_path, sizeof(pol_path));
	if (!pol)
		elastic_errorf(&pol_err, "out of memory");
	else if (policy_load(pol, pol_path, NULL, &pol_err) < 0) {
		free(pol);
		pol = NULL;
	}
	if (source_init(&src, NULL, NULL, pol, pol_path, &pol_err) < 0)
		memset(&src, 0, sizeof(src)); /* hold the nodes all the same */
	free(pol);
	tell_elasticd(&src, job_id, "start", NOTIFY_TIMEOUT_MS);
	/* Slurm's configuration only for passing signals on: after the
	 * start is told, which it would delay.  elasticd's SLURM_CONF may
	 * not exist here (a configless node): then Slurm's own default. */
	if (getenv("SLURM_CONF") && access(getenv("SLURM_CONF"), R_OK) < 0)
		unsetenv("SLURM_CONF");
	slurm_init(NULL);
	for (;;) {
		int got = sigwaitinfo(&set, NULL);

		if (got < 0)
			continue;
		if (got == sig) {
			/* Both at once: the ranks' grace is running, and
			 * passing the signal on waits for slurmctld's locks
			 * (longer, the longer its queue) that elasticd need
			 * not wait for. */
			pid_t child = fork();

			if (child == 0) {
				tell_elasticd(&src, job_id, "signal",
					      NOTIFY_TIMEOUT_MS);
				_exit(0);
			}
			if (job_id && raise_job(job_id, sig, &err) < 0)
				elog_debug("%s", err.text);
			if (child < 0)
				tell_elasticd(&src, job_id, "signal",
					      NOTIFY_TIMEOUT_MS);
			else
				while (waitpid(child, NULL, 0) < 0 &&
				       errno == EINTR)
					;
			continue;
		}
		/* Slurm ends the unit: say so, and end as the signal would. */
		tell_elasticd(&src, job_id, "end", NOTIFY_TIMEOUT_MS);
		signal(got, SIG_DFL);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(got);
		return 128 + got;
	}
}
