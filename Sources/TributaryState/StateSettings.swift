import TributaryBase
import TributaryOptions
import TributaryPostgres
#if canImport(Glibc)
import Glibc
#endif

/// The `state` section: where the state is kept and for how long, with the options that
/// declare it (the config gathers them).
public enum StateSettings {
    public enum Options {
        public static let path = Option.path("path", "state database (relative to the config file)").documented(default: "$XDG_STATE_HOME/tributary/state.sqlite")
        // Ids still in a feed refresh their last-seen time once a day; a shorter retention
        // would forget them and emit them again.
        public static let retention = Option.duration("retention", atLeast: 86400, "forget ids, validators and removed sources not seen for this long (at least 1d: ids still in a feed are refreshed daily)").defaulted(30 * 86400)
        public static let lockTimeout = Option.duration("lock_timeout", "how long a second run waits for the first to finish, then exits 2").defaulted(30)
        /// A PostgreSQL state instead of the file (Docs/scale-out.md); its password is a secret.
        public static let url = Option<PostgresURL>(
            spec: OptionSpec("url", .string, secret: true, "keep the state in PostgreSQL instead: postgres://user:password@host:port/database (or postgresql://), shared by many workers", rule: { v, _ in
                guard let s = v.stringValue else { return nil }
                return PostgresURL(s) == nil ? "expected \(PostgresURL.expectation), found \"\(Redactor.redactURL(s))\"" : nil
            }),
            read: { v, _ in v.stringValue.flatMap(PostgresURL.init) }, show: { $0.display }, placeholder: { PostgresURL("postgres://localhost")! })
        public static let schema = Option.string("schema", "the PostgreSQL schema of the state's tables (with url)").checked { s in
            PostgresConnection.isPlainIdentifier(s) ? nil : "expected a schema name (letters, digits and _, not starting with a digit, at most 63), found \"\(s)\""
        }.defaulted(PostgresState.defaultSchema)
        public static let lease = Option.duration("lease", atLeast: Leases.minimumDuration, "how long a worker's claim on a source lasts unless renewed (with url)").defaulted(Leases.defaultDuration)
        public static let all: [any OptionDeclaration] = [path, retention, lockTimeout, url, schema, lease]
    }
}

/// `state.url` and `state.schema`: the state in PostgreSQL (Docs/scale-out.md), validated when
/// the config is loaded (nothing connects before `run` or `watch` opens the state).
public struct SharedStateSettings: Sendable {
    public var url: PostgresURL
    public var schema: String

    /// The shared state a `state` object asks for; nil without `url`. A `path` beside `url`, or
    /// a `schema` without it, is reported.
    public static func read(_ state: OptionReader) -> SharedStateSettings? {
        guard let url = state[StateSettings.Options.url] else {
            if state.has(StateSettings.Options.schema) { state.error(StateSettings.Options.schema, "applies to a PostgreSQL state only: set state.url too") }
            return nil
        }
        if state.has(StateSettings.Options.path) {
            state.error(StateSettings.Options.path, "cannot be used with state.url (the state is either a file or a PostgreSQL database)")
        }
        return SharedStateSettings(url: url, schema: state[StateSettings.Options.schema])
    }
}

/// Who runs a source now, when several workers share one state (Docs/scale-out.md). The engine
/// leases a source before running it and renews the lease while it runs; the state decides who
/// gets it (`StateBackend.claimDue`, `lease`, `renewLeases`).
public enum Leases {
    /// `state.lease` when the config does not set it.
    public static let defaultDuration = 120.0
    /// The shortest `state.lease` accepted.
    public static let minimumDuration = 1.0

    /// `<hostname>:<pid>`, this process's name in leases unless `--worker` gives one.
    public static var defaultWorker: String {
        var buf = [UInt8](repeating: 0, count: 256)
        let ok = buf.withUnsafeMutableBufferPointer { b in b.withMemoryRebound(to: CChar.self) { gethostname($0.baseAddress!, 255) } } == 0
        let host = ok ? String(decoding: buf.prefix { $0 != 0 }, as: UTF8.self) : "localhost"
        return "\(host):\(getpid())"
    }

    /// How often a running source's lease is renewed: about a third of its duration, so two
    /// renewals may fail (a slow batch on the delivery thread, a database blip) before it runs out.
    public static func renewInterval(_ lease: Double) -> Double { max(0.2, lease / 3) }
}

