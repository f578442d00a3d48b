#if canImport(Glibc)
import Glibc
#endif

/// `-c DIR`: a folder of `*.json` config files, read in name order (Docs/configuration.md#config-folders).
enum ConfigFolder {
    static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// The folder's `*.json` files (regular files, or links to them; names starting with `.`
    /// left out, as editors' backups are), in byte order of their names, as `DIR/NAME`.
    static func files(in dir: String) throws(ConfigError) -> [String] {
        guard let handle = opendir(dir) else {
            throw ConfigError(messages: ["\(dir): cannot read the config folder (\(String(cString: strerror(errno))))"])
        }
        defer { closedir(handle) }
        let prefix = dir.hasSuffix("/") ? dir : dir + "/"
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            var st = stat()
            guard stat(prefix + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            names.append(name)
        }
        guard !names.isEmpty else {
            throw ConfigError(messages: ["\(dir): the config folder has no *.json file (it is read as the config files in it, in name order)"])
        }
        return names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.map { prefix + $0 }
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

    static func read(path: String, environment: (String) -> String?) throws(ConfigError) -> ConfigPart {
        guard let bytes = readFile(path) else {
            throw ConfigError(messages: ["\(path): cannot read the config file (\(String(cString: strerror(errno))))"])
        }
        return try ConfigPart(bytes: bytes, file: path, directory: FileAccess.parent(of: path), environment: environment)
    }

    init(bytes: [UInt8], file: String, directory: String, environment: (String) -> String?) throws(ConfigError) {
        let doc: JSONValue
        do { doc = try JSONParser.parse(bytes) } catch {
            throw ConfigError(messages: ["\(file):\(error.line):\(error.column): \(error.message)"])
        }
        guard case .object(let raw) = doc else {
            throw ConfigError(messages: ["\(file): the config must be a JSON object, found \(doc.typeName)"])
        }
        let diag = ConfigDiagnostics(file: file)
        var root = JSONObject()
        var bySource: [Int: [(path: String, name: String)]] = [:]
        var everywhere: [(path: String, name: String)] = []
        for e in raw.entries where !e.key.hasPrefix("$") {
            if e.key == "sources", case .array(let list) = e.value {
                var out: [JSONValue] = []
                for (i, el) in list.enumerated() {
                    var missing: [(path: String, name: String)] = []
                    out.append(Self.prepare(el, path: "sources[\(i)]", env: environment, missing: &missing))
                    if !missing.isEmpty { bySource[i] = missing }
                }
                root.entries.append((e.key, .array(out)))
            } else {
                root.entries.append((e.key, Self.prepare(e.value, path: e.key, env: environment, missing: &everywhere)))
            }
        }
        for m in everywhere { diag.add(Self.unsetMessage(m)) }
        diag.unresolved = Set(everywhere.map(\.name) + bySource.values.flatMap { $0.map(\.name) })
        self.file = file
        self.directory = directory
        self.root = root
        self.diag = diag
        self.sourceMissing = bySource
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
