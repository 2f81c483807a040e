#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "error.h"

/*
 * Error texts quote what users wrote and end up in slurmctld's and
 * slurmd's logs: a control character (a newline from a client that skips
 * the SPANK plugin) is written as an escape, so that a text stays one line
 * and cannot forge a log line.
 */
void elastic_escape(char *out, size_t len, const char *in)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		char e[5];
		size_t n = 0;

		if (c == '\n' || c == '\t' || c == '\r') {
			e[n++] = '\\';
			e[n++] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		} else if (c < 0x20 || c == 0x7f) {
			e[n++] = '\\';
			e[n++] = 'x';
			e[n++] = hex[c >> 4];
			e[n++] = hex[c & 15];
		} else {
			e[n++] = (char)c;
		}
		if (o + n >= len)
			break;
		for (size_t k = 0; k < n; k++)
			out[o++] = e[k];
	}
	out[o] = '\0';
}

int elastic_errorf(elastic_error_t *err, const char *fmt, ...)
{
	char raw[sizeof(err->text)];
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(raw, sizeof(raw), fmt, ap);
		va_end(ap);
		elastic_escape(err->text, sizeof(err->text), raw);
	}
	return -1;
}
