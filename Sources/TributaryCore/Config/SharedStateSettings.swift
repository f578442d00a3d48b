/// `state.url` and `state.schema`: the state in PostgreSQL (Docs/scale-out.md), validated when
/// the config is loaded (nothing connects before `run` or `watch` opens the state).
public struct SharedStateSettings: Sendable {
    public var url: PostgresURL
    public var schema: String

    /// The shared state a `state` object asks for; nil without `url`. A `path` beside `url`, or
    /// a `schema` without it, is reported.
    static func read(_ state: OptionReader) -> SharedStateSettings? {
        guard let url = state[CommonOptions.State.url] else {
            if state.has(CommonOptions.State.schema) { state.error(CommonOptions.State.schema, "applies to a PostgreSQL state only: set state.url too") }
            return nil
        }
        if state.has(CommonOptions.State.path) {
            state.error(CommonOptions.State.path, "cannot be used with state.url (the state is either a file or a PostgreSQL database)")
        }
        return SharedStateSettings(url: url, schema: state[CommonOptions.State.schema])
    }
}
