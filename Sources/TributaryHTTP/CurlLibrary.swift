import TributaryBase
import TributaryJSON
import TributaryOptions
import CCurl
import Synchronization

/// libcurl, opened with `dlopen("libcurl.so.4")` the first time a transfer needs it rather than
/// linked: Debian's libcurl4 brings about 30 libraries with it (OpenSSL, GnuTLS through librtmp,
/// Kerberos, LDAP, SASL, libssh2, ...), and loading them cost every start about 8 ms, most of
/// it the dynamic loader's relocations and page faults, even for `--version` or `check`.
///
/// Every libcurl function the project calls has a slot in the C table `tributary_curl`
/// (Sources/CCurl/shim.h), filled here from `dlsym`; Swift calls curl only through the shim's
/// wrappers, which take the table. The table is written once, before it is shared, and never
/// changes or goes away, so it may be read from any thread.
struct CurlLibrary: @unchecked Sendable {
    /// The libcurl ABI the headers describe (libcurl4, any 7.x or 8.x).
    static let soname = "libcurl.so.4"

    let api: UnsafePointer<tributary_curl>

    /// The symbol behind each slot of `tributary_curl`.
    static var slots: [(WritableKeyPath<tributary_curl, UnsafeMutableRawPointer?>, String)] { [
        (\.global_init, "curl_global_init"),
        (\.version_info, "curl_version_info"),
        (\.easy_init, "curl_easy_init"),
        (\.easy_setopt, "curl_easy_setopt"),
        (\.easy_getinfo, "curl_easy_getinfo"),
        (\.easy_cleanup, "curl_easy_cleanup"),
        (\.easy_strerror, "curl_easy_strerror"),
        (\.multi_init, "curl_multi_init"),
        (\.multi_setopt, "curl_multi_setopt"),
        (\.multi_add_handle, "curl_multi_add_handle"),
        (\.multi_remove_handle, "curl_multi_remove_handle"),
        (\.multi_perform, "curl_multi_perform"),
        (\.multi_poll, "curl_multi_poll"),
        (\.multi_wakeup, "curl_multi_wakeup"),
        (\.multi_info_read, "curl_multi_info_read"),
        (\.multi_cleanup, "curl_multi_cleanup"),
        (\.slist_append, "curl_slist_append"),
        (\.slist_free_all, "curl_slist_free_all"),
    ] }

    /// nil until the first `shared()`; then that call's outcome, kept (a failed load is not
    /// retried on every request).
    private static let state = Locked<Result<CurlLibrary, SharedLibrary.LoadError>?>(nil)
    /// Set once `state` holds a loaded library, so that `ifLoaded` (asked by `--version`) does
    /// not have to create the lock, a generic class instance, just to learn that nothing is loaded.
    private static let loaded = Atomic<Bool>(false)

    /// The process's libcurl. The first call opens it, binds the table and runs
    /// `curl_global_init(CURL_GLOBAL_DEFAULT)`, all under one lock: global init runs exactly
    /// once, before any handle exists, and no other thread can reach curl before it is done
    /// (they wait on the lock). Later calls return the same library, or the same error.
    static func shared() -> Result<CurlLibrary, SharedLibrary.LoadError> {
        state.withLock { s in
            if let s { return s }
            let r = open(soname).flatMap { lib -> Result<CurlLibrary, SharedLibrary.LoadError> in
                let code = tributary_curl_global_init(lib.api, Int(CURL_GLOBAL_DEFAULT))
                guard code == CURLE_OK else {
                    return .failure(SharedLibrary.LoadError(message: "curl_global_init failed (curl error \(code.rawValue))"))
                }
                return .success(lib)
            }
            s = r
            if case .success = r { loaded.store(true, ordering: .releasing) }
            return r
        }
    }

    /// The library if `shared()` has loaded it; never loads.
    static var ifLoaded: CurlLibrary? {
        guard loaded.load(ordering: .acquiring) else { return nil }
        return state.withLock { s in
            if case .success(let lib)? = s { return lib }
            return nil
        }
    }

    /// Opens `soname` and binds every slot; no global init (that is `shared()`'s). Internal so
    /// tests can try a library that does not exist.
    static func open(_ soname: String) -> Result<CurlLibrary, SharedLibrary.LoadError> {
        let opened = SharedLibrary.open(soname).mapError { e in
            SharedLibrary.LoadError(message: "HTTP needs libcurl (\(soname), Debian package libcurl4), which could not be loaded: \(e.message)")
        }
        return opened.flatMap { lib in
            let table = UnsafeMutablePointer<tributary_curl>.allocate(capacity: 1)
            table.initialize(to: tributary_curl())
            switch lib.bind(table, slots) {
            case .success:
                return .success(CurlLibrary(api: UnsafePointer(table)))
            case .failure(let e):
                table.deallocate()
                return .failure(SharedLibrary.LoadError(message: "HTTP needs libcurl 7.68 or later: \(e.message)"))
            }
        }
    }

    /// `curl_version_info(CURLVERSION_NOW)->version`, e.g. `7.88.1`.
    var version: String {
        guard let info = tributary_curl_version_info(api), let v = info.pointee.version else { return "unknown" }
        return String(cString: v)
    }

    /// The version of the libcurl file the dynamic loader would open for `libcurl.so.4`, read
    /// from its data without loading it; nil when there is no such file or no version in it.
    static func versionOnDisk() -> String? {
        guard let path = LibraryFile.locate(soname) else { return nil }
        return LibraryFile.embeddedVersion(after: "libcurl/", inFile: path)
    }
}
