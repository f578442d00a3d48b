import TributaryPluginKit
import TributaryCore

/// Dianping open-API request signing (Docs/contract.md#dianping-signing): the parameters other than `appkey`
/// and `sign`, sorted by key in byte order, are concatenated as key + raw value between the app
/// key and the app secret; `sign` is the upper-case hex SHA-1 (libcrypto) of that string.
public enum DianpingSignature {
    /// The parameters in signing order: by key, comparing UTF-8 bytes (not Unicode collation).
    public static func sorted(_ params: [(String, String)]) -> [(String, String)] {
        params.enumerated().sorted { a, b in
            let ka = Array(a.element.0.utf8), kb = Array(b.element.0.utf8)
            return ka == kb ? a.offset < b.offset : ka.lexicographicallyPrecedes(kb)
        }.map(\.element)
    }

    /// `app_key` + key1value1key2value2... + `app_secret`, with the raw (unescaped) values.
    public static func signString(appKey: String, appSecret: String, params: [(String, String)]) -> String {
        var s = appKey
        for (k, v) in sorted(params) { s += k + v }
        return s + appSecret
    }

    /// Upper-case hex SHA-1 of the sign string.
    public static func sign(appKey: String, appSecret: String, params: [(String, String)]) -> String {
        let text = signString(appKey: appKey, appSecret: appSecret, params: params)
        return Digest.hex(Digest.sha1(Array(text.utf8)), uppercase: true)
    }

    /// `<endpoint>?appkey=<key>&<sorted params, RFC 3986 encoded>&sign=<sign>`.
    public static func signedURL(endpoint: String, appKey: String, appSecret: String, params: [(String, String)]) -> String {
        let pairs = [("appkey", appKey)] + sorted(params) + [("sign", sign(appKey: appKey, appSecret: appSecret, params: params))]
        return URLEncoding.appendQuery(endpoint, pairs)
    }
}
