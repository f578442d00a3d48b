import TributaryBase
import TributaryJSON

/// Collects every config error found in one file, so all are reported at once, and the
/// machine checks its options declare (`PreflightCheck`), for the loader to hand out.
public final class ConfigDiagnostics {
    public let file: String
    public private(set) var errors: [String] = []
    /// The preflight checks of every valid option read so far, in order.
    public private(set) var preflight: [PreflightCheck] = []
    /// Environment variables this file uses that are not set: a value that still holds one
    /// (`${NAME}` as written) is not checked, since it is either reported as unset already or
    /// sits in a source that this command does not run.
    package var unresolved: Set<String> = []

    public init(file: String) { self.file = file }

    public func add(_ message: String) { errors.append("\(file): \(message)") }

    func addPreflight(_ check: PreflightCheck) { preflight.append(check) }

    /// A file's diagnostics for work done beside this one (on another thread): the same file and
    /// unset variables, with errors and checks of its own, for `absorb` to take back in order.
    package func beside() -> ConfigDiagnostics {
        let d = ConfigDiagnostics(file: file)
        d.unresolved = unresolved
        return d
    }

    /// Appends `other`'s errors and checks (of the same file) after this one's.
    package func absorb(_ other: ConfigDiagnostics) {
        errors += other.errors
        preflight += other.preflight
    }

    /// The last nested object of each option name found without an error here, the options it
    /// was checked against, and what a plugin made of it (`OptionReader.reusing`): the sources
    /// of a large config mostly repeat one `fields`, which is then checked and read once per
    /// share of the file's sources, not once per source (10,000 `json` sources: a fifth of
    /// building them). Equal objects checked against the same options say the same. A short
    /// list of objects (one per option name that has nested options), not a dictionary of
    /// values: no generic type is made at run time for it, which `check` of a small config
    /// would pay for at its start.
    private var lastClean: Clean?

    final class Clean {
        let name: String
        var specs: [OptionSpec]
        var object: JSONObject
        /// What `reusing` made of `object`: an object, cast back without a lookup of its type.
        var made: AnyObject?
        /// The object last found identical to `object`, held (so its storage is not another
        /// object's while it is compared by address): `reusing` reads the object its reader's
        /// check just compared, and knows it by its storage without comparing it again.
        var seen: JSONObject
        let next: Clean?

        init(name: String, specs: [OptionSpec], object: JSONObject, made: AnyObject?, next: Clean?) {
            self.name = name
            self.specs = specs
            self.object = object
            self.made = made
            self.seen = object
            self.next = next
        }
    }

    private static func storage(_ o: JSONObject) -> UnsafeRawPointer? {
        o.entries.withUnsafeBufferPointer { $0.count == 0 ? nil : UnsafeRawPointer($0.baseAddress) }
    }

    /// The entry of option `name` if its object is `object` byte for byte (`isIdentical`, not
    /// `==`: strings equal by Unicode's equivalence are other text to a check or a jq program)
    /// and it was checked against the same declarations (the same array, not an equal one).
    func checkedBefore(_ name: String, _ specs: [OptionSpec], _ object: JSONObject) -> Clean? {
        guard let c = entry(name), Self.same(c.specs, specs) else { return nil }
        if let mine = Self.storage(object), mine == Self.storage(c.seen) { return c }
        guard c.object.isIdentical(to: object) else { return nil }
        c.seen = object
        return c
    }

    func rememberClean(_ name: String, _ specs: [OptionSpec], _ object: JSONObject, made: AnyObject? = nil) {
        // One entry per name: another type's option of the same name takes it over.
        if let c = entry(name) {
            c.specs = specs
            c.object = object
            c.seen = object
            c.made = made
        } else {
            lastClean = Clean(name: name, specs: specs, object: object, made: made, next: lastClean)
        }
    }

    private func entry(_ name: String) -> Clean? {
        var c = lastClean
        while let e = c {
            if e.name == name { return e }
            c = e.next
        }
        return nil
    }

