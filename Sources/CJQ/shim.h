// libjq (jq 1.6) through a function table. Only wraps; never decides.
//
// Nothing here links libjq: JQLibrary.swift (TributaryJQ) opens libjq.so.1 with dlopen when the
// first jq program is compiled and fills a tributary_jq table from dlsym; each slot is cast to
// the function's type as <jq.h> and <jv.h> declare it (libjq-dev is a build dependency for the
// headers only), so a wrapper cannot drift from the library's prototype.
//
// jv values are passed and returned by value, as libjq does; every jv_* function consumes
// (frees) its jv arguments except jv_copy, and tributary_jv_copy / tributary_jv_free are how
// Swift keeps or drops a reference.
#ifndef TRIBUTARY_CJQ_SHIM_H
#define TRIBUTARY_CJQ_SHIM_H
#include <stddef.h>
#include <jq.h>

/// One slot per libjq function the project calls, filled from dlsym(handle, "<slot>").
typedef struct tributary_jq {
    void *jq_init;
    void *jq_teardown;
    void *jq_set_error_cb;
    void *jq_set_attr;
    void *jq_compile;
    void *jq_start;
    void *jq_next;
    void *jq_halt;
    void *jq_halted;
    void *jv_parse_sized;
    void *jv_dump_string;
    void *jv_get_kind;
    void *jv_copy;
    void *jv_free;
    void *jv_invalid;
    void *jv_invalid_has_msg;
    void *jv_invalid_get_msg;
    void *jv_string_sized;
    void *jv_string_value;
    void *jv_string_length_bytes;
    void *jv_array;
    void *jv_array_length;
    void *jv_array_get;
    void *jv_array_append;
    void *jv_object;
    void *jv_object_set;
    void *jv_object_iter;
    void *jv_object_iter_next;
    void *jv_object_iter_valid;
    void *jv_object_iter_key;
    void *jv_object_iter_value;
    void *jv_number;
    void *jv_number_value;
    void *jv_null;
    void *jv_true;
    void *jv_false;
} tributary_jq;

#define TRIBUTARY_JQ_FN(t, name) ((__typeof__(&name))(t)->name)

// MARK: jq_state

static inline jq_state *tributary_jq_init(const tributary_jq *t) { return TRIBUTARY_JQ_FN(t, jq_init)(); }
static inline void tributary_jq_teardown(const tributary_jq *t, jq_state **jq) { TRIBUTARY_JQ_FN(t, jq_teardown)(jq); }
/// `cb` receives each compile error as a jv it must free (jq 1.6 reports compile errors only
/// through this callback; without one it prints them to stderr).
static inline void tributary_jq_set_error_cb(const tributary_jq *t, jq_state *jq, jq_msg_cb cb, void *data) { TRIBUTARY_JQ_FN(t, jq_set_error_cb)(jq, cb, data); }
static inline void tributary_jq_set_attr(const tributary_jq *t, jq_state *jq, jv attr, jv value) { TRIBUTARY_JQ_FN(t, jq_set_attr)(jq, attr, value); }
/// 1 when `program` (NUL-terminated UTF-8) compiled, 0 when not (the errors went to the error
/// callback).
static inline int tributary_jq_compile(const tributary_jq *t, jq_state *jq, const char *program) { return TRIBUTARY_JQ_FN(t, jq_compile)(jq, program); }
/// Starts the program on `input` (consumed); flags 0: no debug trace.
static inline void tributary_jq_start(const tributary_jq *t, jq_state *jq, jv input) { TRIBUTARY_JQ_FN(t, jq_start)(jq, input, 0); }
/// The next output; an invalid jv at the end, with a message when the program raised an error.
static inline jv tributary_jq_next(const tributary_jq *t, jq_state *jq) { return TRIBUTARY_JQ_FN(t, jq_next)(jq); }
/// Makes `jq_next` return (an invalid jv without a message) before the next instruction it
/// runs; exit code and message are both invalid (nothing to free).
static inline void tributary_jq_halt(const tributary_jq *t, jq_state *jq) {
    jv none = TRIBUTARY_JQ_FN(t, jv_invalid)();
    TRIBUTARY_JQ_FN(t, jq_halt)(jq, none, none);
}
static inline int tributary_jq_halted(const tributary_jq *t, jq_state *jq) { return TRIBUTARY_JQ_FN(t, jq_halted)(jq); }

