/* The tag that carries a job's finalized options in its AdminComment
 * (options.h): written by job_submit, read by elasticd and the clients. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "parse.h"

/* %-encode what would break the tag's words: space, '%', controls. */
static void encode(const char *s, char *out, size_t len)
{
	size_t j = 0;

	for (; *s && j + 4 < len; s++) {
		unsigned char c = *s;

		if (c == ' ' || c == '%' || iscntrl(c))
			j += snprintf(out + j, len - j, "%%%02X", c);
		else
			out[j++] = c;
	}
	out[j] = '\0';
}

static int decode(const char *s, char *out, size_t len)
{
	size_t j = 0;

	for (; *s; s++) {
		unsigned v;

		if (j + 1 >= len)
			return -1;
		if (*s == '%') {
			if (!isxdigit((unsigned char)s[1]) ||
			    !isxdigit((unsigned char)s[2]) ||
			    sscanf(s + 1, "%2x", &v) != 1 || v == 0)
				return -1;
			out[j++] = (char)v;
			s += 2;
		} else {
			out[j++] = *s;
		}
	}
	out[j] = '\0';
	return 0;
}

int options_format_tag(const struct elastic_opts *o, char *buf, size_t len)
{
	char sizes[ELASTIC_MAX_SIZES * 6 + 16] = "";
	char ckpt[ELASTIC_PATH_MAX * 3 + 1];
	char resume[ELASTIC_RESUME_MAX * 3 + 16] = "";
	char eval[ELASTIC_EVAL_MAX * 3 + 16] = "";
	char spares[24] = "";
	size_t j = 0;

	if (!o->nsizes)
		snprintf(sizes, sizeof(sizes), "step=%u", o->step);
	for (unsigned i = 0; i < o->nsizes; i++)
		j += snprintf(sizes + j, sizeof(sizes) - j, "%s%u",
			      i ? "," : "sizes=", o->sizes[i]);
	encode(o->checkpoint_dir, ckpt, sizeof(ckpt));
	if (options_given(o, ELASTIC_OPT_RESUME_FROM)) {
		strcpy(resume, " resume=");
		encode(o->resume_from, resume + 8, sizeof(resume) - 8);
	}
	if (options_given(o, ELASTIC_OPT_EVAL)) {
		strcpy(eval, " eval=");
		encode(o->eval_cmd, eval + 6, sizeof(eval) - 6);
	}
	if (o->spares)
		snprintf(spares, sizeof(spares), " spares=%u", o->spares);
	return snprintf(
	    buf, len,
	    ELASTIC_TAG_PREFIX " min=%u max=%u %s grace=%u "
			       "delay=%u fault=%u ondemand=%s "
			       "signal=%s keep=%u hb=%u hang=%u "
			       "slow=%s%s%s%s ckpt=%s",
	    o->min, o->max, sizes, o->grace, o->scale_delay, o->fault_timeout,
	    policy_ondemand_name(o->ondemand), parse_signal_name(o->signal),
	    o->keep, o->heartbeat_timeout, o->hang_timeout,
	    policy_stragglers_name(o->stragglers), spares, resume, eval, ckpt);
}

static const struct {
	const char *key;
	enum elastic_opt_id id;
} tag_keys[] = {
	{ "min", ELASTIC_OPT_MIN },
	{ "max", ELASTIC_OPT_MAX },
	{ "step", ELASTIC_OPT_STEP },
	{ "sizes", ELASTIC_OPT_SIZES },
	{ "grace", ELASTIC_OPT_GRACE },
	{ "delay", ELASTIC_OPT_SCALE_DELAY },
	{ "fault", ELASTIC_OPT_FAULT_TIMEOUT },
	{ "ondemand", ELASTIC_OPT_ONDEMAND },
	{ "signal", ELASTIC_OPT_SIGNAL },
	{ "keep", ELASTIC_OPT_KEEP },
	{ "ckpt", ELASTIC_OPT_CHECKPOINT_DIR },
	{ "resume", ELASTIC_OPT_RESUME_FROM },
	{ "eval", ELASTIC_OPT_EVAL },
	{ "hb", ELASTIC_OPT_HEARTBEAT_TIMEOUT },
	{ "hang", ELASTIC_OPT_HANG_TIMEOUT },
	{ "slow", ELASTIC_OPT_STRAGGLERS },
	{ "spares", ELASTIC_OPT_SPARES },
};

/* Keys every v1 tag has (sizes may stand for step). */
#define TAG_REQUIRED                                                           \
	((1u << ELASTIC_OPT_MIN) | (1u << ELASTIC_OPT_MAX) |                   \
	 (1u << ELASTIC_OPT_GRACE) | (1u << ELASTIC_OPT_SCALE_DELAY) |         \
	 (1u << ELASTIC_OPT_FAULT_TIMEOUT) | (1u << ELASTIC_OPT_ONDEMAND) |    \
	 (1u << ELASTIC_OPT_SIGNAL) | (1u << ELASTIC_OPT_KEEP) |               \
	 (1u << ELASTIC_OPT_CHECKPOINT_DIR))

int options_parse_tag(const char *tag, struct elastic_opts *o,
		      elastic_error_t *err)
{
	struct elastic_opts r = { 0 };
	char buf[ELASTIC_TAG_MAX];
	char *save = NULL, *word;
	const size_t plen = strlen(ELASTIC_TAG_PREFIX);

	const char *body, *end;

	if (!tag || strncmp(tag, ELASTIC_TAG_PREFIX " ", plen + 1))
		return elastic_errorf(err, "not an elastic tag");
	/* What follows " | " is elasticd's note at the group's end (looked
	 * for in the words alone: the prefix's space is not its start). */
	body = tag + plen + 1;
	end = strstr(body, ELASTIC_TAG_END);
	if (!end)
		end = body + strlen(body);
	if ((size_t)(end - body) >= sizeof(buf))
		return elastic_errorf(err, "elastic tag too long");
	memcpy(buf, body, (size_t)(end - body));
	buf[end - body] = '\0';
	for (word = strtok_r(buf, " ", &save); word;
	     word = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(word, '=');
		char value[ELASTIC_PATH_MAX + 1];
		int id = -1;

		if (!eq)
			return elastic_errorf(err, "elastic tag: bad word '%s'",
					      word);
		*eq = '\0';
		for (size_t i = 0; i < sizeof(tag_keys) / sizeof(tag_keys[0]);
		     i++)
			if (!strcmp(word, tag_keys[i].key))
				id = tag_keys[i].id;
		/* Later releases may add keys within v1: skip them. */
		if (id < 0)
			continue;
		if (decode(eq + 1, value, sizeof(value)) < 0)
			return elastic_errorf(err, "elastic tag: bad %s", word);
		if (options_set(&r, id, value, err) < 0)
			return -1;
	}
	if ((r.given & TAG_REQUIRED) != TAG_REQUIRED ||
	    !(options_given(&r, ELASTIC_OPT_STEP) ||
	      options_given(&r, ELASTIC_OPT_SIZES)))
		return elastic_errorf(err, "elastic tag: incomplete");
	/* A tag written before heartbeats: the built-in default. */
	if (!options_given(&r, ELASTIC_OPT_HEARTBEAT_TIMEOUT))
		r.heartbeat_timeout = POLICY_DEFAULT_HEARTBEAT_TIMEOUT;
	if (options_check(&r, NULL, err) < 0)
		return -1;
	*o = r;
	return 0;
}
