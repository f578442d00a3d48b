/// `state.url` and `state.schema`: the state in PostgreSQL (Docs/scale-out.md), validated when
/// the config is loaded (nothing connects before `run` or `watch` opens the state).
public struct SharedStateSettings: Sendable {
    public var url: PostgresURL
    public var schema: String

    /// Reads `url`, `schema` and checks `lease` of a `state` object; nil without `url` or when an
    /// error was reported.
    static func read(_ state: OptionReader) -> SharedStateSettings? {
        if let lease = state.duration("lease"), lease < Leases.minimumDuration {
            state.error("lease", "must be at least 1s, found \(Durations.format(lease))")
        }
        let schema = state.string("schema") ?? PostgresState.defaultSchema
        if !PostgresConnection.isPlainIdentifier(schema) {
            state.error("schema", "expected a schema name (letters, digits and _, not starting with a digit, at most 63), found \"\(schema)\"")
        }
        guard let text = state.string("url") else {
            if state.has("schema") { state.error("schema", "applies to a PostgreSQL state only: set state.url too") }
            return nil
        }
        guard let url = PostgresURL(text) else {
            state.error("url", "expected \(PostgresURL.expectation), found \"\(Redactor.redactURL(text))\"")
            return nil
        }
        if state.has("path") { state.error("path", "cannot be used with state.url (the state is either a file or a PostgreSQL database)") }
        return SharedStateSettings(url: url, schema: schema)
    }
}
