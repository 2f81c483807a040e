#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "policy.h"
#include "sizeconf.h"

/* Names the ranks' environment already owns. */
static bool reserved(const char *name)
{
	static const char *const exact[] = {
		"RANK",	      "LOCAL_RANK",  "WORLD_SIZE",  "LOCAL_WORLD_SIZE",
		"GROUP_RANK", "MASTER_ADDR", "MASTER_PORT", "PATH",
		"HOME",	      "USER",	     "SHELL",
	};
	static const char *const prefix[] = { "SLURM_", "ELASTIC_", "LD_",
					      "SPANK_", "_SLURM_" };

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

static int check_var(const char *tok, const char *where, elastic_error_t *err)
{
	const char *eq = strchr(tok, '=');
	size_t nlen;

	if (!eq || eq == tok)
		return elastic_errorf(err, "%s: '%s' is not NAME=VALUE", where,
				      tok);
	nlen = (size_t)(eq - tok);
	if (nlen > SIZECONF_NAME_MAX)
		return elastic_errorf(err, "%s: variable name longer than %d",
				      where, SIZECONF_NAME_MAX);
	if (!isalpha((unsigned char)tok[0]) && tok[0] != '_')
		return elastic_errorf(err,
				      "%s: '%.*s' is not a variable name "
				      "(letters, digits, _)",
				      where, (int)nlen, tok);
	for (size_t i = 0; i < nlen; i++)
		if (!isalnum((unsigned char)tok[i]) && tok[i] != '_')
			return elastic_errorf(err,
					      "%s: '%.*s' is not a variable "
					      "name (letters, digits, _)",
					      where, (int)nlen, tok);
	{
		char name[SIZECONF_NAME_MAX + 1];

		memcpy(name, tok, nlen);
		name[nlen] = '\0';
		if (reserved(name))
			return elastic_errorf(err,
					      "%s: %s is set by Slurm or "
					      "slurm-elastic and cannot be "
					      "overridden",
					      where, name);
	}
	if (strlen(eq + 1) > SIZECONF_VALUE_MAX)
		return elastic_errorf(err, "%s: value of %.*s longer than %d",
				      where, (int)nlen, tok,
				      SIZECONF_VALUE_MAX);
	for (const char *c = eq + 1; *c; c++)
		if (!isgraph((unsigned char)*c) || *c == ';' || *c == '#')
			return elastic_errorf(err,
					      "%s: value of %.*s has a space, "
					      "';', '#' or control character",
					      where, (int)nlen, tok);
	return 0;
}

/* Append s to the canonical text. */
static int append(struct size_config *sc, size_t *len, const char *s,
		  const char *name, elastic_error_t *err)
{
	size_t n = strlen(s);

	if (*len + n > SIZECONF_TEXT_MAX)
		return elastic_errorf(err,
				      "%s: too large (at most %d bytes once "
				      "comments and blanks are removed)",
				      name, SIZECONF_TEXT_MAX);
	memcpy(sc->text + *len, s, n + 1);
	*len += n;
	return 0;
}

static int parse_entry(struct size_config *sc, size_t *len, char *line,
		       const char *where, const char *name,
		       elastic_error_t *err)
{
	char *save = NULL, *tok = strtok_r(line, " \t\r", &save);
	unsigned long size = 0;
	unsigned nvars = 0, start;

	if (strcmp(tok, "default")) {
		enum parse_result r =
		    parse_uint(tok, 1, ELASTIC_NODES_LIMIT, &size);

		if (r != PARSE_OK)
			return elastic_errorf(err,
					      "%s: '%s': a line starts with a "
					      "node count (1 to %d) or "
					      "'default'",
					      where, tok, ELASTIC_NODES_LIMIT);
	}
	for (unsigned i = 0; i < sc->n; i++)
		if (sc->entry[i].size == size)
			return elastic_errorf(err, "%s: second line for %s",
					      where, size ? tok : "default");
	if (sc->n == SIZECONF_ENTRIES_MAX)
		return elastic_errorf(err, "%s: more than %d lines", where,
				      SIZECONF_ENTRIES_MAX);
	if (*len && append(sc, len, ";", name, err) < 0)
		return -1;
	start = *len;
	if (append(sc, len, tok, name, err) < 0)
		return -1;
	while ((tok = strtok_r(NULL, " \t\r", &save))) {
		if (++nvars > SIZECONF_VARS_MAX)
			return elastic_errorf(err, "%s: more than %d variables",
					      where, SIZECONF_VARS_MAX);
		if (check_var(tok, where, err) < 0 ||
		    append(sc, len, " ", name, err) < 0 ||
		    append(sc, len, tok, name, err) < 0)
			return -1;
	}
	sc->entry[sc->n].size = size;
	sc->entry[sc->n].off = start;
	sc->entry[sc->n].len = *len - start;
	sc->n++;
	return 0;
}

int sizeconf_parse(struct size_config *out, const char *text, const char *name,
		   elastic_error_t *err)
{
	struct size_config *sc = calloc(1, sizeof(*sc));
	char line[SIZECONF_TEXT_MAX + 1], where[300];
	const char *s = text;
	size_t len = 0;
	int lineno = 0, rc = 0;

	if (!sc)
		return elastic_errorf(err, "%s: out of memory", name);
	while (*s && rc == 0) {
		size_t n = strcspn(s, "\n;#"), next = n;
		char *l;

		/* A comment runs to the end of the line, ';' included. */
		if (s[n] == '#')
			next += strcspn(s + n, "\n");
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", name, lineno);
		if (n > SIZECONF_TEXT_MAX) {
			rc = elastic_errorf(err, "%s: line too long", where);
			break;
		}
		memcpy(line, s, n);
		line[n] = '\0';
		s += next + (s[next] ? 1 : 0);
		l = parse_trim(line);
		if (*l)
			rc = parse_entry(sc, &len, l, where, name, err);
	}
	if (rc == 0)
		*out = *sc;
	free(sc);
	return rc;
}

/* Is NAME (of the NAME=VALUE at var) among the words of entry text? */
static bool entry_sets(const char *text, unsigned len, const char *var)
{
	size_t nlen = strcspn(var, "=");
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *w = p;
		size_t wlen;

		p += strcspn(p, " ;");
		wlen = (size_t)(p - w);
		if (wlen > nlen && !strncmp(w, var, nlen) && w[nlen] == '=')
			return true;
		if (*p == ' ')
			p++;
	}
	return false;
}

