/* Node lists without libslurm (nodelist.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nodelist.h"

char *nodelist_first_host(const char *list)
{
	size_t pre = strcspn(list, "[,"), num = 0, suf = 0;
	const char *close = NULL;
	char *out;

	if (!*list)
		return NULL;
	if (list[pre] == '[') {
		num = strcspn(list + pre + 1, "-,]");
		close = strchr(list + pre, ']');
		if (close)
			suf = strcspn(close + 1, ",[");
	}
	out = malloc(pre + num + suf + 1);
	if (!out)
		return NULL;
	memcpy(out, list, pre);
	memcpy(out + pre, list + pre + 1, num);
	if (suf)
		memcpy(out + pre + num, close + 1, suf);
	out[pre + num + suf] = '\0';
	return out;
}

/* Does the range list "1-3,05" (up to its ']') hold the number digits
 * (len of them)?  A zero-padded bound asks for as many digits. */
static bool range_has(const char *r, const char *digits, size_t len)
{
	unsigned long v, lo, hi;
	char *end;

	if (len == 0 || len > 9 || strspn(digits, "0123456789") < len)
		return false;
	v = strtoul(digits, NULL, 10);
	while (*r && *r != ']') {
		size_t w = strspn(r, "0123456789");

		if (w == 0)
			return false;
		lo = hi = strtoul(r, &end, 10);
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		/* n[01-10] holds n01, not n1; n[1-10] holds n1, not n01. */
		if (v >= lo && v <= hi &&
		    ((r[0] == '0' && w > 1) ? len == w
					     : digits[0] != '0' || len == 1))
			return true;
		if (*end == ',')
			end++;
		else if (*end != ']')
			return false;
		r = end;
	}
	return false;
}

/* One entry of a list: "name" or "pre[ranges]suf" (one bracket). */
static bool entry_has(const char *e, size_t elen, const char *node)
{
	const char *open = memchr(e, '[', elen), *close;
	size_t nlen = strlen(node), pre, suf;

	if (!open)
		return elen == nlen && !memcmp(e, node, nlen);
	close = memchr(open, ']', elen - (size_t)(open - e));
	if (!close)
		return false;
	pre = (size_t)(open - e);
	suf = elen - (size_t)(close + 1 - e);
	if (memchr(close + 1, '[', suf) || nlen <= pre + suf ||
	    memcmp(node, e, pre) || memcmp(node + nlen - suf, close + 1, suf))
		return false;
	return range_has(open + 1, node + pre, nlen - pre - suf);
}

bool nodelist_has(const char *list, const char *node)
{
	const char *p = list;

	if (!list || !node || !*node)
		return false;
	while (*p) {
		size_t n = 0;
		int depth = 0;

		/* An entry ends at a comma outside brackets. */
		while (p[n] && (depth || p[n] != ',')) {
			depth += p[n] == '[' ? 1 : p[n] == ']' ? -1 : 0;
			n++;
		}
		if (entry_has(p, n, node))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}
