#if canImport(Glibc)
import Glibc
#endif

/// `-c DIR`: a folder of `*.json` config files, read in name order (Docs/configuration.md#config-folders).
enum ConfigFolder {
    static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// One `*.json` entry of the folder: its path as bytes (a name need not be UTF-8: it is
    /// opened as the kernel spells it) and as shown in messages.
    struct Entry {
        /// `DIR/NAME`, NUL-terminated, for `open`.
        let path: [CChar]
        /// `DIR/NAME` for people: bytes that are not UTF-8, and control characters, as `\xNN`.
        let shown: String
        /// `DIR`, which the file's relative paths are resolved against.
        let directory: String
    }

    /// The folder's `*.json` entries (names starting with `.` left out, as editors' backups
    /// are), in byte order of their names. Nothing is skipped silently: an entry that cannot
    /// be read as a file is an error when it is opened (`read`).
    static func entries(in dir: String) throws(ConfigError) -> [Entry] {
        guard let handle = opendir(dir) else {
            throw ConfigError(messages: ["\(dir): cannot read the config folder (\(String(cString: strerror(errno))))"])
        }
        defer { closedir(handle) }
        let prefix = Array((dir.hasSuffix("/") ? dir : dir + "/").utf8)
        let suffix = Array(".json".utf8)
        var names: [[UInt8]] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            guard name.count > suffix.count, name.starts(with: [UInt8(ascii: ".")]) == false, name.suffix(suffix.count).elementsEqual(suffix) else { continue }
            names.append(name)
        }
        guard !names.isEmpty else {
            throw ConfigError(messages: ["\(dir): the config folder has no *.json file (it is read as the config files in it, in name order)"])
        }
        let directory = FileAccess.parent(of: String(decoding: prefix, as: UTF8.self) + "x")
        return names.sorted { $0.lexicographicallyPrecedes($1) }.map { name in
            let bytes = prefix + name
            return Entry(path: bytes.map { CChar(bitPattern: $0) } + [0], shown: shown(bytes), directory: directory)
        }
    }

    /// `bytes` as text for a message: valid UTF-8 as itself, other bytes and control
    /// characters (a newline in a file name would forge a line) as `\xNN`.
    static func shown(_ bytes: [UInt8]) -> String {
        var out = ""
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            let length = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            if length > 1, i + length <= bytes.count, let s = String(validating: bytes[i..<(i + length)], as: UTF8.self),
               let u = s.unicodeScalars.first, !(0x80...0x9F).contains(u.value) {
                out += s
                i += length
                continue
            }
            if length == 1 && b >= 0x20 && b != 0x7F {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                let hex = String(b, radix: 16, uppercase: true)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
            i += 1
        }
        return out
    }

    /// The bytes of one entry: opened by its bytes without waiting (a FIFO named `*.json` must
    /// not block the load), and refused, naming it, when it is not a regular file, a link to
    /// nothing, a loop of links or unreadable.
    static func read(_ entry: Entry) throws(ConfigError) -> [UInt8] {
        func refuse(_ why: String) -> ConfigError {
            ConfigError(messages: ["\(entry.shown): cannot read this *.json file of the config folder: \(why)"])
        }
        let fd = open(entry.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let e = errno
            var st = stat()
            if e == ENOENT, lstat(entry.path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK {
                throw refuse("a symbolic link to nothing (\(String(cString: strerror(e))))")
            }
            if e == ELOOP { throw refuse("a loop of symbolic links (\(String(cString: strerror(e))))") }
            throw refuse(String(cString: strerror(e)))
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw refuse(String(cString: strerror(errno))) }
        let kind: String?
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = nil
        case S_IFDIR: kind = "a folder"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR, S_IFBLK: kind = "a device"
        default: kind = "not a file"
        }
        if let kind { throw refuse("\(kind), not a regular file") }
        // A regular file: reads block as usual (O_NONBLOCK does nothing to them).
        guard let bytes = FileAccess.readAll(fd) else { throw refuse(String(cString: strerror(errno))) }
        return bytes
    }
}

/// One config file, parsed: `$`-keys dropped and `${VAR}` replaced everywhere. The unset
/// variables of the top-level sections and the sinks are errors already; those of each source
/// wait in `sourceMissing` until the loader knows whether the command runs that source.
struct ConfigPart {
    let file: String
    let directory: String
    let root: JSONObject
    let diag: ConfigDiagnostics
    /// The unset variables of each source, by its index in `sources`: key path and name.
    let sourceMissing: [Int: [(path: String, name: String)]]
    /// The sources as written, before `${VAR}` was replaced (`export opml` writes references,
    /// never the environment's values). Shares its storage with `root` where nothing changed.
    let writtenSources: [JSONValue]

    static func read(path: String, environment: (String) -> String?) throws(ConfigError) -> ConfigPart {
        guard let bytes = readFile(path) else {
            throw ConfigError(messages: ["\(path): cannot read the config file (\(String(cString: strerror(errno))))"])
        }
        return try ConfigPart(bytes: bytes, file: path, directory: FileAccess.parent(of: path), environment: environment)
    }

