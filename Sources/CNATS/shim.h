// The NATS C client (libnats) through a function table. Only wraps; never decides.
//
// Nothing here links libnats: the program opens libnats.so.3.4 with dlopen when a nats sink
// opens (NATSLibrary.swift), stores what dlsym returns for each name below in a tributary_nats
// table, and calls libnats only through these wrappers. Types and constants come from the real
// header (Debian libnats-dev), and every wrapper casts its slot to the function's type as
// <nats/nats.h> declares it, so a wrapper cannot drift from the library's prototype.
#ifndef TRIBUTARY_CNATS_SHIM_H
#define TRIBUTARY_CNATS_SHIM_H
#include <nats/nats.h>

/// One slot per libnats function the project calls, filled from dlsym(handle, "<slot>").
typedef struct tributary_nats {
    void *nats_GetVersion;
    void *nats_GetLastError;
    void *natsStatus_GetText;
    void *natsOptions_Create;
    void *natsOptions_Destroy;
    void *natsOptions_SetURL;
    void *natsOptions_SetName;
    void *natsOptions_SetTimeout;
    void *natsOptions_SetMaxReconnect;
    void *natsOptions_SetReconnectWait;
    void *natsOptions_SetReconnectedCB;
    void *natsOptions_SetDisconnectedCB;
    void *natsConnection_Connect;
    void *natsConnection_Destroy;
    void *natsConnection_GetMaxPayload;
    void *natsConnection_JetStream;
    void *jsCtx_Destroy;
    void *jsOptions_Init;
    void *jsPubOptions_Init;
    void *jsStreamConfig_Init;
    void *js_GetStreamInfo;
    void *js_AddStream;
    void *jsStreamInfo_Destroy;
    void *natsMsg_Create;
    void *natsMsg_Destroy;
    void *natsMsg_GetSubject;
    void *natsMsgHeader_Set;
    void *natsMsgHeader_Get;
    void *js_PublishMsgAsync;
    void *js_PublishAsyncComplete;
    void *js_PublishAsyncGetPendingList;
    void *natsMsgList_Destroy;
} tributary_nats;

// The slot `name` as a pointer to the libnats function `name`, typed as the header declares it.
#define TRIBUTARY_NATS_FN(t, name) ((__typeof__(&name))(t)->name)

static inline const char *tributary_nats_version(const tributary_nats *t) { return TRIBUTARY_NATS_FN(t, nats_GetVersion)(); }
/// The text of the calling thread's last libnats error (it may name the server URL).
static inline const char *tributary_nats_last_error(const tributary_nats *t) { return TRIBUTARY_NATS_FN(t, nats_GetLastError)(NULL); }
static inline const char *tributary_nats_status_text(const tributary_nats *t, natsStatus s) { return TRIBUTARY_NATS_FN(t, natsStatus_GetText)(s); }

static inline natsStatus tributary_nats_options_create(const tributary_nats *t, natsOptions **o) { return TRIBUTARY_NATS_FN(t, natsOptions_Create)(o); }
static inline void tributary_nats_options_destroy(const tributary_nats *t, natsOptions *o) { TRIBUTARY_NATS_FN(t, natsOptions_Destroy)(o); }
static inline natsStatus tributary_nats_options_set_url(const tributary_nats *t, natsOptions *o, const char *url) { return TRIBUTARY_NATS_FN(t, natsOptions_SetURL)(o, url); }
static inline natsStatus tributary_nats_options_set_name(const tributary_nats *t, natsOptions *o, const char *name) { return TRIBUTARY_NATS_FN(t, natsOptions_SetName)(o, name); }
static inline natsStatus tributary_nats_options_set_timeout(const tributary_nats *t, natsOptions *o, int64_t ms) { return TRIBUTARY_NATS_FN(t, natsOptions_SetTimeout)(o, ms); }
static inline natsStatus tributary_nats_options_set_max_reconnect(const tributary_nats *t, natsOptions *o, int n) { return TRIBUTARY_NATS_FN(t, natsOptions_SetMaxReconnect)(o, n); }
static inline natsStatus tributary_nats_options_set_reconnect_wait(const tributary_nats *t, natsOptions *o, int64_t ms) { return TRIBUTARY_NATS_FN(t, natsOptions_SetReconnectWait)(o, ms); }
static inline natsStatus tributary_nats_options_set_reconnected_cb(const tributary_nats *t, natsOptions *o, natsConnectionHandler cb, void *closure) { return TRIBUTARY_NATS_FN(t, natsOptions_SetReconnectedCB)(o, cb, closure); }
static inline natsStatus tributary_nats_options_set_disconnected_cb(const tributary_nats *t, natsOptions *o, natsConnectionHandler cb, void *closure) { return TRIBUTARY_NATS_FN(t, natsOptions_SetDisconnectedCB)(o, cb, closure); }

