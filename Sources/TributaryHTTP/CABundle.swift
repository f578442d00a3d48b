import TributaryBase
import Glibc

/// The CA certificates a run trusts when `http.ca_file` is set: the system's bundle and the
/// file's certificates together, so the file adds trust and takes none away.
///
/// How: libcurl verifies against one CA file (`CURLOPT_CAINFO`), by default the system bundle
/// its build names (Debian: /etc/ssl/certs/ca-certificates.crt). When the transport starts it
/// writes that bundle followed by the `ca_file` into a file that has no name: made with
/// `mkstemp` (mode 0600, `O_EXCL`) in $TMPDIR or /tmp and unlinked at once, so nothing is left
/// behind, even after a crash, and no other process can open it; the open descriptor keeps it,
/// and `CURLOPT_CAINFO` points at it as `/proc/self/fd/N`. libcurl reads it like
/// any CA file, so OpenSSL's CA store cache (`CURLOPT_CA_CACHE_TIMEOUT`, libcurl 7.87+) keeps
/// working, which `CURLOPT_CAINFO_BLOB` (a copy of the whole bundle on every handle, parsed
/// per connection) would not. Rejected also: a temporary file in /tmp (left behind on a
/// crash, and another user could race its creation).
public final class CABundle: @unchecked Sendable {
    /// The path libcurl is given: `/proc/self/fd/N`.
    public let path: String
    private let fd: Int32

    /// The start of a PEM certificate: a `ca_file` without one is not a CA file.
    static let pemMarker = "-----BEGIN CERTIFICATE-----"

    /// The system bundle when libcurl does not say (libcurl before 7.84 has no CURLINFO_CAINFO).
    static let debianBundle = "/etc/ssl/certs/ca-certificates.crt"

    private init(fd: Int32) {
        self.fd = fd
        self.path = "/proc/self/fd/\(fd)"
    }

    deinit { close(fd) }

    /// What is wrong with `path` as an `http.ca_file`, or nil: it must be readable and hold at
    /// least one PEM certificate. Checked when the config is loaded.
    public static func problem(readingExtra path: String) -> String? {
        switch read(path) {
        case .failure(let why): return "cannot read \(path) (\(why))"
        case .success(let bytes):
            if String(decoding: bytes, as: UTF8.self).contains(pemMarker) { return nil }
            return "expected PEM CA certificates (\(pemMarker)) in \(path), found none"
        }
    }

    /// The system bundle (`system`, else Debian's) followed by `extra`, in a memory file. A
    /// system bundle that cannot be read leaves the extra certificates alone trusted (a machine
    /// without ca-certificates trusts nothing else either); an `extra` that cannot be read now
    /// (it was readable when the config was loaded) is an error naming it.
    public static func make(system: String?, extra: String) -> Result<CABundle, CABundleError> {
        let own: [UInt8]
        switch read(extra) {
        case .failure(let why): return .failure(CABundleError(message: "http.ca_file: cannot read \(extra) (\(why))"))
        case .success(let b): own = b
        }
        let base = (try? read(system ?? debianBundle).get()) ?? []
        let folder = Environment.get("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/tributary-ca-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { return .failure(CABundleError(message: "http.ca_file: cannot make the combined CA bundle in \(folder) (\(String(cString: strerror(errno))))")) }
        unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // not inherited by the programs a run starts
        let bundle = CABundle(fd: fd)
        var all = base
        if !all.isEmpty && all.last != 0x0A { all.append(0x0A) }
        all += own
        var offset = 0
        while offset < all.count {
            let n = all.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, all.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return .failure(CABundleError(message: "http.ca_file: cannot write the combined CA bundle (\(String(cString: strerror(errno))))")) }
            offset += n
        }
        return .success(bundle)
    }

    private static func read(_ path: String) -> Result<[UInt8], ReadFailure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(ReadFailure(String(cString: strerror(errno)))) }
        defer { close(fd) }
        guard let bytes = FileAccess.readAll(fd) else { return .failure(ReadFailure(String(cString: strerror(errno)))) }
        return .success(bytes)
    }

    private struct ReadFailure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

/// Why the CA bundle of `http.ca_file` could not be made; every request fails with it.
public struct CABundleError: Error, Sendable {
    public let message: String
}
