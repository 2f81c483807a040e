/* A split between compute nodes (split.h): pure. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "split.h"

int split_init(struct split *s, size_t n, const char (*name)[DETECT_NAME_MAX])
{
	memset(s, 0, sizeof(*s));
	s->answered = calloc(n ? n : 1, sizeof(*s->answered));
	s->cut = calloc(n ? n * n : 1, sizeof(*s->cut));
	if (!s->answered || !s->cut) {
		split_free(s);
		return -1;
	}
	s->n = n;
	s->name = name;
	return 0;
}

void split_free(struct split *s)
{
	free(s->answered);
	free(s->cut);
	memset(s, 0, sizeof(*s));
}

static size_t split_index(const struct split *s, const char *name, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->name[i]) == len &&
		    !strncmp(s->name[i], name, len))
			return i;
	return (size_t)-1;
}

void split_heard(struct split *s, size_t i, const char *line)
{
	const char *x = strstr(line, " X=");
	const char *more = strstr(line, " X+=");

	if (i >= s->n || (!x && !more))
		return;
	/* "X+=" lines come first; "X=" ends the answer. */
	if (x)
		s->answered[i] = true;
	for (const char *p = x ? x + 3 : more + 4; *p && *p != ' ';) {
		size_t len = strcspn(p, ", ");
		size_t j = split_index(s, p, len);

		if (j != (size_t)-1 && j != i)
			s->cut[i * s->n + j] = true;
		p += len;
		if (*p == ',')
			p++;
	}
}

void split_unknown(struct split *s, size_t i)
{
	if (i >= s->n)
		return;
	s->answered[i] = true;
	for (size_t j = 0; j < s->n; j++)
		s->cut[i * s->n + j] = s->cut[j * s->n + i] = false;
}

bool split_complete(const struct split *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!s->answered[i])
			return false;
	return true;
}

static bool joined(const struct split *s, size_t i, size_t j)
{
	return s->answered[i] && s->answered[j] && !s->cut[i * s->n + j] &&
	       !s->cut[j * s->n + i];
}

size_t split_keep(const struct split *s, size_t master, bool *keep)
{
	size_t *degree;
	size_t left = 0;

	/* Without the batch host's own answer, nothing is known. */
	if (master >= s->n || !s->answered[master]) {
		for (size_t i = 0; i < s->n; i++)
			keep[i] = true;
		return 0;
	}
	degree = calloc(s->n ? s->n : 1, sizeof(*degree));

	for (size_t i = 0; i < s->n; i++) {
		keep[i] = i == master;
		for (size_t j = 0; degree && j < s->n; j++)
			degree[i] += j != i && joined(s, i, j);
	}
	for (;;) {
		size_t best = (size_t)-1;

		for (size_t i = 0; i < s->n; i++) {
			bool fits = !keep[i];

			for (size_t j = 0; fits && j < s->n; j++)
				fits = !keep[j] || joined(s, i, j);
			if (fits && (best == (size_t)-1 ||
				     (degree && degree[i] > degree[best])))
				best = i;
		}
		if (best == (size_t)-1)
			break;
		keep[best] = true;
	}
	free(degree);
	for (size_t i = 0; i < s->n; i++)
		left += !keep[i];
	return left;
}
