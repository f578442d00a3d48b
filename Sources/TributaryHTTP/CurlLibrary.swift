import TributaryBase
import TributaryJSON
import TributaryOptions
import CCurl

/// libcurl, opened with `dlopen("libcurl.so.4")` the first time a transfer needs it rather than
/// linked: Debian's libcurl4 brings about 30 libraries with it (OpenSSL, GnuTLS through librtmp,
/// Kerberos, LDAP, SASL, libssh2, ...), and loading them cost every start about 8 ms, most of
/// it the dynamic loader's relocations and page faults, even for `--version` or `check`.
///
/// Every libcurl function the project calls has a slot in the C table `tributary_curl`
/// (Sources/CCurl/shim.h), filled by the loader (`LibraryLoader`) from `dlsym`; Swift calls curl
/// only through the shim's wrappers, which take the table.
struct CurlLibrary: LoadedLibrary, @unchecked Sendable {
    /// libcurl4 (any 7.x or 8.x), the ABI the headers describe. The first `shared()` also runs
    /// `curl_global_init(CURL_GLOBAL_DEFAULT)`, under the loader's lock: global init runs
    /// exactly once, before any handle exists. `open` (tests) does not.
    static let loader = LibraryLoader(
        tributary_curl(), soname: "libcurl.so.4", neededBy: "HTTP needs", name: "libcurl", debianPackage: "libcurl4", oldest: "libcurl 7.68",
        slots: [
            (\.global_init, "curl_global_init"),
            (\.version_info, "curl_version_info"),
            (\.easy_init, "curl_easy_init"),
            (\.easy_setopt, "curl_easy_setopt"),
            (\.easy_getinfo, "curl_easy_getinfo"),
            (\.easy_cleanup, "curl_easy_cleanup"),
            (\.easy_reset, "curl_easy_reset"),
            (\.easy_strerror, "curl_easy_strerror"),
            (\.multi_init, "curl_multi_init"),
            (\.multi_setopt, "curl_multi_setopt"),
            (\.multi_add_handle, "curl_multi_add_handle"),
            (\.multi_remove_handle, "curl_multi_remove_handle"),
            (\.multi_socket_action, "curl_multi_socket_action"),
            (\.multi_info_read, "curl_multi_info_read"),
            (\.multi_cleanup, "curl_multi_cleanup"),
            (\.slist_append, "curl_slist_append"),
            (\.slist_free_all, "curl_slist_free_all"),
        ],
        setUp: { api in
            let code = tributary_curl_global_init(api, Int(CURL_GLOBAL_DEFAULT))
            return code == CURLE_OK ? nil : SharedLibrary.LoadError(message: "curl_global_init failed (curl error \(code.rawValue))")
        })

    let api: UnsafePointer<tributary_curl>

    /// `curl_version_info(CURLVERSION_NOW)->version`, e.g. `7.88.1`.
    var version: String {
        guard let info = tributary_curl_version_info(api), let v = info.pointee.version else { return "unknown" }
        return String(cString: v)
    }

    /// Whether this libcurl speaks HTTP/2 (`CURL_VERSION_HTTP2` in `curl_version_info`'s
    /// features: built with nghttp2). Debian's libcurl4 is; a libcurl without it gets HTTP/1.1
    /// whatever `http.http2` says (`CurlTransport.notice`).
    var hasHTTP2: Bool { tributary_curl_has_http2(api) != 0 }

    /// The version of the libcurl file the dynamic loader would open for `libcurl.so.4`, read
    /// from its data without loading it; nil when there is no such file or no version in it.
    static func versionOnDisk() -> String? {
        guard let path = LibraryFile.locate(soname) else { return nil }
        return LibraryFile.embeddedVersion(after: "libcurl/", inFile: path)
    }
}
