/* Node lists without libslurm (nodelist.h). */
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
