// The fuzz targets: every parser that reads untrusted input, with the properties its output
// must have (Fuzz/README.md). Shared by the libFuzzer binary (Fuzz/Harness/Entry.swift) and the
// regression tests, which feed every file of Fuzz/regressions/<target>/ to the same function
// (Tests/TributaryPluginsTests/FuzzTargets.swift is a link to this file).
// A target "fails" by trapping: a crash is a crash, whether the parser trapped or a property
// checked here does not hold (fuzzCheck).
import Foundation
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins

enum FuzzTargets {
    /// The targets by name (TRIBUTARY_FUZZ_TARGET, the folders of Fuzz/corpus and Fuzz/regressions).
    static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "json": FuzzJSON.run,
        "config": FuzzConfig.run,
        "feed-xml": FuzzFeed.runXML,
        "json-feed": FuzzFeed.runJSONFeed,
        "m3u": FuzzChannels.runM3U,
        "channels-json": FuzzChannels.runJSON,
        "dates": FuzzDates.run,
        "sizes-durations": FuzzValues.run,
        "keypath": FuzzKeyPath.run,
        "html-text": FuzzText.run,
        "redactor": FuzzRedactor.run,
        "recording": FuzzRecording.run,
        "article-html": FuzzArticle.run,
    ]
}

/// A property that must hold; violated, it traps so libFuzzer saves the input.
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz property violated: \(message())") }
}

/// The input as text, the way the readers see network text (invalid UTF-8 as U+FFFD).
func fuzzText(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

// MARK: json

enum FuzzJSON {
    static func run(_ bytes: [UInt8]) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            _ = error.description
            fuzzCheck(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside 0...\(bytes.count)")
            return
        }
        // Written back (compact and pretty), it parses again to the same value.
        let compact = JSONWriter.serialize(value)
        let pretty = JSONWriter.prettyPrinted(value)
        for (form, out) in [("compact", compact), ("pretty", pretty)] {
            do {
                let again = try JSONParser.parse(out)
                fuzzCheck(again == value, "\(form) output parses to a different value")
            } catch {
                fatalError("fuzz property violated: \(form) output does not parse: \(error)")
            }
        }
        var budget = 20_000
        walk(JSONNode(value), &budget)
    }

    /// Every typed accessor on every node (bounded): errors are fine, traps are not.
    static func walk(_ node: JSONNode, _ budget: inout Int) {
        budget -= 1
        guard budget > 0 else { return }
        _ = node.isMissing
        for b in [false, true] {
            _ = try? node.string(allowNumber: b)
            _ = try? node.optionalString(allowNumber: b)
            _ = try? node.double(allowString: b)
            _ = try? node.optionalDouble(allowString: b)
            _ = try? node.optionalNumber(allowString: b)
            _ = try? node.int(allowString: b)
            _ = try? node.optionalInt(allowString: b)
            _ = try? node.bool(lenient: b)
            _ = try? node.optionalBool(lenient: b)
            _ = try? node.stringArray(allowNumber: b)
        }
        do { _ = try node.object() } catch { _ = error.description }
        if case .number(let n)? = node.value {
            _ = n.int64
            _ = n.double
            _ = n.isInteger
            _ = JSONNumber(n.double).text
        }
        _ = node[key: "id"].value
        _ = node[KeyPath(components: [.index(0)])].value
        if let children = try? node.optionalArray() {
            for c in children { walk(c, &budget) }
        } else if case .object(let o)? = node.value {
            _ = o.keys
            for e in o.entries { walk(node[key: e.key], &budget) }
        }
    }
}

// MARK: config

enum FuzzConfig {
    static func run(_ bytes: [UInt8]) {
        do {
            let config = try ConfigLoader.load(bytes: bytes, file: "fuzz.json", directory: "/nonexistent/fuzz", registry: BuiltinRegistry.standard, environment: { _ in nil })
            for s in config.sources {
                _ = Durations.format(s.settings.interval)
                _ = Durations.format(s.settings.timeout)
            }
            _ = ByteSizes.format(config.http.maxBody)
        } catch {
            _ = error.description
        }
        // The interpolation the loader applies to every string, on the raw text as well.
        let (out, missing) = Environment.interpolate(fuzzText(bytes), lookup: { $0 == "SET" ? "value" : nil })
        _ = (out.count, missing.count)
    }
}

