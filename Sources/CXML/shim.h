// libxml2's SAX2 push parser through a function table. Only wraps; never decides.
//
// Nothing here links libxml2: the feed source opens libxml2.so.2 with dlopen the first time it
// reads an XML document (Sources/TributaryPlugins/Sources/Feed/XMLLibrary.swift), stores what
// dlsym returns for each name below in a tributary_xml table, and calls libxml2 only through
// these wrappers, each casting its slot to the function's type as the real headers (Debian's
// libxml2-dev) declare it. Types, structures (xmlSAXHandler, xmlParserCtxt, xmlError, xmlEntity)
// and constants also come from those headers. They live in /usr/include/libxml2, which the
// targets that import this module add to their search path (Package.swift): a pkgConfig line
// would also link -lxml2, and every start would load libxml2 and ICU again.
#ifndef TRIBUTARY_CXML_SHIM_H
#define TRIBUTARY_CXML_SHIM_H
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, so <libxml/encoding.h> would pull in ICU's own headers, whose
// types clash with the copy of ICU inside Foundation (_FoundationICU) in every Swift module that
// sees both. The only declarations that depend on it are two fields at the end of
// xmlCharEncodingHandler, which the project reaches through pointers only, never by value.
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/entities.h>
#include <libxml/xmlerror.h>
#include <libxml/HTMLparser.h>
#include <libxml/xpath.h>

/// One slot per libxml2 function used, filled from dlsym(handle, "<slot>").
typedef struct tributary_xml {
    void *xmlInitParser;
    void *xmlSetExternalEntityLoader;
    void *xmlSetGenericErrorFunc;
    void *xmlSetStructuredErrorFunc;
    void *xmlCreatePushParserCtxt;
    void *xmlCtxtUseOptions;
    void *xmlParseChunk;
    void *xmlStopParser;
    void *xmlFreeParserCtxt;
    void *xmlFreeDoc;
    // The HTML parser and XPath (web pages: PluginKit/HTML).
    void *htmlReadMemory;
    void *xmlXPathNewContext;
    void *xmlXPathFreeContext;
    void *xmlXPathCompile;
    void *xmlXPathCompiledEval;
    void *xmlXPathFreeCompExpr;
    void *xmlXPathFreeObject;
    // The HTML parser driving callbacks instead of building a tree (the article extractor's pages).
    void *htmlCreatePushParserCtxt;
    void *htmlCtxtUseOptions;
    void *htmlParseChunk;
    void *htmlFreeParserCtxt;
    void *xmlFindCharEncodingHandler;
    void *xmlSwitchToEncoding;
} tributary_xml;

#define TRIBUTARY_XML_FN(x, name) ((__typeof__(&name))(x)->name)

static inline void tributary_xmlInitParser(const tributary_xml *x) { TRIBUTARY_XML_FN(x, xmlInitParser)(); }
static inline void tributary_xmlSetExternalEntityLoader(const tributary_xml *x, xmlExternalEntityLoader f) { TRIBUTARY_XML_FN(x, xmlSetExternalEntityLoader)(f); }
static inline void tributary_xmlSetStructuredErrorFunc(const tributary_xml *x, void *ctx, xmlStructuredErrorFunc f) { TRIBUTARY_XML_FN(x, xmlSetStructuredErrorFunc)(ctx, f); }

// The generic error channel takes a variadic function, which Swift cannot write: this one
// drops what it is given (libxml2 reports through it what has no parser context, such as an
// encoder failure, and would otherwise print on stderr).
static void tributary_xml_ignore_generic_error(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }
static inline void tributary_xml_ignore_generic_errors(const tributary_xml *x) { TRIBUTARY_XML_FN(x, xmlSetGenericErrorFunc)(NULL, tributary_xml_ignore_generic_error); }

