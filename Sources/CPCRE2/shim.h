// PCRE2 (8-bit code units, UTF-8) for filter rules, through a function table. Only wraps;
// never decides.
//
// Nothing here links libpcre2-8: Pattern.swift opens libpcre2-8.so.0 with dlopen when the first
// `regex` rule is compiled and fills a tributary_pcre2 table from dlsym; each slot is cast to
// the function's type as <pcre2.h> declares it (libpcre2-dev is a build dependency for the
// header only).
#ifndef TRIBUTARY_CPCRE2_SHIM_H
#define TRIBUTARY_CPCRE2_SHIM_H
#define PCRE2_CODE_UNIT_WIDTH 8
#include <stddef.h>
#include <stdint.h>
#include <pcre2.h>

/// One slot per PCRE2 function used, filled from dlsym(handle, "<slot>").
typedef struct tributary_pcre2 {
    void *pcre2_compile_8;
    void *pcre2_jit_compile_8;
    void *pcre2_get_error_message_8;
    void *pcre2_code_free_8;
    void *pcre2_match_data_create_from_pattern_8;
    void *pcre2_match_data_free_8;
    void *pcre2_match_8;
    void *pcre2_match_context_create_8;
    void *pcre2_match_context_free_8;
    void *pcre2_set_match_limit_8;
    void *pcre2_set_depth_limit_8;
    void *pcre2_jit_stack_create_8;
    void *pcre2_jit_stack_free_8;
    void *pcre2_jit_stack_assign_8;
} tributary_pcre2;

#define TRIBUTARY_PCRE2_FN(t, name) ((__typeof__(&name))(t)->name)

/// Compiles `pattern` (UTF-8, Unicode properties for \w, \d, \b and case folding). NULL on
/// error, with the error code and the offset in the pattern where it was found.
static inline pcre2_code_8 *tributary_pcre2_compile(const tributary_pcre2 *t, const char *pattern, size_t length, int *error, size_t *offset) {
    PCRE2_SIZE off = 0;
    pcre2_code_8 *code = TRIBUTARY_PCRE2_FN(t, pcre2_compile_8)((PCRE2_SPTR8)pattern, length, PCRE2_UTF | PCRE2_UCP, error, &off, NULL);
    *offset = (size_t)off;
    return code;
}

/// JIT-compiles for complete matches; 0 on success (a machine without JIT support still
/// matches, with the interpreter).
static inline int tributary_pcre2_jit(const tributary_pcre2 *t, pcre2_code_8 *code) {
    return TRIBUTARY_PCRE2_FN(t, pcre2_jit_compile_8)(code, PCRE2_JIT_COMPLETE);
}

/// The text of an error code into `buffer`; its length, or a negative number.
static inline int tributary_pcre2_error(const tributary_pcre2 *t, int error, char *buffer, size_t size) {
    return TRIBUTARY_PCRE2_FN(t, pcre2_get_error_message_8)(error, (PCRE2_UCHAR8 *)buffer, size);
}

static inline void tributary_pcre2_free(const tributary_pcre2 *t, pcre2_code_8 *code) {
    TRIBUTARY_PCRE2_FN(t, pcre2_code_free_8)(code);
}

static inline pcre2_match_data_8 *tributary_pcre2_match_data(const tributary_pcre2 *t, const pcre2_code_8 *code) {
    return TRIBUTARY_PCRE2_FN(t, pcre2_match_data_create_from_pattern_8)(code, NULL);
}

static inline void tributary_pcre2_match_data_free(const tributary_pcre2 *t, pcre2_match_data_8 *data) {
    TRIBUTARY_PCRE2_FN(t, pcre2_match_data_free_8)(data);
}

/// A match context with these limits (RegexPattern.swift says why they are what they are);
/// NULL when out of memory.
static inline pcre2_match_context_8 *tributary_pcre2_match_context(const tributary_pcre2 *t, uint32_t match_limit, uint32_t depth_limit) {
    pcre2_match_context_8 *context = TRIBUTARY_PCRE2_FN(t, pcre2_match_context_create_8)(NULL);
    if (context == NULL) return NULL;
    TRIBUTARY_PCRE2_FN(t, pcre2_set_match_limit_8)(context, match_limit);
    TRIBUTARY_PCRE2_FN(t, pcre2_set_depth_limit_8)(context, depth_limit);
    return context;
}

static inline void tributary_pcre2_match_context_free(const tributary_pcre2 *t, pcre2_match_context_8 *context) {
    TRIBUTARY_PCRE2_FN(t, pcre2_match_context_free_8)(context);
}

/// A JIT stack growing up to `max_size` bytes, assigned to `context` (a context used by one
/// thread at a time); NULL when out of memory.
static inline pcre2_jit_stack_8 *tributary_pcre2_jit_stack(const tributary_pcre2 *t, pcre2_match_context_8 *context, size_t max_size) {
    pcre2_jit_stack_8 *stack = TRIBUTARY_PCRE2_FN(t, pcre2_jit_stack_create_8)(32 * 1024, max_size, NULL);
    if (stack != NULL) TRIBUTARY_PCRE2_FN(t, pcre2_jit_stack_assign_8)(context, NULL, stack);
    return stack;
}

static inline void tributary_pcre2_jit_stack_free(const tributary_pcre2 *t, pcre2_jit_stack_8 *stack) {
    TRIBUTARY_PCRE2_FN(t, pcre2_jit_stack_free_8)(stack);
}

/// 1 when `code` matches somewhere in `subject`, 0 when not (PCRE2_ERROR_NOMATCH), and every
/// other result as PCRE2's negative error code: a limit reached by a pathological pattern
/// (PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_HEAPLIMIT,
/// PCRE2_ERROR_JIT_STACKLIMIT) or out of memory. An error is not "no match": the caller decides.
static inline int tributary_pcre2_match(const tributary_pcre2 *t, const pcre2_code_8 *code, const char *subject, size_t length, pcre2_match_data_8 *data, pcre2_match_context_8 *context) {
    int rc = TRIBUTARY_PCRE2_FN(t, pcre2_match_8)(code, (PCRE2_SPTR8)subject, length, 0, 0, data, context);
    if (rc >= 0) return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}
#endif
