/* elastic.conf read from its file (policy.h).  In libcommonio; parsing
 * the text stays pure in policy.c. */
#include "config.h"

#include <stdlib.h>

#include "parse.h"
#include "policy.h"

/* The file is small and hand-written. */
#define POLICY_MAX_BYTES (256 * 1024)

/* The file's text in *text, or NULL and the defaults in *p when there is
 * no file. */
static int read_policy(struct elastic_policy *p, const char *path, bool *found,
		       char **text, elastic_error_t *err)
{
	if (parse_read_file(path, POLICY_MAX_BYTES, true, text, err) < 0)
		return -1;
	if (found)
		*found = *text != NULL;
	if (!*text)
		policy_defaults(p);
	return 0;
}

int policy_load(struct elastic_policy *p, const char *path, bool *found,
		elastic_error_t *err)
{
	char *text;
	int rc;

	if (read_policy(p, path, found, &text, err) < 0)
		return -1;
	if (!text)
		return 0;
	rc = policy_parse(p, text, path, err);
	free(text);
	return rc;
}

unsigned policy_load_all(struct elastic_policy *p, const char *path,
			 bool *found, policy_error_fn each, void *arg)
{
	elastic_error_t err;
	char *text;
	unsigned n;

	if (read_policy(p, path, found, &text, &err) < 0) {
		each(arg, err.text);
		return 1;
	}
	if (!text)
		return 0;
	n = policy_parse_all(p, text, path, each, arg);
	free(text);
	return n;
}
