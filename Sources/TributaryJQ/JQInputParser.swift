import CJQ
#if canImport(Glibc)
import Glibc
#endif

/// Builds the libjq value of a JSON text directly, for the inputs that are plain JSON (every
/// item line is), several times faster than libjq's own parser, which reads one character at
/// a time through a state machine and copies each token twice (Docs/processors/jq.md,
/// "Performance").
///
/// It gives up (nil) on anything that is not strict JSON, or that libjq reads in its own way:
/// a control character or a lone surrogate in a string, a number JSON does not allow (`01`,
/// `.5`, `nan`), nesting deeper than 200, text after the value. The caller then parses with
/// libjq (`jv_parse_sized`), which either reads it as jq does or says what is wrong, so the
/// result is always jq's: strings go through `jv_string_sized` as libjq's parser's do (bytes
/// that are not UTF-8 become U+FFFD there), objects are built with `jv_object_set` in text
/// order (a repeated key keeps its first place and its last value), numbers are the nearest
/// double, as jq's strtod gives. JQInputTests compares the two on fixtures, items and fuzzed
/// text.
struct JQInputParser {
    /// libjq's parser stops at 256; deeper inputs go to it, for its message.
    static let maxDepth = 200

    let api: UnsafePointer<tributary_jq>
    /// Unescaped string bytes (reused; one parser per state, one thread at a time).
    private var scratch: [UInt8] = []
    private let keys: JQKeyCache

    init(api: UnsafePointer<tributary_jq>) {
        self.api = api
        scratch.reserveCapacity(256)
        keys = JQKeyCache(api: api)
    }

    /// The value of `text`, or nil when libjq's parser must read it.
    mutating func parse(_ text: UnsafeRawBufferPointer) -> jv? {
        let b = text.bindMemory(to: UInt8.self)
        guard b.count > 0 else { return nil }
        var i = 0
        skipSpace(b, &i)
        guard let v = value(b, &i, depth: 0) else { return nil }
        skipSpace(b, &i)
        guard i == b.count else {
            tributary_jv_free(api, v)
            return nil
        }
        return v
    }

    @inline(__always)
    private func skipSpace(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) {
        while i < b.count {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    private mutating func value(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, depth: Int) -> jv? {
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "\""): return string(b, &i)
        case UInt8(ascii: "{"): return object(b, &i, depth: depth + 1)
        case UInt8(ascii: "["): return array(b, &i, depth: depth + 1)
        case UInt8(ascii: "t"): return literal(b, &i, "true") ? tributary_jv_bool(api, 1) : nil
        case UInt8(ascii: "f"): return literal(b, &i, "false") ? tributary_jv_bool(api, 0) : nil
        case UInt8(ascii: "n"): return literal(b, &i, "null") ? tributary_jv_null(api) : nil
        default: return number(b, &i)
        }
    }

    private func literal(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard b.count - i >= n else { return false }
        let w = word.utf8Start
        for k in 0..<n where b[i + k] != w[k] { return false }
        // `nullx` is not `null` followed by something else to libjq: leave it to it.
        if i + n < b.count, Self.isLetterOrDigit(b[i + n]) { return false }
        i += n
        return true
    }

