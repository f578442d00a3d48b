import TributaryPluginKit
import TributaryCore

/// The `feed` source and OPML (Docs/configuration.md#opml): `import opml` writes one `feed`
/// source per subscription, `export opml` writes each of its URLs back.
extension WebFeedSource: SubscriptionListing {
    /// Every URL, titled by `title` (else the source's name), with `site_url` and `tags`.
    public var subscriptions: [OPML.Subscription] {
        urls.map { OPML.Subscription(title: title ?? name, xmlURL: $0, htmlURL: siteURL, tags: tags) }
    }

    /// A source's keys after `name` for one subscription of an OPML list.
    public static func configEntry(_ s: OPML.Subscription) -> [(key: String, value: JSONValue)] {
        var entry: [(key: String, value: JSONValue)] = [(key: "type", value: .string(descriptor.type)), (key: "url", value: .string(s.xmlURL))]
        if let t = s.title { entry.append((key: title.spec.name, value: .string(t))) }
        if let h = s.htmlURL, OptionReader.urlProblem(h, fileAllowed: false) == nil { entry.append((key: siteURL.spec.name, value: .string(h))) }
        if !s.tags.isEmpty { entry.append((key: tags.spec.name, value: .array(s.tags.map { .string($0) }))) }
        return entry
    }
}

extension WebFeedSource {
    /// Why an OPML outline's xmlUrl cannot be a `feed` URL (not http(s), or no host), or nil.
    public static func subscriptionProblem(_ url: String) -> String? {
        OptionReader.urlProblem(url, fileAllowed: false) ?? hostProblem(url)
    }
}
