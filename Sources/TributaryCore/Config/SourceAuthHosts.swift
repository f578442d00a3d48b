#if canImport(Glibc)
import Glibc
#endif

/// The hosts a source's `auth` is sent to: those of the URLs its config names.
///
/// Contract: the host (host and port, `URLEncoding.hostKey`) of every `http(s)://` value of
/// the source type's URL options (`url`, `base_url`, `streams_url`, ...: kind `.url`), with
/// the option's default where the key is absent (an API source's `base_url`); of every
/// `http(s)://` string in its string-list options (`urls`); and the entries of a
/// `trusted_hosts` list (a json source's `pagination.trusted_hosts`), at any depth of nested
/// option objects. Nothing else: header values, query values, item fields and processors'
/// options are not read.
enum SourceAuthHosts {
    static func of(_ object: JSONObject, specs: [OptionSpec]) -> Set<String> {
        var hosts = Set<String>()
        func web(_ s: String) -> Bool {
            let p = s.prefix(8).lowercased()
            return p.hasPrefix("http://") || p.hasPrefix("https://")
        }
        for spec in specs {
            let value = object[spec.name]
            switch spec.kind {
            case .url:
                if let s = value?.stringValue ?? (spec.defaultIsValue ? spec.defaultText : nil), web(s) { hosts.insert(URLEncoding.hostKey(s)) }
            case .stringList, .stringOrList:
                let strings = value?.arrayValue?.compactMap(\.stringValue) ?? value?.stringValue.map { [$0] } ?? []
                if spec.name == "trusted_hosts" {
                    for h in strings { hosts.insert(h.lowercased()) }
                } else {
                    for s in strings where web(s) { hosts.insert(URLEncoding.hostKey(s)) }
                }
            case .object(let sub):
                if let inner = value?.objectValue { hosts.formUnion(of(inner, specs: sub)) }
            default:
                break
            }
        }
        return hosts
    }
}
