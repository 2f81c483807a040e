#ifndef ACCT_FIXTURE_H
#define ACCT_FIXTURE_H

#include <stddef.h>

#include "elasticctl/acct.h"

/*
 * What elasticctl report's tests share: the story's document
 * (acct-story.json: a job of 30 minutes with a growth, a preemption, a
 * second growth, a crash, a hang, a straggler, a spare swapped in and a
 * shrink, each event and the end of its resize) and small documents
 * written in the tests.  Each fails the test if the document does not
 * parse; acct_free() what they fill.
 */
void acct_fixture_story(struct acct *a);
void acct_fixture_doc(struct acct *a, const char *json);

/* How many times needle is in haystack. */
size_t acct_fixture_count(const char *haystack, const char *needle);

#endif
