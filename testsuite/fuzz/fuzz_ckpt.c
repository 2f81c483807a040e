/* What users name and write: --elastic-resume-from specs, checkpoint
 * entry names, a checkpoint dir's eval/index, unit tags, host:port. */
#include "config.h"

#include "common/ckpt.h"
#include "common/ckpt_eval.h"
#include "common/hostport.h"
#include "common/unittag.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size), host[HOSTPORT_HOST_MAX + 1];
	struct ckpt_eval_index *ix = malloc(sizeof(*ix));
	struct ckpt_spec spec;
	struct unit_tag t;
	elastic_error_t err;
	unsigned port;
	uint64_t step;

	if (s && ix) {
		ckpt_spec_parse(s, &spec, &err);
		ckpt_parse_name(s, &step);
		ckpt_eval_index_parse(s, ix, &err);
		unittag_parse(s, &t, &err);
		hostport_parse(s, host, &port, &err);
	}
	free(ix);
	free(s);
	return 0;
}