static inline xmlParserCtxtPtr tributary_xmlCreatePushParserCtxt(const tributary_xml *x, xmlSAXHandlerPtr sax, void *user, const char *chunk, int size) {
    return TRIBUTARY_XML_FN(x, xmlCreatePushParserCtxt)(sax, user, chunk, size, NULL);
}
static inline int tributary_xmlCtxtUseOptions(const tributary_xml *x, xmlParserCtxtPtr c, int options) { return TRIBUTARY_XML_FN(x, xmlCtxtUseOptions)(c, options); }
static inline int tributary_xmlParseChunk(const tributary_xml *x, xmlParserCtxtPtr c, const char *chunk, int size, int terminate) { return TRIBUTARY_XML_FN(x, xmlParseChunk)(c, chunk, size, terminate); }
static inline void tributary_xmlStopParser(const tributary_xml *x, xmlParserCtxtPtr c) { TRIBUTARY_XML_FN(x, xmlStopParser)(c); }
static inline void tributary_xmlFreeParserCtxt(const tributary_xml *x, xmlParserCtxtPtr c) { TRIBUTARY_XML_FN(x, xmlFreeParserCtxt)(c); }
static inline void tributary_xmlFreeDoc(const tributary_xml *x, xmlDocPtr d) { TRIBUTARY_XML_FN(x, xmlFreeDoc)(d); }

static inline htmlDocPtr tributary_htmlReadMemory(const tributary_xml *x, const char *buffer, int size, const char *url, const char *encoding, int options) {
    return TRIBUTARY_XML_FN(x, htmlReadMemory)(buffer, size, url, encoding, options);
}
static inline xmlXPathContextPtr tributary_xmlXPathNewContext(const tributary_xml *x, xmlDocPtr d) { return TRIBUTARY_XML_FN(x, xmlXPathNewContext)(d); }
static inline void tributary_xmlXPathFreeContext(const tributary_xml *x, xmlXPathContextPtr c) { TRIBUTARY_XML_FN(x, xmlXPathFreeContext)(c); }
static inline xmlXPathCompExprPtr tributary_xmlXPathCompile(const tributary_xml *x, const char *expr) { return TRIBUTARY_XML_FN(x, xmlXPathCompile)((const xmlChar *)expr); }
static inline xmlXPathObjectPtr tributary_xmlXPathCompiledEval(const tributary_xml *x, xmlXPathCompExprPtr e, xmlXPathContextPtr c) { return TRIBUTARY_XML_FN(x, xmlXPathCompiledEval)(e, c); }
static inline void tributary_xmlXPathFreeCompExpr(const tributary_xml *x, xmlXPathCompExprPtr e) { TRIBUTARY_XML_FN(x, xmlXPathFreeCompExpr)(e); }
static inline htmlParserCtxtPtr tributary_htmlCreatePushParserCtxt(const tributary_xml *x, htmlSAXHandlerPtr sax, void *user) {
    return TRIBUTARY_XML_FN(x, htmlCreatePushParserCtxt)(sax, user, NULL, 0, NULL, XML_CHAR_ENCODING_NONE);
}
static inline int tributary_htmlCtxtUseOptions(const tributary_xml *x, htmlParserCtxtPtr c, int options) { return TRIBUTARY_XML_FN(x, htmlCtxtUseOptions)(c, options); }
static inline int tributary_htmlParseChunk(const tributary_xml *x, htmlParserCtxtPtr c, const char *chunk, int size, int terminate) { return TRIBUTARY_XML_FN(x, htmlParseChunk)(c, chunk, size, terminate); }
static inline void tributary_htmlFreeParserCtxt(const tributary_xml *x, htmlParserCtxtPtr c) { TRIBUTARY_XML_FN(x, htmlFreeParserCtxt)(c); }
/// Reads the rest of the input in `encoding` (a name iconv/ICU knows); 0 on success.
static inline int tributary_xmlSwitchToNamedEncoding(const tributary_xml *x, xmlParserCtxtPtr c, const char *encoding) {
    xmlCharEncodingHandlerPtr h = TRIBUTARY_XML_FN(x, xmlFindCharEncodingHandler)(encoding);
    if (h == NULL) return -1;
    return TRIBUTARY_XML_FN(x, xmlSwitchToEncoding)(c, h);
}
static inline void tributary_xmlXPathFreeObject(const tributary_xml *x, xmlXPathObjectPtr o) { TRIBUTARY_XML_FN(x, xmlXPathFreeObject)(o); }
#endif