    init(bytes: [UInt8], file: String, directory: String, environment: (String) -> String?) throws(ConfigError) {
        let document: JSONDocument
        do { document = try JSONDocument(bytes) } catch {
            throw ConfigError(messages: ["\(file):\(error.line):\(error.column): \(error.message)"])
        }
        let top = document.root()
        guard top.kind == .object else {
            throw ConfigError(messages: ["\(file): the config must be a JSON object, found \(top.typeName ?? "nothing")"])
        }
        let diag = ConfigDiagnostics(file: file)
        var root = JSONObject()
        var bySource: [Int: [(path: String, name: String)]] = [:]
        var everywhere: [(path: String, name: String)] = []
        var written: [JSONValue] = []
        for (key, node) in top.members where !key.hasPrefix("$") {
            if key == "sources", node.kind == .array, let list = try? node.array() {
                let sources = Self.sources(list, environment: environment)
                written = sources.written
                // Added to, not replaced: a repeated "sources" key keeps the earlier list's
                // unset variables, as it always has.
                for (i, m) in sources.missing { bySource[i] = m }
                root.entries.append((key, .array(sources.prepared)))
            } else if let value = node.value {
                root.entries.append((key, Self.prepare(value, path: key, env: environment, missing: &everywhere)))
            }
        }
        for m in everywhere { diag.add(Self.unsetMessage(m)) }
        diag.unresolved = Set(everywhere.map(\.name) + bySource.values.flatMap { $0.map(\.name) })
        self.file = file
        self.directory = directory
        self.root = root
        self.diag = diag
        self.sourceMissing = bySource
        self.writtenSources = written
    }

    /// The fewest sources a thread reads into values: a file of twice as many or more is
    /// read on every core (`CoreShares`), like its sources are built.
    static let readTogether = 64

    /// The sources as values, as written and prepared (`prepare`), and the unset variables of
    /// each by its index. A source whose text holds no `$` and no escape (which could spell
    /// one) has nothing to prepare and is not walked for it: most sources of a large file.
    private static func sources(_ list: [JSONNode], environment: (String) -> String?)
        -> (written: [JSONValue], prepared: [JSONValue], missing: [Int: [(path: String, name: String)]]) {
        let shares = withoutActuallyEscaping(environment) { env in
            CoreShares.map(list.count, atLeast: readTogether) { range -> SourcesRead in
                var read = SourcesRead()
                read.written.reserveCapacity(range.count)
                read.prepared.reserveCapacity(range.count)
                for i in range {
                    let value = list[i].value ?? .null
                    read.written.append(value)
                    guard list[i].textMayHold(UInt8(ascii: "$"), UInt8(ascii: "\\")) else {
                        read.prepared.append(value)
                        continue
                    }
                    var missing: [(path: String, name: String)] = []
                    read.prepared.append(prepare(value, path: "sources[\(i)]", env: env, missing: &missing))
                    if !missing.isEmpty { read.missing.append((i, missing)) }
                }
                return read
            }
        }
        var written: [JSONValue] = []
        var prepared: [JSONValue] = []
        var missing: [Int: [(path: String, name: String)]] = [:]
        written.reserveCapacity(list.count)
        prepared.reserveCapacity(list.count)
        for share in shares {
            written += share.written
            prepared += share.prepared
            for (i, m) in share.missing { missing[i] = m }
        }
        return (written, prepared, missing)
    }

    /// What one share of the sources read.
    private struct SourcesRead {
        var written: [JSONValue] = []
        var prepared: [JSONValue] = []
        var missing: [(Int, [(path: String, name: String)])] = []
    }

    static func unsetMessage(_ m: (path: String, name: String)) -> String {
        "\(m.path): environment variable \(m.name) is not set (write ${\(m.name):-default} to give a default)"
    }

    /// Drops `$`-keys everywhere and interpolates `${VAR}` in every string; an unset variable
    /// stays as written and is added to `missing` with its key path. What needs no change is
    /// returned as it was (nothing copied), and a key path is spelled out only for a missing
    /// variable: most of a config has neither.
    static func prepare(_ v: JSONValue, path: String, env: (String) -> String?, missing: inout [(path: String, name: String)]) -> JSONValue {
        var trail: [PathStep] = []
        return prepared(v, root: path, trail: &trail, env: env, missing: &missing) ?? v
    }

    private enum PathStep {
        case key(String)
        case index(Int)
    }

    private static func spell(_ root: String, _ trail: [PathStep]) -> String {
        var path = root
        for step in trail {
            switch step {
            case .key(let k): path += "." + k
            case .index(let i): path += "[" + String(i) + "]"
            }
        }
        return path
    }

    /// `v` prepared, or nil when that leaves it as it is.
    private static func prepared(_ v: JSONValue, root: String, trail: inout [PathStep], env: (String) -> String?, missing: inout [(path: String, name: String)]) -> JSONValue? {
        switch v {
        case .string(let s):
            let (text, unset) = Environment.interpolate(s, lookup: env)
            if !unset.isEmpty {
                let path = spell(root, trail)
                for name in unset { missing.append((path, name)) }
            }
            return text == s ? nil : .string(text)
        case .array(let a):
            var out: [JSONValue]? = nil
            for i in a.indices {
                trail.append(.index(i))
                let new = prepared(a[i], root: root, trail: &trail, env: env, missing: &missing)
                trail.removeLast()
                if let new {
                    if out == nil { out = a }
                    out![i] = new
                }
            }
            return out.map { .array($0) }
        case .object(let o):
            var out: JSONObject? = nil
            for (i, e) in o.entries.enumerated() {
                if e.key.utf8.first == UInt8(ascii: "$") {
                    if out == nil { out = JSONObject(Array(o.entries[..<i])) }
                    continue
                }
                trail.append(.key(e.key))
                let new = prepared(e.value, root: root, trail: &trail, env: env, missing: &missing)
                trail.removeLast()
                if let new {
                    if out == nil { out = JSONObject(Array(o.entries[..<i])) }
                    out!.entries.append((e.key, new))
                } else if out != nil {
                    out!.entries.append(e)
                }
            }
            return out.map { .object($0) }
        default:
            return nil
        }
    }

    static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return FileAccess.readAll(fd)
    }
}
