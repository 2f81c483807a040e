/* A unit job's tag (unittag.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "parse.h"
#include "unittag.h"

const char *unittag_kind_name(enum unit_kind k)
{
	return k == UNIT_ONDEMAND ? "ondemand" : "preemptible";
}

int unittag_format(const struct unit_tag *t, char *buf, size_t len)
{
	if (!t->request)
		return snprintf(buf, len,
				UNIT_TAG_PREFIX " group=%u kind=%s nodes=%u",
				t->group, unittag_kind_name(t->kind), t->nodes);
	return snprintf(
	    buf, len, UNIT_TAG_PREFIX " group=%u kind=%s nodes=%u req=%u",
	    t->group, unittag_kind_name(t->kind), t->nodes, t->request);
}

int unittag_parse(const char *s, struct unit_tag *ret, elastic_error_t *err)
{
	const size_t plen = strlen(UNIT_TAG_PREFIX);
	struct unit_tag t = { 0 };
	char buf[UNIT_TAG_MAX + 1];
	char *save = NULL, *word;
	unsigned seen = 0;

	if (!s || strncmp(s, UNIT_TAG_PREFIX " ", plen + 1))
		return elastic_errorf(err, "not a unit tag");
	if (strlen(s) > UNIT_TAG_MAX)
		return elastic_errorf(err, "unit tag too long");
	strcpy(buf, s + plen + 1);
	for (word = strtok_r(buf, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(word, '=');
		unsigned long v;
		unsigned bit;

		if (!eq)
			return elastic_errorf(err, "unit tag: bad word '%s'",
					      word);
		*eq++ = '\0';
		if (!strcmp(word, "group")) {
			bit = 1;
			if (parse_uint(eq, 1, UINT32_MAX, &v) != PARSE_OK)
				return elastic_errorf(err,
						      "unit tag: bad group");
			t.group = v;
		} else if (!strcmp(word, "kind")) {
			bit = 2;
			if (!strcmp(eq, "preemptible"))
				t.kind = UNIT_PREEMPTIBLE;
			else if (!strcmp(eq, "ondemand"))
				t.kind = UNIT_ONDEMAND;
			else
				return elastic_errorf(err,
						      "unit tag: bad kind");
		} else if (!strcmp(word, "nodes")) {
			bit = 4;
			if (parse_uint(eq, 1, ELASTIC_NODES_LIMIT, &v) !=
			    PARSE_OK)
				return elastic_errorf(err,
						      "unit tag: bad nodes");
			t.nodes = v;
		} else if (!strcmp(word, "req")) {
			bit = 8;
			if (parse_uint(eq, 1, UINT32_MAX, &v) != PARSE_OK)
				return elastic_errorf(err, "unit tag: bad req");
			t.request = v;
		} else {
			continue; /* a later release's key */
		}
		if (seen & bit)
			return elastic_errorf(err, "unit tag: %s twice", word);
		seen |= bit;
	}
	if ((seen & 7) != 7)
		return elastic_errorf(err, "unit tag: incomplete");
	*ret = t;
	return 0;
}
