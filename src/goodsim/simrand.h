#ifndef GOODSIM_SIMRAND_H
#define GOODSIM_SIMRAND_H

/*
 * The simulators' random draws (goodsim's faults, the cluster's
 * workload): splitmix64 from a seed, small and the same on every machine,
 * so that a seed gives the same run everywhere.  The state is the
 * caller's.
 */
#include <stdint.h>

static inline uint64_t simrand_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static inline double simrand_uniform(uint64_t *s)
{
	return (double)(simrand_next(s) >> 11) / 9007199254740992.0;
}

#endif
