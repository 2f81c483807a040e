/* A user's --elastic-size-config, parsed by sbatch, slurmctld and
 * slurmstepd (as root). */
#include "config.h"

#include "common/sizeconf.h"
#include "fuzz.h"

static int count(const char *name, const char *value, void *arg)
{
	(void)name;
	(void)value;
	++*(unsigned *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	struct size_config *sc = malloc(sizeof(*sc));
	elastic_error_t err;
	unsigned n = 0;

	if (s && sc && sizeconf_parse(sc, s, "sizes.conf", &err) == 0)
		for (unsigned w = 1; w <= 8; w++)
			sizeconf_foreach(sc, w, count, &n);
	free(sc);
	free(s);
	return 0;
}
