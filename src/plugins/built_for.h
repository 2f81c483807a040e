#ifndef ELASTIC_BUILT_FOR_H
#define ELASTIC_BUILT_FOR_H

/*
 * The Slurm release a plugin is built for.  Slurm loads a job_submit
 * plugin only into that very release (to the micro version) and a SPANK
 * plugin into its major.minor; check-slurm-version(8) reads the mark
 * below from the installed file, so that a daemon of another release is
 * stopped before it starts, with the fix in one line.  The upgrade test
 * builds the job_submit plugin for another release by defining
 * ELASTIC_BUILT_FOR, a number as SLURM_VERSION_NUMBER's (0x160508 is
 * 22.05.8: the mark holds it so).
 */
#include <slurm/slurm_version.h>

#ifndef ELASTIC_BUILT_FOR
#define ELASTIC_BUILT_FOR SLURM_VERSION_NUMBER
#endif
#define ELASTIC_BUILT_FOR_STR_(x) #x
#define ELASTIC_BUILT_FOR_STR(x)  ELASTIC_BUILT_FOR_STR_(x)
#define ELASTIC_BUILT_FOR_MARK                                                 \
	"slurm-elastic-built-for-slurm=" ELASTIC_BUILT_FOR_STR(                \
	    ELASTIC_BUILT_FOR)

#endif
