#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt.h"
#include "options.h"
#include "parse.h"
#include "safeopen.h"

int ckpt_parse_name(const char *name, uint64_t *step)
{
	const char *p = name;
	uint64_t v = 0;
	size_t nd = 0;

	if (strncmp(p, CKPT_PREFIX, strlen(CKPT_PREFIX)))
		return -1;
	if (strlen(name) > CKPT_NAME_MAX)
		return -1;
	p += strlen(CKPT_PREFIX);
	for (; *p >= '0' && *p <= '9'; p++, nd++) {
		if (nd == CKPT_STEP_DIGITS)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (nd == 0)
		return -1;
	if (*p) {
		if (*p != '.' || !p[1])
			return -1;
		for (p++; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
				return -1;
	}
	*step = v;
	return 0;
}

void ckpt_list_free(struct ckpt_list *l)
{
	free(l->e);
	l->e = NULL;
	l->n = 0;
}

const struct ckpt_entry *ckpt_newest(const struct ckpt_list *l)
{
	size_t i;

	if (!l->n)
		return NULL;
	/* The first by name of the highest step, as ckpt_find gives. */
	for (i = l->n - 1; i > 0 && l->e[i - 1].step == l->e[i].step; i--)
		;
	return &l->e[i];
}

const struct ckpt_entry *ckpt_find(const struct ckpt_list *l, uint64_t step)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].step == step)
			return &l->e[i];
	return NULL;
}

int ckpt_entry_path(const struct ckpt_list *l, const struct ckpt_entry *e,
		    char *buf, size_t len)
{
	size_t dl = strlen(l->dir);
	bool slash = dl && l->dir[dl - 1] == '/';
	int n = snprintf(buf, len, "%s%s%s", l->dir, slash ? "" : "/", e->name);

	return (n < 0 || (size_t)n >= len) ? -1 : 0;
}

void ckpt_steps_text(const struct ckpt_list *l, char *buf, size_t len)
{
	uint64_t steps[16];
	size_t ns = 0, j = 0;
	size_t distinct = 0;

	/* Distinct steps: first 3 and last 6 when there are more than 10. */
	for (size_t i = 0; i < l->n; i++)
		if (!i || l->e[i].step != l->e[i - 1].step)
			distinct++;
	buf[0] = '\0';
	for (size_t i = 0, k = 0; i < l->n; i++) {
		if (i && l->e[i].step == l->e[i - 1].step)
			continue;
		if (distinct <= 10 || k < 3 || k >= distinct - 6)
			steps[ns++] = l->e[i].step;
		else if (k == 3)
			steps[ns++] = UINT64_MAX; /* "..." */
		k++;
	}
	for (size_t i = 0; i < ns && j < len; i++) {
		int n;

		if (steps[i] == UINT64_MAX)
			n = snprintf(buf + j, len - j, "%s...", i ? ", " : "");
		else
			n = snprintf(buf + j, len - j, "%s%" PRIu64,
				     i ? ", " : "", steps[i]);
		if (n < 0)
			break;
		j += (size_t)n;
	}
}

/* Path without repeated, trailing or "./" slashes, into out. */
static void normalize(const char *in, char *out, size_t len)
{
	size_t j = 0;

	for (const char *p = in; *p && j + 1 < len; p++) {
		if (*p == '/' && (p[1] == '/' || (j && out[j - 1] == '/')))
			continue;
		if (*p == '/' && p[1] == '.' && (p[2] == '/' || !p[2])) {
			p++;
			continue;
		}
		out[j++] = *p;
	}
	while (j > 1 && out[j - 1] == '/')
		j--;
	out[j] = '\0';
}

static bool in_use(const struct ckpt_list *l, const struct ckpt_entry *e,
		   const char *const *use, size_t n)
{
	char want[CKPT_PATH_MAX], have[CKPT_PATH_MAX], tmp[CKPT_PATH_MAX];
	size_t wl;

	if (ckpt_entry_path(l, e, tmp, sizeof(tmp)) < 0)
		return true; /* cannot tell: keep it */
	normalize(tmp, want, sizeof(want));
	wl = strlen(want);
	for (size_t i = 0; i < n; i++) {
		if (!use[i] || !*use[i])
			continue;
		if (!strcmp(use[i], e->name))
			return true;
		normalize(use[i], have, sizeof(have));
		if (!strncmp(have, want, wl) &&
		    (have[wl] == '\0' || have[wl] == '/'))
			return true;
	}
	return false;
}