    private static func isLetterOrDigit(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "_")
            || c == UInt8(ascii: ".") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
    }

    private mutating func object(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, depth: Int) -> jv? {
        guard depth <= Self.maxDepth else { return nil }
        i += 1
        var obj = tributary_jv_object(api)
        skipSpace(b, &i)
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            return obj
        }
        while true {
            guard i < b.count, b[i] == UInt8(ascii: "\""), let key = string(b, &i, key: true) else {
                tributary_jv_free(api, obj)
                return nil
            }
            skipSpace(b, &i)
            guard i < b.count, b[i] == UInt8(ascii: ":") else {
                tributary_jv_free(api, key)
                tributary_jv_free(api, obj)
                return nil
            }
            i += 1
            skipSpace(b, &i)
            guard let v = value(b, &i, depth: depth) else {
                tributary_jv_free(api, key)
                tributary_jv_free(api, obj)
                return nil
            }
            obj = tributary_jv_object_set(api, obj, key, v)
            skipSpace(b, &i)
            guard i < b.count else { break }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace(b, &i)
                continue
            }
            if b[i] == UInt8(ascii: "}") {
                i += 1
                return obj
            }
            break
        }
        tributary_jv_free(api, obj)
        return nil
    }

    private mutating func array(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, depth: Int) -> jv? {
        guard depth <= Self.maxDepth else { return nil }
        i += 1
        var arr = tributary_jv_array(api)
        skipSpace(b, &i)
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            return arr
        }
        while true {
            guard let v = value(b, &i, depth: depth) else {
                tributary_jv_free(api, arr)
                return nil
            }
            arr = tributary_jv_array_append(api, arr, v)
            skipSpace(b, &i)
            guard i < b.count else { break }
            if b[i] == UInt8(ascii: ",") {
                i += 1
                skipSpace(b, &i)
                continue
            }
            if b[i] == UInt8(ascii: "]") {
                i += 1
                return arr
            }
            break
        }
        tributary_jv_free(api, arr)
        return nil
    }

    /// A string starting at the quote at `i`; an object key comes from (and goes to) the cache.
    private mutating func string(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int, key: Bool = false) -> jv? {
        let start = i + 1
        var j = start
        // The common case: no escape, straight from the text.
        if let base = b.baseAddress {
            while j + 8 <= b.count && !SWAR.hasStringEnd(UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)) { j += 8 }
        }
        while j < b.count {
            let c = b[j]
            if c == UInt8(ascii: "\"") {
                i = j + 1
                let text = UnsafeBufferPointer(rebasing: b[start..<j])
                return key ? cachedKey(text) : make(text)
            }
            if c == UInt8(ascii: "\\") { break }
            if c < 0x20 { return nil }
            j += 1
        }
        guard j < b.count else { return nil }
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<j]))
        while j < b.count {
            let c = b[j]
            if c == UInt8(ascii: "\"") {
                i = j + 1
                return scratch.withUnsafeBufferPointer { key ? cachedKey($0) : make($0) }
            }
            if c < 0x20 { return nil }
            if c != UInt8(ascii: "\\") {
                scratch.append(c)
                j += 1
                continue
            }
            guard j + 1 < b.count else { return nil }
            let e = b[j + 1]
            j += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(e)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "u"):
                guard var cp = hex4(b, j) else { return nil }
                j += 4
                if cp >= 0xD800 && cp <= 0xDBFF {
                    guard j + 6 <= b.count, b[j] == UInt8(ascii: "\\"), b[j + 1] == UInt8(ascii: "u"),
                          let low = hex4(b, j + 2), low >= 0xDC00 && low <= 0xDFFF else { return nil }
                    j += 6
                    cp = 0x10000 + ((cp - 0xD800) << 10 | (low - 0xDC00))
                } else if cp >= 0xDC00 && cp <= 0xDFFF {
                    return nil  // a lone low surrogate: libjq's own handling
                }
                appendUTF8(cp)
            default:
                return nil
            }
        }
        return nil
    }

    /// An object key: from the cache, or made and cached.
    private func cachedKey(_ text: UnsafeBufferPointer<UInt8>) -> jv? {
        guard text.count <= JQKeyCache.maxLength else { return make(text) }
        let h = JQKeyCache.hash(text)
        if let k = keys.lookup(text, h) { return k }
        guard let k = make(text) else { return nil }
        keys.insert(text, h, k)
        return k
    }

    private func make(_ bytes: UnsafeBufferPointer<UInt8>) -> jv? {
        guard bytes.count < Int(Int32.max) else { return nil }
        return bytes.withMemoryRebound(to: CChar.self) { tributary_jv_string_sized(api, $0.baseAddress, Int32($0.count)) }
    }

    private func hex4(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32? {
        guard at + 4 <= b.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = b[at + k]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    private mutating func appendUTF8(_ cp: UInt32) {
        switch cp {
        case 0..<0x80:
            scratch.append(UInt8(cp))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | cp >> 6))
            scratch.append(UInt8(0x80 | cp & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | cp >> 12))
            scratch.append(UInt8(0x80 | cp >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | cp & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | cp >> 18))
            scratch.append(UInt8(0x80 | cp >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | cp >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | cp & 0x3F))
        }
    }

    /// A number as JSON writes it; the nearest double.
    private func number(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> jv? {
        let start = i
        var j = i
        var negative = false
        if j < b.count, b[j] == UInt8(ascii: "-") {
            negative = true
            j += 1
        }
        guard j < b.count, isDigit(b[j]) else { return nil }
        var mantissa: UInt64 = 0
        var digits = 0
        if b[j] == UInt8(ascii: "0") {
            j += 1
            if j < b.count, isDigit(b[j]) { return nil }  // `01`: libjq reads it, JSON does not
        } else {
            while j < b.count, isDigit(b[j]) {
                mantissa = mantissa &* 10 &+ UInt64(b[j] - 0x30)
                digits += 1
                j += 1
            }
        }
        var plain = true
        if j < b.count, b[j] == UInt8(ascii: ".") {
            plain = false
            j += 1
            guard j < b.count, isDigit(b[j]) else { return nil }
            while j < b.count, isDigit(b[j]) { j += 1 }
        }
        if j < b.count, b[j] == UInt8(ascii: "e") || b[j] == UInt8(ascii: "E") {
            plain = false
            j += 1
            if j < b.count, b[j] == UInt8(ascii: "+") || b[j] == UInt8(ascii: "-") { j += 1 }
            guard j < b.count, isDigit(b[j]) else { return nil }
            while j < b.count, isDigit(b[j]) { j += 1 }
        }
        if j < b.count, Self.isLetterOrDigit(b[j]) { return nil }
        i = j
        // Integers of up to 15 digits are exact doubles; the rest through the correctly rounded
        // conversion (as libjq's strtod rounds).
        if plain && digits <= 15 {
            let d = Double(mantissa)
            return tributary_jv_number(api, negative ? -d : d)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<j]), as: UTF8.self)
        guard let d = Double(text) else { return nil }
        return tributary_jv_number(api, d)
    }

    @inline(__always)
    private func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}

