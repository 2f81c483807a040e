/* The account report's arguments (api_route.h): pure string work. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "api_route.h"

#define NMS   "(allowed: 0 to 9007199254740992)"
#define COUNT "(allowed: 0 to 1099511627776)"
#define NODES "(allowed: 0 to 65536)"
#define F(x)  offsetof(struct account_report, x)

/* The numbers, each with its bound and what to answer when it is not
 * one.  world and held are nodes, the others 64-bit. */
static const struct {
	const char *key;
	size_t off;
	unsigned long max;
	const char *why;
} account_numbers[] = {
	{ "t", F(t_ms), ACCOUNT_NMS_MAX,
	  "t: the launcher's clock is required, unix ms " NMS },
	{ "wall_ms", F(wall_ms), ACCOUNT_COUNT_MAX,
	  "wall_ms: ms since the job's start are required " COUNT },
	{ "train_wall_ms", F(train_wall_ms), ACCOUNT_COUNT_MAX,
	  "train_wall_ms: ms spent training are required " COUNT },
	{ "held_nms", F(held_nms), ACCOUNT_NMS_MAX,
	  "held_nms: node-ms held are required " NMS },
	{ "steps", F(steps), ACCOUNT_COUNT_MAX,
	  "steps: the highest step reached is required " COUNT },
	{ "redone", F(redone), ACCOUNT_COUNT_MAX,
	  "redone: the steps redone are required " COUNT },
	{ "world", F(world), ACCOUNT_WORLD_MAX,
	  "world: the world's nodes now are required " NODES },
	{ "held", F(held), ACCOUNT_WORLD_MAX,
	  "held: the nodes held now are required " NODES },
};
#undef F

/* Each cause's node-ms (NAME_nms): the contract's every cause, so that
 * none the launcher counts is left out of held's sum. */
static int parse_causes(route_arg_fn get, void *cls, struct account_report *r,
			elastic_error_t *err)
{
	char key[48];
	unsigned long v;

	for (unsigned c = 0; c < ACCTNAMES_NCAUSES; c++) {
		snprintf(key, sizeof(key), "%s_nms", acctnames_cause_name(c));
		if (parse_uint(get(cls, key), 0, ACCOUNT_NMS_MAX, &v) !=
		    PARSE_OK)
			return elastic_errorf(
			    err, "%s: node-ms are required " NMS, key);
		r->nms[c] = v;
	}
	return 0;
}

/* "W:NMS,W:NMS,...": training by world size. */
static int parse_at(const char *v, struct account_report *r)
{
	char buf[32];

	r->nat = 0;
	while (v && *v) {
		const char *comma = strchr(v, ','), *colon;
		size_t len = comma ? (size_t)(comma - v) : strlen(v);
		unsigned long w, nms;

		if (len >= sizeof(buf) || r->nat == ACCOUNT_AT_MAX ||
		    (comma && !comma[1]))
			return -1;
		memcpy(buf, v, len);
		buf[len] = '\0';
		colon = strchr(buf, ':');
		if (!colon)
			return -1;
		buf[colon - buf] = '\0';
		if (parse_uint(buf, 1, ACCOUNT_WORLD_MAX, &w) != PARSE_OK ||
		    parse_uint(colon + 1, 0, ACCOUNT_NMS_MAX, &nms) != PARSE_OK)
			return -1;
		r->at_world[r->nat] = (uint32_t)w;
		r->at_nms[r->nat++] = nms;
		v = comma ? comma + 1 : v + len;
	}
	return 0;
}

