import TributaryCore
import TributaryPluginKit

/// `import opml FILE` and `export opml`: the feed source's subscription lists, as the registry's
/// `opml` format.
enum OPMLFormat {
    static let format = SubscriptionFormat(name: "opml", importList: importList, exportList: exportList)

    /// A config with one `feed` source per subscription.
    static func importList(_ path: String) -> Result<SubscriptionFormat.Outcome, ConfigError> {
        let document: OPML.Document
        do { document = try OPML.read(path: path) } catch {
            return .failure(ConfigError(messages: ["\(path): \(error)"]))
        }
        var warnings: [String] = []
        var usable = document
        usable.subscriptions = []
        for s in document.subscriptions {
            if let problem = WebFeedSource.subscriptionProblem(s.xmlURL) {
                warnings.append("warning: \(path): skipped \"\(s.title ?? OptionReader.shownURL(s.xmlURL))\": xmlUrl: \(problem)")
            } else {
                usable.subscriptions.append(s)
            }
        }
        guard !usable.subscriptions.isEmpty else {
            return .failure(ConfigError(messages: ["\(path): no outline has an http(s) xmlUrl; nothing to import"]))
        }
        let comment = "Imported by `tributary import opml` from \(path)" + (document.title.map { " (\($0))" } ?? "") + ". No sinks: items go to stdout until you add some."
        return .success(SubscriptionFormat.Outcome(document: OPML.config(usable, comment: comment, entry: WebFeedSource.configEntry), warnings: warnings))
    }

    /// The config's `feed` sources as OPML 2.0. The list is for other programs and people, so it
    /// holds no secret: texts as the config writes them (`${VAR}`, not the environment's value),
    /// and no credentials (a URL's user and password, secret query parameters), each left out
    /// with a warning naming the source.
    static func exportList(_ config: Config) -> SubscriptionFormat.Outcome {
        var warnings: [String] = []
        var subscriptions: [OPML.Subscription] = []
        for s in config.sources {
            guard let listing = s.source as? any SubscriptionListing else { continue }
            if let note = s.unresolved.first {
                warnings.append("warning: \(note); source \"\(s.settings.name)\" left out")
                continue
            }
            var removed: [String] = []
            for var sub in s.written.map(listing.subscriptions(written:)) ?? listing.subscriptions {
                let feed = Redactor.withoutCredentials(sub.xmlURL)
                sub.xmlURL = feed.url
                removed += feed.removed.filter { !removed.contains($0) }
                if let html = sub.htmlURL {
                    let site = Redactor.withoutCredentials(html)
                    sub.htmlURL = site.url
                    removed += site.removed.map { $0 + " of site_url" }.filter { !removed.contains($0) }
                }
                subscriptions.append(sub)
            }
            if !removed.isEmpty {
                warnings.append("warning: \(config.file): source \"\(s.settings.name)\": left out \(removed.joined(separator: ", ")): credentials are not exported (give them to the feed reader yourself)")
            }
        }
        if subscriptions.isEmpty { warnings.append("warning: \(config.file): no feed sources; the list is empty") }
        let name = config.file.split(separator: "/").last.map(String.init) ?? config.file
        return SubscriptionFormat.Outcome(document: Array(OPML.write(title: "Tributary: \(name)", subscriptions: subscriptions).utf8), warnings: warnings)
    }
}
