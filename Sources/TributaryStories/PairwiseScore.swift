// Pairwise precision and recall of a clustering against true labels: the measure the story
// corpus is judged by (Tests/TributaryStoriesTests, bench/StoriesBench, bench/stories_peers.py).
// A pair of items is predicted together when both got one story, truly together when both
// carry one label.

public struct PairwiseScore: Sendable, Equatable, CustomStringConvertible {
    /// Pairs together in both.
    public var truePairs = 0
    /// Pairs predicted together.
    public var predictedPairs = 0
    /// Pairs truly together.
    public var actualPairs = 0

    /// `truth[i]` and `predicted[i]` label item i.
    public init<T: Hashable, P: Hashable>(truth: [T], predicted: [P]) {
        precondition(truth.count == predicted.count)
        var both: [Pair<T, P>: Int] = [:]
        var byTruth: [T: Int] = [:]
        var byPrediction: [P: Int] = [:]
        for (t, p) in zip(truth, predicted) {
            both[Pair(t: t, p: p), default: 0] += 1
            byTruth[t, default: 0] += 1
            byPrediction[p, default: 0] += 1
        }
        truePairs = both.values.reduce(0) { $0 + $1 * ($1 - 1) / 2 }
        actualPairs = byTruth.values.reduce(0) { $0 + $1 * ($1 - 1) / 2 }
        predictedPairs = byPrediction.values.reduce(0) { $0 + $1 * ($1 - 1) / 2 }
    }

    struct Pair<T: Hashable, P: Hashable>: Hashable {
        var t: T
        var p: P
    }

    /// Of the pairs put together, the share that truly are (1 when none were).
    public var precision: Double { predictedPairs == 0 ? 1 : Double(truePairs) / Double(predictedPairs) }
    /// Of the pairs truly together, the share put together (1 when there are none).
    public var recall: Double { actualPairs == 0 ? 1 : Double(truePairs) / Double(actualPairs) }
    public var f1: Double { precision + recall == 0 ? 0 : 2 * precision * recall / (precision + recall) }

    public var description: String {
        func f(_ x: Double) -> String {
            let v = Int((x * 10000).rounded())
            return "\(v / 10000).\(String(repeating: "0", count: 4 - String(v % 10000).count))\(v % 10000)"
        }
        return "precision \(f(precision)) (\(truePairs)/\(predictedPairs) pairs), recall \(f(recall)) (\(truePairs)/\(actualPairs) pairs)"
    }
}