/* "KIND:PATH:MS:SEQ": a resize ended. */
static int parse_resize(const char *v, struct account_report *r)
{
	char buf[64], *save = NULL, *kind, *path, *ms, *seq;
	unsigned long x, y;
	int k, p;

	if (strlen(v) >= sizeof(buf))
		return -1;
	strcpy(buf, v);
	kind = strtok_r(buf, ":", &save);
	path = strtok_r(NULL, ":", &save);
	ms = strtok_r(NULL, ":", &save);
	seq = strtok_r(NULL, "", &save);
	if (!seq || (k = acctnames_kind_find(kind)) < 0 ||
	    (p = acctnames_path_find(path)) < 0 ||
	    parse_uint(ms, 0, ACCOUNT_COUNT_MAX, &x) != PARSE_OK ||
	    parse_uint(seq, 1, ACCOUNT_COUNT_MAX, &y) != PARSE_OK)
		return -1;
	r->resized = true;
	r->resize_kind = (enum acctnames_kind)k;
	r->resize_path = (enum acctnames_path)p;
	r->resize_ms = x;
	r->resize_seq = y;
	return 0;
}

/* The words: version, phase, event, resize, final. */
static int parse_words(route_arg_fn get, void *cls, struct account_report *r,
		       const char **why)
{
	const char *v = get(cls, "v"), *event = get(cls, "event");
	const char *resize = get(cls, "resize"), *final = get(cls, "final");
	int phase = acctnames_phase_find(get(cls, "phase"));

	if (!v || strcmp(v, "1")) {
		*why = "v: the contract's version is required (allowed: 1)";
		return -1;
	}
	if (phase < 0) {
		*why = "phase: the launcher's phase is required "
		       "(allowed: " ACCTNAMES_PHASE_WORDS ")";
		return -1;
	}
	r->phase = (enum acctnames_phase)phase;
	r->event = event ? acctnames_kind_find(event) : -1;
	if (event && r->event < 0) {
		*why = "event: what starts the resize "
		       "(allowed: " ACCTNAMES_KIND_WORDS ")";
		return -1;
	}
	if (resize && parse_resize(resize, r) < 0) {
		*why = "resize: KIND:PATH:MS:SEQ (kinds as event's; "
		       "paths: " ACCTNAMES_PATH_WORDS
		       "; MS 0 to 1099511627776; SEQ 1 to 1099511627776)";
		return -1;
	}
	if (final && strcmp(final, "0") && strcmp(final, "1")) {
		*why = "final: whether the ledger is final (allowed: 0, 1)";
		return -1;
	}
	r->final = final && final[0] == '1';
	return 0;
}

/* The numbers of account_numbers, each within its bound. */
static int parse_numbers(route_arg_fn get, void *cls, struct account_report *r,
			 const char **why)
{
	const size_t n = sizeof(account_numbers) / sizeof(account_numbers[0]);

	for (size_t i = 0; i < n; i++) {
		unsigned long v;
		char *field = (char *)r + account_numbers[i].off;

		if (parse_uint(get(cls, account_numbers[i].key), 0,
			       account_numbers[i].max, &v) != PARSE_OK) {
			*why = account_numbers[i].why;
			return -1;
		}
		if (account_numbers[i].max == ACCOUNT_WORLD_MAX)
			*(uint32_t *)field = (uint32_t)v;
		else
			*(uint64_t *)field = v;
	}
	return 0;
}

int route_parse_account(route_arg_fn get, void *cls, struct account_report *ret,
			elastic_error_t *err)
{
	struct account_report r = { .event = -1 };
	const char *why = NULL;

	if (parse_words(get, cls, &r, &why) < 0 ||
	    parse_numbers(get, cls, &r, &why) < 0)
		return elastic_errorf(err, "%s", why);
	if (parse_causes(get, cls, &r, err) < 0)
		return -1;
	if (parse_at(get(cls, "at"), &r) < 0)
		return elastic_errorf(
		    err, "at: training node-ms by world size, W:NMS pairs "
			 "separated by commas (allowed: at most 64, W 1 to "
			 "65536, NMS 0 to 9007199254740992)");
	if ((why = account_check(&r)))
		return elastic_errorf(err, "%s", why);
	*ret = r;
	return 0;
}
