/* elasticd's account document as elasticctl report reads it (an answer
 * of the network, or a file given to --from-file); then its text, and
 * the picture's data and script, whose words must stay words. */
#include "config.h"

#include "elasticctl/acct.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_string(data, size);
	elastic_error_t err;
	struct acct a;

	if (s && acct_parse(s, &a, &err) == 0) {
		char *text = acct_text(&a);
		char *d = acct_plot_data(&a);
		char *script = acct_plot_script(&a, true, true);

		/* Only [a-z0-9_-] words reach the script's strings. */
		for (size_t i = 0; i < a.nevents; i++)
			if (strspn(a.events[i].kind,
				   "abcdefghijklmnopqrstuvwxyz0123456789_-") !=
			    strlen(a.events[i].kind))
				abort();
		free(text);
		free(d);
		free(script);
		acct_free(&a);
	}
	free(s);
	return 0;
}
