// libcrypto (OpenSSL 3) digests used by request signing and item ids, through a function
// table. Only wraps; never decides.
//
// Nothing here links libcrypto: Digest.swift opens libcrypto.so.3 with dlopen on first use and
// fills a tributary_crypto table from dlsym; each slot is cast to the function's type as
// <openssl/evp.h> declares it (libssl-dev stays a build dependency for the headers).
#ifndef TRIBUTARY_CCRYPTO_SHIM_H
#define TRIBUTARY_CCRYPTO_SHIM_H
#include <openssl/evp.h>

/// One slot per libcrypto function used, filled from dlsym(handle, "<slot>").
typedef struct tributary_crypto {
    void *EVP_Digest;
    void *EVP_sha1;
    void *EVP_sha256;
} tributary_crypto;

#define TRIBUTARY_CRYPTO_FN(c, name) ((__typeof__(&name))(c)->name)

/// SHA-1 of `len` bytes into `out` (20 bytes). Returns 1 on success.
static inline int tributary_sha1(const tributary_crypto *c, const unsigned char *data, size_t len, unsigned char *out) {
    unsigned int n = 0;
    return TRIBUTARY_CRYPTO_FN(c, EVP_Digest)(data, len, out, &n, TRIBUTARY_CRYPTO_FN(c, EVP_sha1)(), NULL) == 1 && n == 20;
}

/// SHA-256 of `len` bytes into `out` (32 bytes). Returns 1 on success.
static inline int tributary_sha256(const tributary_crypto *c, const unsigned char *data, size_t len, unsigned char *out) {
    unsigned int n = 0;
    return TRIBUTARY_CRYPTO_FN(c, EVP_Digest)(data, len, out, &n, TRIBUTARY_CRYPTO_FN(c, EVP_sha256)(), NULL) == 1 && n == 32;
}
#endif
