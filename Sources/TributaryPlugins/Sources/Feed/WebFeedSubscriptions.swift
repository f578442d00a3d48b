import TributaryPluginKit
import TributaryCore

/// The `feed` source and OPML (Docs/configuration.md#opml): `import opml` writes one `feed`
/// source per subscription, `export opml` writes each of its URLs back.
extension WebFeedSource: SubscriptionListing {
    /// Every URL, titled by `title` (else the source's name), with `site_url` and `tags`.
    public var subscriptions: [OPML.Subscription] {
        urls.map { OPML.Subscription(title: title ?? name, xmlURL: $0, htmlURL: siteURL, tags: tags) }
    }

    /// The same from the source's config object as written: `${VAR}` kept as a reference (the
    /// environment's values never go into a list for other programs), `$${` read as `${`.
    public func subscriptions(written: JSONObject) -> [OPML.Subscription] {
        func text(_ key: String) -> String? { written[key]?.stringValue.map(Environment.unescaped) }
        func list(_ key: String) -> [String] { written[key].flatMap(OptionReader.strings)?.map(Environment.unescaped) ?? [] }
        let urls = (text(Self.url.spec.name).map { [$0] } ?? []) + list(Self.urls.spec.name)
        let title = text(Self.title.spec.name) ?? name
        let site = text(Self.siteURL.spec.name)
        let tags = list(Self.tags.spec.name)
        return urls.map { OPML.Subscription(title: title, xmlURL: $0, htmlURL: site, tags: tags) }
    }

    /// A source's keys after `name` for one subscription of an OPML list. Every text from the
    /// list is written escaped (`$${`): a `${VAR}` in a shared list's URL or title is its text,
    /// never filled in from the environment of whoever runs the config.
    public static func configEntry(_ s: OPML.Subscription) -> [(key: String, value: JSONValue)] {
        func text(_ t: String) -> JSONValue { .string(Environment.escaped(t)) }
        var entry: [(key: String, value: JSONValue)] = [(key: "type", value: .string(descriptor.type)), (key: "url", value: text(s.xmlURL))]
        if let t = s.title { entry.append((key: title.spec.name, value: text(t))) }
        if let h = s.htmlURL, OptionReader.urlProblem(h, fileAllowed: false) == nil { entry.append((key: siteURL.spec.name, value: text(h))) }
        if !s.tags.isEmpty { entry.append((key: tags.spec.name, value: .array(s.tags.map(text)))) }
        return entry
    }
}

extension WebFeedSource {
    /// Why an OPML outline's xmlUrl cannot be a `feed` URL (not http(s), or no host), or nil.
    public static func subscriptionProblem(_ url: String) -> String? {
        OptionReader.urlProblem(url, fileAllowed: false) ?? hostProblem(url)
    }
}
