#ifndef ELASTIC_TEST_CHECK_FIXTURE_H
#define ELASTIC_TEST_CHECK_FIXTURE_H

/*
 * What the tests of elasticctl check's decisions share: a site with no
 * finding, made like etc/slurm.conf.example and the README's
 * elastic.conf, for a test to break one thing in; and the assertions on
 * what the checks then find.
 */
#include "elasticctl/check.h"

/* Slurm 22.05.8, as the fixture's tools run with. */
#define FIXTURE_SLURM ((22u << 16) | (5u << 8) | 8u)
#define FIXTURE_CONF  "/etc/slurm/elastic.conf"
#define FIXTURE_STACK "/etc/slurm/plugstack.conf"
#define FIXTURE_SO    "/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_elastic.so"

enum { PART_BASE, PART_PREEMPT, PART_ONDEMAND, PART_HIGH, NPARTS };
enum { QOS_NORMAL, QOS_SPOT, QOS_HIGH, NQOS };

/* The site and everything it points to, in one allocation. */
struct good_site {
	struct check_site s;
	struct elastic_policy p;
	struct check_partition parts[NPARTS];
	struct check_qos qos[NQOS];
};

/*
 * A good site (malloc'd: free() it); extra: elastic.conf lines after the
 * fixture's own (later lines win), NULL for none.  Its partitions: base
 * (tier 10, OFF), preempt (tier 1, REQUEUE, GraceTime=600), ondemand
 * (tier 10, OFF, nodes of its own) and high (tier 100, OFF), the first,
 * second and fourth on the same nodes; QOS normal, spot and high (which
 * preempts spot, GraceTime=600), read.
 */
struct good_site *good_site(const char *extra);

/* The checks of s, into a fresh out (check_findings_free() it). */
void run_checks(const struct check_site *s, struct check_findings *out);

/*
 * The checks of s find exactly one thing: in area, about subject, its
 * problem and fix containing problem and fix (NULL: anything).  Fails
 * the test, listing what was found, otherwise.
 */
void expect_one(const struct check_site *s, enum check_area area,
		const char *subject, const char *problem, const char *fix);
/* The checks of s find nothing. */
void expect_none(const struct check_site *s);

#endif
