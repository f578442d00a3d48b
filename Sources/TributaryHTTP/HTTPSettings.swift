import TributaryBase
import TributaryOptions

/// Settings shared by every request of one run (config `http` section), with the options that
/// declare them.
public struct HTTPSettings: Sendable, Equatable {
    // The defaults are the options', declared once below.
    public var concurrency: Int = Options.concurrency.defaultValue
    public var perHost: Int = Options.perHost.defaultValue
    /// `per_host` was written in the config: then it bounds a host's HTTP/2 streams too (a
    /// limit set to be gentle with a server), not only its HTTP/1.1 connections.
    public var perHostIsSet = false
    public var userAgent: String = Options.userAgent.defaultValue
    public var maxBody: Int = Options.maxBody.defaultValue
    /// `http.http2`: offer HTTP/2 (over TLS, by ALPN) and multiplex requests to one host on one
    /// connection, when the loaded libcurl can (`CurlLibrary.hasHTTP2`); else HTTP/1.1.
    public var http2: Bool = Options.http2.defaultValue
    /// `http.ca_file`, resolved against the config folder: PEM certificates trusted in addition
    /// to the system's (`CABundle`).
    public var caFile: String?
    /// Redirects followed per request.
    public static let maxRedirects = 5
    public init() {}

    /// The largest `http.concurrency`: one API gateway in front of a thousand sources at 200 or
    /// more in flight is normal. Each transfer holds a socket, so the process needs about this
    /// many file descriptors (`FileDescriptors.ensure`).
    public static let maxConcurrency = 4096

    /// The `http` section's options.
    public enum Options {
        public static let concurrency = Option.integer("concurrency", 1...HTTPSettings.maxConcurrency, "transfers in flight at once, all hosts").defaulted(32)
        public static let perHost = Option.integer("per_host", 1...HTTPSettings.maxConcurrency, "transfers in flight at once per host (at most `concurrency`)").defaulted(6)
        public static let userAgent = Option.string("user_agent", "User-Agent header").defaulted("tributary/" + Tributary.version, shown: "tributary/<version>")
        public static let maxBody = Option.size("max_body", "largest response body accepted (after decompression)").defaulted(16 << 20)
        public static let replay = Option.path("replay", "answer every request from recordings in this folder (relative to the config file)")
        public static let http2 = Option.bool("http2", "offer HTTP/2 over TLS and multiplex the requests to one host on one connection where the server speaks it (false: HTTP/1.1 only)").defaulted(true)
        public static let caFile = Option.path("ca_file", "PEM file of CA certificates trusted in addition to the system's (relative to the config file)")
            .checked { CABundle.problem(readingExtra: $0) }
        public static let all: [any OptionDeclaration] = [concurrency, perHost, userAgent, maxBody, replay, http2, caFile]
    }

    /// The settings an `http` section gives; `per_host` above `concurrency` is reported.
    public static func read(_ r: OptionReader) -> HTTPSettings {
        var http = HTTPSettings()
        http.concurrency = r[Options.concurrency]
        http.perHost = r[Options.perHost]
        if http.perHost > http.concurrency, r.has(Options.perHost) {
            r.error(Options.perHost, "must not exceed http.concurrency (\(http.concurrency)), found \(http.perHost)")
        }
        http.perHost = min(http.perHost, http.concurrency)
        http.perHostIsSet = r.has(Options.perHost)
        http.userAgent = r[Options.userAgent]
        http.maxBody = r[Options.maxBody]
        http.http2 = r[Options.http2]
        http.caFile = r[Options.caFile]
        return http
    }
}
