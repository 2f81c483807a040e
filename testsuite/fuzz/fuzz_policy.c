/* elastic.conf, read as root by slurmctld, slurmstepd and elasticd. */
#include "config.h"

#include "common/policy.h"
#include "fuzz.h"

/* elasticd --check-config's errors, each a whole line. */
static void each_error(void *arg, const char *text)
{
	(void)arg;
	if (strchr(text, '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct elastic_policy *p = malloc(sizeof(*p));
	elastic_error_t err;

	if (s && p) {
		policy_parse(p, s, "elastic.conf", &err);
		/* Past a bad line, what is read next must hold too. */
		policy_parse_all(p, s, "elastic.conf", each_error, NULL);
	}
	free(p);
	free(s);
	return 0;
}
