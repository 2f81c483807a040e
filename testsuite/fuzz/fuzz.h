/*
 * What every harness of testsuite/fuzz shares: the input as a
 * NUL-terminated string (parsers take C strings; an embedded NUL ends
 * it, as it would in the real input).
 */
#ifndef ELASTIC_FUZZ_H
#define ELASTIC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
