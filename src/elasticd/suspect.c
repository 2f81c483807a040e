/* What to do with a suspect node (suspect.h): pure. */
#include "config.h"

#include <string.h>

#include "suspect.h"

enum suspect_action suspect_decide(struct suspect_window *w,
				   enum policy_suspect mode, unsigned per_hour,
				   int64_t now_ms)
{
	size_t old = 0, cap = per_hour < SUSPECT_WINDOW_MAX
				  ? per_hour
				  : SUSPECT_WINDOW_MAX;

	while (old < w->n && now_ms - w->at[old] >= SUSPECT_WINDOW_MS)
		old++;
	memmove(w->at, w->at + old, (w->n - old) * sizeof(w->at[0]));
	w->n -= old;
	if (mode == POLICY_SUSPECT_REPORT)
		return SUSPECT_REPORT;
	if (w->n >= cap)
		return SUSPECT_CAPPED;
	w->at[w->n++] = now_ms;
	return SUSPECT_DRAIN;
}

size_t suspect_drains(const struct suspect_window *w)
{
	return w->n;
}

const char *suspect_action_name(enum suspect_action a)
{
	switch (a) {
	case SUSPECT_DRAIN:
		return "drained";
	case SUSPECT_REPORT:
		return "reported";
	case SUSPECT_CAPPED:
		return "reported (SuspectDrainsPerHour reached)";
	case SUSPECT_ALREADY:
		return "drained already";
	}
	return "?";
}
