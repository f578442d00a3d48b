import TributaryStories

/// The top-level `stories` section (Docs/stories.md): which items tell one story across
/// sources, and what happens to the copies. Declared by its own options; the config gathers
/// them (`ConfigLoader.stories`).
public struct StorySettings: Sendable, Equatable {
    public enum Match: String, Sendable, CaseIterable {
        /// The same canonical URL.
        case url
        /// The same or a near-identical title, published within `within`.
        case title
    }

    public enum Scope: String, Sendable, CaseIterable {
        /// Any two items may tell one story.
        case all
        /// Only items that share a tag.
        case tags
    }

    public enum Action: String, Sendable, CaseIterable {
        /// Only a story's first item is emitted; the later ones are recorded as seen and counted
        /// as `duplicates`.
        case drop
        /// Every item is emitted, with its `story`.
        case tag
    }

    public var match: Set<Match>
    /// Seconds: titles match only between items published at most this far apart.
    public var within: Double
    public var scope: Scope
    public var action: Action

    public init(match: Set<Match> = [.url, .title], within: Double = Options.defaultWithin, scope: Scope = .all, action: Action = .drop) {
        self.match = match
        self.within = within
        self.scope = scope
        self.action = action
    }

    public enum Options {
        public static let defaultWithin = 72.0 * 3600
        public static let match = Option.stringList("match", "what makes two items one story: \"url\" (the same canonical URL) and \"title\" (the same or a near-identical title, published within `within`)")
            .checked { list in
                if list.isEmpty { return "expected at least one of \"url\", \"title\", found an empty list" }
                for (i, m) in list.enumerated() where Match(rawValue: m) == nil {
                    return "[\(i)]: expected \"url\" or \"title\", found \"\(m)\""
                }
                return nil
            }
            .defaulted(["url", "title"], shown: "[\"url\", \"title\"]")
        public static let within = Option.duration("within", atLeast: 1, "titles match only between items published at most this far apart (URLs match whenever they were seen)")
            .defaulted(defaultWithin, shown: "72h")
        public static let scope = Option.choice("scope", Scope.self, "`all`: any two items may tell one story; `tags`: only items that share a tag").defaulted(.all)
        public static let action = Option.choice("action", Action.self, "`drop`: emit a story's first item only (the others are recorded as seen and counted as duplicates); `tag`: emit every item with its story")
            .defaulted(.drop)
        public static let all: [any OptionDeclaration] = [match, within, scope, action]
    }

    /// The section as a config reader holds it (its options checked already).
    public static func read(_ r: OptionReader) -> StorySettings {
        StorySettings(match: Set(r[Options.match].compactMap(Match.init(rawValue:))), within: r[Options.within], scope: r[Options.scope], action: r[Options.action])
    }

    /// What the matcher takes.
    var matcherOptions: StoryOptions {
        StoryOptions(matchURL: match.contains(.url), matchTitle: match.contains(.title), within: Int64(within.rounded()), scope: scope == .tags ? .tags : .all)
    }
}
