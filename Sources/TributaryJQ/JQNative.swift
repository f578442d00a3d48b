import TributaryJSON

/// A jq program of the plain kind that most item transforms are, run on `JSONValue`s without
/// libjq: paths (`.a.b`, `."a"`, `.["a"]`), literals, `|`, `,`, `//`, `=` to a path,
/// `del(path)`, `select(...)`, `==` `!=` `<` `<=` `>` `>=`, `and`, `or`, `not`, `empty`, object
/// construction (`{id, url: .image, "k": ...}`) and array construction (`[.a, .b]`).
///
/// Why: libjq 1.6 builds every input as its own values (a UTF-8 check and a hash insert per
/// string and key), interprets, and frees it all again; for these programs that is almost all
/// of the cost, and the item is already a `JSONValue` tree. Anything else (another builtin,
/// arithmetic, variables, `?`, string interpolation, a comment) is not compiled here and the
/// program runs in libjq; `JQProgram.native` is nil for it.
///
/// A program compiled here gives what jq 1.6 gives, or declines: `run` returns nil whenever jq
/// would raise an error or the outcome depends on something this evaluator does not model
/// (indexing a string or a number, a generator where one value is expected, ordering arrays or
/// objects, more outputs than the limit), and the caller then runs the same input in libjq,
/// which gives its own result or its own message. Numbers behave as jq's doubles: they compare
/// as doubles and every number of an output is written as jq 1.6 prints it (`3.0` as `3`,
/// 2^63 - 1 as `9223372036854776000`). The tests compare both on every program shape and many
/// inputs (`JQNativeTests`).
public struct JQNative: Sendable {
    indirect enum Expr: Sendable {
        case identity
        case path([String])
        case literal(JSONValue)
        case pipe(Expr, Expr)
        case comma(Expr, Expr)
        case alternative(Expr, Expr)
        case assign([String], Expr)
        case delete([String])
        case select(Expr)
        case compare(Comparison, Expr, Expr)
        case and(Expr, Expr)
        case or(Expr, Expr)
        case not
        case empty
        case object([(key: String, value: Expr)])
        case array(Expr?)
    }

    enum Comparison: Sendable { case eq, ne, lt, le, gt, ge }

    let expr: Expr
    /// Beyond this many outputs for one input, libjq runs it (and says so).
    let maxOutputs: Int

    /// The program compiled here, or nil when it uses anything outside the plain kind.
    public static func compile(_ text: String, maxOutputs: Int = 10_000) -> JQNative? {
        var p = Parser(Array(text.utf8))
        guard let e = p.program() else { return nil }
        return JQNative(expr: e, maxOutputs: maxOutputs)
    }

    /// The outputs for `input`, numbers as jq prints them; nil: run it in libjq instead.
    public func run(_ input: consuming JSONValue) -> [JSONValue]? {
        var out: [JSONValue] = []
        if Self.isEdit(expr) {
            var v = consume input  // a value built for this run is edited where it is
            guard edit(expr, &v) else { return nil }
            out.append(v)
        } else {
            guard eval(expr, input, &out) else { return nil }
        }
        for i in out.indices { Self.normalize(&out[i]) }
        return out
    }

    // MARK: evaluation

