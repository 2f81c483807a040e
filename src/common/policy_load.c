/* elastic.conf read from its file (policy.h).  In libcommonio; parsing
 * the text stays pure in policy.c. */
#include "config.h"

#include <stdlib.h>

#include "parse.h"
#include "policy.h"

/* The file is small and hand-written. */
#define POLICY_MAX_BYTES (256 * 1024)

int policy_load(struct elastic_policy *p, const char *path, bool *found,
		elastic_error_t *err)
{
	char *text;
	int rc;

	if (parse_read_file(path, POLICY_MAX_BYTES, true, &text, err) < 0)
		return -1;
	if (found)
		*found = text != NULL;
	if (!text) {
		policy_defaults(p);
		return 0;
	}
	rc = policy_parse(p, text, path, err);
	free(text);
	return rc;
}
