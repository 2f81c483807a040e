#ifndef ELASTIC_APICLIENT_H
#define ELASTIC_APICLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

/* A response body, NUL-terminated, at most max bytes (then too_big). */
struct apiclient_body {
	char *data; /* malloc'd; free() it */
	size_t len;
	size_t max;
	bool too_big;
};

/* The write callback that fills a struct apiclient_body. */
size_t apiclient_body_cb(char *p, size_t size, size_t n, void *body);

/*
 * What every request to elasticd's API gets, from elasticctl and from
 * elastic-run: the URL and headers, never a proxy (elasticd is local to
 * the cluster), plain HTTP only, no signals (the callers handle their
 * own), connect and total time limits, libcurl's error text into errbuf
 * (CURL_ERROR_SIZE), and the body to write_cb(ud).
 */
void apiclient_setopt(CURL *curl, const char *url, struct curl_slist *headers,
		      long timeout_ms, char *errbuf,
		      curl_write_callback write_cb, void *ud,
		      const char *user_agent);

#endif