    /// Appends the outputs of `e` on `v` to `out`; false: decline.
    private func eval(_ e: Expr, _ v: JSONValue, _ out: inout [JSONValue]) -> Bool {
        if out.count > maxOutputs { return false }
        switch e {
        case .identity:
            out.append(v)
        case .path(let steps):
            guard let r = Self.get(v, steps[...]) else { return false }
            out.append(r)
        case .literal(let l):
            out.append(l)
        case .pipe(let a, let b):
            var left: [JSONValue] = []
            guard eval(a, v, &left) else { return false }
            // An edit after a step edits that step's own outputs in place (no copy of them).
            if Self.isEdit(b) {
                for i in left.indices {
                    guard edit(b, &left[i]) else { return false }
                }
                out.append(contentsOf: left)
                return out.count <= maxOutputs
            }
            for x in left { guard eval(b, x, &out) else { return false } }
        case .comma(let a, let b):
            guard eval(a, v, &out), eval(b, v, &out) else { return false }
        case .alternative(let a, let b):
            var left: [JSONValue] = []
            guard eval(a, v, &left) else { return false }
            let truthy = left.filter(Self.truthy)
            if truthy.isEmpty { return eval(b, v, &out) }
            out.append(contentsOf: truthy)
        case .assign(let steps, let rhs):
            var values: [JSONValue] = []
            guard eval(rhs, v, &values) else { return false }
            for x in values {
                guard let r = Self.set(v, steps[...], x) else { return false }
                out.append(r)
            }
        case .delete(let steps):
            guard let r = Self.delete(v, steps[...]) else { return false }
            out.append(r)
        case .select(let c):
            var conds: [JSONValue] = []
            guard eval(c, v, &conds) else { return false }
            for c in conds where Self.truthy(c) { out.append(v) }
        case .compare(let op, let a, let b):
            guard let x = single(a, v), let y = single(b, v) else { return false }
            switch op {
            case .eq: out.append(.bool(Self.equal(x, y)))
            case .ne: out.append(.bool(!Self.equal(x, y)))
            default:
                guard let c = Self.order(x, y) else { return false }
                switch op {
                case .lt: out.append(.bool(c < 0))
                case .le: out.append(.bool(c <= 0))
                case .gt: out.append(.bool(c > 0))
                default: out.append(.bool(c >= 0))
                }
            }
        case .and(let a, let b):
            guard let x = single(a, v) else { return false }
            if !Self.truthy(x) { out.append(.bool(false)); break }
            guard let y = single(b, v) else { return false }
            out.append(.bool(Self.truthy(y)))
        case .or(let a, let b):
            guard let x = single(a, v) else { return false }
            if Self.truthy(x) { out.append(.bool(true)); break }
            guard let y = single(b, v) else { return false }
            out.append(.bool(Self.truthy(y)))
        case .not:
            out.append(.bool(!Self.truthy(v)))
        case .empty:
            break
        case .object(let entries):
            var o = JSONObject()
            o.entries.reserveCapacity(entries.count)
            for (key, value) in entries {
                guard let x = single(value, v) else { return false }
                Self.put(&o, key, x)
            }
            out.append(.object(o))
        case .array(let inner):
            var items: [JSONValue] = []
            if let inner { guard eval(inner, v, &items) else { return false } }
            out.append(.array(items))
        }
        return out.count <= maxOutputs
    }

    /// `path = <one value>` and `del(path)`: edits that give one output for one input.
    static func isEdit(_ e: Expr) -> Bool {
        switch e {
        case .delete: return true
        case .assign(_, let rhs): return isSingle(rhs)
        default: return false
        }
    }

    /// Whether `e` always gives exactly one output (when it does not decline).
    static func isSingle(_ e: Expr) -> Bool {
        switch e {
        case .identity, .path, .literal, .compare, .and, .or, .not, .object, .array, .delete: return true
        case .assign(_, let rhs): return isSingle(rhs)
        case .pipe(let a, let b): return isSingle(a) && isSingle(b)
        default: return false
        }
    }

    /// Applies the edit `e` (`isEdit`) to `v` itself: a value no one else holds is changed
    /// where it is, not copied.
    private func edit(_ e: Expr, _ v: inout JSONValue) -> Bool {
        switch e {
        case .delete(let steps):
            return Self.deleteInPlace(&v, steps[...])
        case .assign(let steps, let rhs):
            guard let x = single(rhs, v) else { return false }
            return Self.setInPlace(&v, steps[...], x)
        default:
            return false
        }
    }

