/* elastic-run's reading of elasticd's group document (membership.c). */
#include "config.h"

#include "elastic-run/membership.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct members *ms = malloc(sizeof(*ms)), *again = malloc(sizeof(*ms));
	elastic_error_t err;

	if (s && ms && again && members_parse_group(s, 7, ms, &err) > 0 &&
	    members_parse_group(s, 7, again, &err) > 0 &&
	    !members_same(ms, again))
		abort(); /* the same text, another world */
	free(again);
	free(ms);
	free(s);
	return 0;
}
