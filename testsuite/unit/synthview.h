/*
 * The synthetic view of elasticd's API unit tests (test_api,
 * test_api_render): two groups, alice's and bob's, and the callers who
 * look at them.
 */
#ifndef ELASTIC_TEST_SYNTHVIEW_H
#define ELASTIC_TEST_SYNTHVIEW_H

#include "elasticd/api_auth.h"
#include "elasticd/groupinfo.h"

#define ALICE 1001
#define BOB   1002

/* alice's group 100 and bob's group 200, as synthview.c tells; freed by
 * view_free(). */
struct elasticd_view *make_view(void);

/* Who asks: alice and bob own groups 100 and 200, eve owns none, admin is
 * an admin. */
static const struct auth_caller alice = { .uid = ALICE, .admin = false };
static const struct auth_caller bob = { .uid = BOB, .admin = false };
static const struct auth_caller eve = { .uid = 1003, .admin = false };
static const struct auth_caller admin = { .uid = 1004, .admin = true };

#endif