// MARK: feeds

enum FuzzFeed {
    static let url = "https://fuzz.example.org/blog/feed"

    /// A `feed` source made by the config loader, as a real config makes it.
    static let source: WebFeedSource = {
        let json = #"{"sources":[{"name":"f","type":"feed","url":"\#(url)"}]}"#
        let config = try! ConfigLoader.load(bytes: Array(json.utf8), file: "fuzz.json", directory: "/nonexistent/fuzz", registry: BuiltinRegistry.standard, environment: { _ in nil })
        return config.sources[0].source as! WebFeedSource
    }()

    static let context = FetchContext(settings: SourceSettings(name: "f", type: "feed"), http: HTTPClient(transport: NoTransport(), retries: 0),
                                      fetched: Timestamp(seconds: 1_800_000_000), emit: { _ in }, warn: { _ in })

    /// The whole synchronous part of a fetch: format detection, the streaming XML reader
    /// (libxml2) or the JSON reader, and every entry made into an item whose JSON line parses.
    static func read(_ bytes: [UInt8], contentType: String) {
        let document: FeedDocument
        do { document = try WebFeedSource.parse(bytes, baseURL: url, contentType: contentType) } catch {
            _ = "\(error)"
            return
        }
        items(document)
    }

    static func items(_ document: FeedDocument) {
        for entry in document.entries {
            guard let item = source.item(entry, feedTitle: document.title, feedAuthor: document.feedAuthor, context: context) else { continue }
            let line = item.jsonLine()
            do { _ = try JSONParser.parse(line) } catch {
                fatalError("fuzz property violated: an item's JSON line does not parse: \(error)")
            }
        }
    }

    /// Counts the streaming parser's events, whatever the root element is.
    final class Events: XMLEventHandler {
        var count = 0
        var wantsToStop: Bool { false }
        func startElement(namespace: String, prefix: String?, name: String, attributes: [(name: String, value: String)]) { count += 1 + attributes.count }
        func endElement() { count += 1 }
        func text(_ utf8: UnsafeBufferPointer<UInt8>) { count += utf8.count }
    }

    static func runXML(_ bytes: [UInt8]) {
        read(bytes, contentType: "application/rss+xml; charset=UTF-8")
        // The event stream itself, whatever the root element is, in small pieces.
        if case .success(let library) = XMLLibrary.shared() {
            let events = Events()
            let parser = XMLStreamParser(library: library, handler: events, documentSize: bytes.count)
            bytes.withUnsafeBytes { raw in
                var i = 0
                while i < raw.count && !parser.isDone {
                    let end = min(i + 4096, raw.count)
                    parser.parse(UnsafeRawBufferPointer(rebasing: raw[i..<end]))
                    i = end
                }
            }
            parser.finish()
            _ = (events.count, parser.error?.description)
        }
        _ = HTMLPage.feedLinks(bytes, base: url)
    }

    static func runJSONFeed(_ bytes: [UInt8]) {
        read(bytes, contentType: "application/feed+json")
        // The reader on any JSON document, version or not.
        guard let doc = try? JSONParser.parse(bytes) else { return }
        _ = JSONFeedReader.version(doc)
        if let document = try? JSONFeedReader.read(doc, base: url) { items(document) }
    }
}

/// A transport that is never called (the harness drives the readers, not fetches).
struct NoTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        throw HTTPError(kind: .noRecording, method: request.method, url: request.url, message: "fuzz: no network")
    }
}

// MARK: channels

enum FuzzChannels {
    static let url = "https://fuzz.example.org/tv/list"

