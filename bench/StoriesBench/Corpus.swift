import Foundation
import TributaryStories

/// One labelled item of Tests/Fixtures/stories/corpus.json.
struct CorpusItem {
    var id: String
    var source: String
    var url: String?
    var title: String
    var published: Int64?
    var fetched: Int64
    var tags: [String]
    var truth: String
    var family: String?
    var edit: String
}

enum Corpus {
    static func load(_ path: String) throws -> [CorpusItem] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let doc = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return (doc["items"] as! [[String: Any]]).map { o in
            CorpusItem(id: o["id"] as! String, source: o["source"] as! String, url: o["url"] as? String, title: o["title"] as! String,
                       published: (o["published"] as? String).flatMap(rfc3339), fetched: rfc3339(o["fetched"] as! String)!,
                       tags: o["tags"] as? [String] ?? [], truth: o["truth"] as! String, family: o["family"] as? String,
                       edit: o["edit"] as? String ?? "same")
        }
    }

    /// `2026-05-04T10:00:00Z` -> seconds since 1970.
    static func rfc3339(_ s: String) -> Int64? {
        let p = s.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int64($0) }
        guard p.count == 6 else { return nil }
        let (y, m, d) = (p[0], p[1], p[2])
        let yy = m <= 2 ? y - 1 : y
        let era = yy / 400
        let yoe = yy - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86400 + p[3] * 3600 + p[4] * 60 + p[5]
    }

    /// The story of each item, items taken in the order they were fetched.
    static func assign(_ items: [CorpusItem], options: StoryOptions) -> [StoryAssignment] {
        let matcher = StoryMatcher(options: options, store: InMemoryStoryStore(retention: 30 * 86400))
        return items.map { i in
            matcher.assign(StoryItem(id: i.id, url: i.url, title: i.title, published: i.published, tags: i.tags, source: i.source), now: i.fetched)
        }
    }
}

extension Corpus {
    /// Every pair of items with different URLs, published within the window, that no rule
    /// forbids: their similarity and whether they truly are one story.
    static func pairTable(_ items: [CorpusItem], within: Int64 = 72 * 3600) {
        let sigs = items.map { i -> (TitleSignature, UInt64, UInt32) in
            let c = i.url.flatMap { URLCanonicalizer.canonicalize($0) }
            return (TitleAnalyzer.signature(i.title, host: c?.host), c?.hash ?? 0, c?.hostHash ?? 0)
        }
        var rows: [String: (t: Int, f: Int)] = [:]
        var blocked = (t: 0, f: 0)
        for a in 0..<items.count {
            for b in (a + 1)..<items.count {
                let pa = items[a].published ?? items[a].fetched, pb = items[b].published ?? items[b].fetched
                guard abs(pa - pb) <= within, sigs[a].1 != sigs[b].1 else { continue }
                let same = items[a].truth == items[b].truth
                if sigs[a].0.count < 3 || sigs[b].0.count < 3 { continue }
                if sigs[a].2 == sigs[b].2 || items[a].source == items[b].source { continue }
                let c = TitleComparison(sigs[a].0, sigs[b].0)
                if c.shared == 0 { continue }
                if c.differentNumber || c.differentName {
                    if same { blocked.t += 1 } else { blocked.f += 1 }
                    continue
                }
                if c.jaccard >= 0.35 && c.jaccard < 0.6 && ProcessInfo.processInfo.environment["BAND"] != nil {
                    print("BAND \(same ? "SAME" : "DIFF") J \(Int(c.jaccard * 100)) gap \(abs(pa - pb) / 3600)h  \(items[a].title)  ||  \(items[b].title)")
                }
                let jb = Int(c.jaccard * 10), cb = Int(c.containment * 10)
                let key = "J\(jb) C\(cb) A\(min(c.sharedAnchors, 3))"
                var r = rows[key] ?? (0, 0)
                if same { r.t += 1 } else { r.f += 1 }
                rows[key] = r
            }
        }
        print("blocked by number/name rules: true \(blocked.t) false \(blocked.f)")
        for (k, v) in rows.sorted(by: { $0.key < $1.key }) where v.t + v.f > 0 { print("\(k)  same \(v.t)  different \(v.f)") }
    }
}

/// Returns every record for any keys: the matcher's verification without the index's choice
/// of candidates (what the MinHash bands miss shows as the difference).
final class AllRecordsStore: StoryStore {
    var records: [StoryRecord] = []
    func candidates(keys: [UInt64], _ visit: (UnsafePointer<StoryRecord>) -> Void) {
        records.withUnsafeBufferPointer { for k in $0.indices { visit($0.baseAddress! + k) } }
    }
    func insert(_ record: StoryRecord, keys: [UInt64]) { records.append(record) }
}

extension Corpus {
    static func assignBrute(_ items: [CorpusItem], options: StoryOptions) -> [StoryAssignment] {
        let matcher = StoryMatcher(options: options, store: AllRecordsStore())
        return items.map { i in
            matcher.assign(StoryItem(id: i.id, url: i.url, title: i.title, published: i.published, tags: i.tags, source: i.source), now: i.fetched)
        }
    }
}

extension Corpus {
    /// For every pair of items that truly are one story and have different canonical URLs: the
    /// first rule that keeps them apart.
    static func whyApart(_ items: [CorpusItem], options: StoryOptions = StoryOptions(), show: String? = nil) {
        let info = items.map { i -> (TitleSignature, UInt64, UInt32) in
            let c = i.url.flatMap { URLCanonicalizer.canonicalize($0) }
            return (TitleAnalyzer.signature(i.title, host: c?.host), c?.hash ?? 0, c?.hostHash ?? 0)
        }
        var reasons: [String: Int] = [:]
        for a in 0..<items.count {
            for b in (a + 1)..<items.count where items[a].truth == items[b].truth && info[a].1 != info[b].1 {
                let pa = items[a].published ?? items[a].fetched, pb = items[b].published ?? items[b].fetched
                let c = TitleComparison(info[a].0, info[b].0)
                let needed = min(abs(pa - pb) <= options.soon ? options.jaccardSoon : options.jaccard, c.sameSpecificNumbers ? options.jaccardSameNumbers : 1)
                let reason: String
                if abs(pa - pb) > options.within { reason = "time" }
                else if info[a].2 == info[b].2 || items[a].source == items[b].source { reason = "same site" }
                else if info[a].0.count < options.minimumTokens || info[b].0.count < options.minimumTokens { reason = "few tokens" }
                else if c.differentNumber { reason = "number" }
                else if c.differentName { reason = "name" }
                else if c.differentForm { reason = "form" }
                else if c.jaccard < needed && !(min(c.countA, c.countB) >= options.containmentTokens && c.containment >= options.containment) {
                    reason = "similarity"
                } else { reason = "ok" }
                reasons[reason, default: 0] += 1
                if reason == show && (ProcessInfo.processInfo.environment["EDIT"] == nil || items[a].edit == ProcessInfo.processInfo.environment["EDIT"] || items[b].edit == ProcessInfo.processInfo.environment["EDIT"]) {
                    print("\(Int(c.jaccard * 100)) n\(c.sharedSpecificNumbers) gap\(abs(pa - pb) / 3600)h  \(items[a].title)  ||  \(items[b].title)")
                }
            }
        }
        for (k, v) in reasons.sorted(by: { $0.value > $1.value }) { print("\(k): \(v)") }
    }
}
