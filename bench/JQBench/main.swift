// jq in process (TributaryJQ over libjq) beside the jq command (`jq -c`), the same programs on
// the same item lines, in one run: µs per item, wall and CPU, medians of the rounds. The
// outputs of both are compared byte for byte before anything is timed.
//
// Item lines: what `tributary run --jsonl` writes for the decode corpus (bench/corpus/, made
// by `python3 bench/gen_corpus.py`), made here with the jq peer's mapping (bench/map.jq, the
// same shape: 11 fields, about 440 bytes), or `--items FILE` (JSON Lines); `--wide` adds to
// each item's `data` every leaf of its search result and page (about 40 fields in all).
//
// Run: swift build -c release --product tributary-jq-bench
//      .build/release/tributary-jq-bench [--rounds N] [--items FILE | --pages N] [--wide] [--threads N]
import Foundation
import TributaryJQ

var rounds = 3
var pageLimit = 2000
var itemsFile: String?
var wide = false
var threads = 2
var only: String?
var commandToo = true
var corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("corpus").path
let benchDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--rounds": rounds = Int(args.popFirst() ?? "") ?? rounds
    case "--pages": pageLimit = Int(args.popFirst() ?? "") ?? pageLimit
    case "--items": itemsFile = args.popFirst()
    case "--corpus": corpus = args.popFirst() ?? corpus
    case "--threads": threads = Int(args.popFirst() ?? "") ?? threads
    case "--only": only = args.popFirst()
    case "--wide": wide = true
    case "--no-command": commandToo = false  // only in process (for profiling)
    default:
        FileHandle.standardError.write(Data("usage: tributary-jq-bench [--rounds N] [--items FILE | --pages N --corpus DIR] [--wide] [--threads N] [--only NAME]\n".utf8))
        exit(2)
    }
}

let programs: [(name: String, text: String)] = [
    ("identity", "."),
    ("rename", ".data.channel = .data.channel_id | del(.data.channel_id)"),
    ("upcase", ".title |= ascii_upcase"),
    ("select+construct", #"select(.data.live_broadcast_content == "none") | {id, title, url: .image, author, published, tags: [.kind, .source]}"#),
].filter { only == nil || $0.name == only }

// MARK: Item lines

/// Runs `argv` with stdin from `input` (a file) and stdout to `output` (a file); wall seconds
/// and the child's CPU seconds.
@discardableResult
func spawn(_ argv: [String], stdin input: String?, stdout output: String) -> (wall: Double, cpu: Double, status: Int32) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = argv
    if let input { p.standardInput = FileHandle(forReadingAtPath: input) }
    _ = FileManager.default.createFile(atPath: output, contents: nil)
    p.standardOutput = FileHandle(forWritingAtPath: output)
    var before = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &before)
    let start = DispatchTime.now()
    try! p.run()
    p.waitUntilExit()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    var after = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &after)
    return (wall, seconds(after) - seconds(before), p.terminationStatus)
}

func seconds(_ r: rusage) -> Double {
    Double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + Double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6
}

func cpuNow() -> Double {
    var r = rusage()
    getrusage(RUSAGE_SELF.rawValue, &r)
    return seconds(r)
}

let work = NSTemporaryDirectory() + "tributary-jq-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }
let linesPath: String
if let itemsFile {
    linesPath = itemsFile
} else {
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: corpus)) ?? []).filter { $0.hasSuffix(".json") }.sorted().prefix(pageLimit)
    guard !names.isEmpty else {
        FileHandle.standardError.write(Data("no pages in \(corpus); run python3 bench/gen_corpus.py, or give --items FILE\n".utf8))
        exit(2)
    }
    let pages = work + "/pages.json"
    _ = FileManager.default.createFile(atPath: pages, contents: nil)
    let h = FileHandle(forWritingAtPath: pages)!
    for n in names { h.write(FileManager.default.contents(atPath: corpus + "/" + n)!) }
    h.closeFile()
    linesPath = work + "/items.jsonl"
    var mapping = try String(contentsOfFile: benchDir + "/map.jq", encoding: .utf8)
    if wide {
        // Every leaf of the search result and of its page, flattened into `data`.
        let leaves = #"[paths(scalars) as $p | {key: ($p | map(tostring) | join("_")), value: getpath($p)}]"#
        mapping = mapping
            .replacingOccurrences(of: ".items[]?\n", with: ". as $page | .items[]? | . as $r | (($r | \(leaves)) + ($page | del(.items) | \(leaves) | map(.key |= \"page_\" + .)) | from_entries) as $extra | $r\n")
            .replacingOccurrences(of: "\n| drop_nulls", with: "\n| drop_nulls | .data += $extra")
    }
    let mapFile = work + "/map.jq"
    try mapping.write(toFile: mapFile, atomically: true, encoding: .utf8)
    let r = spawn(["jq", "-c", "--arg", "source", "bench", "--arg", "fetched", "2026-12-01T00:00:00Z", "-f", mapFile], stdin: pages, stdout: linesPath)
    guard r.status == 0 else { FileHandle.standardError.write(Data("jq could not map the corpus\n".utf8)); exit(1) }
}
let text = FileManager.default.contents(atPath: linesPath)!
let lines: [[UInt8]] = text.split(separator: UInt8(ascii: "\n")).map { Array($0) }
let meanBytes = lines.reduce(0) { $0 + $1.count } / max(lines.count, 1)
let fields: Int = {
    guard let first = lines.first, let obj = try? JSONSerialization.jsonObject(with: Data(first)) as? [String: Any] else { return 0 }
    return obj.count + ((obj["data"] as? [String: Any])?.count ?? 0)
}()
print("\(lines.count) item lines, \(meanBytes) bytes and \(fields) fields each (data's included), \(rounds) rounds, in process on 1 and \(threads) threads")