    static func setInPlace(_ v: inout JSONValue, _ steps: ArraySlice<String>, _ x: JSONValue) -> Bool {
        guard let key = steps.first else {
            v = x
            return true
        }
        var o: JSONObject
        switch v {
        case .null: o = JSONObject()
        case .object(let existing): o = existing
        default: return false
        }
        v = .null  // `o` now holds the only reference: changing it copies nothing
        if let i = o.entries.firstIndex(where: { $0.key == key }) {
            var inner = o.entries[i].value
            o.entries[i].value = .null
            guard setInPlace(&inner, steps.dropFirst(), x) else { return false }
            o.entries[i].value = inner
        } else {
            var inner = JSONValue.null
            guard setInPlace(&inner, steps.dropFirst(), x) else { return false }
            o.entries.append((key, inner))
        }
        v = .object(o)
        return true
    }

    static func deleteInPlace(_ v: inout JSONValue, _ steps: ArraySlice<String>) -> Bool {
        guard let key = steps.first else { return false }
        switch v {
        case .null: return true
        case .object(var o):
            guard let i = o.entries.lastIndex(where: { $0.key == key }) else { return true }
            v = .null
            if steps.count == 1 {
                o.entries.removeAll { $0.key == key }
            } else {
                var inner = o.entries[i].value
                o.entries[i].value = .null
                guard deleteInPlace(&inner, steps.dropFirst()) else { return false }
                o.entries[i].value = inner
            }
            v = .object(o)
            return true
        default: return false
        }
    }

    /// The one output of `e` on `v`; nil when it gives none, several, or declines.
    private func single(_ e: Expr, _ v: JSONValue) -> JSONValue? {
        var o: [JSONValue] = []
        guard eval(e, v, &o), o.count == 1 else { return nil }
        return o[0]
    }

    static func truthy(_ v: JSONValue) -> Bool {
        switch v {
        case .null, .bool(false): return false
        default: return true
        }
    }

    /// `getpath`: null through null and missing keys; nil (decline) into anything but an object.
    static func get(_ v: JSONValue, _ steps: ArraySlice<String>) -> JSONValue? {
        var cur = v
        for s in steps {
            switch cur {
            case .null: return .null
            case .object(let o): cur = o[s] ?? .null
            default: return nil
            }
        }
        return cur
    }

    /// `setpath`: null becomes an object; a key keeps its place, a new one goes last.
    static func set(_ v: JSONValue, _ steps: ArraySlice<String>, _ x: JSONValue) -> JSONValue? {
        guard let key = steps.first else { return x }
        var o: JSONObject
        switch v {
        case .null: o = JSONObject()
        case .object(let existing): o = existing
        default: return nil
        }
        guard let inner = set(o[key] ?? .null, steps.dropFirst(), x) else { return nil }
        put(&o, key, inner)
        return .object(o)
    }

    /// `delpaths([path])`: a missing key or a null on the way changes nothing.
    static func delete(_ v: JSONValue, _ steps: ArraySlice<String>) -> JSONValue? {
        guard let key = steps.first else { return nil }
        switch v {
        case .null: return .null
        case .object(var o):
            guard let i = o.entries.lastIndex(where: { $0.key == key }) else { return v }
            if steps.count == 1 {
                o.entries.removeAll { $0.key == key }
                return .object(o)
            }
            guard let inner = delete(o.entries[i].value, steps.dropFirst()) else { return nil }
            o.entries[i].value = inner
            return .object(o)
        default: return nil
        }
    }

    /// Sets `key` in place, or appends it (jq's object insert).
    static func put(_ o: inout JSONObject, _ key: String, _ x: JSONValue) {
        if let i = o.entries.firstIndex(where: { $0.key == key }) {
            o.entries[i].value = x
        } else {
            o.entries.append((key, x))
        }
    }