/// Object keys already made, by their bytes. Item lines repeat the same few keys; a key made
/// once (its UTF-8 checked by libjq, which costs more than the rest of reading it, and its hash
/// computed on first use and kept in the string) is then only a reference count away. Keys
/// are immutable to libjq (a string shared this way is copied before any change), and the cache
/// belongs to one parser, so to one state, used by one thread at a time. Its storage is raw
/// memory allocated once (no array, whose every access from a class is checked for exclusivity).
final class JQKeyCache {
    static let slots = 256
    static let maxEntries = 128
    static let maxLength = 64

    private struct Entry {
        var hash: UInt32 = 0
        var length = -1  // -1: empty
        var value = jv()
    }

    private let api: UnsafePointer<tributary_jq>
    private let table: UnsafeMutablePointer<Entry>
    /// Slot i's key bytes at i * maxLength.
    private let arena: UnsafeMutablePointer<UInt8>
    private let count: UnsafeMutablePointer<Int>

    init(api: UnsafePointer<tributary_jq>) {
        self.api = api
        table = .allocate(capacity: Self.slots)
        table.initialize(repeating: Entry(), count: Self.slots)
        arena = .allocate(capacity: Self.slots * Self.maxLength)
        count = .allocate(capacity: 1)
        count.initialize(to: 0)
    }

    deinit {
        for i in 0..<Self.slots where table[i].length >= 0 { tributary_jv_free(api, table[i].value) }
        table.deinitialize(count: Self.slots)
        table.deallocate()
        arena.deallocate()
        count.deallocate()
    }

    /// A new reference to the cached key with these bytes, or nil.
    @inline(__always)
    func lookup(_ text: UnsafeBufferPointer<UInt8>, _ hash: UInt32) -> jv? {
        var slot = Int(hash) & (Self.slots - 1)
        while table[slot].length >= 0 {
            if table[slot].hash == hash, table[slot].length == text.count,
               text.isEmpty || memcmp(arena + slot * Self.maxLength, text.baseAddress!, text.count) == 0 {
                return tributary_jv_copy(api, table[slot].value)
            }
            slot = (slot + 1) & (Self.slots - 1)
        }
        return nil
    }

    /// Keeps a reference to `key` (not consumed), while there is room.
    func insert(_ text: UnsafeBufferPointer<UInt8>, _ hash: UInt32, _ key: jv) {
        guard count.pointee < Self.maxEntries, text.count <= Self.maxLength else { return }
        var slot = Int(hash) & (Self.slots - 1)
        while table[slot].length >= 0 { slot = (slot + 1) & (Self.slots - 1) }
        if let src = text.baseAddress { (arena + slot * Self.maxLength).update(from: src, count: text.count) }
        table[slot] = Entry(hash: hash, length: text.count, value: tributary_jv_copy(api, key))
        count.pointee += 1
    }

    /// FNV-1a of the bytes.
    @inline(__always)
    static func hash(_ text: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for c in text { h = (h ^ UInt32(c)) &* 16_777_619 }
        return h
    }
}
