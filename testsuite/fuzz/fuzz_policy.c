/* elastic.conf, read as root by slurmctld, slurmstepd and elasticd. */
#include "config.h"

#include "common/policy.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct elastic_policy *p = malloc(sizeof(*p));
	elastic_error_t err;

	if (s && p)
		policy_parse(p, s, "elastic.conf", &err);
	free(p);
	free(s);
	return 0;
}
