// The fulltext processor's article extraction on a corpus of saved pages: for each
// `CORPUS_DIR/<name>.html` (with `<name>.json`: {"url": ..., "http_charset": ...}) the page is
// parsed (HTMLDocument, the charset from http_charset when set), its article found
// (ArticleExtractor) and rendered (HTMLSanitizer); the text goes to `OUT_DIR/<name>.txt`
// (empty when the page has no article), for bench/article/score.py. Prints the time per page
// (parse + extract + render, the median of the rounds) and the throughput.
//
// Run: swift build -c release --product tributary-article-bench
//      .build/release/tributary-article-bench CORPUS_DIR OUT_DIR [--rounds N]
// ARTICLE_BENCH_PAGES=1 prints each page's time; ARTICLE_BENCH_SHOW=<name prefix> prints the
// chosen containers and the left-out nodes of the pages whose name starts with it.
import Foundation
import TributaryPluginKit
import TributaryPlugins

var args = Array(CommandLine.arguments.dropFirst())
var rounds = 3
if let i = args.firstIndex(of: "--rounds"), i + 1 < args.count, let n = Int(args[i + 1]), n > 0 {
    rounds = n
    args.removeSubrange(i...(i + 1))
}
guard args.count == 2 else {
    FileHandle.standardError.write(Data("usage: tributary-article-bench CORPUS_DIR OUT_DIR [--rounds N]\n".utf8))
    exit(2)
}
let corpus = URL(fileURLWithPath: args[0])
let out = URL(fileURLWithPath: args[1])
try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)

struct Page {
    let name: String
    let body: [UInt8]
    let url: String
    let contentType: String?
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".html") }.sorted()
var pages: [Page] = []
for file in names {
    let name = String(file.dropLast(5))
    let body = [UInt8](try Data(contentsOf: corpus.appendingPathComponent(file)))
    var url = "https://example.org/\(name)"
    var contentType: String?
    let metaURL = corpus.appendingPathComponent(name + ".json")
    if let data = try? Data(contentsOf: metaURL) {
        guard let meta = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { fail("\(metaURL.path): expected a JSON object") }
        if let u = meta["url"] as? String { url = u }
        if let c = meta["http_charset"] as? String, !c.isEmpty { contentType = "text/html; charset=\(c)" }
    }
    pages.append(Page(name: name, body: body, url: url, contentType: contentType))
}
guard !pages.isEmpty else { fail("\(corpus.path): no *.html pages") }

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

var times = [[UInt64]](repeating: [], count: pages.count)
var texts = [String](repeating: "", count: pages.count)
var found = 0
for round in 0..<rounds {
    for (k, page) in pages.enumerated() {
        let start = now()
        guard case .success(let doc) = HTMLDocument.parse(page.body, url: page.url, contentType: page.contentType, xpath: false) else { fail("libxml2 could not be loaded") }
        var text = ""
        if let article = ArticleExtractor.extract(doc) {
            if round == 0, let only = ProcessInfo.processInfo.environment["ARTICLE_BENCH_SHOW"], page.name.hasPrefix(only) {
                func describe(_ n: HTMLDocument.Node) -> String {
                    "<\(doc.name(n)) class=\(doc.attribute(n, "class") ?? "-") id=\(doc.attribute(n, "id") ?? "-")> \(doc.normalizedText(n).prefix(60))"
                }
                for b in article.blocks { print("block", describe(b)) }
                for s in article.skipping.sorted() { print("skip ", describe(s)) }
            }
            text = HTMLSanitizer.render(doc, blocks: article.blocks, skipping: article.skipping).text
        }
        times[k].append(now() - start)
        if round == 0 {
            texts[k] = text
            if !text.isEmpty { found += 1 }
        }
    }
}
var total: UInt64 = 0
var bytes = 0
var perPage: [(String, Double, Int)] = []
for (k, page) in pages.enumerated() {
    let median = times[k].sorted()[times[k].count / 2]
    total += median
    bytes += page.body.count
    perPage.append((page.name, Double(median) / 1e6, page.body.count))
    try Data(texts[k].utf8).write(to: out.appendingPathComponent(page.name + ".txt"))
}
if ProcessInfo.processInfo.environment["ARTICLE_BENCH_PAGES"] != nil {
    for (name, ms, size) in perPage { print(String(format: "%-40@ %8.3f ms %8d bytes", name as NSString, ms, size)) }
}
let seconds = Double(total) / 1e9
print(String(format: "pages %d (article found in %d), %.1f MB, median of %d rounds: %.3f ms/page, %.1f MB/s (parse + extract + render)",
             pages.count, found, Double(bytes) / 1e6, rounds, seconds * 1000 / Double(pages.count), Double(bytes) / 1e6 / seconds))
