import TributaryCore

/// What both weather source types do with their places: one request per place, at most
/// `context.parallelism` at once; the items are delivered in the order of the places in the
/// config, each as soon as the places before it are done, and one failing place fails only
/// itself (a source of one place fails with that place's error, of several with a summary).
/// A source's `fetch` is this, given how to ask about a place (`url`), how its API says why it
/// failed (`apiError`) and how an answer becomes its item (`item`).
package enum PlaceFetch {
    package static func run<Place: Sendable>(
        _ places: [Place], _ context: FetchContext, url: @escaping @Sendable (Place) -> String, apiError: APIErrorShape,
        item: @escaping @Sendable (_ root: JSONNode, _ place: Place, _ context: FetchContext) throws(JSONAccessError) -> Item
    ) async throws(SourceError) {
        let failures = try await FanOut.runOrdered(places, limit: context.parallelism, emit: { items throws(SourceError) in try await context.emit(items) }) { place throws(SourceError) in
            let item = try await fetch(place, context, url: url(place), apiError: apiError, item: item)
            return [item]
        }
        guard let first = failures.first else { return }
        if places.count == 1 { throw first.error }
        throw SourceError(FanOut.summary(failures.map(\.error.message), of: places.count, noun: "places"))
    }

    package static func fetch<Place: Sendable>(
        _ place: Place, _ context: FetchContext, url: String, apiError: APIErrorShape,
        item: @Sendable (JSONNode, Place, FetchContext) throws(JSONAccessError) -> Item
    ) async throws(SourceError) -> Item {
        let root = try await context.getJSON(HTTPRequest(url: url), apiError: apiError)
        do {
            return try item(root, place, context)
        } catch {
            throw SourceError("GET \(Redactor.redactURL(url)): \(error)")
        }
    }
}
