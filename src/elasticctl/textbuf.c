/*
 * A growing string (textbuf.h): pure, no I/O.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

/* Room for need more bytes and the NUL: false if out of memory. */
static bool textbuf_reserve(struct textbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *s;

	if (b->len + need + 1 <= b->cap)
		return true;
	while (cap < b->len + need + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s)
		return false;
	b->s = s;
	b->cap = cap;
	return true;
}

void textbuf_printf(struct textbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !textbuf_reserve(b, (size_t)n)) {
		b->failed = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *textbuf_take(struct textbuf *b)
{
	char *s = b->failed ? NULL : b->s ? b->s : strdup("");

	if (b->failed)
		free(b->s);
	*b = (struct textbuf){ 0 };
	return s;
}