// MARK: Runs

/// One program over every line in process on `threadCount` threads; the outputs (one line each)
/// of the first thread's share when `keep`.
func inProcess(_ program: JQProgram, _ lines: [[UInt8]], threadCount: Int, keep: Bool) -> (wall: Double, cpu: Double, out: [UInt8], failures: Int) {
    let chunk = (lines.count + threadCount - 1) / threadCount
    let results = Results(threadCount)
    let cpu0 = cpuNow()
    let start = DispatchTime.now()
    DispatchQueue.concurrentPerform(iterations: threadCount) { t in
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var failed = 0
        for line in lines[min(t * chunk, lines.count)..<min((t + 1) * chunk, lines.count)] {
            let e = line.withUnsafeBytes { bytes in
                program.run(json: bytes) { o in
                    out.append(contentsOf: o.json)
                    out.append(UInt8(ascii: "\n"))
                }
            }
            if e != nil { failed += 1 }
            if !keep && out.count > 1 << 20 { out.removeAll(keepingCapacity: true) }
        }
        results.put(t, keep ? out : [], failed)
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    return (wall, cpuNow() - cpu0, results.outs.reduce([], +), results.failures.reduce(0, +))
}

/// Each thread's outputs and failures, kept under a lock.
final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var outs: [[UInt8]]
    private(set) var failures: [Int]
    init(_ n: Int) {
        outs = Array(repeating: [], count: n)
        failures = Array(repeating: 0, count: n)
    }
    func put(_ t: Int, _ out: [UInt8], _ failed: Int) {
        lock.lock()
        outs[t] = out
        failures[t] = failed
        lock.unlock()
    }
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func us(_ seconds: Double) -> String { String(format: "%.2f", seconds / Double(lines.count) * 1e6) }

var rows: [String] = []
for (name, text) in programs {
    let compileStart = DispatchTime.now()
    let program = try JQProgram.compile(text).get()
    let compileMs = Double(DispatchTime.now().uptimeNanoseconds - compileStart.uptimeNanoseconds) / 1e6
    // Same outputs as jq -c, byte for byte.
    let check = inProcess(program, lines, threadCount: 1, keep: true)
    let jqOut = work + "/jq-out.jsonl"
    spawn(["jq", "-c", text, linesPath], stdin: nil, stdout: jqOut)
    let want = [UInt8](FileManager.default.contents(atPath: jqOut)!)
    guard check.out == want, check.failures == 0 else {
        FileHandle.standardError.write(Data("\(name): in-process outputs differ from jq -c's (\(check.out.count) against \(want.count) bytes, \(check.failures) failures)\n".utf8))
        exit(1)
    }
    // One state per thread before timing (each is a compile of the program, 10-30 ms).
    _ = inProcess(program, Array(lines.prefix(threads * 50)), threadCount: threads, keep: false)
    var one: [(Double, Double)] = [], many: [(Double, Double)] = [], command: [(Double, Double)] = []
    for r in 0..<rounds {
        // Alternating order, so that drift on the machine hits all three alike.
        let order = r % 2 == 0 ? [0, 1, 2] : [2, 1, 0]
        for k in order {
            switch k {
            case 0: let x = inProcess(program, lines, threadCount: 1, keep: false); one.append((x.wall, x.cpu))
            case 1: let x = inProcess(program, lines, threadCount: threads, keep: false); many.append((x.wall, x.cpu))
            default:
                guard commandToo else { command.append((.nan, .nan)); continue }
                let x = spawn(["jq", "-c", text, linesPath], stdin: nil, stdout: "/dev/null")
                command.append((x.wall, x.cpu))
            }
        }
    }
    let outputs = check.out.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    let w1 = median(one.map(\.0)), c1 = median(one.map(\.1)), wn = median(many.map(\.0)), cn = median(many.map(\.1))
    let wj = median(command.map(\.0)), cj = median(command.map(\.1))
    rows.append("| \(name) | `\(text.replacingOccurrences(of: "|", with: "\\|"))` | \(outputs) | \(us(w1)) / \(us(c1)) | \(us(wn)) / \(us(cn)) | \(us(wj)) / \(us(cj)) | \(String(format: "%.2fx", cj / c1)) | \(String(format: "%.2fx", wj / wn)) |")
    print(rows.last!)
    print("  (\(name): compiled in \(String(format: "%.1f", compileMs)) ms)")
}
print("""

| program | jq | outputs | in process, 1 thread: µs/item wall / CPU | \(threads) threads: wall / CPU | `jq -c`: wall / CPU | jq CPU / in-process CPU | jq wall / \(threads)-thread wall |
|---|---|---|---|---|---|---|---|

""" + rows.joined(separator: "\n"))