    /// jq's `==`: numbers as doubles, strings byte for byte, objects whatever their order.
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x.double == y.double
        case (.string(let x), .string(let y)): return x.utf8.elementsEqual(y.utf8)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (k, xv) in x.entries {
                guard let yv = y[k], equal(xv, yv) else { return false }
            }
            return true
        default: return false
        }
    }

    /// jq's order of kinds: null < false < true < numbers < strings < arrays < objects.
    static func rank(_ v: JSONValue) -> Int {
        switch v {
        case .null: return 0
        case .bool(let b): return b ? 2 : 1
        case .number: return 3
        case .string: return 4
        case .array: return 5
        case .object: return 6
        }
    }

    /// -1, 0 or 1 as jq orders the two; nil for two arrays or two objects (declined).
    static func order(_ a: JSONValue, _ b: JSONValue) -> Int? {
        let ra = rank(a), rb = rank(b)
        if ra != rb { return ra < rb ? -1 : 1 }
        switch (a, b) {
        case (.number(let x), .number(let y)):
            let dx = x.double, dy = y.double
            return dx < dy ? -1 : (dx == dy ? 0 : 1)
        case (.string(let x), .string(let y)):
            // memcmp over the shorter, then the shorter first (jq's string_cmp).
            var ix = x.utf8.makeIterator(), iy = y.utf8.makeIterator()
            while true {
                switch (ix.next(), iy.next()) {
                case (nil, nil): return 0
                case (nil, _): return -1
                case (_, nil): return 1
                case (let p?, let q?): if p != q { return p < q ? -1 : 1 }
                }
            }
        case (.array, .array), (.object, .object): return nil
        default: return 0
        }
    }

    /// Every number as jq 1.6 prints it.
    static func normalize(_ v: inout JSONValue) {
        switch v {
        case .number(let n):
            if JQNumberText.isPlainInteger(n.text) { return }
            let text = JQNumberText.text(n.double)
            if text != n.text { v = .number(JSONNumber(text: text)) }
        case .array(var a):
            for i in a.indices { normalize(&a[i]) }
            v = .array(a)
        case .object(var o):
            for i in o.entries.indices { normalize(&o.entries[i].value) }
            v = .object(o)
        default: break
        }
    }
}

/// A double as jq 1.6 prints it, as text (`JQWriter.appendNumber`).
enum JQNumberText {
    /// Up to 15 digits, no sign, no leading zero: jq prints such a number as it is.
    static func isPlainInteger(_ text: String) -> Bool {
        var count = 0
        for c in text.utf8 {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9"), !(count == 0 && c == UInt8(ascii: "0") && text.utf8.count > 1) else { return false }
            count += 1
        }
        return count > 0 && count <= 15
    }

    static func text(_ d: Double) -> String {
        // The common case, an integer that is exact as a double, without the writer's buffer.
        if d == d.rounded(.towardZero), abs(d) < 1e15, !(d == 0 && d.sign == .minus) { return String(Int64(d)) }
        var out = JQBytes(capacity: 32)
        JQWriter.appendNumber(d, to: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }
}

// MARK: parsing

extension JQNative {
    struct Parser {
        let s: [UInt8]
        var i = 0

        init(_ s: [UInt8]) { self.s = s }

        static let keywords: Set<String> = ["and", "or", "if", "then", "elif", "else", "end", "as", "def", "reduce", "foreach",
                                            "try", "catch", "label", "import", "include", "__loc__"]

        mutating func program() -> Expr? {
            skipSpace()
            if i == s.count { return .identity }  // an empty program is `.`
            guard let e = pipe() else { return nil }
            skipSpace()
            return i == s.count ? e : nil
        }

        mutating func skipSpace() {
            while i < s.count, s[i] == 0x20 || s[i] == 0x0A || s[i] == 0x09 || s[i] == 0x0D { i += 1 }
        }

        mutating func peek(_ t: String) -> Bool {
            skipSpace()
            let b = Array(t.utf8)
            guard i + b.count <= s.count, Array(s[i..<(i + b.count)]) == b else { return false }
            // A word ends where an identifier character would continue it.
            if let last = b.last, Self.isIdent(last), i + b.count < s.count, Self.isIdent(s[i + b.count]) { return false }
            return true
        }

        mutating func eat(_ t: String) -> Bool {
            guard peek(t) else { return false }
            i += t.utf8.count
            return true
        }

