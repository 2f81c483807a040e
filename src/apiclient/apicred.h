#ifndef ELASTIC_APICRED_H
#define ELASTIC_APICRED_H

#include <stdint.h>

#include <munge.h>

#include "common/apiauth.h"
#include "common/error.h"

/*
 * A request's side of elasticd's authentication (elasticd-api(7),
 * AUTHENTICATION), with libmunge alone: what apiclient.h's client and
 * slurmstepd's plugin, which must not load libcurl, both need.
 */

/* munge_socket: munged's socket, "" or NULL for munge's default.  NULL
 * with err set when out of memory or the socket is refused. */
munge_ctx_t apicred_ctx(const char *munge_socket, elastic_error_t *err);

/* elasticd's uid from ElasticdUser (NULL or "" for root).  0, or -1
 * with err naming ElasticdUser. */
int apicred_server_uid(const char *elasticd_user, uint32_t *uid,
		       elastic_error_t *err);

/*
 * A fresh nonce and the credential for METHOD TARGET with it, readable by
 * server_uid alone: useless for any other request and to anyone else.
 * *cred is munge's (free() it).  0, or -1 with err set.
 */
int apicred_make(const char *munge_socket, uint32_t server_uid,
		 const char *method, const char *target,
		 char nonce[APIAUTH_NONCE_HEX + 1], char **cred,
		 elastic_error_t *err);

#endif
