/* GET and POST /v1/groups/ID/account, and /metrics with the accounts'
 * part (elasticd-api(7)): the API's side of account_store.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "account_store.h"
#include "api_impl.h"
#include "api_render.h"

static const char *query_arg(void *cls, const char *key)
{
	return MHD_lookup_connection_value(cls, MHD_GET_ARGUMENT_KIND, key);
}

/* No such group for the caller, or no account: one answer for both. */
static char *not_found(uint32_t id, unsigned *status)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "no account of yours for job %u", id);
	*status = MHD_HTTP_NOT_FOUND;
	return render_error(MHD_HTTP_NOT_FOUND, msg);
}

char *api_account(struct MHD_Connection *conn, bool post, uint32_t id,
		  const struct group_info *g, const struct auth_caller *c,
		  unsigned *status)
{
	struct account_report r;
	elastic_error_t err;
	const char *why;
	char *text;

	if (!post) {
		text = account_store_get(g ? g->base_job_id : id,
					 g && g->state != GROUP_ENDED, c->uid,
					 c->admin);
		if (!text)
			return not_found(id, status);
		*status = MHD_HTTP_OK;
		return text;
	}
	if (!g)
		return not_found(id, status);
	if (route_parse_account(query_arg, conn, &r, &err) < 0) {
		*status = MHD_HTTP_BAD_REQUEST;
		return render_error(MHD_HTTP_BAD_REQUEST, err.text);
	}
	if (account_store_report(g, &r, &why) < 0) {
		*status = MHD_HTTP_SERVICE_UNAVAILABLE;
		return render_error(MHD_HTTP_SERVICE_UNAVAILABLE, why);
	}
	/* The end: its file and the base's AdminComment at once. */
	if (r.final)
		api_wake();
	*status = MHD_HTTP_ACCEPTED;
	return render_account(g->base_job_id);
}

char *api_metrics(const struct elasticd_view *v)
{
	char *daemon = render_metrics(v), *groups = account_store_metrics(v);
	char *all = NULL;

	if (daemon && groups && asprintf(&all, "%s%s", daemon, groups) < 0)
		all = NULL;
	free(daemon);
	free(groups);
	return all;
}
