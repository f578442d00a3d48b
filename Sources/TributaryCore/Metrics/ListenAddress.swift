#if canImport(Glibc)
import Glibc
#endif

/// Where `watch` serves its metrics: an IP literal and a port (0: any free port).
public struct ListenAddress: Sendable, Equatable {
    public var host: String
    public var port: Int
    public static let defaultHost = "127.0.0.1"

    /// `127.0.0.1:9464`, `[::1]:9464`, `:9464` or `9464` (the last two on 127.0.0.1).
    public init?(parsing text: String) {
        var host = Self.defaultHost
        var portText = Substring(text)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            if colon != text.startIndex { host = String(text[..<colon]) }
            portText = text[text.index(after: colon)...]
        }
        guard let port = Int(portText), (0...65535).contains(port), Self.isIPLiteral(host) else { return nil }
        self.host = host
        self.port = port
    }

    static func isIPLiteral(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