size_t ckpt_retention(const struct ckpt_list *l, unsigned keep,
		      const char *const *use, size_t n_use, size_t *out)
{
	size_t n = 0, kept = 0;
	uint64_t newest;
	size_t first = 0; /* index of the oldest entry kept by count */

	if (!l->n)
		return 0;
	if (keep == 0)
		keep = 1;
	newest = l->e[l->n - 1].step;
	/* The newest keep distinct steps, counted from the end. */
	for (size_t i = l->n; i-- > 0;) {
		if (i + 1 == l->n || l->e[i].step != l->e[i + 1].step)
			kept++;
		if (kept > keep)
			break;
		first = i;
	}
	for (size_t i = 0; i < first; i++) {
		if (l->e[i].step == newest)
			continue;
		if (in_use(l, &l->e[i], use, n_use))
			continue;
		out[n++] = i;
	}
	return n;
}

/* Resume specs */

static int bad_spec(elastic_error_t *err, const char *text, const char *why)
{
	return elastic_errorf(
	    err, CKPT_SPEC_OPT "=%s: %s (allowed: " CKPT_SPEC_WORDS ")", text,
	    why);
}

int ckpt_spec_parse(const char *text, struct ckpt_spec *s, elastic_error_t *err)
{
	struct ckpt_spec r = { 0 };
	const char *at = strrchr(text, '@');
	size_t blen = strlen(text);
	unsigned long v;

	if (!*text)
		return bad_spec(err, text, "empty value");
	if (blen > CKPT_SPEC_MAX)
		return elastic_errorf(
		    err, CKPT_SPEC_OPT ": longer than %d characters",
		    CKPT_SPEC_MAX);
	for (const char *c = text; *c; c++)
		if (iscntrl((unsigned char)*c))
			return elastic_errorf(err, CKPT_SPEC_OPT
					      ": control character in "
					      "value");
	if (at) {
		const char *d = at + 1;
		uint64_t step = 0;
		size_t nd = 0;

		for (; *d >= '0' && *d <= '9'; d++, nd++) {
			if (nd == CKPT_STEP_DIGITS)
				return bad_spec(err, text, "step out of range");
			step = step * 10 + (uint64_t)(*d - '0');
		}
		if (!nd || *d)
			return bad_spec(err, text,
					"a step after '@' is a whole number");
		r.has_step = true;
		r.step = step;
		blen = (size_t)(at - text);
		if (!blen)
			return bad_spec(err, text, "nothing before '@'");
	}
	if (text[0] == '/') {
		if (blen >= sizeof(r.path))
			return bad_spec(err, text, "path too long");
		r.kind = CKPT_SPEC_PATH;
		memcpy(r.path, text, blen);
		r.path[blen] = '\0';
	} else {
		char id[16];

		if (blen >= sizeof(id) ||
		    (memcpy(id, text, blen), id[blen] = '\0',
		     parse_uint(id, 1, UINT32_MAX - 1, &v) != PARSE_OK))
			return bad_spec(err, text,
					"not a job id nor an absolute path");
		r.kind = CKPT_SPEC_JOB;
		r.job_id = (uint32_t)v;
	}
	*s = r;
	return 0;
}

int ckpt_job_dir(uint32_t job_id, const char *tag, const char *fallback,
		 const char *user, const char *home, char *dir, size_t len,
		 elastic_error_t *err)
{
	struct elastic_opts o;
	const char *pattern = fallback;
	char id[16];

	if (tag && options_parse_tag(tag, &o, NULL) == 0)
		pattern = o.checkpoint_dir;
	if (!pattern || !*pattern)
		return elastic_errorf(err, "job %u: no checkpoint dir known",
				      job_id);
	snprintf(id, sizeof(id), "%u", job_id);
	if (options_expand_path(pattern, id, user ? user : "", home ? home : "",
				dir, len) < 0)
		return elastic_errorf(err,
				      "job %u: checkpoint dir %s does not "
				      "expand",
				      job_id, pattern);
	return 0;
}
