// libcurl through a function table. Only wraps; never decides.
//
// Nothing here links libcurl: the program opens libcurl.so.4 with dlopen on first use
// (CurlLibrary.swift), stores what dlsym returns for each name below in a tributary_curl table,
// and calls curl only through these wrappers. Types, CURLOPT_* / CURLINFO_* constants and
// LIBCURL_VERSION still come from the real headers (libcurl4-openssl-dev), and every wrapper
// casts its slot to the type of the function as <curl/curl.h> declares it, so a wrapper cannot
// drift from the library's prototype.
#ifndef TRIBUTARY_CCURL_SHIM_H
#define TRIBUTARY_CCURL_SHIM_H
#include <curl/curl.h>
// The curl thread waits on curl's sockets with epoll and is woken through an eventfd: neither
// is in Swift's Glibc module.
#include <sys/epoll.h>
#include <sys/eventfd.h>

/// One slot per libcurl function the project calls, filled from dlsym(handle, "curl_<slot>").
typedef struct tributary_curl {
    void *global_init;
    void *version_info;
    void *easy_init;
    void *easy_setopt;
    void *easy_getinfo;
    void *easy_cleanup;
    void *easy_reset;
    void *easy_strerror;
    void *multi_init;
    void *multi_setopt;
    void *multi_add_handle;
    void *multi_remove_handle;
    void *multi_socket_action;
    void *multi_info_read;
    void *multi_cleanup;
    void *slist_append;
    void *slist_free_all;
} tributary_curl;

// The slot `name` as a pointer to curl_<name>, typed as the header declares it.
#define TRIBUTARY_CURL_FN(c, name) ((__typeof__(&curl_##name))(c)->name)

typedef size_t (*tributary_write_cb)(char *, size_t, size_t, void *);
// CURLOPT_XFERINFOFUNCTION's callback (curl_xferinfo_callback): non-zero aborts the transfer.
typedef int (*tributary_xferinfo_cb)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);

static inline CURLcode tributary_curl_global_init(const tributary_curl *c, long flags) { return TRIBUTARY_CURL_FN(c, global_init)(flags); }
static inline curl_version_info_data *tributary_curl_version_info(const tributary_curl *c) { return TRIBUTARY_CURL_FN(c, version_info)(CURLVERSION_NOW); }
// Whether the loaded libcurl speaks HTTP/2 (built with nghttp2): its CURL_VERSION_HTTP2 feature bit.
static inline int tributary_curl_has_http2(const tributary_curl *c) {
    curl_version_info_data *info = tributary_curl_version_info(c);
    return info != NULL && (info->features & CURL_VERSION_HTTP2) != 0;
}

static inline CURL *tributary_curl_easy_init(const tributary_curl *c) { return TRIBUTARY_CURL_FN(c, easy_init)(); }
static inline void tributary_curl_easy_cleanup(const tributary_curl *c, CURL *h) { TRIBUTARY_CURL_FN(c, easy_cleanup)(h); }
static inline void tributary_curl_easy_reset(const tributary_curl *c, CURL *h) { TRIBUTARY_CURL_FN(c, easy_reset)(h); }
static inline const char *tributary_curl_easy_strerror(const tributary_curl *c, CURLcode code) { return TRIBUTARY_CURL_FN(c, easy_strerror)(code); }