    static let sources: [ChannelsSource] = {
        var out: [ChannelsSource] = []
        for options in [#""sort":"name""#, #""format":"list","skip_locked":true,"countries":["RU","UK"],"categories":["news"]"#, #""format":"m3u","sort":"source""#] {
            let json = #"{"sources":[{"name":"c","type":"channels","url":"\#(url)",\#(options)}]}"#
            let config = try! ConfigLoader.load(bytes: Array(json.utf8), file: "fuzz.json", directory: "/nonexistent/fuzz", registry: BuiltinRegistry.standard, environment: { _ in nil })
            out.append(config.sources[0].source as! ChannelsSource)
        }
        return out
    }()

    static let context = FetchContext(settings: SourceSettings(name: "c", type: "channels"), http: HTTPClient(transport: NoTransport(), retries: 0),
                                      fetched: Timestamp(seconds: 1_800_000_000), emit: { _ in }, warn: { _ in })

    /// Channels as the source makes items of them: merged, selected, sorted, each item's JSON line valid.
    static func emit(_ channels: [Channel], format: ChannelsSource.Format) {
        let merged = Channel.mergingDuplicates(channels)
        for source in sources {
            for c in source.select(merged, format: format) {
                let line = source.item(c, context).jsonLine()
                do { _ = try JSONParser.parse(line) } catch {
                    fatalError("fuzz property violated: a channel item's JSON line does not parse: \(error)")
                }
            }
        }
    }

    static func runM3U(_ bytes: [UInt8]) {
        _ = M3UPlaylist.looksLikePlaylist(bytes)
        let body = ChannelsSource.withoutBOM(bytes)
        let playlist = M3UPlaylist(parsing: body)
        for p in playlist.problems { _ = p.description }
        let channels = playlist.channels(base: url)
        for c in channels { _ = M3UPlaylist.countryOfIPTVOrgID(c.id) }
        emit(channels, format: .m3u)
        _ = ChannelsSource.snippet(bytes)
    }

    static func runJSON(_ bytes: [UInt8]) {
        guard let doc = try? JSONParser.parse(ChannelsSource.withoutBOM(bytes)) else { return }
        _ = try? ChannelsSource.detect(doc, place: "GET \(url)")
        if let list = try? ChannelListFormat.channels(in: doc) { emit(list, format: .list) }
        if let iptv = try? IPTVOrgFormat.channels(in: doc) { emit(iptv, format: .iptvOrg) }
        if let streams = try? IPTVOrgFormat.streams(in: doc) {
            var channels = streams.keys.sorted().map { Channel(id: $0, name: $0) }
            for i in channels.indices { for s in streams[channels[i].id] ?? [] { channels[i].addStream(s) } }
            emit(channels, format: .iptvOrg)
        }
    }
}

// MARK: dates

enum FuzzDates {
    /// 0001-01-01 and 9999-12-31T23:59:59: the years a four-digit RFC 3339 date can write.
    static let fourDigitYears = -62_135_596_800.0..<253_402_300_800.0

    static func run(_ bytes: [UInt8]) {
        let s = fuzzText(bytes)
        for parsed in [Timestamp.parseRFC3339(s), Timestamp.parseRFC822(s), Timestamp.parseAny(s)] {
            guard let t = parsed else { continue }
            let a = t.rfc3339
            _ = t.rfc822
            _ = t.description
            // Written back, a date in the four-digit years reads as the same whole second.
            if fourDigitYears.contains(t.seconds) {
                let again = Timestamp.parseRFC3339(a)
                fuzzCheck(again?.seconds == t.seconds.rounded(.down), "\(a) (from \(t.seconds)) reads back as \(again.map { "\($0.seconds)" } ?? "nil")")
            }
        }
    }
}

// MARK: sizes and durations

enum FuzzValues {
    static func run(_ bytes: [UInt8]) {
        let s = fuzzText(bytes)
        if let n = ByteSizes.parse(s) {
            fuzzCheck(n >= 0, "negative size \(n) from \(s.debugDescription)")
            _ = ByteSizes.format(n)
        }
        if let d = Durations.parse(s) {
            fuzzCheck(d >= 0, "negative duration \(d) from \(s.debugDescription)")
            let f = Durations.format(d)
            // Whole seconds are written exactly, so they read back exactly.
            if d == d.rounded(), d >= 1, d < 1e15 {
                fuzzCheck(Durations.parse(f) == d, "\(d) formats as \(f), which reads as \(Durations.parse(f).map { "\($0)" } ?? "nil")")
            }
        }
        // The JSON forms: a number of seconds or bytes, or a string.
        if let v = try? JSONParser.parse(bytes) {
            if let n = ByteSizes.parse(v) { _ = ByteSizes.format(n) }
            if let d = Durations.parse(v) { _ = Durations.format(d) }
        }
    }
}

