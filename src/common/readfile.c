/* A small text file read whole (parse.h).  In libcommonio. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

int parse_read_file(const char *path, size_t max, bool missing_ok, char **ret,
		    elastic_error_t *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int rc = 0;

	if (!f) {
		if (errno == ENOENT && missing_ok) {
			*ret = NULL;
			return 0;
		}
		return elastic_errorf(err, "%s: cannot open: %s", path,
				      strerror(errno));
	}
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return elastic_errorf(err, "%s: out of memory", path);
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f))
		rc = elastic_errorf(err, "%s: cannot read: %s", path,
				    strerror(errno));
	else if (n > max)
		rc =
		    elastic_errorf(err, "%s: larger than %zu bytes", path, max);
	else if (memchr(buf, '\0', n))
		rc = elastic_errorf(err, "%s: contains a NUL byte", path);
	fclose(f);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*ret = buf;
	return 0;
}
