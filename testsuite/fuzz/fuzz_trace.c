/* A spot-availability trace, as the goodput benchmark reads any file it
 * is given; then its mapping onto small clusters and the oracle. */
#include "config.h"

#include "common/trace.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	elastic_error_t err;
	struct trace *t = s ? trace_parse(s, "trace.csv", &err) : NULL;
	double secs;

	for (unsigned n = 1; t && n <= 4; n++) {
		struct trace *m = trace_map(t, n, &err);

		if (m)
			trace_oracle_time_to(m, 1, 1, 1000, &secs, &err);
		trace_destroy(m);
	}
	trace_destroy(t);
	free(s);
	return 0;
}
