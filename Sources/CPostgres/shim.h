// libpq through a function table. Only wraps; never decides.
//
// Nothing here links libpq: the program opens libpq.so.5 with dlopen on first use
// (PostgresLibrary.swift), stores what dlsym returns for each name below in a tributary_pq
// table, and calls libpq only through these wrappers. Types and constants still come from the
// real header (libpq-dev), and every wrapper casts its slot to the type of the function as
// <libpq-fe.h> declares it, so a wrapper cannot drift from the library's prototype.
#ifndef TRIBUTARY_CPOSTGRES_SHIM_H
#define TRIBUTARY_CPOSTGRES_SHIM_H
#include <postgresql/libpq-fe.h>

/// One slot per libpq function the project calls, filled from dlsym(handle, "PQ<slot>").
typedef struct tributary_pq {
    void *connectdb;
    void *status;
    void *errorMessage;
    void *finish;
    void *reset;
    void *transactionStatus;
    void *serverVersion;
    void *setNoticeProcessor;
    void *execParams;
    void *resultStatus;
    void *resultErrorMessage;
    void *resultErrorField;
    void *ntuples;
    void *nfields;
    void *getvalue;
    void *getlength;
    void *getisnull;
    void *cmdTuples;
    void *clear;
    void *libVersion;
    // Pipeline mode (libpq 14 and later): many statements, one round trip.
    void *enterPipelineMode;
    void *exitPipelineMode;
    void *pipelineSync;
    void *sendQueryParams;
    void *sendPrepare;
    void *sendQueryPrepared;
    void *getResult;
} tributary_pq;

// The slot `name` as a pointer to PQ<name>, typed as the header declares it.
#define TRIBUTARY_PQ_FN(t, name) ((__typeof__(&PQ##name))(t)->name)

static inline PGconn *tributary_pq_connectdb(const tributary_pq *t, const char *conninfo) { return TRIBUTARY_PQ_FN(t, connectdb)(conninfo); }
static inline ConnStatusType tributary_pq_status(const tributary_pq *t, const PGconn *c) { return TRIBUTARY_PQ_FN(t, status)(c); }
static inline const char *tributary_pq_error_message(const tributary_pq *t, const PGconn *c) { return TRIBUTARY_PQ_FN(t, errorMessage)(c); }
static inline void tributary_pq_finish(const tributary_pq *t, PGconn *c) { TRIBUTARY_PQ_FN(t, finish)(c); }
static inline void tributary_pq_reset(const tributary_pq *t, PGconn *c) { TRIBUTARY_PQ_FN(t, reset)(c); }
static inline PGTransactionStatusType tributary_pq_transaction_status(const tributary_pq *t, const PGconn *c) { return TRIBUTARY_PQ_FN(t, transactionStatus)(c); }
static inline int tributary_pq_server_version(const tributary_pq *t, const PGconn *c) { return TRIBUTARY_PQ_FN(t, serverVersion)(c); }
static inline int tributary_pq_lib_version(const tributary_pq *t) { return TRIBUTARY_PQ_FN(t, libVersion)(); }

// libpq's default notice processor prints NOTICEs ("relation ... already exists, skipping") to
// stderr; this one drops them. Capture-free C function, so no context is needed.
static inline void tributary_pq_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void tributary_pq_silence_notices(const tributary_pq *t, PGconn *c) { (void)TRIBUTARY_PQ_FN(t, setNoticeProcessor)(c, tributary_pq_ignore_notice, NULL); }

static inline PGresult *tributary_pq_exec_params(const tributary_pq *t, PGconn *c, const char *command, int nParams,
                                                 const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    return TRIBUTARY_PQ_FN(t, execParams)(c, command, nParams, NULL, paramValues, paramLengths, paramFormats, resultFormat);
}
static inline ExecStatusType tributary_pq_result_status(const tributary_pq *t, const PGresult *r) { return TRIBUTARY_PQ_FN(t, resultStatus)(r); }
static inline const char *tributary_pq_result_error_message(const tributary_pq *t, const PGresult *r) { return TRIBUTARY_PQ_FN(t, resultErrorMessage)(r); }
static inline const char *tributary_pq_result_sqlstate(const tributary_pq *t, const PGresult *r) { return TRIBUTARY_PQ_FN(t, resultErrorField)(r, PG_DIAG_SQLSTATE); }
static inline int tributary_pq_ntuples(const tributary_pq *t, const PGresult *r) { return TRIBUTARY_PQ_FN(t, ntuples)(r); }
static inline int tributary_pq_nfields(const tributary_pq *t, const PGresult *r) { return TRIBUTARY_PQ_FN(t, nfields)(r); }
static inline const char *tributary_pq_getvalue(const tributary_pq *t, const PGresult *r, int row, int col) { return TRIBUTARY_PQ_FN(t, getvalue)(r, row, col); }
static inline int tributary_pq_getlength(const tributary_pq *t, const PGresult *r, int row, int col) { return TRIBUTARY_PQ_FN(t, getlength)(r, row, col); }
static inline int tributary_pq_getisnull(const tributary_pq *t, const PGresult *r, int row, int col) { return TRIBUTARY_PQ_FN(t, getisnull)(r, row, col); }
static inline const char *tributary_pq_cmd_tuples(const tributary_pq *t, PGresult *r) { return TRIBUTARY_PQ_FN(t, cmdTuples)(r); }
static inline int tributary_pq_enter_pipeline_mode(const tributary_pq *t, PGconn *c) { return TRIBUTARY_PQ_FN(t, enterPipelineMode)(c); }
static inline int tributary_pq_exit_pipeline_mode(const tributary_pq *t, PGconn *c) { return TRIBUTARY_PQ_FN(t, exitPipelineMode)(c); }
static inline int tributary_pq_pipeline_sync(const tributary_pq *t, PGconn *c) { return TRIBUTARY_PQ_FN(t, pipelineSync)(c); }
static inline int tributary_pq_send_query_params(const tributary_pq *t, PGconn *c, const char *command, int nParams,
                                                 const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    return TRIBUTARY_PQ_FN(t, sendQueryParams)(c, command, nParams, NULL, paramValues, paramLengths, paramFormats, resultFormat);
}
static inline int tributary_pq_send_prepare(const tributary_pq *t, PGconn *c, const char *name, const char *query, int nParams) {
    return TRIBUTARY_PQ_FN(t, sendPrepare)(c, name, query, nParams, NULL);
}
static inline int tributary_pq_send_query_prepared(const tributary_pq *t, PGconn *c, const char *name, int nParams,
                                                   const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    return TRIBUTARY_PQ_FN(t, sendQueryPrepared)(c, name, nParams, paramValues, paramLengths, paramFormats, resultFormat);
}
static inline PGresult *tributary_pq_get_result(const tributary_pq *t, PGconn *c) { return TRIBUTARY_PQ_FN(t, getResult)(c); }
static inline void tributary_pq_clear(const tributary_pq *t, PGresult *r) { TRIBUTARY_PQ_FN(t, clear)(r); }
#endif
