import CPCRE2

/// A `regex` filter rule's pattern: PCRE2 (Perl syntax, what grep -P, nginx, PHP and most
/// editors take), UTF-8 with Unicode properties, `(?i)` for case-insensitive, JIT-compiled once
/// at config load. PCRE2 was chosen over POSIX regex and Swift Regex by measurement (Docs/
/// PERFORMANCE.md, "Filters"). libpcre2-8 is opened with dlopen when the first pattern is
/// compiled, so configs without regex rules never load it.
///
/// Threading rule (why `@unchecked Sendable` is sound): `code` is never changed after
/// compilation and PCRE2 documents a compiled pattern as usable from several threads at once;
/// the one piece of per-match scratch memory (`matchData`) is used only under its lock.
public final class RegexPattern: TextPattern, @unchecked Sendable {
    /// The pattern as written in the config.
    public let source: String
    private let library: PCRE2Library
    private let code: OpaquePointer
    private let matchData: Locked<OpaquePointer?>

    /// Compiles `pattern`; the error says what is wrong and where (`at offset 3: missing closing
    /// parenthesis`), or that PCRE2 is missing.
    public static func compile(_ pattern: String) -> Result<RegexPattern, RegexError> {
        let library: PCRE2Library
        switch PCRE2Library.shared {
        case .success(let l): library = l
        case .failure(let e): return .failure(RegexError(message: e.message))
        }
        var error: Int32 = 0
        var offset = 0
        let compiled = pattern.utf8CString.withUnsafeBufferPointer { p in
            tributary_pcre2_compile(library.api, p.baseAddress, pattern.utf8.count, &error, &offset)
        }
        guard let code = compiled else {
            return .failure(RegexError(message: "invalid regular expression at offset \(offset): \(library.message(error))"))
        }
        _ = tributary_pcre2_jit(library.api, code)  // without JIT support, the interpreter matches
        return .success(RegexPattern(source: pattern, library: library, code: code))
    }

    private init(source: String, library: PCRE2Library, code: OpaquePointer) {
        self.source = source
        self.library = library
        self.code = code
        self.matchData = Locked(tributary_pcre2_match_data(library.api, code))
    }

    deinit {
        matchData.withLock { d in if let d { tributary_pcre2_match_data_free(library.api, d) } }
        tributary_pcre2_free(library.api, code)
    }

    /// True when the pattern matches somewhere in `text`. A match that fails (PCRE2's match
    /// limit, reached by catastrophic backtracking) counts as no match.
    public func matches(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                matchData.withLock { data in
                    tributary_pcre2_match(library.api, code, chars.baseAddress, chars.count, data) == 1
                }
            }
        }
    }
}

/// Why a pattern did not compile.
public struct RegexError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// PCRE2's functions, bound once (a Swift static: initialised exactly once, thread-safe) and
/// never unloaded.
struct PCRE2Library: @unchecked Sendable {
    static let soname = "libpcre2-8.so.0"
    let api: UnsafePointer<tributary_pcre2>

    static let shared: Result<PCRE2Library, SharedLibrary.LoadError> = open(soname)

    static func open(_ soname: String) -> Result<PCRE2Library, SharedLibrary.LoadError> {
        let slots: [(WritableKeyPath<tributary_pcre2, UnsafeMutableRawPointer?>, String)] = [
            (\.pcre2_compile_8, "pcre2_compile_8"), (\.pcre2_jit_compile_8, "pcre2_jit_compile_8"),
            (\.pcre2_get_error_message_8, "pcre2_get_error_message_8"), (\.pcre2_code_free_8, "pcre2_code_free_8"),
            (\.pcre2_match_data_create_from_pattern_8, "pcre2_match_data_create_from_pattern_8"),
            (\.pcre2_match_data_free_8, "pcre2_match_data_free_8"), (\.pcre2_match_8, "pcre2_match_8"),
        ]
        let opened = SharedLibrary.open(soname).mapError { e in
            SharedLibrary.LoadError(message: "regex rules need PCRE2 (\(soname), Debian package libpcre2-8-0), which could not be loaded: \(e.message)")
        }
        return opened.flatMap { lib in
            let table = UnsafeMutablePointer<tributary_pcre2>.allocate(capacity: 1)
            table.initialize(to: tributary_pcre2())
            return lib.bind(table, slots).map { PCRE2Library(api: UnsafePointer(table)) }
        }
    }

    /// PCRE2's text for an error code.
    func message(_ error: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBufferPointer { tributary_pcre2_error(api, error, $0.baseAddress, $0.count) }
        return n > 0 ? String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "error \(error)"
    }
}
