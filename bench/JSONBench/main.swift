// JSON layer benchmark: the bench corpus (bench/corpus/, `python3 bench/gen_corpus.py`) parsed
// from memory, and per item the eight fields a YouTube search mapping reads. Reports MB/s per
// round (best and median, of wall and of CPU time), the tape's size per page, and peak RSS.
// Allocation counts and peak heap come from running it under valgrind (bench/json-bench.sh);
// timings are never asserted anywhere.
//
// Run: swift build -c release --product tributary-json-bench
//      .build/release/tributary-json-bench [mode] [--rounds N] [--pages N] [--corpus DIR]
import Foundation
import TributaryCore
import TributaryTestSupport

let modes: [(name: String, about: String)] = [
    ("tape", "JSONDocument + JSONNode on the tape; the eight fields read as Strings"),
    ("tape-write", "JSONDocument; the eight fields appended as JSON text to one reused buffer (no String)"),
    ("tape-parse", "JSONDocument only (the validating pass)"),
    ("tree", "JSONParser.parse (tape, then the JSONValue tree) + JSONNode on the tree"),
    ("recursive", "RecursiveJSONParser (the parser before the tape, now test support) + JSONNode on the tree"),
    ("recursive-parse", "RecursiveJSONParser only"),
    ("load", "nothing after loading the corpus (the baseline for allocation counts)"),
]

var mode = "tape"
var rounds = 5
var pageLimit = Int.max
var corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("corpus").path
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--rounds": rounds = Int(args.popFirst() ?? "") ?? rounds
    case "--pages": pageLimit = Int(args.popFirst() ?? "") ?? pageLimit
    case "--corpus": corpus = args.popFirst() ?? corpus
    case "-h", "--help":
        print("usage: tributary-json-bench [mode] [--rounds N] [--pages N] [--corpus DIR]\nmodes:")
        for m in modes { print("  \(m.name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(m.about)") }
        exit(0)
    default:
        guard modes.contains(where: { $0.name == a }) else { FileHandle.standardError.write(Data("unknown mode \(a)\n".utf8)); exit(2) }
        mode = a
    }
}

// MARK: Corpus

let names = ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
guard !names.isEmpty else {
    FileHandle.standardError.write(Data("no pages in \(corpus); run python3 bench/gen_corpus.py\n".utf8))
    exit(2)
}
let pages: [[UInt8]] = names.prefix(pageLimit).map { [UInt8](FileManager.default.contents(atPath: corpus + "/" + $0) ?? Data()) }
let totalBytes = pages.reduce(0) { $0 + $1.count }

// MARK: The work per page

struct Failure: Error { let text: String }

/// Reads the eight fields of every item; returns items seen and the UTF-8 bytes read (a checksum
/// that keeps the work observable).
func mapTape(_ doc: JSONDocument) throws -> (Int, Int) {
    var items = 0
    var bytes = 0
    for item in try doc.root()[key: "items"].elements() {
        let id = item[key: "id"]
        let snippet = item[key: "snippet"]
        bytes += try id[key: "videoId"].string().utf8.count
        bytes += try snippet[key: "title"].string().utf8.count
        bytes += try snippet[key: "description"].string().utf8.count
        bytes += try snippet[key: "publishedAt"].string().utf8.count
        bytes += try snippet[key: "channelTitle"].string().utf8.count
        bytes += try snippet[key: "thumbnails"][key: "high"][key: "url"].string().utf8.count
        bytes += try snippet[key: "channelId"].string().utf8.count
        bytes += try snippet[key: "liveBroadcastContent"].string().utf8.count
        items += 1
    }
    return (items, bytes)
}

/// The same fields copied as JSON text into `out`, the way a writer working from the tape would.
func writeTape(_ doc: JSONDocument, _ out: inout [UInt8]) throws -> (Int, Int) {
    var items = 0
    out.removeAll(keepingCapacity: true)
    for item in try doc.root()[key: "items"].elements() {
        let id = item[key: "id"]
        let snippet = item[key: "snippet"]
        try id[key: "videoId"].appendJSONString(to: &out)
        try snippet[key: "title"].appendJSONString(to: &out)
        try snippet[key: "description"].appendJSONString(to: &out)
        try snippet[key: "publishedAt"].appendJSONString(to: &out)
        try snippet[key: "channelTitle"].appendJSONString(to: &out)
        try snippet[key: "thumbnails"][key: "high"][key: "url"].appendJSONString(to: &out)
        try snippet[key: "channelId"].appendJSONString(to: &out)
        try snippet[key: "liveBroadcastContent"].appendJSONString(to: &out)
        items += 1
    }
    return (items, out.count)
}

