/// Whether a source is stale: what `tributary status` shows and `tributary_source_stale` exports.
public enum Staleness {
    /// Stale: `expect_new_within` is set and the source's last new item (or, when it never had
    /// one, its first record) is older than that. A source state has never seen is not stale.
    public static func isStale(expectNewWithin limit: Double?, _ state: SourceState?, now: Double) -> Bool {
        guard let limit, let since = state?.lastNew ?? state?.firstRecorded else { return false }
        return now - since > limit
    }
}
