/* The options of a request to elasticd's API (apiclient.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "apiclient.h"

/* A local daemon that does not accept within this is not there. */
#define CONNECT_TIMEOUT_MS 5000L

void apiclient_setopt(CURL *curl, const char *url, struct curl_slist *headers,
		      long timeout_ms, char *errbuf,
		      curl_write_callback write_cb, void *ud,
		      const char *user_agent)
{
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http");
#else
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
			 timeout_ms < CONNECT_TIMEOUT_MS ? timeout_ms
							 : CONNECT_TIMEOUT_MS);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_cb);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, ud);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent);
}

size_t apiclient_body_cb(char *p, size_t size, size_t n, void *body)
{
	struct apiclient_body *b = body;
	size_t add = size * n;
	char *d;

	if (b->len + add > b->max) {
		b->too_big = true;
		return 0;
	}
	d = realloc(b->data, b->len + add + 1);
	if (!d)
		return 0;
	memcpy(d + b->len, p, add);
	b->len += add;
	d[b->len] = '\0';
	b->data = d;
	return add;
}
