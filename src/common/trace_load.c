/* A trace read from its file (trace.h).  In libcommonio; parsing the
 * text stays pure in trace.c. */
#include "config.h"

#include <stdlib.h>

#include "parse.h"
#include "trace.h"

struct trace *trace_load(const char *path, elastic_error_t *err)
{
	struct trace *t;
	char *text;

	if (parse_read_file(path, TRACE_FILE_MAX, false, &text, err) < 0)
		return NULL;
	t = trace_parse(text, path, err);
	free(text);
	return t;
}
