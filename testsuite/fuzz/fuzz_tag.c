/* Untrusted: a job's tag (AdminComment, read by elasticd and the
 * launcher), the options a client sent slurmctld (spank_job_env). */
#include "config.h"

#include "common/options.h"
#include "common/policy.h"
#include "fuzz.h"

#define ENV_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *env[ENV_MAX], *save = NULL, *e;
	struct elastic_opts o;
	struct elastic_policy p;
	elastic_error_t err;
	size_t n = 0;
	char buf[1024];

	if (!s)
		return 0;
	if (options_parse_tag(s, &o, &err) == 0)
		options_format_tag(&o, buf, sizeof(buf));
	/* The same text as an environment, a line an entry. */
	for (e = strtok_r(s, "\n", &save); e && n < ENV_MAX;
	     e = strtok_r(NULL, "\n", &save))
		env[n++] = e;
	memset(&o, 0, sizeof(o));
	policy_defaults(&p);
	if (options_from_env(&o, env, n, &err) == 0) {
		struct elastic_submitter who = { "alice", NULL };

		options_finalize(&o, &p, &who, NULL, &err);
	}
	free(s);
	return 0;
}
