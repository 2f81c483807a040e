/* The words of a job's accounting (acctnames.h). */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "acctnames.h"

static const char *const acctnames_causes[ACCTNAMES_NCAUSES] = {
	[ACCTNAMES_CAUSE_TRAINING] = "training",
	[ACCTNAMES_CAUSE_WAITING] = "waiting",
	[ACCTNAMES_CAUSE_RESIZE_RESTART] = "resize_restart",
	[ACCTNAMES_CAUSE_RESIZE_INPLACE] = "resize_inplace",
	[ACCTNAMES_CAUSE_RESIZE_SWAP] = "resize_swap",
	[ACCTNAMES_CAUSE_DETECT] = "detect",
	[ACCTNAMES_CAUSE_REDO] = "redo",
	[ACCTNAMES_CAUSE_CHECKPOINT] = "checkpoint",
	[ACCTNAMES_CAUSE_OUTSIDE] = "outside",
};

static const char *const acctnames_kinds[ACCTNAMES_NKINDS] = {
	[ACCTNAMES_KIND_GROWTH] = "growth",
	[ACCTNAMES_KIND_PREEMPTION] = "preemption",
	[ACCTNAMES_KIND_CRASH] = "crash",
	[ACCTNAMES_KIND_HANG] = "hang",
	[ACCTNAMES_KIND_STRAGGLER] = "straggler",
	[ACCTNAMES_KIND_SPARE_SWAP] = "spare-swap",
	[ACCTNAMES_KIND_SHRINK] = "shrink",
};

static const char *const acctnames_paths[ACCTNAMES_NPATHS] = {
	[ACCTNAMES_PATH_RESTART] = "restart",
	[ACCTNAMES_PATH_INPLACE] = "inplace",
	[ACCTNAMES_PATH_SWAP] = "swap",
};

static const char *const acctnames_phases[ACCTNAMES_NPHASES] = {
	[ACCTNAMES_PHASE_WAITING] = "waiting",
	[ACCTNAMES_PHASE_TRAINING] = "training",
	[ACCTNAMES_PHASE_RESIZE] = "resize",
	[ACCTNAMES_PHASE_DETECT] = "detect",
	[ACCTNAMES_PHASE_REDO] = "redo",
	[ACCTNAMES_PHASE_CHECKPOINT] = "checkpoint",
	[ACCTNAMES_PHASE_ENDED] = "ended",
};

static const char *acctnames_of(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "?";
}

static int acctnames_index(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -1;
}

const char *acctnames_cause_name(enum acctnames_cause c)
{
	return acctnames_of(acctnames_causes, ACCTNAMES_NCAUSES, c);
}

int acctnames_cause_find(const char *name)
{
	return acctnames_index(acctnames_causes, ACCTNAMES_NCAUSES, name);
}

const char *acctnames_kind_name(enum acctnames_kind k)
{
	return acctnames_of(acctnames_kinds, ACCTNAMES_NKINDS, k);
}

int acctnames_kind_find(const char *name)
{
	return acctnames_index(acctnames_kinds, ACCTNAMES_NKINDS, name);
}

const char *acctnames_path_name(enum acctnames_path p)
{
	return acctnames_of(acctnames_paths, ACCTNAMES_NPATHS, p);
}

int acctnames_path_find(const char *name)
{
	return acctnames_index(acctnames_paths, ACCTNAMES_NPATHS, name);
}

const char *acctnames_phase_name(enum acctnames_phase p)
{
	return acctnames_of(acctnames_phases, ACCTNAMES_NPHASES, p);
}

int acctnames_phase_find(const char *name)
{
	return acctnames_index(acctnames_phases, ACCTNAMES_NPHASES, name);
}