static inline natsStatus tributary_nats_connect(const tributary_nats *t, natsConnection **nc, natsOptions *o) { return TRIBUTARY_NATS_FN(t, natsConnection_Connect)(nc, o); }
static inline void tributary_nats_connection_destroy(const tributary_nats *t, natsConnection *nc) { TRIBUTARY_NATS_FN(t, natsConnection_Destroy)(nc); }
/// The largest message (headers and payload) the connected server accepts: its INFO's max_payload.
static inline int64_t tributary_nats_max_payload(const tributary_nats *t, natsConnection *nc) { return TRIBUTARY_NATS_FN(t, natsConnection_GetMaxPayload)(nc); }

static inline natsStatus tributary_nats_jetstream(const tributary_nats *t, jsCtx **js, natsConnection *nc, jsOptions *o) { return TRIBUTARY_NATS_FN(t, natsConnection_JetStream)(js, nc, o); }
static inline void tributary_nats_js_destroy(const tributary_nats *t, jsCtx *js) { TRIBUTARY_NATS_FN(t, jsCtx_Destroy)(js); }
static inline natsStatus tributary_nats_js_options_init(const tributary_nats *t, jsOptions *o) { return TRIBUTARY_NATS_FN(t, jsOptions_Init)(o); }
static inline natsStatus tributary_nats_pub_options_init(const tributary_nats *t, jsPubOptions *o) { return TRIBUTARY_NATS_FN(t, jsPubOptions_Init)(o); }
static inline natsStatus tributary_nats_stream_config_init(const tributary_nats *t, jsStreamConfig *c) { return TRIBUTARY_NATS_FN(t, jsStreamConfig_Init)(c); }
static inline natsStatus tributary_nats_stream_info(const tributary_nats *t, jsStreamInfo **si, jsCtx *js, const char *stream, jsErrCode *code) { return TRIBUTARY_NATS_FN(t, js_GetStreamInfo)(si, js, stream, NULL, code); }
static inline natsStatus tributary_nats_add_stream(const tributary_nats *t, jsStreamInfo **si, jsCtx *js, jsStreamConfig *c, jsErrCode *code) { return TRIBUTARY_NATS_FN(t, js_AddStream)(si, js, c, NULL, code); }
static inline void tributary_nats_stream_info_destroy(const tributary_nats *t, jsStreamInfo *si) { TRIBUTARY_NATS_FN(t, jsStreamInfo_Destroy)(si); }

static inline natsStatus tributary_nats_msg_create(const tributary_nats *t, natsMsg **m, const char *subject, const unsigned char *data, int len) { return TRIBUTARY_NATS_FN(t, natsMsg_Create)(m, subject, NULL, (const char *)data, len); }
static inline void tributary_nats_msg_destroy(const tributary_nats *t, natsMsg *m) { TRIBUTARY_NATS_FN(t, natsMsg_Destroy)(m); }
static inline const char *tributary_nats_msg_subject(const tributary_nats *t, natsMsg *m) { return TRIBUTARY_NATS_FN(t, natsMsg_GetSubject)(m); }
static inline natsStatus tributary_nats_header_set(const tributary_nats *t, natsMsg *m, const char *key, const char *value) { return TRIBUTARY_NATS_FN(t, natsMsgHeader_Set)(m, key, value); }
/// The header's first value, or NULL (the pointer lives as long as the message).
static inline const char *tributary_nats_header_get(const tributary_nats *t, natsMsg *m, const char *key) {
    const char *v = NULL;
    return TRIBUTARY_NATS_FN(t, natsMsgHeader_Get)(m, key, &v) == NATS_OK ? v : NULL;
}
/// js_PublishMsgAsync: on NATS_OK the library owns `*m` and has set it to NULL.
static inline natsStatus tributary_nats_publish_async(const tributary_nats *t, jsCtx *js, natsMsg **m) { return TRIBUTARY_NATS_FN(t, js_PublishMsgAsync)(js, m, NULL); }
/// Waits at most `ms` for every outstanding asynchronous publish to be acknowledged.
static inline natsStatus tributary_nats_publish_async_complete(const tributary_nats *t, jsCtx *js, int64_t ms) {
    jsPubOptions o;
    TRIBUTARY_NATS_FN(t, jsPubOptions_Init)(&o);
    o.MaxWait = ms;
    return TRIBUTARY_NATS_FN(t, js_PublishAsyncComplete)(js, &o);
}
/// Takes back every message still waiting for its acknowledgement (NATS_NOT_FOUND: none).
static inline natsStatus tributary_nats_pending(const tributary_nats *t, natsMsgList *list, jsCtx *js) { return TRIBUTARY_NATS_FN(t, js_PublishAsyncGetPendingList)(list, js); }
static inline void tributary_nats_msg_list_destroy(const tributary_nats *t, natsMsgList *list) { TRIBUTARY_NATS_FN(t, natsMsgList_Destroy)(list); }
#endif
