internal import CXML
import TributaryCore

/// libxml2, opened with `dlopen("libxml2.so.2")` the first time a feed turns out to be XML rather
/// than linked: Debian's libxml2 brings ICU (libicuuc, libicudata) with it, about 1 ms of dynamic
/// loading at every start, for `--version`, `check` and runs without a feed alike.
///
/// Every libxml2 function the project calls has a slot in the C table `tributary_xml`
/// (Sources/CXML/shim.h), filled here from `dlsym`; Swift calls libxml2 only through the shim's
/// wrappers. The table is written once, before it is shared, and never changes or goes away.
///
/// Loading also sets the process's external entity loader to one that refuses everything and
/// counts what it was asked (`refusedLoads`): the feed parser never asks libxml2 to load an
/// external entity or DTD (XMLStreamParser), so the loader is a second lock on the same door.
package struct XMLLibrary: @unchecked Sendable {
    /// The libxml2 ABI the headers describe (libxml2 2.9.x and later 2.x).
    static let soname = "libxml2.so.2"

    let api: UnsafePointer<tributary_xml>

    static var slots: [(WritableKeyPath<tributary_xml, UnsafeMutableRawPointer?>, String)] { [
        (\.xmlInitParser, "xmlInitParser"),
        (\.xmlSetExternalEntityLoader, "xmlSetExternalEntityLoader"),
        (\.xmlSetGenericErrorFunc, "xmlSetGenericErrorFunc"),
        (\.xmlSetStructuredErrorFunc, "xmlSetStructuredErrorFunc"),
        (\.xmlCreatePushParserCtxt, "xmlCreatePushParserCtxt"),
        (\.xmlCtxtUseOptions, "xmlCtxtUseOptions"),
        (\.xmlParseChunk, "xmlParseChunk"),
        (\.xmlStopParser, "xmlStopParser"),
        (\.xmlFreeParserCtxt, "xmlFreeParserCtxt"),
        (\.xmlFreeDoc, "xmlFreeDoc"),
    ] }

    /// nil until the first `shared()`; then that call's outcome, kept (a failed load is not
    /// retried for every feed).
    private static let state = Locked<Result<XMLLibrary, SharedLibrary.LoadError>?>(nil)

    /// Every URL or public id libxml2 asked the external entity loader for: none, as long as the
    /// parser keeps its word. Tests read it.
    static let refusedLoads = Locked<[String]>([])

    /// The process's libxml2. The first call opens it, binds the table, runs `xmlInitParser`
    /// and installs the refusing entity loader, all under one lock, before any parser exists.
    package static func shared() -> Result<XMLLibrary, SharedLibrary.LoadError> {
        state.withLock { s in
            if let s { return s }
            let r = open(soname).map { lib -> XMLLibrary in
                tributary_xmlInitParser(lib.api)
                tributary_xmlSetExternalEntityLoader(lib.api) { url, id, _ in
                    let what = url.map { String(cString: $0) } ?? id.map { String(cString: $0) } ?? "(no URL)"
                    XMLLibrary.refusedLoads.withLock { $0.append(what) }
                    return nil
                }
                return lib
            }
            s = r
            return r
        }
    }

    /// Opens `soname` and binds every slot, nothing more. Internal so tests can try a library that
    /// does not exist.
    static func open(_ soname: String) -> Result<XMLLibrary, SharedLibrary.LoadError> {
        let opened = SharedLibrary.open(soname).mapError { e in
            SharedLibrary.LoadError(message: "RSS and Atom feeds need libxml2 (\(soname), Debian package libxml2), which could not be loaded: \(e.message)")
        }
        return opened.flatMap { lib in
            let table = UnsafeMutablePointer<tributary_xml>.allocate(capacity: 1)
            table.initialize(to: tributary_xml())
            switch lib.bind(table, slots) {
            case .success:
                return .success(XMLLibrary(api: UnsafePointer(table)))
            case .failure(let e):
                table.deallocate()
                return .failure(SharedLibrary.LoadError(message: "RSS and Atom feeds need libxml2 2.9 or later: \(e.message)"))
            }
        }
    }
}
