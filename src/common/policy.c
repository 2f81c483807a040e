#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"
#include "policy.h"

/* Bounds on what we read: the file is small and hand-written. */
#define POLICY_MAX_BYTES (256 * 1024)
#define POLICY_MAX_LINE	 1024

enum key_id { KEY_MAX_NODES, KEY_DEFAULT_MIN_NODES, KEY_DEFAULT_MAX_NODES };

static const struct key {
	const char *name;
	enum key_id id;
} keys[] = {
	{ "MaxNodes", KEY_MAX_NODES },
	{ "DefaultMinNodes", KEY_DEFAULT_MIN_NODES },
	{ "DefaultMaxNodes", KEY_DEFAULT_MAX_NODES },
};

#define KNOWN_KEYS "MaxNodes, DefaultMinNodes, DefaultMaxNodes"

void policy_defaults(struct elastic_policy *p)
{
	p->max_nodes = ELASTIC_NODES_LIMIT;
	p->default_min_nodes = 1;
	p->default_max_nodes = 0;
}

static const struct key *find_key(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcasecmp(name, keys[i].name))
			return &keys[i];
	return NULL;
}

static int set_key(struct elastic_policy *p, const struct key *k,
		   const char *val, const char *where, elastic_error_t *err)
{
	unsigned long v;
	enum parse_result r = parse_uint(val, 1, ELASTIC_NODES_LIMIT, &v);

	if (r != PARSE_OK)
		return elastic_errorf(err, "%s: %s=%s: %s (allowed: 1 to %d)",
				      where, k->name, val, parse_strerror(r),
				      ELASTIC_NODES_LIMIT);
	switch (k->id) {
	case KEY_MAX_NODES:
		p->max_nodes = v;
		break;
	case KEY_DEFAULT_MIN_NODES:
		p->default_min_nodes = v;
		break;
	case KEY_DEFAULT_MAX_NODES:
		p->default_max_nodes = v;
		break;
	}
	return 0;
}

static int parse_line(struct elastic_policy *p, char *line, const char *where,
		      elastic_error_t *err)
{
	char *hash = strchr(line, '#');
	char *eq, *key, *val;
	const struct key *k;

	if (hash)
		*hash = '\0';
	line = parse_trim(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq)
		return elastic_errorf(err, "%s: expected Key=Value, got '%s'",
				      where, line);
	*eq = '\0';
	key = parse_trim(line);
	val = parse_trim(eq + 1);
	k = find_key(key);
	if (!k)
		return elastic_errorf(err, "%s: unknown key '%s' (known: %s)",
				      where, key, KNOWN_KEYS);
	return set_key(p, k, val, where, err);
}

/* Relations between keys, checked once the whole file is read. */
static int check_policy(const struct elastic_policy *p, const char *name,
			elastic_error_t *err)
{
	if (p->default_min_nodes > p->max_nodes)
		return elastic_errorf(
		    err, "%s: DefaultMinNodes=%u is above MaxNodes=%u", name,
		    p->default_min_nodes, p->max_nodes);
	if (p->default_max_nodes > p->max_nodes)
		return elastic_errorf(
		    err, "%s: DefaultMaxNodes=%u is above MaxNodes=%u", name,
		    p->default_max_nodes, p->max_nodes);
	if (p->default_max_nodes && p->default_max_nodes < p->default_min_nodes)
		return elastic_errorf(
		    err, "%s: DefaultMaxNodes=%u is below DefaultMinNodes=%u",
		    name, p->default_max_nodes, p->default_min_nodes);
	return 0;
}

int policy_parse(struct elastic_policy *p, const char *text, const char *name,
		 elastic_error_t *err)
{
	struct elastic_policy tmp;
	char line[POLICY_MAX_LINE + 1];
	char where[256];
	const char *s = text;
	int lineno = 0;

	policy_defaults(&tmp);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		if (len > POLICY_MAX_LINE)
			return elastic_errorf(err,
					      "%s: line longer than %d bytes",
					      where, POLICY_MAX_LINE);
		memcpy(line, s, len);
		line[len] = '\0';
		if (parse_line(&tmp, line, where, err) < 0)
			return -1;
		s += len + (nl ? 1 : 0);
	}
	if (check_policy(&tmp, name, err) < 0)
		return -1;
	*p = tmp;
	return 0;
}

int policy_load(struct elastic_policy *p, const char *path,
		elastic_error_t *err)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int rc;

	if (!f) {
		if (errno == ENOENT) {
			policy_defaults(p);
			return 0;
		}
		return elastic_errorf(err, "%s: cannot open: %s", path,
				      strerror(errno));
	}
	buf = malloc(POLICY_MAX_BYTES + 1);
	if (!buf) {
		fclose(f);
		return elastic_errorf(err, "%s: out of memory", path);
	}
	n = fread(buf, 1, POLICY_MAX_BYTES + 1, f);
	if (ferror(f)) {
		rc = elastic_errorf(err, "%s: read error", path);
	} else if (n > POLICY_MAX_BYTES) {
		rc = elastic_errorf(err, "%s: larger than %d bytes", path,
				    POLICY_MAX_BYTES);
	} else {
		buf[n] = '\0';
		rc = memchr(buf, '\0', n)
			 ? elastic_errorf(err, "%s: contains a NUL byte", path)
			 : policy_parse(p, buf, path, err);
	}
	free(buf);
	fclose(f);
	return rc;
}
