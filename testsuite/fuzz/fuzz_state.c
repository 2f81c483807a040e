/* elasticd's state file (ElasticdStateDir), read at start as root. */
#include "config.h"

#include "elasticd/reconcile.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), *out = NULL;
	struct reconcile_config cfg;
	struct reconcile *r;
	elastic_error_t err;

	if (!s)
		return 0;
	reconcile_config_defaults(&cfg);
	r = reconcile_create(&cfg);
	if (r && reconcile_state_load(r, s, &err) == 0 &&
	    reconcile_state_format(r, &out, &err) == 0)
		free(out);
	reconcile_destroy(r);
	free(s);
	return 0;
}
