/* The worlds elastic-run publishes on the in-place channel (inplace.h,
 * elastic-run.h): their payload, the members' nodes expanded. */
#include "config.h"

#include "elastic-run.h"
#include "inplace.h"

char *inplace_payload(const struct config *c, enum inplace_path path,
		      const struct members *ms, unsigned port, unsigned src,
		      const char *lost, size_t *plen)
{
	size_t cap = 4096 + ms->pool_used * 8, len = 0, i;
	char *p = malloc(cap);
	unsigned off = 0;

	if (!p)
		return NULL;
#define PUT(...)                                                               \
	do {                                                                   \
		int w_ = snprintf(p + len, cap - len, __VA_ARGS__);            \
		if (w_ < 0 || (size_t)w_ >= cap - len)                         \
			goto too_long;                                         \
		len += (size_t)w_;                                             \
	} while (0)
	PUT("path %s\n", inplace_path_name(path));
	if (path == INPLACE_IN_PLACE) {
		PUT("size %u\nnproc %u\nmaster %s %u\nsrc %u\n",
		    ms->nnodes * c->nproc_per_node, c->nproc_per_node,
		    ms->master_addr, port, src);
		if (lost && *lost)
			PUT("lost %s\n", lost);
		for (i = 0; i < ms->n; i++) {
			compat_hostlist_t h =
			    slurm_hostlist_create(member_nodes(ms, i));
			char *name;
			bool first = true;

			PUT("member %u %u ", ms->m[i].job_id, off);
			while (h && (name = slurm_hostlist_shift(h))) {
				int w = snprintf(p + len, cap - len, "%s%s",
						 first ? "" : ",", name);

				free(name);
				if (w < 0 || (size_t)w >= cap - len) {
					slurm_hostlist_destroy(h);
					goto too_long;
				}
				len += (size_t)w;
				first = false;
			}
			if (h)
				slurm_hostlist_destroy(h);
			PUT("\n");
			off += ms->m[i].nnodes * c->nproc_per_node;
		}
	}
#undef PUT
	*plen = len;
	return p;
too_long:
	free(p);
	return NULL;
}