    private static func same(_ a: [OptionSpec], _ b: [OptionSpec]) -> Bool {
        a.withUnsafeBufferPointer { pa in b.withUnsafeBufferPointer { pb in pa.baseAddress == pb.baseAddress && pa.count == pb.count } }
    }

    /// Whether `value` (a string, or a list holding one) still has an unset `${NAME}`.
    @usableFromInline
    func isUnresolved(_ value: JSONValue) -> Bool {
        guard !unresolved.isEmpty else { return false }
        switch value {
        case .string(let s): return s.utf8.contains(UInt8(ascii: "$")) && unresolved.contains { s.contains("${" + $0 + "}") }
        case .array(let a): return a.contains(where: isUnresolved)
        default: return false
        }
    }
}

/// Typed, validated access to one config object (a source, a sink, a nested option object).
/// On creation it checks every key against the declared `OptionSpec`s (unknown keys with a
/// did-you-mean suggestion, missing required keys, wrong types); getters then return typed
/// values, or nil where the value is absent or was already reported as wrong.
public final class OptionReader {
    public let object: JSONObject
    /// Where this object is, for messages: `sources[2] ("weather")`, `sinks[0].fields`.
    public let context: String
    public let diagnostics: ConfigDiagnostics
    public let specs: [OptionSpec]
    /// Folder of the config file, for resolving relative paths.
    public let configDirectory: String

    public init(object: JSONObject, context: String, specs: [OptionSpec], diagnostics: ConfigDiagnostics, configDirectory: String) {
        self.object = object
        self.context = context
        self.specs = specs
        self.diagnostics = diagnostics
        self.configDirectory = configDirectory
        validate()
    }

    /// Records an error about `key` (or about the object itself when nil).
    public func error(_ key: String?, _ message: String) {
        if let key { diagnostics.add("\(context).\(key): \(message)") } else { diagnostics.add("\(context): \(message)") }
    }

    func has(_ key: String) -> Bool { member(key) != nil }

    private func spec(_ name: String) -> OptionSpec? { specs.first { Self.same($0.name, name) } }

    /// The value of `key` in the object, or nil (as `object[key]`). The lengths are compared first: most keys
    /// looked up are absent, and most names differ in length (a config of 10,000 sources
    /// makes a few hundred thousand of these lookups).
    @usableFromInline
    func member(_ key: String) -> JSONValue? {
        // From the end, as `JSONObject`'s subscript: the last of repeated keys counts.
        var i = object.entries.count - 1
        while i >= 0 {
            if Self.same(object.entries[i].key, key) { return object.entries[i].value }
            i -= 1
        }
        return nil
    }

