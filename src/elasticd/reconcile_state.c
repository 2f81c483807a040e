/* elasticd's state file: the groups' worlds, written and read back
 * (reconcile.h). */
#include "config.h"

#include "reconcile_impl.h"

bool reconcile_dirty(const struct reconcile *r)
{
	return r->dirty;
}

int reconcile_state_format(struct reconcile *r, char **ret,
			   elastic_error_t *err)
{
	size_t cap = 256, len = 0;
	char *buf = malloc(cap);

	if (!buf)
		return elastic_errorf(err, "out of memory");
	len = (size_t)snprintf(buf, cap, "elasticd-state v1\n");
	for (size_t bi = 0; bi < r->nbuckets; bi++)
		for (const struct group *g = r->buckets[bi]; g; g = g->next) {
			size_t need = 64 + g->nworld * 24;

			if (len + need > cap) {
				char *b2;

				while (len + need > cap)
					cap *= 2;
				b2 = realloc(buf, cap);
				if (!b2) {
					free(buf);
					return elastic_errorf(err,
							      "out of memory");
				}
				buf = b2;
			}
			len += (size_t)snprintf(buf + len, cap - len,
						"group %u gen %" PRIu64, g->id,
						g->generation);
			if (g->formed && g->nworld) {
				for (size_t i = 0; i < g->nworld; i++)
					len += (size_t)snprintf(
					    buf + len, cap - len, "%s%u:%u:%c",
					    i ? "," : " world ",
					    g->world[i].job, g->world[i].nnodes,
					    "bpo"[g->world[i].kind]);
			}
			buf[len++] = '\n';
			buf[len] = '\0';
		}
	r->dirty = false;
	*ret = buf;
	return 0;
}

static int parse_member(char *s, struct world_member *m)
{
	unsigned long job, nodes;
	char *c1 = strchr(s, ':'), *c2;

	if (!c1)
		return -1;
	*c1++ = '\0';
	c2 = strchr(c1, ':');
	if (!c2 || c2[1] == '\0' || c2[2] != '\0' || !strchr("bpo", c2[1]))
		return -1;
	*c2++ = '\0';
	if (parse_uint(s, 1, UINT32_MAX, &job) != PARSE_OK ||
	    parse_uint(c1, 1, ELASTIC_NODES_LIMIT, &nodes) != PARSE_OK)
		return -1;
	m->job = job;
	m->nnodes = nodes;
	m->kind = *c2 == 'b'   ? MEMBER_BASE
		  : *c2 == 'p' ? MEMBER_PREEMPTIBLE
			       : MEMBER_ONDEMAND;
	return 0;
}

static int load_line(struct reconcile *r, char *line, int lineno,
		     elastic_error_t *err)
{
	char *save = NULL;
	char *w[6];
	int nw = 0;
	unsigned long id;
	uint64_t gen;
	char *end;
	struct group *g;

	for (char *t = strtok_r(line, " ", &save); t;
	     t = strtok_r(NULL, " ", &save)) {
		if (nw == 6)
			goto bad;
		w[nw++] = t;
	}
	if (nw == 0)
		return 0;
	if ((nw != 4 && nw != 6) || strcmp(w[0], "group") ||
	    strcmp(w[2], "gen") ||
	    parse_uint(w[1], 1, UINT32_MAX, &id) != PARSE_OK)
		goto bad;
	if (!*w[3] || *w[3] == '-' || *w[3] == '+')
		goto bad;
	gen = strtoull(w[3], &end, 10);
	if (*end)
		goto bad;
	if (rec_find(r, id))
		goto bad;
	if (r->ngroups >= MODEL_MAX_JOBS)
		return elastic_errorf(err, "state: too many groups");
	if (!(g = rec_add_group(r, id)))
		return elastic_errorf(err, "out of memory");
	g->generation = gen;
	if (nw == 6) {
		char *msave = NULL;
		size_t n = 0;

		if (strcmp(w[4], "world"))
			goto bad;
		g->world = calloc(GROUP_MAX_SLOTS + 1, sizeof(*g->world));
		if (!g->world)
			return elastic_errorf(err, "out of memory");
		for (char *t = strtok_r(w[5], ",", &msave); t;
		     t = strtok_r(NULL, ",", &msave)) {
			if (n == GROUP_MAX_SLOTS + 1 ||
			    parse_member(t, &g->world[n]) < 0)
				goto bad;
			n++;
		}
		if (!n || g->world[0].kind != MEMBER_BASE ||
		    g->world[0].job != id)
			goto bad;
		g->nworld = n;
		for (size_t i = 0; i < n; i++)
			g->world_nodes += g->world[i].nnodes;
		g->formed = true;
		g->restored = true;
	}
	return 0;
bad:
	return elastic_errorf(err, "state line %d: malformed", lineno);
}

int reconcile_state_load(struct reconcile *r, const char *text,
			 elastic_error_t *err)
{
	const char *s = text;
	int lineno = 0;

	if (r->pass)
		return elastic_errorf(err, "state: load before the first pass");
	if (strncmp(text, "elasticd-state v1\n", 18))
		return elastic_errorf(err, "state: not an elasticd state file");
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line;
		int rc;

		lineno++;
		if (lineno == 1) {
			s += len + (nl ? 1 : 0);
			continue;
		}
		if (len > STATE_MAX_LINE)
			return elastic_errorf(err, "state line %d: too long",
					      lineno);
		line = strndup(s, len);
		if (!line)
			return elastic_errorf(err, "out of memory");
		rc = load_line(r, line, lineno, err);
		free(line);
		if (rc < 0)
			return -1;
		s += len + (nl ? 1 : 0);
	}
	return 0;
}
