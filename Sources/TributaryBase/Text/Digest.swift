import CCrypto

/// Message digests from libcrypto (never hand-written), as upper- or lower-case hex.
///
/// libcrypto is opened with `dlopen("libcrypto.so.3")` on the first digest rather than linked:
/// linking it cost every start about 1.2 ms of dynamic loading, and `--version`, `check` and
/// most runs of sources that carry their own ids never hash anything. A machine without it is
/// broken (libcurl's TLS needs the same library), so failing to load it stops the program with
/// a message naming the library and the loader's reason.
public enum Digest {
    public static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 20)
        let api = CryptoLibrary.shared.api
        let ok = bytes.withUnsafeBufferPointer { b in out.withUnsafeMutableBufferPointer { o in tributary_sha1(api, b.baseAddress, b.count, o.baseAddress) } }
        precondition(ok == 1, "libcrypto SHA-1 failed")
        return out
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let api = CryptoLibrary.shared.api
        let ok = bytes.withUnsafeBufferPointer { b in out.withUnsafeMutableBufferPointer { o in tributary_sha256(api, b.baseAddress, b.count, o.baseAddress) } }
        precondition(ok == 1, "libcrypto SHA-256 failed")
        return out
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`: 32 bytes.
    public static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let api = CryptoLibrary.shared.api
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

/// libcrypto's functions for `Digest`, bound once (a Swift static: initialised exactly once,
/// thread-safe) and never unloaded.
struct CryptoLibrary: @unchecked Sendable {
    static let soname = "libcrypto.so.3"
    let api: UnsafePointer<tributary_crypto>

    static let shared: CryptoLibrary = {
        switch open(soname) {
        case .success(let lib): return lib
        case .failure(let e): fatalError(e.message)
        }
    }()

    /// Opens `soname` and binds the table. Internal so tests can try a name that does not exist.
    static func open(_ soname: String) -> Result<CryptoLibrary, SharedLibrary.LoadError> {
        let slots: [(WritableKeyPath<tributary_crypto, UnsafeMutableRawPointer?>, String)] = [
            (\.EVP_Digest, "EVP_Digest"), (\.EVP_sha1, "EVP_sha1"), (\.EVP_sha256, "EVP_sha256"), (\.HMAC, "HMAC"),
        ]
        let opened = SharedLibrary.open(soname).mapError { e in
            SharedLibrary.LoadError(message: "SHA-1/SHA-256 need libcrypto (\(soname), Debian package libssl3), which could not be loaded: \(e.message)")
        }
        return opened.flatMap { lib in
            let table = UnsafeMutablePointer<tributary_crypto>.allocate(capacity: 1)
            table.initialize(to: tributary_crypto())
            switch lib.bind(table, slots) {
            case .success: return .success(CryptoLibrary(api: UnsafePointer(table)))
            case .failure(let e): table.deallocate(); return .failure(e)
            }
        }
    }
}
