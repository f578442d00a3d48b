// A peer for bench/nats_bench.py: the NATS C client (libnats) itself, publishing JSON lines to
// JetStream with Nats-Msg-Id, either one js_PublishMsg at a time (each waits for its
// acknowledgement) or with js_PublishMsgAsync and at most MAX_PENDING in flight, then
// js_PublishAsyncComplete (what the nats sink does through its function table).
//
//   nats_c_peer URL SUBJECT ID_PREFIX LINES_FILE sync|async [MAX_PENDING]
//
// Prints the seconds from connect to the last acknowledgement. Built by bench/nats.sh:
// gcc -O2 bench/nats_c_peer.c -lnats (Debian libnats-dev).
#include <nats/nats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int failures = 0;

static void on_ack(jsCtx *js, natsMsg *msg, jsPubAck *pa, jsPubAckErr *pae, void *closure) {
    (void)js; (void)closure;
    if (pa == NULL && __sync_fetch_and_add(&failures, 1) == 0) fprintf(stderr, "publish failed: %s\n", pae->ErrText);
    natsMsg_Destroy(msg);
}

int main(int argc, char **argv) {
    if (argc < 6) { fprintf(stderr, "usage: %s URL SUBJECT ID_PREFIX LINES_FILE sync|async [MAX_PENDING]\n", argv[0]); return 2; }
    const char *url = argv[1], *subject = argv[2], *prefix = argv[3];
    int async = strcmp(argv[5], "async") == 0;
    FILE *f = fopen(argv[4], "r");
    if (!f) { perror(argv[4]); return 2; }
    double start = now();
    natsConnection *nc = NULL;
    natsStatus s = natsConnection_ConnectTo(&nc, url);
    if (s != NATS_OK) { fprintf(stderr, "connect: %s\n", natsStatus_GetText(s)); return 1; }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.PublishAsync.MaxPending = argc > 6 ? atoi(argv[6]) : 1024;
    jo.PublishAsync.AckHandler = on_ack;
    jo.PublishAsync.StallWait = 10000;
    jsCtx *js = NULL;
    natsConnection_JetStream(&js, nc, &jo);
    char *line = NULL, id[256];
    size_t cap = 0;
    ssize_t len;
    long i = 0;
    while ((len = getline(&line, &cap, f)) > 0) {
        if (line[len - 1] == '\n') len--;
        natsMsg *m = NULL;
        natsMsg_Create(&m, subject, NULL, line, (int)len);
        snprintf(id, sizeof id, "%s:%ld", prefix, i++);
        natsMsgHeader_Set(m, "Nats-Msg-Id", id);
        if (async) {
            s = js_PublishMsgAsync(js, &m, NULL);
        } else {
            jsPubAck *pa = NULL;
            jsErrCode code = 0;
            s = js_PublishMsg(&pa, js, m, NULL, &code);
            jsPubAck_Destroy(pa);
        }
        natsMsg_Destroy(m);
        if (s != NATS_OK) { fprintf(stderr, "publish: %s\n", nats_GetLastError(NULL)); return 1; }
    }
    if (async) {
        jsPubOptions po;
        jsPubOptions_Init(&po);
        po.MaxWait = 30000;
        if (js_PublishAsyncComplete(js, &po) != NATS_OK || failures) { fprintf(stderr, "not every message was acknowledged\n"); return 1; }
    }
    printf("%.6f\n", now() - start);
    free(line);
    fclose(f);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    return 0;
}
