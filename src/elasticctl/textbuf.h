#ifndef ELASTICCTL_TEXTBUF_H
#define ELASTICCTL_TEXTBUF_H

#include <stdbool.h>
#include <stddef.h>

/*
 * A string that grows as text is added (report's pure parts build their
 * output in one, elasticctl prints it).  The owner of the struct is
 * textbuf.c; the caller holds it and frees what textbuf_take() returns.
 */
struct textbuf {
	char *s; /* malloc'd, NUL-terminated; NULL before the first add */
	size_t len, cap;
	bool failed; /* out of memory: all later adds are dropped */
};

/* Append printf-style text. */
void textbuf_printf(struct textbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The text (caller frees), "" if nothing was added; NULL if out of
 * memory.  b is empty again either way. */
char *textbuf_take(struct textbuf *b);

#endif