// MARK: jv

/// Parses exactly one JSON text of `length` bytes; an invalid jv with a message when it is not.
static inline jv tributary_jv_parse_sized(const tributary_jq *t, const char *text, int length) { return TRIBUTARY_JQ_FN(t, jv_parse_sized)(text, length); }
/// Compact JSON text (jq -c): keys in the value's own order, non-ASCII as itself. Consumes `v`.
static inline jv tributary_jv_dump_compact(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_dump_string)(v, 0); }
static inline jv_kind tributary_jv_get_kind(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_get_kind)(v); }
static inline jv tributary_jv_copy(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_copy)(v); }
static inline void tributary_jv_free(const tributary_jq *t, jv v) { TRIBUTARY_JQ_FN(t, jv_free)(v); }
/// Consumes `v`.
static inline int tributary_jv_invalid_has_msg(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_invalid_has_msg)(v); }
/// Consumes `v`; the message (any jv; null when none).
static inline jv tributary_jv_invalid_get_msg(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_invalid_get_msg)(v); }
static inline jv tributary_jv_string_sized(const tributary_jq *t, const char *s, int length) { return TRIBUTARY_JQ_FN(t, jv_string_sized)(s, length); }
/// The string's UTF-8 bytes, valid while `v` is (does not consume it).
static inline const char *tributary_jv_string_value(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_string_value)(v); }
/// Consumes `v`.
static inline int tributary_jv_string_length_bytes(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_string_length_bytes)(v); }
static inline jv tributary_jv_array(const tributary_jq *t) { return TRIBUTARY_JQ_FN(t, jv_array)(); }
/// Consumes `a`.
static inline int tributary_jv_array_length(const tributary_jq *t, jv a) { return TRIBUTARY_JQ_FN(t, jv_array_length)(a); }
/// Consumes `a`; the element (a new reference), or an invalid jv past the end.
static inline jv tributary_jv_array_get(const tributary_jq *t, jv a, int index) { return TRIBUTARY_JQ_FN(t, jv_array_get)(a, index); }
/// Consumes both.
static inline jv tributary_jv_array_append(const tributary_jq *t, jv a, jv value) { return TRIBUTARY_JQ_FN(t, jv_array_append)(a, value); }
static inline jv tributary_jv_object(const tributary_jq *t) { return TRIBUTARY_JQ_FN(t, jv_object)(); }
/// Consumes all three; a key already there keeps its place and takes the new value.
static inline jv tributary_jv_object_set(const tributary_jq *t, jv o, jv key, jv value) { return TRIBUTARY_JQ_FN(t, jv_object_set)(o, key, value); }
// Iteration in the object's own key order (what jq prints without --sort-keys); none of
// these consume `o`, key and value are new references.
static inline int tributary_jv_object_iter(const tributary_jq *t, jv o) { return TRIBUTARY_JQ_FN(t, jv_object_iter)(o); }
static inline int tributary_jv_object_iter_next(const tributary_jq *t, jv o, int iter) { return TRIBUTARY_JQ_FN(t, jv_object_iter_next)(o, iter); }
static inline int tributary_jv_object_iter_valid(const tributary_jq *t, jv o, int iter) { return TRIBUTARY_JQ_FN(t, jv_object_iter_valid)(o, iter); }
static inline jv tributary_jv_object_iter_key(const tributary_jq *t, jv o, int iter) { return TRIBUTARY_JQ_FN(t, jv_object_iter_key)(o, iter); }
static inline jv tributary_jv_object_iter_value(const tributary_jq *t, jv o, int iter) { return TRIBUTARY_JQ_FN(t, jv_object_iter_value)(o, iter); }
static inline jv tributary_jv_number(const tributary_jq *t, double d) { return TRIBUTARY_JQ_FN(t, jv_number)(d); }
/// Does not consume `v`.
static inline double tributary_jv_number_value(const tributary_jq *t, jv v) { return TRIBUTARY_JQ_FN(t, jv_number_value)(v); }
static inline jv tributary_jv_null(const tributary_jq *t) { return TRIBUTARY_JQ_FN(t, jv_null)(); }
static inline jv tributary_jv_bool(const tributary_jq *t, int b) { return b ? TRIBUTARY_JQ_FN(t, jv_true)() : TRIBUTARY_JQ_FN(t, jv_false)(); }
#endif
