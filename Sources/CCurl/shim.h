// Typed wrappers over libcurl's variadic calls. Only wraps; never decides.
#ifndef TRIBUTARY_CCURL_SHIM_H
#define TRIBUTARY_CCURL_SHIM_H
#include <curl/curl.h>

typedef size_t (*tributary_write_cb)(char *, size_t, size_t, void *);

static inline CURLcode tributary_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tributary_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tributary_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tributary_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tributary_easy_setopt_write_cb(CURL *h, CURLoption o, tributary_write_cb v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tributary_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tributary_easy_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tributary_easy_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode tributary_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLcode tributary_msg_result(CURLMsg *m) { return m->data.result; }
static inline curl_version_info_data *tributary_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
#endif
