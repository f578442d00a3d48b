import CCrypto

/// Message digests from libcrypto (never hand-written), as upper- or lower-case hex.
///
/// libcrypto is opened with `dlopen("libcrypto.so.3")` on the first digest rather than linked:
/// linking it cost every start about 1.2 ms of dynamic loading, and `--version`, `check` and
/// most runs of sources that carry their own ids never hash anything. A machine without it is
/// broken (libcurl's TLS needs the same library), so failing to load it stops the program with
/// a message naming the library and the loader's reason.
public enum Digest {
    public static func sha1(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, size: 20, "SHA-1", tributary_sha1) }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] { digest(bytes, size: 32, "SHA-256", tributary_sha256) }

    /// `size` bytes of `function`'s digest of `bytes`.
    @inline(__always)
    private static func digest(_ bytes: [UInt8], size: Int, _ name: StaticString,
                               _ function: (UnsafePointer<tributary_crypto>?, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> Int32) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        let api = CryptoLibrary.required
        let ok = bytes.withUnsafeBufferPointer { b in out.withUnsafeMutableBufferPointer { o in function(api, b.baseAddress, b.count, o.baseAddress) } }
        precondition(ok == 1, "libcrypto \(name) failed")
        return out
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 bytes.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let api = CryptoLibrary.required
        let ok = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                out.withUnsafeMutableBufferPointer { o in tributary_hmac_sha256(api, k.baseAddress, k.count, m.baseAddress, m.count, o.baseAddress) }
            }
        }
        precondition(ok == 1, "libcrypto HMAC-SHA256 failed")
        return out
    }

    public static func hex(_ bytes: [UInt8], uppercase: Bool = false) -> String {
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// libcrypto's functions for `Digest`, loaded on the first digest and never unloaded.
struct CryptoLibrary: LoadedLibrary, @unchecked Sendable {
    static let loader = LibraryLoader(
        tributary_crypto(), soname: "libcrypto.so.3", neededBy: "SHA-1/SHA-256 need", name: "libcrypto", debianPackage: "libssl3",
        slots: [(\.EVP_Digest, "EVP_Digest"), (\.HMAC, "HMAC"), (\.EVP_MD_fetch, "EVP_MD_fetch")],
        setUp: { api in
            // Run once, before anyone else has the table: the digests are fetched here, not by
            // name on every call.
            tributary_crypto_set_up(UnsafeMutablePointer(mutating: api)) == 1
                ? nil : SharedLibrary.LoadError(message: "libcrypto (libcrypto.so.3) has no SHA-1 or SHA-256 (EVP_MD_fetch failed)")
        })

    let api: UnsafePointer<tributary_crypto>

    /// The loaded table; a process without libcrypto stops here with the loader's message (its
    /// curl could not do TLS either).
    static var required: UnsafePointer<tributary_crypto> {
        switch loader.load() {
        case .success(let api): return api
        case .failure(let e): fatalError(e.message)
        }
    }
}