    @usableFromInline @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && a == b }

    private func validate() {
        // Specs are read in place (`specs[i]`): a copy of one retains each of its fields, and
        // this runs for every key of every source.
        for (key, value) in object.entries {
            guard let i = specs.firstIndex(where: { Self.same($0.name, key) }) else {
                var msg = "unknown key \"\(key)\""
                if let meant = specs.first(where: { $0.aliases.contains(key) }) {
                    msg += " (did you mean \"\(meant.name)\"?)"
                } else if let s = Suggest.closest(to: key, in: specs.map(\.name)) {
                    msg += " (did you mean \"\(s)\"?)"
                }
                diagnostics.add("\(context): \(msg)")
                continue
            }
            if specs[i].secret, let s = value.stringValue {
                if case .url = specs[i].kind { Secrets.registerURL(s) } else { Secrets.register(s) }
            }
            if diagnostics.isUnresolved(value) { continue }
            let before = diagnostics.errors.count
            check(specs[i], value)
            if diagnostics.errors.count == before, let rule = specs[i].rule, let problem = rule(value, self) {
                // `[2]: ...` or `.name: ...` is about an element or a member: `urls[2]: ...`.
                if problem.hasPrefix("[") || problem.hasPrefix(".") { diagnostics.add("\(context).\(key)\(problem)") } else { error(key, problem) }
            }
            if diagnostics.errors.count == before, let preflight = specs[i].preflight, let test = preflight(value, self) {
                diagnostics.addPreflight(PreflightCheck(location: "\(diagnostics.file): \(context).\(key)", test))
            }
        }
        for i in specs.indices where specs[i].required && member(specs[i].name) == nil {
            diagnostics.add("\(context): missing required key \"\(specs[i].name)\" (\(specs[i].typeName): \(specs[i].help))")
        }
    }

    private static func show(_ v: JSONValue) -> String {
        let text = String(decoding: JSONWriter.serialize(v), as: UTF8.self)
        return text.count > 60 ? String(text.prefix(57)) + "..." : text
    }

    private func check(_ spec: OptionSpec, _ value: JSONValue) {
        // The value is shown only in an error: not serialized for every option of every source.
        func bad(_ expected: String) { error(spec.name, "expected \(expected), found \(Self.show(value))") }
        switch spec.kind {
        case .string:
            if value.stringValue == nil { bad("a string") }
        case .url(let fileAllowed):
            guard let s = value.stringValue else { bad("a URL string"); return }
            if let problem = Self.urlProblem(s, fileAllowed: fileAllowed) { error(spec.name, problem) }
        case .integer(let lo, let hi):
            guard let n = value.numberValue, let i = n.int64 else { bad("an integer"); return }
            if let lo, i < lo { bad("an integer >= \(lo)") } else if let hi, i > hi { bad("an integer <= \(hi)") }
        case .number:
            if value.numberValue == nil { bad("a number") }
        case .bool:
            if value.boolValue == nil { bad("true or false") }
        case .duration:
            if Durations.parse(value) == nil { bad("a duration up to 3650d (seconds, or a string like \"250ms\", \"20s\", \"15m\", \"2h\", \"1d\")") }
        case .durationOrAuto:
            if value.stringValue != "auto" && Durations.parse(value) == nil {
                bad("\"auto\" or a duration up to 3650d (seconds, or a string like \"20s\", \"15m\", \"2h\", \"1d\")")
            }
        case .size:
            if ByteSizes.parse(value) == nil { bad("a size up to 1TiB (bytes, or a string like \"512KiB\", \"16MiB\")") }
        case .keyPath:
            guard let s = value.stringValue else { bad("a key path string"); return }
            if KeyPaths.isPlain(s) { return }
            do { _ = try KeyPath(parsing: s) } catch { self.error(spec.name, "\(error)") }
        case .stringList:
            // Integers are accepted as their text: ids such as OpenWeatherMap city ids are numbers.
            guard let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil || $0.numberValue?.int64 != nil }) else { bad("a list of strings"); return }
        case .stringOrList:
            if value.stringValue != nil { return }
            guard let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else { bad("a string or a list of strings"); return }
        case .stringMap:
            guard let o = value.objectValue else { bad("an object of strings"); return }
            for e in o.entries where e.value.stringValue == nil {
                if e.value.numberValue == nil && e.value.boolValue == nil {
                    error("\(spec.name).\(e.key)", "expected a string, found \(Self.show(e.value))")
                }
            }
        case .keyPathMap:
            guard let o = value.objectValue else { bad("an object of key paths"); return }
            for e in o.entries {
                guard let s = e.value.stringValue else { error("\(spec.name).\(e.key)", "expected a key path string, found \(Self.show(e.value))"); continue }
                if KeyPaths.isPlain(s) { continue }
                do { _ = try KeyPath(parsing: s) } catch { self.error("\(spec.name).\(e.key)", "\(error)") }
            }
        case .fieldMapping:
            if let problem = FieldMapping.problem(value) { error(spec.name, problem) }
        case .fieldMappingMap:
            guard let o = value.objectValue else { bad("an object of key paths or {\"jq\": program} objects"); return }
            for e in o.entries {
                if let problem = FieldMapping.problem(e.value) { error("\(spec.name).\(e.key)", problem) }
            }
        case .enumeration(let allowed):
            guard let s = value.stringValue, allowed.contains(s) else {
                var msg = "expected one of \(allowed.map { "\"\($0)\"" }.joined(separator: ", ")), found \(Self.show(value))"
                if let s = value.stringValue, let sug = Suggest.closest(to: s, in: allowed) { msg += " (did you mean \"\(sug)\"?)" }
                error(spec.name, msg)
                return
            }
        case .enumOrInteger(let words, let min):
            if let w = value.stringValue, words.contains(w) { return }
            if let i = value.numberValue?.int64, i >= min { return }
            bad(words.map { "\"\($0)\"" }.joined(separator: ", ") + " or an integer >= \(min)")
        case .pluginList:
            guard let a = value.arrayValue else { bad("a list of objects"); return }
            for (i, el) in a.enumerated() where el.objectValue == nil {
                error("\(spec.name)[\(i)]", "expected an object, found \(Self.show(el))")
            }
        case .object(let sub):
            guard let o = value.objectValue else { bad("an object"); return }
            // An object equal to the last one found clean here says nothing new (its secrets are
            // registered): checked again only when something was wrong with it or it made checks.
            if diagnostics.checkedBefore(spec.name, sub, o) != nil { return }
            let errors = diagnostics.errors.count, checks = diagnostics.preflight.count
            _ = OptionReader(object: o, context: "\(context).\(spec.name)", specs: sub, diagnostics: diagnostics, configDirectory: configDirectory)
            if diagnostics.errors.count == errors && diagnostics.preflight.count == checks { diagnostics.rememberClean(spec.name, sub, o) }
        case .objectMap(let sub):
            guard let o = value.objectValue else { bad("an object of objects"); return }
            for e in o.entries {
                guard let inner = e.value.objectValue else { error("\(spec.name).\(e.key)", "expected an object, found \(Self.show(e.value))"); continue }
                _ = OptionReader(object: inner, context: "\(context).\(spec.name).\(e.key)", specs: sub, diagnostics: diagnostics, configDirectory: configDirectory)
            }
        case .objectList(let sub):
            guard let a = value.arrayValue else { bad("a list of objects"); return }
            for (i, el) in a.enumerated() {
                guard let o = el.objectValue else { error("\(spec.name)[\(i)]", "expected an object, found \(Self.show(el))"); continue }
                _ = OptionReader(object: o, context: "\(context).\(spec.name)[\(i)]", specs: sub, diagnostics: diagnostics, configDirectory: configDirectory)
            }
        }
    }

    /// What is wrong with `s` as an absolute http(s) URL (or a `file:` one), or nil. An http(s)
    /// URL must also be one that can work (`webURLProblem`): the check every URL option, the
    /// feed source's and `import opml` share.
    public static func urlProblem(_ s: String, fileAllowed: Bool) -> String? {
        let scheme = s.prefix(8).lowercased()
        let web = (scheme.hasPrefix("http://") && s.utf8.count > 7) || (scheme.hasPrefix("https://") && s.utf8.count > 8)
        if web { return webURLProblem(s) }
        if fileAllowed && scheme.hasPrefix("file:") { return nil }
        let shown = shownURL(s)
        return fileAllowed ? "expected an http://, https:// or file: URL, found \"\(shown)\"" : "expected an http:// or https:// URL, found \"\(shown)\""
    }

    /// Why an `http(s)://` URL cannot work, or nil: a control character or white space anywhere
    /// (a line break, a tab, a space: percent-encode them), no host, or a port that is not a
    /// number from 1 to 65535. libcurl refuses all of these at every fetch.
    public static func webURLProblem(_ s: String) -> String? {
        let bytes = Array(s.utf8)
        if let bad = bytes.firstIndex(where: { $0 <= 0x20 || $0 == 0x7F }) {
            let b = bytes[bad]
            let what = b == 0x0A || b == 0x0D ? "a line break" : b == 0x09 ? "a tab" : b == 0x20 ? "a space" : "a control character"
            let hex = String(b, radix: 16, uppercase: true)
            return "\"\(shownURL(s))\" holds \(what) (byte \(bad + 1)); a URL cannot hold white space or control characters (percent-encode them: %\(hex.count == 1 ? "0" + hex : hex))"
        }
        guard let slashes = bytes.indices.first(where: { bytes[$0...].starts(with: [0x3A, 0x2F, 0x2F]) }) else { return nil }
        let start = slashes + 3
        let end = bytes[start...].firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) ?? bytes.endIndex
        var authority = bytes[start..<end]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        var host = authority
        var port: ArraySlice<UInt8> = []
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return "\"\(shownURL(s))\": the IPv6 address has no closing ]" }
            host = authority[(authority.startIndex + 1)..<close]
            let after = authority[(close + 1)...]
            if let colon = after.first {
                guard colon == UInt8(ascii: ":") else { return "\"\(shownURL(s))\": expected :PORT after the IPv6 address" }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            host = authority[..<colon]
            port = authority[(colon + 1)...]
        }
        if host.isEmpty { return "\"\(shownURL(s))\" has no host" }
        if !port.isEmpty {
            let text = String(decoding: port, as: UTF8.self)
            guard port.count <= 5, port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text), (1...65535).contains(n) else {
                return "\"\(shownURL(s))\": port \(text) is not a port (a number from 1 to 65535)"
            }
        }
        return nil
    }

    /// A URL for a message: secrets hidden, control characters escaped (`\n`), so a line
    /// break in a value cannot break the message's line.
    public static func shownURL(_ s: String) -> String {
        var out = ""
        for u in Redactor.redactURL(s).unicodeScalars {
            switch u.value {
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case 0x09: out += "\\t"
            case 0..<0x20, 0x7F, 0x80..<0xA0: out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
            default: out.unicodeScalars.append(u)
            }
        }
        return out
    }

    // MARK: typed getters (values were validated above; wrong ones read as nil)

    func string(_ key: String) -> String? { member(key)?.stringValue }

    func int(_ key: String) -> Int? { member(key)?.numberValue?.int64.map { Int($0) } }

    func double(_ key: String) -> Double? { member(key)?.numberValue?.double }

    func bool(_ key: String) -> Bool? { member(key)?.boolValue }

    func duration(_ key: String) -> Double? { member(key).flatMap(Durations.parse) }

    func size(_ key: String) -> Int? { member(key).flatMap(ByteSizes.parse) }

    func keyPath(_ key: String) -> KeyPath? {
        guard let s = string(key) else { return nil }
        return try? KeyPath(parsing: s)
    }

    /// A list of strings; a single string reads as a list of one.
    func stringList(_ key: String) -> [String]? { member(key).flatMap(Self.strings) }

    public static func strings(_ v: JSONValue) -> [String]? {
        if let s = v.stringValue { return [s] }
        return v.arrayValue?.compactMap { $0.stringValue ?? $0.numberValue.flatMap { $0.int64 != nil ? $0.text : nil } }
    }

    /// Ordered name/value pairs; numbers and bools are taken as their text.
    func stringMap(_ key: String) -> [(String, String)]? { member(key).flatMap(Self.pairs) }

    static func pairs(_ v: JSONValue) -> [(String, String)]? {
        guard let o = v.objectValue else { return nil }
        return o.entries.compactMap { e in
            switch e.value {
            case .string(let s): return (e.key, s)
            case .number(let n): return (e.key, n.text)
            case .bool(let b): return (e.key, b ? "true" : "false")
            default: return nil
            }
        }
    }

    func keyPathMap(_ key: String) -> [(String, KeyPath)]? {
        guard let o = member(key)?.objectValue else { return nil }
        return o.entries.compactMap { e in
            guard let s = e.value.stringValue, let p = try? KeyPath(parsing: s) else { return nil }
            return (e.key, p)
        }
    }

    /// A reader over a nested object (already validated with this one).
    package func nested(_ object: JSONObject, key: String, specs: [OptionSpec]) -> OptionReader {
        OptionReader(unchecked: object, context: "\(context).\(key)", specs: specs, parent: self)
    }

    /// The reader a required object option reads as when its object had errors.
    init(placeholderFor key: String, specs: [OptionSpec]) {
        self.object = JSONObject()
        self.context = key
        self.specs = specs
        self.diagnostics = ConfigDiagnostics(file: "")
        self.configDirectory = ""
    }

    /// What `make` builds from the nested object of `option` (through its reader), reused for
    /// an equal object of a later source, in the same file and share, once `make` reported
    /// nothing for it: a `json` source's `fields` made into its key paths and their set. What
    /// `make` returns (an object, whose contents must be safe to share) is then shared by those
    /// sources.
    public func reusing<Made: AnyObject>(_ option: RequiredOption<OptionReader>, _ make: (OptionReader) -> Made) -> Made {
        let name = checkedName(option.spec)
        guard case .object(let sub) = option.spec.kind, let o = member(name)?.objectValue else { return make(self[option]) }
        // Remembered only for an object whose check found nothing (this one's, or an equal one's).
        let clean = diagnostics.checkedBefore(name, sub, o)
        if let known = clean?.made as? Made { return known }
        let errors = diagnostics.errors.count, checks = diagnostics.preflight.count
        let made = make(self[option])
        if clean != nil && diagnostics.errors.count == errors && diagnostics.preflight.count == checks { diagnostics.rememberClean(name, sub, o, made: made) }
        return made
    }

    /// A reader over a nested object option, without re-validating it.
    package func nested(_ key: String) -> OptionReader? {
        guard let o = member(key)?.objectValue, case .object(let sub)? = spec(key)?.kind else { return nil }
        return OptionReader(unchecked: o, context: "\(context).\(key)", specs: sub, parent: self)
    }

    private init(unchecked object: JSONObject, context: String, specs: [OptionSpec], parent: OptionReader) {
        self.object = object
        self.context = context
        self.specs = specs
        self.diagnostics = parent.diagnostics
        self.configDirectory = parent.configDirectory
    }

    /// Resolves a path relative to the config file's folder; `~` expands to $HOME.
    public func resolvePath(_ path: String) -> String {
        ConfigPaths.resolve(path, relativeTo: configDirectory)
    }
}

