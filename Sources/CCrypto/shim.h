// libcrypto (OpenSSL 3) digests used by request signing. Only wraps; never decides.
#ifndef TRIBUTARY_CCRYPTO_SHIM_H
#define TRIBUTARY_CCRYPTO_SHIM_H
#include <openssl/evp.h>

/// SHA-1 of `len` bytes into `out` (20 bytes). Returns 1 on success.
static inline int tributary_sha1(const unsigned char *data, size_t len, unsigned char *out) {
    unsigned int n = 0;
    return EVP_Digest(data, len, out, &n, EVP_sha1(), NULL) == 1 && n == 20;
}

/// SHA-256 of `len` bytes into `out` (32 bytes). Returns 1 on success.
static inline int tributary_sha256(const unsigned char *data, size_t len, unsigned char *out) {
    unsigned int n = 0;
    return EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) == 1 && n == 32;
}
#endif
