/* The words of elastic.conf's enumerated values (policy.h), both ways:
 * the parser takes them, messages name them. */
#include "config.h"

#include <string.h>

#include "policy.h"

static const char *const ondemand_words[] = {
	[ELASTIC_ONDEMAND_NEVER] = "never",
	[ELASTIC_ONDEMAND_BELOW_MIN] = "below-min",
	[ELASTIC_ONDEMAND_ALWAYS] = "always",
};

const char *policy_ondemand_name(enum elastic_ondemand m)
{
	return ((unsigned)m <= ELASTIC_ONDEMAND_ALWAYS) ? ondemand_words[m]
							: "?";
}

int policy_parse_ondemand(const char *s, enum elastic_ondemand *ret)
{
	for (int i = 0; i <= ELASTIC_ONDEMAND_ALWAYS; i++) {
		if (!strcmp(s, ondemand_words[i])) {
			*ret = i;
			return 0;
		}
	}
	return -1;
}

static const char *const notify_words[] = {
	[POLICY_NOTIFY_YES] = "yes",
	[POLICY_NOTIFY_NO] = "no",
	[POLICY_NOTIFY_DROP] = "drop",
};

const char *policy_notify_name(enum policy_notify n)
{
	return ((unsigned)n <= POLICY_NOTIFY_DROP) ? notify_words[n] : "?";
}

int policy_parse_notify(const char *s, enum policy_notify *ret)
{
	for (int i = 0; i <= POLICY_NOTIFY_DROP; i++) {
		if (!strcmp(s, notify_words[i])) {
			*ret = i;
			return 0;
		}
	}
	return -1;
}

int policy_parse_suspect(const char *s, enum policy_suspect *ret)
{
	if (!strcmp(s, "drain"))
		*ret = POLICY_SUSPECT_DRAIN;
	else if (!strcmp(s, "report"))
		*ret = POLICY_SUSPECT_REPORT;
	else
		return -1;
	return 0;
}

static const char *const stragglers_names[] = {
	[POLICY_STRAGGLERS_REPORT] = "report",
	[POLICY_STRAGGLERS_EVICT] = "evict",
	[POLICY_STRAGGLERS_OFF] = "off",
};

const char *policy_stragglers_name(enum policy_stragglers s)
{
	return (unsigned)s <= POLICY_STRAGGLERS_OFF ? stragglers_names[s] : "?";
}

int policy_parse_stragglers(const char *s, enum policy_stragglers *ret)
{
	for (unsigned i = 0; i <= POLICY_STRAGGLERS_OFF; i++)
		if (!strcmp(s, stragglers_names[i])) {
			*ret = (enum policy_stragglers)i;
			return 0;
		}
	return -1;
}
