#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "error.h"

int elastic_errorf(elastic_error_t *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->text, sizeof(err->text), fmt, ap);
		va_end(ap);
	}
	return -1;
}