// MARK: key paths

enum FuzzKeyPath {
    static let document = try! JSONParser.parse(#"{"a":{"b":[1,{"c":"d"}]},"a.b":[[true]],"":null,"x\"y":{"0":0}}"#)

    static func run(_ bytes: [UInt8]) {
        let s = fuzzText(bytes)
        let path: KeyPath
        do { path = try KeyPath(parsing: s) } catch {
            _ = error.description
            return
        }
        let written = path.description
        do {
            let again = try KeyPath(parsing: written)
            fuzzCheck(again == path, "\(s.debugDescription) is written \(written.debugDescription), which reads as another path")
        } catch {
            fatalError("fuzz property violated: \(s.debugDescription) is written \(written.debugDescription), which does not parse: \(error)")
        }
        _ = document[path: path]
        _ = JSONNode(document)[path].value
        _ = JSONAccessError(path: path, expected: "string", found: nil).description
    }
}

// MARK: HTML text

enum FuzzText {
    static func run(_ bytes: [UInt8]) {
        let s = fuzzText(bytes)
        let decoded = HTMLText.decodeEntities(s)
        if !s.contains("&") { fuzzCheck(decoded == s, "decodeEntities changed text without '&'") }
        _ = HTMLText.toPlainText(s)
        _ = HTMLText.singleLine(s)
        _ = FeedText.title(s)
        _ = FeedText.stripInlineTags(s)
        _ = FeedText.plain(html: s)
        _ = FeedText.plain(text: s)
        _ = FeedText.plain(description: s)
        _ = FeedText.rssAuthor(s)
        _ = FeedText.headline(s)
        _ = FeedText.looksLikeHTML(s)
        let unix = FeedText.unixNewlines(s)
        fuzzCheck(!unix.unicodeScalars.contains("\r"), "unixNewlines left a CR")
        _ = XMLElementNode.escape(s)
        _ = Links.absolute(s, base: "https://fuzz.example.org/a/b")
        _ = Links.resolve(s, against: "https://fuzz.example.org/a/b")
    }
}

// MARK: article-html

/// A web page through the `fulltext` processor's path: libxml2's HTML parser, the tree copy,
/// the article extractor and the sanitizer (over the extracted article and over the whole
/// body). Whatever the bytes, the sanitized HTML holds only the allow-list's elements, only
/// `href`/`src`/`alt`, only http(s) URLs, and no raw `<` in text.
enum FuzzArticle {
    static func run(_ bytes: [UInt8]) {
        // Both ways of reading a page: with libxml2's tree (XPath) and from its events.
        guard case .success(let doc) = HTMLDocument.parse(bytes, url: "https://fuzz.example.org/a/b.html", contentType: nil, xpath: bytes.count % 2 == 0) else { return }
        var outputs: [HTMLSanitizer.Output] = []
        if let found = ArticleExtractor.extract(doc) { outputs.append(HTMLSanitizer.render(doc, blocks: found.blocks, skipping: found.skipping)) }
        if doc.root != HTMLDocument.none { outputs.append(HTMLSanitizer.render(doc, blocks: [doc.root])) }
        for out in outputs {
            if let problem = SanitizedHTMLCheck.problem(out.html) { fuzzCheck(false, "sanitizer output: \(problem)") }
            fuzzCheck(!out.text.contains("\n\n\n"), "three newlines in content")
        }
        if bytes.count % 2 == 0 { _ = try? doc.select("//p[string-length(normalize-space()) > 3]") }
    }
}

// MARK: redactor

enum FuzzRedactor {
    static let secretNames = Redactor.secretParameters.sorted()
    static let marker = "S3CR3TFUZZVALUE"