static int each_var(const char *text, unsigned len, const char *skip_text,
		    unsigned skip_len, sizeconf_var_fn fn, void *arg)
{
	const char *p = text + strcspn(text, " ;"), *end = text + len;

	while (p < end && *p == ' ') {
		char name[SIZECONF_NAME_MAX + 1], value[SIZECONF_VALUE_MAX + 1];
		const char *w = ++p, *eq;
		size_t wlen;
		int rc;

		p += strcspn(p, " ;");
		if (p > end)
			p = end;
		wlen = (size_t)(p - w);
		eq = memchr(w, '=', wlen);
		if (!eq)
			continue;
		if (skip_text && entry_sets(skip_text, skip_len, w))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - w), w);
		snprintf(value, sizeof(value), "%.*s", (int)(w + wlen - eq - 1),
			 eq + 1);
		if ((rc = fn(name, value, arg)))
			return rc;
	}
	return 0;
}

int sizeconf_foreach(const struct size_config *sc, unsigned size,
		     sizeconf_var_fn fn, void *arg)
{
	int def = -1, own = -1, rc;

	for (unsigned i = 0; i < sc->n; i++) {
		if (sc->entry[i].size == 0)
			def = i;
		else if (sc->entry[i].size == size)
			own = i;
	}
	if (def >= 0) {
		rc = each_var(sc->text + sc->entry[def].off, sc->entry[def].len,
			      own >= 0 ? sc->text + sc->entry[own].off : NULL,
			      own >= 0 ? sc->entry[own].len : 0, fn, arg);
		if (rc)
			return rc;
	}
	if (own >= 0)
		return each_var(sc->text + sc->entry[own].off,
				sc->entry[own].len, NULL, 0, fn, arg);
	return 0;
}
