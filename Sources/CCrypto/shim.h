// libcrypto (OpenSSL 3) digests used by request signing, item ids and webhook signatures,
// through a function table. Only wraps; never decides.
//
// Nothing here links libcrypto: Digest.swift opens libcrypto.so.3 with dlopen on first use and
// fills a tributary_crypto table from dlsym; each slot is cast to the function's type as
// <openssl/evp.h> declares it (libssl-dev stays a build dependency for the headers).
#ifndef TRIBUTARY_CCRYPTO_SHIM_H
#define TRIBUTARY_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>

/// One slot per libcrypto function used, filled from dlsym(handle, "<slot>").
typedef struct tributary_crypto {
    void *EVP_Digest;
    void *HMAC;
    void *EVP_MD_fetch;
    /* Not symbols: the digests fetched once by tributary_crypto_set_up. */
    const EVP_MD *sha1;
    const EVP_MD *sha256;
} tributary_crypto;

#define TRIBUTARY_CRYPTO_FN(c, name) ((__typeof__(&name))(c)->name)

/// Fetches SHA-1 and SHA-256 once, when the table is bound. OpenSSL 3 looks an algorithm up
/// by name on every call given `EVP_sha1()` (an implicit fetch: a third of a short digest's
/// instructions); a fetched one is used as it is. Returns 1 when both were fetched.
static inline int tributary_crypto_set_up(tributary_crypto *c) {
    c->sha1 = TRIBUTARY_CRYPTO_FN(c, EVP_MD_fetch)(NULL, "SHA1", NULL);
    c->sha256 = TRIBUTARY_CRYPTO_FN(c, EVP_MD_fetch)(NULL, "SHA2-256", NULL);
    return c->sha1 != NULL && c->sha256 != NULL;
}

/// SHA-1 of `len` bytes into `out` (20 bytes). Returns 1 on success.
static inline int tributary_sha1(const tributary_crypto *c, const unsigned char *data, size_t len, unsigned char *out) {
    unsigned int n = 0;
    return TRIBUTARY_CRYPTO_FN(c, EVP_Digest)(data, len, out, &n, c->sha1, NULL) == 1 && n == 20;
}

/// SHA-256 of `len` bytes into `out` (32 bytes). Returns 1 on success.
static inline int tributary_sha256(const tributary_crypto *c, const unsigned char *data, size_t len, unsigned char *out) {
    unsigned int n = 0;
    return TRIBUTARY_CRYPTO_FN(c, EVP_Digest)(data, len, out, &n, c->sha256, NULL) == 1 && n == 32;
}

/// HMAC-SHA256 of `len` bytes with `key` into `out` (32 bytes). Returns 1 on success.
/// The key length is an int in OpenSSL's prototype: longer keys are refused (0).
static inline int tributary_hmac_sha256(const tributary_crypto *c, const unsigned char *key, size_t keylen, const unsigned char *data, size_t len, unsigned char *out) {
    unsigned int n = 0;
    if (keylen > 0x7fffffff) return 0;
    /* Empty Swift arrays come as NULL: pass a real (empty) buffer, as OpenSSL expects one. */
    static const unsigned char empty[1] = {0};
    return TRIBUTARY_CRYPTO_FN(c, HMAC)(c->sha256, key ? (const void *)key : (const void *)empty, (int)keylen,
                                        data ? data : empty, len, out, &n) != NULL && n == 32;
}
#endif
