import TributaryBase

/// A source's `proxy`: the URL of the proxy all its requests go through (libcurl's
/// `CURLOPT_PROXY`). Schemes: `http://` (a plain HTTP proxy: `GET http://...` for http URLs,
/// `CONNECT` for https ones), `https://` (the same over TLS to the proxy), `socks5://` (the
/// proxy gets an address this process resolved) and `socks5h://` (the proxy resolves the
/// name). A user and password in it (`http://user:pass@proxy:3128`) are secrets: registered
/// with `Secrets` when the config is loaded, so they are scrubbed from every output.
public enum ProxyURL {
    public static let schemes = ["http", "https", "socks5", "socks5h"]

    /// What is wrong with `url` as a proxy, or nil.
    public static func problem(_ url: String) -> String? {
        let expected = "expected a proxy URL such as \"http://proxy.example:3128\" (scheme http, https, socks5 or socks5h, then a host)"
        let shown = Redactor.redactURL(url)
        guard let sep = url.firstRange(of: "://") else { return "\(expected), found \"\(shown)\"" }
        let scheme = url[..<sep.lowerBound].lowercased()
        guard schemes.contains(scheme) else { return "\(expected), found the scheme \"\(scheme)\" in \"\(shown)\"" }
        var authority = url[sep.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        let host = authority.hasPrefix("[") ? authority.prefix { $0 != "]" }.dropFirst() : authority.prefix { $0 != ":" }
        if host.isEmpty || host.contains(where: { $0 == " " || $0 == "\t" }) { return "\(expected), found \"\(shown)\"" }
        let rest = url[sep.upperBound...].drop { $0 != "/" && $0 != "?" && $0 != "#" }
        if !(rest.isEmpty || rest == "/") { return "expected a proxy URL without a path, query or fragment, found \"\(shown)\"" }
        return nil
    }

    /// Registers the credentials of `url` (`user:pass@`) as secrets: the password, and the
    /// user and password together, each as written and percent-decoded.
    public static func registerCredentials(_ url: String) {
        guard let sep = url.firstRange(of: "://") else { return }
        let authority = url[sep.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard let at = authority.lastIndex(of: "@") else { return }
        let info = String(authority[..<at])
        Secrets.register(info)
        if let decoded = info.percentDecoded { Secrets.register(decoded) }
        if let colon = info.firstIndex(of: ":") {
            let password = String(info[info.index(after: colon)...])
            Secrets.register(password)
            if let decoded = password.percentDecoded { Secrets.register(decoded) }
        }
    }
}