        static func isIdentStart(_ c: UInt8) -> Bool { (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || c == 0x5F }
        static func isIdent(_ c: UInt8) -> Bool { isIdentStart(c) || (c >= 0x30 && c <= 0x39) }

        mutating func pipe() -> Expr? {
            guard let a = comma() else { return nil }
            if peek("|=") { return nil }
            if eat("|") {
                guard let b = pipe() else { return nil }
                return .pipe(a, b)
            }
            return a
        }

        mutating func comma() -> Expr? {
            guard var a = alternative() else { return nil }
            while eat(",") {
                guard let b = alternative() else { return nil }
                a = .comma(a, b)
            }
            return a
        }

        mutating func alternative() -> Expr? {
            guard let a = assignment() else { return nil }
            if peek("//=") { return nil }
            if eat("//") {
                guard let b = alternative() else { return nil }
                return .alternative(a, b)
            }
            return a
        }

        mutating func assignment() -> Expr? {
            guard let a = or() else { return nil }
            if peek("==") { return a }
            if eat("=") {
                guard case .path(let steps) = a, !steps.isEmpty, let b = or() else { return nil }
                if peek("=") && !peek("==") { return nil }
                return .assign(steps, b)
            }
            return a
        }

        mutating func or() -> Expr? {
            guard var a = and() else { return nil }
            while eat("or") {
                guard let b = and() else { return nil }
                a = .or(a, b)
            }
            return a
        }

        mutating func and() -> Expr? {
            guard var a = comparison() else { return nil }
            while eat("and") {
                guard let b = comparison() else { return nil }
                a = .and(a, b)
            }
            return a
        }

        mutating func comparison() -> Expr? {
            guard let a = term() else { return nil }
            let ops: [(String, Comparison)] = [("==", .eq), ("!=", .ne), ("<=", .le), (">=", .ge), ("<", .lt), (">", .gt)]
            for (t, op) in ops where eat(t) {
                guard let b = term() else { return nil }
                for (t2, _) in ops where peek(t2) { return nil }  // non-associative in jq
                return .compare(op, a, b)
            }
            return a
        }

        /// A term; nil for anything outside the plain kind (the whole program then runs in libjq).
        mutating func term() -> Expr? {
            skipSpace()
            guard i < s.count else { return nil }
            let c = s[i]
            var t: Expr
            switch c {
            case UInt8(ascii: "."):
                i += 1
                var steps: [String] = []
                if i < s.count, Self.isIdentStart(s[i]) {
                    steps.append(identifier())
                } else if i < s.count, s[i] == UInt8(ascii: "\"") {
                    guard let k = string() else { return nil }
                    steps.append(k)
                } else if i < s.count, s[i] == UInt8(ascii: "[") {
                    guard let k = bracketKey() else { return nil }
                    steps.append(k)
                } else if i < s.count, s[i] == UInt8(ascii: ".") || (s[i] >= 0x30 && s[i] <= 0x39) {
                    return nil  // `..`, `.5`
                }
                // More steps: `.b`, `."b"`, `["b"]`, `.["b"]`, with no space before them.
                while i < s.count {
                    if s[i] == UInt8(ascii: "."), i + 1 < s.count, Self.isIdentStart(s[i + 1]) {
                        i += 1
                        steps.append(identifier())
                    } else if s[i] == UInt8(ascii: "."), i + 1 < s.count, s[i + 1] == UInt8(ascii: "\"") {
                        i += 1
                        guard let k = string() else { return nil }
                        steps.append(k)
                    } else if s[i] == UInt8(ascii: "."), i + 1 < s.count, s[i + 1] == UInt8(ascii: "[") {
                        i += 1
                        guard let k = bracketKey() else { return nil }
                        steps.append(k)
                    } else if s[i] == UInt8(ascii: "[") {
                        guard let k = bracketKey() else { return nil }
                        steps.append(k)
                    } else {
                        break
                    }
                }
                t = steps.isEmpty ? .identity : .path(steps)
            case UInt8(ascii: "\""):
                guard let str = string() else { return nil }
                t = .literal(.string(str))
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let n = number() else { return nil }
                var v = JSONValue.number(JSONNumber(text: n))
                JQNative.normalize(&v)
                t = .literal(v)
            case UInt8(ascii: "("):
                i += 1
                guard let e = pipe(), eat(")") else { return nil }
                t = e
            case UInt8(ascii: "["):
                i += 1
                if eat("]") { t = .array(nil); break }
                guard let e = pipe(), eat("]") else { return nil }
                t = .array(e)
            case UInt8(ascii: "{"):
                i += 1
                guard let o = object() else { return nil }
                t = o
            default:
                guard Self.isIdentStart(c) else { return nil }
                let word = identifier()
                switch word {
                case "true": t = .literal(.bool(true))
                case "false": t = .literal(.bool(false))
                case "null": t = .literal(.null)
                case "empty": t = .empty
                case "not": t = .not
                case "select":
                    guard eat("("), let e = pipe(), eat(")") else { return nil }
                    t = .select(e)
                case "del":
                    guard eat("("), case .path(let steps)? = term(), eat(")") else { return nil }
                    t = .delete(steps)
                default: return nil
                }
            }
            // A suffix this parser does not model (`?`, `[0]`, `.a` after a non-path term, `as`).
            skipSpace()
            if i < s.count, s[i] == UInt8(ascii: "?") || s[i] == UInt8(ascii: "[") || s[i] == UInt8(ascii: ".") { return nil }
            if peek("as") { return nil }
            return t
        }

        mutating func identifier() -> String {
            let start = i
            while i < s.count, Self.isIdent(s[i]) { i += 1 }
            return String(decoding: s[start..<i], as: UTF8.self)
        }

        /// `["key"]`: a string key only.
        mutating func bracketKey() -> String? {
            guard i < s.count, s[i] == UInt8(ascii: "[") else { return nil }
            i += 1
            skipSpace()
            guard i < s.count, s[i] == UInt8(ascii: "\""), let k = string() else { return nil }
            skipSpace()
            guard i < s.count, s[i] == UInt8(ascii: "]") else { return nil }
            i += 1
            return k
        }

        /// `{a, b: term, "c": term | term}`.
        mutating func object() -> Expr? {
            var entries: [(key: String, value: Expr)] = []
            if eat("}") { return .object(entries) }
            while true {
                skipSpace()
                guard i < s.count else { return nil }
                let key: String
                var shorthand = false
                if s[i] == UInt8(ascii: "\"") {
                    guard let k = string() else { return nil }
                    key = k
                } else if Self.isIdentStart(s[i]) {
                    key = identifier()
                    if Self.keywords.contains(key) { return nil }
                    shorthand = true
                } else {
                    return nil
                }
                if eat(":") {
                    // jq's object values: terms joined by `|` (no `,`, no operators).
                    guard var v = term() else { return nil }
                    while eat("|") {
                        guard let w = term() else { return nil }
                        v = .pipe(v, w)
                    }
                    entries.append((key, v))
                } else {
                    guard shorthand else { return nil }
                    entries.append((key, .path([key])))
                }
                if eat("}") { return .object(entries) }
                guard eat(",") else { return nil }
            }
        }

        /// A string literal without interpolation.
        mutating func string() -> String? {
            guard i < s.count, s[i] == UInt8(ascii: "\"") else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < s.count {
                let c = s[i]
                i += 1
                switch c {
                case UInt8(ascii: "\""):
                    return String(validating: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard i < s.count else { return nil }
                    let e = s[i]
                    i += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    default: return nil  // `\(` interpolation, `\u` escapes: libjq
                    }
                default:
                    if c < 0x20 { return nil }
                    out.append(c)
                }
            }
            return nil
        }

        /// jq's number literal: digits, an optional fraction and exponent.
        mutating func number() -> String? {
            let start = i
            while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
            if i < s.count, s[i] == UInt8(ascii: ".") {
                i += 1
                while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
            }
            if i < s.count, s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E") {
                i += 1
                if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") { i += 1 }
                let digits = i
                while i < s.count, s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
                if i == digits { return nil }
            }
            if i < s.count, Self.isIdentStart(s[i]) { return nil }
            let text = String(decoding: s[start..<i], as: UTF8.self)
            guard let d = Double(text), d.isFinite else { return nil }
            return text
        }
    }
}
