/// At most `limit` pages in flight per host within one source run (`concurrency_per_host`);
/// the others wait, in the order they came.
actor HostGate {
    let limit: Int
    private var inFlight: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    func enter(_ host: String) async {
        if inFlight[host, default: 0] < limit {
            inFlight[host, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[host, default: []].append($0) }
    }

    func leave(_ host: String) {
        if var queue = waiting[host], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[host] = queue.isEmpty ? nil : queue
            next.resume()  // the slot passes to it
            return
        }
        inFlight[host, default: 1] -= 1
        if inFlight[host] == 0 { inFlight[host] = nil }
    }
}
