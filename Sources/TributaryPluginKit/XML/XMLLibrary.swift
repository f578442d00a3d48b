internal import CXML
import TributaryCore

/// libxml2, opened with `dlopen("libxml2.so.2")` the first time a feed turns out to be XML rather
/// than linked: Debian's libxml2 brings ICU (libicuuc, libicudata) with it, about 1 ms of dynamic
/// loading at every start, for `--version`, `check` and runs without a feed alike.
///
/// Every libxml2 function the project calls has a slot in the C table `tributary_xml`
/// (Sources/CXML/shim.h), filled by the loader (`LibraryLoader`) from `dlsym`; Swift calls
/// libxml2 only through the shim's wrappers.
///
/// Loading also sets the process's external entity loader to one that refuses everything and
/// counts what it was asked (`refusedLoads`): the feed parser never asks libxml2 to load an
/// external entity or DTD (XMLStreamParser), so the loader is a second lock on the same door.
package struct XMLLibrary: @unchecked Sendable {
    /// libxml2 2.9.x and later 2.x, the ABI the headers describe. The first `shared()` also runs
    /// `xmlInitParser` and installs the refusing entity loader, under the loader's lock, before
    /// any parser exists.
    static let loader = LibraryLoader(
        tributary_xml(), soname: "libxml2.so.2", neededBy: "RSS and Atom feeds and web pages need", name: "libxml2", debianPackage: "libxml2", oldest: "libxml2 2.9",
        slots: [
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
            (\.htmlReadMemory, "htmlReadMemory"),
            (\.xmlXPathNewContext, "xmlXPathNewContext"),
            (\.xmlXPathFreeContext, "xmlXPathFreeContext"),
            (\.xmlXPathCompile, "xmlXPathCompile"),
            (\.xmlXPathCompiledEval, "xmlXPathCompiledEval"),
            (\.xmlXPathFreeCompExpr, "xmlXPathFreeCompExpr"),
            (\.xmlXPathFreeObject, "xmlXPathFreeObject"),
            (\.htmlCreatePushParserCtxt, "htmlCreatePushParserCtxt"),
            (\.htmlCtxtUseOptions, "htmlCtxtUseOptions"),
            (\.htmlParseChunk, "htmlParseChunk"),
            (\.htmlFreeParserCtxt, "htmlFreeParserCtxt"),
            (\.xmlFindCharEncodingHandler, "xmlFindCharEncodingHandler"),
            (\.xmlSwitchToEncoding, "xmlSwitchToEncoding"),
        ],
        setUp: { api in
            tributary_xmlInitParser(api)
            tributary_xmlSetExternalEntityLoader(api) { url, id, _ in
                let what = url.map { String(cString: $0) } ?? id.map { String(cString: $0) } ?? "(no URL)"
                XMLLibrary.refusedLoads.withLock { $0.append(what) }
                return nil
            }
            return nil
        })

    let api: UnsafePointer<tributary_xml>

    /// The process's libxml2 (`LibraryLoader.load`). Not a `LoadedLibrary`: its table's type
    /// stays inside this module (`internal import CXML`).
    package static func shared() -> Result<XMLLibrary, SharedLibrary.LoadError> { loader.load().map(XMLLibrary.init(api:)) }

    /// Every URL or public id libxml2 asked the external entity loader for: none, as long as the
    /// parser keeps its word. Tests read it.
    static let refusedLoads = Locked<[String]>([])
}