/// Key paths as config values.
enum KeyPaths {
    /// True when `s` is a key path `KeyPath(parsing:)` takes for certain: dotted keys with no
    /// empty key and no brackets or quotes (or the empty path). Validation then skips the parse
    /// (a cache lookup under a lock), which the option's read does anyway.
    static func isPlain(_ s: String) -> Bool {
        var segment = 0
        var any = false
        for b in s.utf8 {
            any = true
            switch b {
            case 0x5B, 0x5D, 0x22: return false  // [ ] "
            case 0x2E:  // .
                if segment == 0 { return false }
                segment = 0
            default: segment += 1
            }
        }
        return !any || segment > 0
    }
}

/// Did-you-mean suggestions by edit distance.
public enum Suggest {
    public static func closest(to word: String, in candidates: [String]) -> String? {
        var best: (String, Int)? = nil
        for c in candidates {
            let d = distance(word.lowercased(), c.lowercased())
            if d <= max(2, c.count / 3), best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var prev = Array(0...b.count)
        var cur = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            cur[0] = i
            for j in 1...b.count {
                cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&prev, &cur)
        }
        return prev[b.count]
    }
}

/// Path helpers for config-relative files.
public enum ConfigPaths {
    public static func resolve(_ path: String, relativeTo dir: String) -> String {
        if path == "-" { return path }
        if path.hasPrefix("~/"), let home = Environment.get("HOME") { return home + String(path.dropFirst(1)) }
        if path.hasPrefix("/") || dir.isEmpty { return path }
        return dir + "/" + path
    }
}