// Typed wrappers over the variadic calls.
static inline CURLcode tributary_easy_setopt_long(const tributary_curl *c, CURL *h, CURLoption o, long v) { return TRIBUTARY_CURL_FN(c, easy_setopt)(h, o, v); }
static inline CURLcode tributary_easy_setopt_off(const tributary_curl *c, CURL *h, CURLoption o, curl_off_t v) { return TRIBUTARY_CURL_FN(c, easy_setopt)(h, o, v); }
static inline CURLcode tributary_easy_setopt_string(const tributary_curl *c, CURL *h, CURLoption o, const char *v) { return TRIBUTARY_CURL_FN(c, easy_setopt)(h, o, v); }
static inline CURLcode tributary_easy_setopt_pointer(const tributary_curl *c, CURL *h, CURLoption o, void *v) { return TRIBUTARY_CURL_FN(c, easy_setopt)(h, o, v); }
static inline CURLcode tributary_easy_setopt_write_cb(const tributary_curl *c, CURL *h, CURLoption o, tributary_write_cb v) { return TRIBUTARY_CURL_FN(c, easy_setopt)(h, o, v); }
static inline CURLcode tributary_easy_setopt_xferinfo_cb(const tributary_curl *c, CURL *h, tributary_xferinfo_cb v) { return TRIBUTARY_CURL_FN(c, easy_setopt)(h, CURLOPT_XFERINFOFUNCTION, v); }
static inline CURLcode tributary_easy_getinfo_long(const tributary_curl *c, CURL *h, CURLINFO i, long *v) { return TRIBUTARY_CURL_FN(c, easy_getinfo)(h, i, v); }
static inline CURLcode tributary_easy_getinfo_pointer(const tributary_curl *c, CURL *h, CURLINFO i, void **v) { return TRIBUTARY_CURL_FN(c, easy_getinfo)(h, i, v); }
static inline CURLcode tributary_easy_getinfo_string(const tributary_curl *c, CURL *h, CURLINFO i, char **v) { return TRIBUTARY_CURL_FN(c, easy_getinfo)(h, i, v); }

static inline CURLM *tributary_curl_multi_init(const tributary_curl *c) { return TRIBUTARY_CURL_FN(c, multi_init)(); }
static inline CURLMcode tributary_multi_setopt_long(const tributary_curl *c, CURLM *m, CURLMoption o, long v) { return TRIBUTARY_CURL_FN(c, multi_setopt)(m, o, v); }
static inline CURLMcode tributary_curl_multi_add_handle(const tributary_curl *c, CURLM *m, CURL *h) { return TRIBUTARY_CURL_FN(c, multi_add_handle)(m, h); }
static inline CURLMcode tributary_curl_multi_remove_handle(const tributary_curl *c, CURLM *m, CURL *h) { return TRIBUTARY_CURL_FN(c, multi_remove_handle)(m, h); }
static inline CURLMcode tributary_curl_multi_socket_action(const tributary_curl *c, CURLM *m, curl_socket_t s, int bits, int *running) { return TRIBUTARY_CURL_FN(c, multi_socket_action)(m, s, bits, running); }
// CURLMOPT_SOCKETFUNCTION with CURLMOPT_SOCKETDATA, and CURLMOPT_TIMERFUNCTION with
// CURLMOPT_TIMERDATA (a NULL function takes the callback off).
static inline CURLMcode tributary_multi_setopt_socket_cb(const tributary_curl *c, CURLM *m, curl_socket_callback f, void *data) {
    CURLMcode r = TRIBUTARY_CURL_FN(c, multi_setopt)(m, CURLMOPT_SOCKETFUNCTION, f);
    return r != CURLM_OK ? r : TRIBUTARY_CURL_FN(c, multi_setopt)(m, CURLMOPT_SOCKETDATA, data);
}
static inline CURLMcode tributary_multi_setopt_timer_cb(const tributary_curl *c, CURLM *m, curl_multi_timer_callback f, void *data) {
    CURLMcode r = TRIBUTARY_CURL_FN(c, multi_setopt)(m, CURLMOPT_TIMERFUNCTION, f);
    return r != CURLM_OK ? r : TRIBUTARY_CURL_FN(c, multi_setopt)(m, CURLMOPT_TIMERDATA, data);
}
static inline CURLMsg *tributary_curl_multi_info_read(const tributary_curl *c, CURLM *m, int *left) { return TRIBUTARY_CURL_FN(c, multi_info_read)(m, left); }
static inline CURLMcode tributary_curl_multi_cleanup(const tributary_curl *c, CURLM *m) { return TRIBUTARY_CURL_FN(c, multi_cleanup)(m); }
static inline CURLcode tributary_msg_result(CURLMsg *m) { return m->data.result; }

static inline struct curl_slist *tributary_curl_slist_append(const tributary_curl *c, struct curl_slist *l, const char *s) { return TRIBUTARY_CURL_FN(c, slist_append)(l, s); }
static inline void tributary_curl_slist_free_all(const tributary_curl *c, struct curl_slist *l) { TRIBUTARY_CURL_FN(c, slist_free_all)(l); }
#endif
