import TributaryCore

/// Fetches one item per place, all places at once, and keeps the places' order. One failing
/// place fails only itself: the others' items are returned as the partial result of a
/// `SourceError` that lists every failed place's reason.
enum PlaceFanOut {
    static func items<Place: Sendable>(
        for places: [Place],
        _ fetchOne: @escaping @Sendable (Place) async throws(SourceError) -> Item
    ) async throws(SourceError) -> [Item] {
        let results = await withTaskGroup(of: (Int, Result<Item, SourceError>).self) { group in
            for (index, place) in places.enumerated() {
                group.addTask {
                    // The awaited value is bound to a `let` before the tuple is built: see
                    // Tests/CompilerBugs/tuple-await-dse (Swift 6.3.1 -O drops `index` otherwise).
                    let result: Result<Item, SourceError>
                    do throws(SourceError) {
                        let item = try await fetchOne(place)
                        result = .success(item)
                    } catch {
                        result = .failure(error)
                    }
                    return (index, result)
                }
            }
            var ordered = [Result<Item, SourceError>?](repeating: nil, count: places.count)
            for await (index, result) in group { ordered[index] = result }
            return ordered.compactMap { $0 }
        }
        var items: [Item] = []
        var reasons: [String] = []
        for result in results {
            switch result {
            case .success(let item): items.append(item)
            case .failure(let error): reasons.append(error.message)
            }
        }
        guard !reasons.isEmpty else { return items }
        if places.count == 1 { throw SourceError(reasons[0]) }
        throw SourceError("\(reasons.count) of \(places.count) places failed: " + reasons.joined(separator: "; "), partial: items)
    }
}
