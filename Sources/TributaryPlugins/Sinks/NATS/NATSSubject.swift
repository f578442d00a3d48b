import TributaryPluginKit
import TributaryCore

/// The `subject` option: a NATS subject whose tokens may hold `{kind}`, `{source}` and `{type}`,
/// parsed once when the config is loaded and rendered per item.
struct NATSSubject: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case kind, source, type
    }

    let template: String
    let parts: [Part]

    /// Parses `template`; the error says what is wrong, for `reader.error("subject", ...)`.
    static func parse(_ template: String) -> Result<NATSSubject, ConfigMessage> {
        guard !template.isEmpty else { return .failure(ConfigMessage("must not be empty")) }
        if let bad = template.first(where: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" || $0 == "*" || $0 == ">" }) {
            let shown = bad == "*" || bad == ">" ? "a wildcard (\(bad))" : "white space"
            return .failure(ConfigMessage("a subject to publish to cannot hold \(shown), found \"\(template)\""))
        }
        if template.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            return .failure(ConfigMessage("every dot-separated token must be non-empty, found \"\(template)\""))
        }
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                return .failure(ConfigMessage("unclosed \"{\" in \"\(template)\""))
            }
            let name = rest[rest.index(after: open)..<close]
            let part: Part
            switch name {
            case "kind": part = .kind
            case "source": part = .source
            case "type": part = .type
            default: return .failure(ConfigMessage("unknown placeholder {\(name)} in \"\(template)\" (known: {kind}, {source}, {type})"))
            }
            if !literal.isEmpty { parts.append(.literal(literal)) }
            literal = ""
            parts.append(part)
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if literal.contains("}") { return .failure(ConfigMessage("\"}\" without \"{\" in \"\(template)\"")) }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        return .success(NATSSubject(template: template, parts: parts))
    }

    /// The subject for `item`: each placeholder becomes the item's value as one subject token
    /// (`.`, wildcards, white space and control characters become `_`; an empty value is `_`).
    func subject(for item: Item) -> String {
        if parts.count == 1, case .literal(let s) = parts[0] { return s }
        var out = ""
        for part in parts {
            switch part {
            case .literal(let s): out += s
            case .kind: out += Self.token(item.kind)
            case .source: out += Self.token(item.source)
            case .type: out += Self.token(item.type)
            }
        }
        return out
    }

    static func token(_ value: String) -> String {
        guard !value.isEmpty else { return "_" }
        guard value.unicodeScalars.contains(where: isSpecial) else { return value }
        return String(String.UnicodeScalarView(value.unicodeScalars.map { isSpecial($0) ? "_" : $0 }))
    }

    private static func isSpecial(_ c: Unicode.Scalar) -> Bool {
        c == "." || c == "*" || c == ">" || c == " " || c.value < 0x20 || c.value == 0x7F
    }

    /// `tributary.items.{kind}`, the default.
    static let standard = NATSSubject(template: "tributary.items.{kind}", parts: [.literal("tributary.items."), .kind])

    /// Whether every subject this template renders is captured by `tributary.items.>`, the
    /// subjects of a stream the sink creates.
    var isUnderDefaultStreamSubjects: Bool {
        template.hasPrefix("tributary.items.") && template.split(separator: ".").count >= 3
    }
}

extension Option where Value == NATSSubject {
    /// A subject template (`NATSSubject.parse`), checked when the config is loaded.
    static func natsSubject(_ name: String, _ help: String) -> Option {
        Option(spec: OptionSpec(name, .string, help, rule: { v, _ in
            guard let s = v.stringValue, case .failure(let e) = NATSSubject.parse(s) else { return nil }
            return e.text
        }), read: { v, _ in v.stringValue.flatMap { try? NATSSubject.parse($0).get() } }, show: { $0.template }, placeholder: { NATSSubject.standard })
    }
}

/// A config error's text (the reader adds where it is).
struct ConfigMessage: Error, Equatable {
    let text: String
    init(_ text: String) { self.text = text }
}

/// Checks of the `url` and `stream` options, and the secrets a URL carries.
enum NATSOptions {
    /// `nats://` URLs, comma-separated for several servers of a cluster; each needs a host.
    /// (`tls://` is refused: TLS needs options this sink does not have yet.)
    static func checkURL(_ url: String) -> ConfigMessage? {
        for part in url.split(separator: ",", omittingEmptySubsequences: false) {
            let u = part.trimmingBlanks
            guard let scheme = u.firstRange(of: "://"), u[..<scheme.lowerBound] == "nats" else {
                return ConfigMessage("expected a nats:// URL, found \"\(Redactor.redactURL(String(u)))\"")
            }
            let authority = u[scheme.upperBound...].prefix { $0 != "/" }
            let host = authority.lastIndex(of: "@").map { authority[authority.index(after: $0)...] } ?? authority
            if host.isEmpty || host.hasPrefix(":") { return ConfigMessage("no host in \"\(Redactor.redactURL(String(u)))\"") }
        }
        return nil
    }

    /// The user info of each URL (`user:pass`, or a token), registered with `Secrets` so no
    /// message shows it: the password (or token), and the whole `user:pass`.
    static func registerSecrets(_ url: String) {
        for part in url.split(separator: ",") {
            guard let scheme = part.firstRange(of: "://") else { continue }
            let authority = part[scheme.upperBound...].prefix { $0 != "/" }
            guard let at = authority.lastIndex(of: "@") else { continue }
            let info = authority[..<at]
            if let colon = info.firstIndex(of: ":") {
                Secrets.register(String(info[info.index(after: colon)...]))
                Secrets.register(String(info))
            } else {
                Secrets.register(String(info))
            }
        }
    }

    /// A JetStream stream name: no white space, `.`, `*`, `>`, `/` or `\`.
    static func checkStream(_ name: String) -> ConfigMessage? {
        if name.isEmpty { return ConfigMessage("must not be empty") }
        if name.unicodeScalars.contains(where: { " \t\r\n.*>/\\".unicodeScalars.contains($0) || $0.value < 0x20 }) {
            return ConfigMessage("a stream name cannot hold white space, \".\", \"*\", \">\", \"/\" or \"\\\", found \"\(name)\"")
        }
        return nil
    }

    /// The `Nats-Msg-Id` for an item id: the id itself, unless it holds a control character
    /// (a header value cannot), which is then percent-encoded (and so is `%`).
    static func messageID(_ id: String) -> String {
        guard id.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return id }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in id.utf8 {
            if b < 0x20 || b == 0x7F || b == 0x25 {
                out += [0x25, hex[Int(b >> 4)], hex[Int(b & 0xF)]]
            } else {
                out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