    static func run(_ bytes: [UInt8]) {
        let s = fuzzText(bytes)
        _ = Redactor.redactURL(s)
        _ = Redactor.redactText(s)
        _ = Redactor.isSecretHeader(s)
        _ = Recording.key(method: "GET", url: s)
        guard bytes.count >= 2 else { return }
        // A URL built around a secret parameter: the input chooses the name (and its case and
        // percent-encoding), the URL before it, the parameters after it and how the value
        // starts. The secret value (input text without '&' or '#', then a marker) must not survive.
        let name = secretNames[Int(bytes[0]) % secretNames.count]
        let style = bytes[1]
        var shownName = ""
        for (i, u) in name.unicodeScalars.enumerated() {
            let bit = UInt8(1) << UInt8(i % 8)
            if style & bit != 0, i % 2 == 0 { shownName += "%" + String(u.value, radix: 16, uppercase: true) } else if style & bit != 0 { shownName += String(u).uppercased() } else { shownName += String(u) }
        }
        // Scalars, not Characters: '#' or '&' with a combining mark after it is still a delimiter.
        func without(_ cut: Set<Unicode.Scalar>, _ t: some StringProtocol) -> String {
            var v = String.UnicodeScalarView()
            v.append(contentsOf: t.unicodeScalars.filter { !cut.contains($0) })
            return String(v)
        }
        let parts = fuzzText(Array(bytes.dropFirst(2))).split(separator: "\u{0}", maxSplits: 3, omittingEmptySubsequences: false).map { without(["#"], $0) }
        let head = parts.count > 0 ? parts[0] : ""
        let before = parts.count > 1 ? parts[1] : ""
        let value = (parts.count > 2 ? without(["&"], parts[2]) : "") + marker
        let after = parts.count > 3 ? parts[3] : ""
        let url = "https://" + head + "?" + before + "&" + shownName + "=" + value + "&" + after
        let redacted = Redactor.redactURL(url)
        fuzzCheck(occurrences(marker, in: redacted) < occurrences(marker, in: url), "the \(name) value survives: \(url.debugDescription) -> \(redacted.debugDescription)")
        // In free text (an error message) a plain URL is redacted the same way.
        let plainHead = head.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "/" || $0 == "-") }
        let message = "curl: (6) could not fetch https://" + plainHead + "?" + shownName + "=" + marker + ": failed"
        fuzzCheck(occurrences(marker, in: Redactor.redactText(message)) == 0, "the \(name) value survives in text: \(message.debugDescription)")
    }

    /// Counted among scalars: a combining mark after the marker makes its last letter another
    /// Character, and a Character search would no longer see it.
    static func occurrences(_ needle: String, in hay: String) -> Int {
        let n = Array(needle.unicodeScalars), h = Array(hay.unicodeScalars)
        guard !n.isEmpty, h.count >= n.count else { return 0 }
        var count = 0
        for i in 0...(h.count - n.count) where h[i] == n[0] && h[i..<(i + n.count)].elementsEqual(n) { count += 1 }
        return count
    }
}

// MARK: recordings

enum FuzzRecording {
    static func run(_ bytes: [UInt8]) {
        let rec: Recording
        do { rec = try Recording.decode(bytes, file: "fuzz.json") } catch {
            _ = "\(error)"
            return
        }
        // Saved again, it reads back as what was saved (URL redacted, secret headers dropped,
        // registered secret values scrubbed from the body).
        let saved = rec.encoded()
        do {
            let again = try Recording.decode(saved, file: "again.json")
            fuzzCheck(again.body == Secrets.scrub(rec.body), "the body changes on a save (beyond its registered secrets)")
            fuzzCheck(again.status == rec.status && again.method == rec.method, "status or method changes on a save")
            fuzzCheck(again.url == Redactor.redactURL(rec.url), "the URL is saved as \(again.url.debugDescription), not its redacted form")
            fuzzCheck(again.headers.allSatisfy { !Redactor.isSecretHeader($0.name) }, "a secret header is saved")
        } catch {
            fatalError("fuzz property violated: a saved recording does not read back: \(error)")
        }
        _ = Recording.key(method: rec.method, url: rec.url)
    }
}