/// The same fields through a node on a JSONValue tree (the API callers used before the tape).
func mapTree(_ value: JSONValue) throws -> (Int, Int) {
    var items = 0
    var bytes = 0
    for item in try JSONNode(value)[key: "items"].array() {
        let id = item[key: "id"]
        let snippet = item[key: "snippet"]
        bytes += try id[key: "videoId"].string().utf8.count
        bytes += try snippet[key: "title"].string().utf8.count
        bytes += try snippet[key: "description"].string().utf8.count
        bytes += try snippet[key: "publishedAt"].string().utf8.count
        bytes += try snippet[key: "channelTitle"].string().utf8.count
        bytes += try snippet[key: "thumbnails"][key: "high"][key: "url"].string().utf8.count
        bytes += try snippet[key: "channelId"].string().utf8.count
        bytes += try snippet[key: "liveBroadcastContent"].string().utf8.count
        items += 1
    }
    return (items, bytes)
}

var scratch: [UInt8] = []
scratch.reserveCapacity(1 << 16)

/// Tape bytes of every page (first round), for the memory line of the tape modes.
var tapeBytes = 0
var measureTape = true

@MainActor func parseDocument(_ page: [UInt8]) throws -> JSONDocument {
    let doc = try JSONDocument(page)
    if measureTape { tapeBytes += doc.tapeBytes }
    return doc
}

@MainActor func run(_ page: [UInt8]) throws -> (Int, Int) {
    switch mode {
    case "tape": return try mapTape(parseDocument(page))
    case "tape-write": return try writeTape(parseDocument(page), &scratch)
    case "tape-parse": return (0, try parseDocument(page).valueCount)
    case "tree": return try mapTree(JSONParser.parse(page))
    case "recursive": return try mapTree(RecursiveJSONParser.parse(page))
    case "recursive-parse":
        if case .object(let o) = try RecursiveJSONParser.parse(page) { return (0, o.count) }
        return (0, 0)
    default: return (0, page.count)
    }
}

// MARK: Rounds

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
/// CPU time of this process: what the work cost even when other processes share the cores.
func cpuNow() -> UInt64 {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
}
var rates: [Double] = []
var cpuRates: [Double] = []
var items = 0
var checksum = 0
do {
    for _ in 0..<max(rounds, 1) {
        items = 0
        checksum = 0
        let start = now()
        let cpuStart = cpuNow()
        for page in pages {
            let (n, c) = try run(page)
            items += n
            checksum &+= c
        }
        measureTape = false
        let seconds = Double(now() - start) / 1e9
        rates.append(Double(totalBytes) / 1e6 / seconds)
        cpuRates.append(Double(totalBytes) / 1e6 / (Double(cpuNow() - cpuStart) / 1e9))
    }
} catch {
    FileHandle.standardError.write(Data("\(mode): \(error)\n".utf8))
    exit(1)
}

let sorted = rates.sorted()
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)
let avgPage = Double(totalBytes) / Double(pages.count)
print(String(format: "%@: %d pages, %.1f MB, %d items, checksum %d", mode, pages.count, Double(totalBytes) / 1e6, items, checksum))
let cpuSorted = cpuRates.sorted()
print(String(format: "  MB/s of wall time: best %.0f  median %.0f  (%d rounds: %@)", sorted.last!, sorted[sorted.count / 2], rates.count,
             rates.map { String(format: "%.0f", $0) }.joined(separator: " ")))
print(String(format: "  MB/s of CPU time:  best %.0f  median %.0f  (%@)", cpuSorted.last!, cpuSorted[cpuSorted.count / 2],
             cpuRates.map { String(format: "%.0f", $0) }.joined(separator: " ")))
if tapeBytes > 0 {
    let kept = Double(tapeBytes) / Double(pages.count)
    print(String(format: "  tape per page: %.1f KB (%.2fx the page's %.1f KB)", kept / 1024, kept / avgPage, avgPage / 1024))
}
print(String(format: "  peak RSS %.0f MiB (the corpus itself is %.0f MiB)", Double(usage.ru_maxrss) / 1024, Double(totalBytes) / 1048576))
