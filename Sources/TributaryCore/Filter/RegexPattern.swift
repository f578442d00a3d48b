import CPCRE2

/// A `regex` filter rule's pattern: PCRE2 (Perl syntax, what grep -P, nginx, PHP and most
/// editors take), UTF-8 with Unicode properties, `(?i)` for case-insensitive, JIT-compiled once
/// at config load. PCRE2 was chosen over POSIX regex and Swift Regex by measurement (Docs/
/// PERFORMANCE.md, "Filters"). libpcre2-8 is opened with dlopen when the first pattern is
/// compiled, so configs without regex rules never load it.
///
/// A match runs under explicit limits (`matchLimit`, `depthLimit`, `jitStackLimit`): a pattern
/// that backtracks catastrophically (`(a+)+$` on `aaaa...b`) ends with an error after about
/// 2-3 ms of CPU, not after PCRE2's default 10,000,000 steps (25-35 ms per item per rule). An error is
/// neither a match nor a miss: `match` returns it, and the filter decides (ItemFilter).
///
/// Threading rule (why `@unchecked Sendable` is sound): `code` is never changed after
/// compilation and PCRE2 documents a compiled pattern as usable from several threads at once;
/// the per-match scratch memory (match data, match context, JIT stack) is used only under its
/// lock.
public final class RegexPattern: TextPattern, @unchecked Sendable {
    /// PCRE2's match limit: backtracking steps per start position (PCRE2's default is
    /// 10,000,000). PHP's `pcre.backtrack_limit`: a greedy scan needs about one step per byte
    /// with the JIT (three interpreted), so texts up to about 1 MB (330 KB) still match.
    public static let matchLimit: UInt32 = 1_000_000
    /// PCRE2's depth limit (nested backtracking points; the interpreter only, the JIT ignores
    /// it). PHP's `pcre.recursion_limit`; about 15 MB of heap at most.
    public static let depthLimit: UInt32 = 100_000
    /// The JIT stack a pattern gets when PCRE2's default 32 KiB is not enough (a repeated group
    /// with captures over a long text): grown up to this, once, as grep does.
    public static let jitStackLimit = 1 << 20

    /// The pattern as written in the config.
    public let source: String
    private let library: PCRE2Library
    private let code: OpaquePointer
    private let scratch: Locked<Scratch>

    /// What one match needs besides the pattern: used under the lock only.
    private struct Scratch {
        var data: OpaquePointer?
        var context: OpaquePointer?
        var jitStack: OpaquePointer?
    }

    /// Compiles `pattern`; the error says what is wrong and where (`at offset 3: missing closing
    /// parenthesis`), or that PCRE2 is missing.
    public static func compile(_ pattern: String) -> Result<RegexPattern, RegexError> {
        let library: PCRE2Library
        switch PCRE2Library.shared() {
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
        self.scratch = Locked(Scratch(data: tributary_pcre2_match_data(library.api, code),
                                      context: tributary_pcre2_match_context(library.api, Self.matchLimit, Self.depthLimit)))
    }

    deinit {
        scratch.withLock { s in
            if let d = s.data { tributary_pcre2_match_data_free(library.api, d) }
            if let c = s.context { tributary_pcre2_match_context_free(library.api, c) }
            if let j = s.jitStack { tributary_pcre2_jit_stack_free(library.api, j) }
        }
        tributary_pcre2_free(library.api, code)
    }

    /// Whether the pattern matches somewhere in `text`, or the error that kept PCRE2 from
    /// telling (a limit reached by catastrophic backtracking, no memory).
    public func match(_ text: String) -> PatternMatch {
        var text = text
        let rc = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                scratch.withLock { s -> Int32 in
                    guard let data = s.data, let context = s.context else { return PCRE2_ERROR_NOMEMORY }
                    let subject = chars.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
                    let rc = tributary_pcre2_match(library.api, code, subject, chars.count, data, context)
                    // The JIT's default stack (32 KiB) is too small for this pattern on this
                    // text: give the pattern a larger one, once, and match again.
                    guard rc == PCRE2_ERROR_JIT_STACKLIMIT, s.jitStack == nil else { return rc }
                    s.jitStack = tributary_pcre2_jit_stack(library.api, context, Self.jitStackLimit)
                    return s.jitStack == nil ? rc : tributary_pcre2_match(library.api, code, subject, chars.count, data, context)
                }
            }
        }
        return outcome(rc)
    }

    /// `tributary_pcre2_match`'s result as a `PatternMatch`: 1 a match, 0 PCRE2_ERROR_NOMATCH,
    /// anything else an error with PCRE2's text for it (`match limit exceeded`).
    func outcome(_ rc: Int32) -> PatternMatch {
        switch rc {
        case 1: return .match
        case 0: return .noMatch
        default: return .error(library.message(rc))
        }
    }
}

/// Why a pattern did not compile.
public struct RegexError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}

/// PCRE2's functions (8-bit code units), loaded on the first pattern and never unloaded.
struct PCRE2Library: LoadedLibrary, @unchecked Sendable {
    static let loader = LibraryLoader(
        tributary_pcre2(), soname: "libpcre2-8.so.0", neededBy: "regex rules need", name: "PCRE2", debianPackage: "libpcre2-8-0",
        slots: [
            (\.pcre2_compile_8, "pcre2_compile_8"), (\.pcre2_jit_compile_8, "pcre2_jit_compile_8"),
            (\.pcre2_get_error_message_8, "pcre2_get_error_message_8"), (\.pcre2_code_free_8, "pcre2_code_free_8"),
            (\.pcre2_match_data_create_from_pattern_8, "pcre2_match_data_create_from_pattern_8"),
            (\.pcre2_match_data_free_8, "pcre2_match_data_free_8"), (\.pcre2_match_8, "pcre2_match_8"),
            (\.pcre2_match_context_create_8, "pcre2_match_context_create_8"), (\.pcre2_match_context_free_8, "pcre2_match_context_free_8"),
            (\.pcre2_set_match_limit_8, "pcre2_set_match_limit_8"), (\.pcre2_set_depth_limit_8, "pcre2_set_depth_limit_8"),
            (\.pcre2_jit_stack_create_8, "pcre2_jit_stack_create_8"), (\.pcre2_jit_stack_free_8, "pcre2_jit_stack_free_8"),
            (\.pcre2_jit_stack_assign_8, "pcre2_jit_stack_assign_8"),
        ])

    let api: UnsafePointer<tributary_pcre2>

    /// PCRE2's text for an error code.
    func message(_ error: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBufferPointer { tributary_pcre2_error(api, error, $0.baseAddress, $0.count) }
        return n > 0 ? String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self) : "error \(error)"
    }
}
