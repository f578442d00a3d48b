import XCTest
import TributaryTestSupport
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

final class URLEncodingTests: XCTestCase {
    func testRFC3986QueryValues() {
        XCTAssertEqual(URLEncoding.encode("Rock & Roll"), "Rock%20%26%20Roll")
        XCTAssertEqual(URLEncoding.encode("10€"), "10%E2%82%AC")
        XCTAssertEqual(URLEncoding.encode("Müller"), "M%C3%BCller")
        XCTAssertEqual(URLEncoding.encode("a=b+c?d/e#f%g"), "a%3Db%2Bc%3Fd%2Fe%23f%25g")
        XCTAssertEqual(URLEncoding.encode("AZaz09-._~"), "AZaz09-._~")
        XCTAssertEqual(URLEncoding.encode("музыка 音乐"), "%D0%BC%D1%83%D0%B7%D1%8B%D0%BA%D0%B0%20%E9%9F%B3%E4%B9%90")
        XCTAssertEqual(URLEncoding.encode(""), "")
    }

    func testAppendQuery() {
        XCTAssertEqual(URLEncoding.appendQuery("https://h/p", [("q", "a b"), ("n", "1")]), "https://h/p?q=a%20b&n=1")
        XCTAssertEqual(URLEncoding.appendQuery("https://h/p?x=1", [("q", "&")]), "https://h/p?x=1&q=%26")
        XCTAssertEqual(URLEncoding.appendQuery("https://h/p", []), "https://h/p")
        XCTAssertEqual(URLEncoding.hostKey("https://User:pw@API.Example.org:8443/x?y"), "api.example.org:8443")
        XCTAssertEqual(URLEncoding.hostKey("http://a"), "a")
        XCTAssertEqual(URLEncoding.hostKey("http://h?q=1/x"), "h")
        XCTAssertEqual(URLEncoding.hostKey("http://h#f"), "h")
        XCTAssertEqual(URLEncoding.hostKey("https://a@b@C/p"), "c")
        XCTAssertEqual(URLEncoding.hostKey("https://ÄB.de/x"), "äb.de")
        XCTAssertEqual(URLEncoding.hostKey("https://"), "")
        XCTAssertEqual(URLEncoding.hostKey("no scheme"), "")
        XCTAssertEqual(URLEncoding.hostKey("a:/"), "")
    }
}

final class RedactorTests: XCTestCase {
    func testSecretQueryValuesAreMasked() {
        XCTAssertEqual(Redactor.redactURL("https://h/p?q=swift&key=AIzaSECRET&maxResults=5"), "https://h/p?q=swift&key=***&maxResults=5")
        XCTAssertEqual(Redactor.redactURL("http://api.dianping.com/v1/b?appkey=123&sign=ABC&city=%E4%B8%8A"), "http://api.dianping.com/v1/b?appkey=***&sign=***&city=%E4%B8%8A")
        XCTAssertEqual(Redactor.redactURL("https://h/?APPID=x&access_token=y&Token=z&password=p&apikey=k&app_key=a&secret=s"),
                       "https://h/?APPID=***&access_token=***&Token=***&password=***&apikey=***&app_key=***&secret=***")
        XCTAssertEqual(Redactor.redactURL("https://user:pass@h/p"), "https://***@h/p")
        XCTAssertEqual(Redactor.redactURL("https://h/p"), "https://h/p")
        XCTAssertEqual(Redactor.redactURL("https://h/p?keyword=food"), "https://h/p?keyword=food", "only exact parameter names")
    }

    func testSecretsInsideTextAreMasked() {
        let text = "GET https://h/p?key=SECRET: timed out; retry https://h/q?token=T2, then give up"
        let out = Redactor.redactText(text)
        XCTAssertFalse(out.contains("SECRET"))
        XCTAssertFalse(out.contains("T2"))
        XCTAssertEqual(out, "GET https://h/p?key=***: timed out; retry https://h/q?token=***, then give up")
    }

    /// A delimiter followed by a combining mark is one Character with it; the redactor finds
    /// delimiters among scalars, so the secret after it is still masked (found by Fuzz/, redactor).
    func testDelimitersBeforeCombiningMarksStillSplit() {
        let mark = "\u{301}"
        XCTAssertEqual(Redactor.redactURL("https://h/p?key=\(mark)SECRET"), "https://h/p?key=***")
        XCTAssertEqual(Redactor.redactURL("https://h/p?\(mark)x=1&token=SECRET"), "https://h/p?\(mark)x=1&token=***")
        XCTAssertEqual(Redactor.redactURL("https://u:pass@\(mark)h/p"), "https://***@\(mark)h/p")
        XCTAssertEqual(Redactor.redactURL("https://h/p?a=1&\(mark)b=2#\(mark)f"), "https://h/p?a=1&\(mark)b=2#\(mark)f")
        for text in ["fetch https://h/p?key=\(mark)SECRET failed", "fetch https://\(mark)h/p?sig=SECRET.", "'https://h/?x=\(mark)&sign=SECRET'"] {
            XCTAssertFalse(Redactor.redactText(text).contains("SECRET"), text)
        }
        XCTAssertEqual(Redactor.redactText("see https://h/p?key=\(mark)S; then"), "see https://h/p?key=***; then")
    }

    /// The scheme's `://` is found by a loop over scalars: the same range as `firstRange(of:)`
    /// on strings of the delimiters, letters and combining marks, and the same redaction.
    func testTheSchemeSeparatorIsTheFirstColonSlashSlash() {
        var rng = SeededGenerator(seed: 34)
        let alphabet = [":", "/", "a", "@", "?", "\u{301}"]
        for _ in 0..<20_000 {
            let s = (0..<rng.below(12)).map { _ in alphabet[rng.below(alphabet.count)] }.joined()
            let scalars = Substring(s).unicodeScalars
            XCTAssertEqual(Redactor.URLParts.schemeSeparator(in: scalars), scalars.firstRange(of: "://".unicodeScalars), s)
        }
        XCTAssertEqual(Redactor.redactURL("a:b://u:p@h/x"), "a:b://***@h/x")
        XCTAssertEqual(Redactor.redactURL("x:/y://u:p@h"), "x:/y://***@h")
        XCTAssertEqual(Redactor.redactURL("u:p@h/p"), "u:p@h/p", "no scheme: no authority")
        XCTAssertEqual(Redactor.redactURL("https:"), "https:")
    }

    func testSecretHeaders() {
        XCTAssertTrue(Redactor.isSecretHeader("Authorization"))
        XCTAssertTrue(Redactor.isSecretHeader("x-api-key"))
        XCTAssertFalse(Redactor.isSecretHeader("Accept"))
    }

    func testHTTPErrorsAreRedactedAtConstruction() {
        let e = HTTPError(kind: .timeout, url: "https://h/p?api_key=XYZ", message: "timeout for https://h/p?api_key=XYZ")
        XCTAssertFalse("\(e)".contains("XYZ"))
        XCTAssertFalse(SourceError("boom https://h/?sign=S1 x").message.contains("S1"))
    }
}

final class ItemWriterTests: XCTestCase {
    func testFieldOrderOmissionAndEscaping() {
        var item = Item(id: "youtube:video:abc", source: "vids", type: "json", kind: "video", title: "Say \"hi\"\n\\ ok\u{1}", fetched: Timestamp(seconds: 1_795_946_400))
        XCTAssertEqual(String(decoding: item.jsonLine(), as: UTF8.self),
                       #"{"id":"youtube:video:abc","source":"vids","type":"json","kind":"video","title":"Say \"hi\"\n\\ ok\u0001","fetched":"2026-11-29T10:00:00Z"}"#)
        item.summary = "Привет, 世界 🎉"
        item.url = "https://e.org/a?b=c&d=e"
        item.image = "https://e.org/i.png"
        item.author = "Ann"
        item.published = Timestamp(seconds: 1_795_942_800)
        item.tags = ["#музыкальный", "b"]
        item.geo = Geo(lat: -19.92, lon: -43.94)
        item.data["temperature"] = .double(19.8)
        item.data["city_id"] = .int(3470127)
        XCTAssertEqual(String(decoding: item.jsonLine(), as: UTF8.self),
                       ##"{"id":"youtube:video:abc","source":"vids","type":"json","kind":"video","title":"Say \"hi\"\n\\ ok\u0001","summary":"Привет, 世界 🎉","url":"https://e.org/a?b=c&d=e","image":"https://e.org/i.png","author":"Ann","published":"2026-11-29T09:00:00Z","fetched":"2026-11-29T10:00:00Z","tags":["#музыкальный","b"],"geo":{"lat":-19.92,"lon":-43.94},"data":{"temperature":19.8,"city_id":3470127}}"##)
        XCTAssertNotNil(try? JSONParser.parse(item.jsonLine()))
    }

    /// `content` and `content_html` (the page text `fulltext` adds) stand right after `summary`,
    /// in the line and in `jsonValue()`, and read back.
    func testContentFieldsStandAfterSummaryAndReadBack() throws {
        var item = Item(id: "feed:1", source: "blog", type: "feed", kind: "entry", title: "T", fetched: Timestamp(seconds: 1_795_946_400))
        item.summary = "Short."
        item.content = "First paragraph, \"quoted\".\n\nSecond: 世界 🎉"
        item.contentHTML = #"<p>First paragraph, "quoted".</p><p>Second: <a href="https://e.org/x">世界</a> 🎉</p>"#
        item.url = "https://e.org/1"
        item.tags = ["a"]
        let line = String(decoding: item.jsonLine(), as: UTF8.self)
        XCTAssertEqual(line, #"{"id":"feed:1","source":"blog","type":"feed","kind":"entry","title":"T","summary":"Short.","content":"First paragraph, \"quoted\".\n\nSecond: 世界 🎉","content_html":"<p>First paragraph, \"quoted\".</p><p>Second: <a href=\"https://e.org/x\">世界</a> 🎉</p>","url":"https://e.org/1","fetched":"2026-11-29T10:00:00Z","tags":["a"]}"#)
        XCTAssertEqual(item.jsonValue().objectValue?.keys, ["id", "source", "type", "kind", "title", "summary", "content", "content_html", "url", "fetched", "tags"])
        XCTAssertEqual(try Item(jsonLine: item.jsonLine()), item)
        var onlyHTML = item
        onlyHTML.summary = nil
        onlyHTML.content = nil
        XCTAssertTrue(String(decoding: onlyHTML.jsonLine(), as: UTF8.self).contains(#""title":"T","content_html":"<p>"#), "each is optional on its own")
        XCTAssertEqual(try Item(jsonLine: onlyHTML.jsonLine()), onlyHTML)
        item.content = nil
        item.contentHTML = nil
        XCTAssertFalse(String(decoding: item.jsonLine(), as: UTF8.self).contains("content"), "absent: no key")
    }

    /// Page text is not what an item says (`contentHash`, which `emit_updates` compares): an item
    /// whose page was fetched in a later run, or changed, or could not be fetched, is the same item.
    func testContentIsNotPartOfTheContentHash() {
        let bare = Item(id: "feed:1", source: "blog", type: "feed", kind: "entry", title: "T", summary: "S", url: "https://e.org/1", fetched: Timestamp(seconds: 1_795_946_400))
        var withPage = bare
        withPage.content = "The article."
        withPage.contentHTML = "<p>The article.</p>"
        XCTAssertEqual(withPage.contentHash, bare.contentHash)
        var otherPage = withPage
        otherPage.content = "Another text."
        XCTAssertEqual(otherPage.contentHash, bare.contentHash)
        var edited = withPage
        edited.summary = "S, edited"
        XCTAssertNotEqual(edited.contentHash, withPage.contentHash, "what the item says still counts")
    }

    /// `contentHash` is kept in every state: the bytes it hashes must never change. It is the
    /// hash of the line of a copy of the item with `source`, `type` and `fetched` blanked and
    /// `story`, `content`, `content_html` and `data.updated` left out (the first definition,
    /// kept here as the reference), for items with and without each field; two values are pinned
    /// as states hold them (the SHA-1 of the line written out by hand, checked with Python's
    /// hashlib). The batch form gives the same hashes in order.
    func testContentHashesAreTheBytesStatesKeep() {
        func reference(_ item: Item) -> String {
            var copy = item
            copy.source = ""
            copy.type = ""
            copy.fetched = Timestamp(seconds: 0)
            copy.story = nil
            copy.content = nil
            copy.contentHTML = nil
            copy.data["updated"] = nil
            return Digest.hex(Array(Digest.sha1(copy.jsonLine()).prefix(10)))
        }
        let plain = Item(id: "feed:1", source: "blog", type: "feed", kind: "entry", title: "T", summary: "S", url: "https://e.org/1", fetched: Timestamp(seconds: 1_795_946_400))
        XCTAssertEqual(plain.contentHash, "0d16a2e540574fec2969")
        var items = [plain]
        var rng = SeededGenerator(seed: 7)
        let texts = ["", "a", "Café \"quoted\" \\ back", "line\nbreak\ttab", "東京 🎸", String(repeating: "long ", count: 1000)]
        for n in 0..<400 {
            func text() -> String { texts[rng.below(texts.count)] + "\(n)" }
            var item = Item(id: "s:\(n)", source: text(), type: ["json", "feed"][rng.below(2)], kind: "entry", title: text(),
                            fetched: Timestamp(seconds: Double(1_795_946_400 + rng.below(100_000))))
            if rng.below(2) == 0 { item.summary = text() }
            if rng.below(3) == 0 { item.content = text() }
            if rng.below(3) == 0 { item.contentHTML = "<p>" + text() + "</p>" }
            if rng.below(2) == 0 { item.url = "https://e.org/" + text() }
            if rng.below(3) == 0 { item.image = "https://e.org/i.png" }
            if rng.below(3) == 0 { item.author = text() }
            if rng.below(2) == 0 { item.published = Timestamp(seconds: Double(1_700_000_000 + rng.below(1_000_000))) }
            if rng.below(3) == 0 { item.tags = (0..<rng.below(4)).map { _ in text() } }
            if rng.below(3) == 0 { item.story = "story:\(n)" }
            if rng.below(4) == 0 { item.geo = Geo(lat: 48.1, lon: 11.5) }
            switch rng.below(4) {
            case 0: item.data["updated"] = .bool(true)
            case 1: item.data["views"] = .int(n); item.data["updated"] = .bool(true)
            case 2: item.data["views"] = .int(n); item.data["tags"] = .array([.string(text())])
            default: break
            }
            items.append(item)
        }
        var updated = plain
        updated.data["updated"] = .bool(true)
        updated.story = "story:9"
        updated.fetched = Timestamp(seconds: 0)
        XCTAssertEqual(updated.contentHash, "0d16a2e540574fec2969", "an update mark, a story and the fetch time are not content")
        var views = plain
        views.data["views"] = .int(3)
        XCTAssertEqual(views.contentHash, "133ff0ff320e9b0e7f64")
        items.append(updated)
        items.append(views)
        let batch = Item.contentHashes(items)
        XCTAssertEqual(batch.count, items.count)
        for (i, item) in items.enumerated() {
            XCTAssertEqual(item.contentHash, reference(item), "item \(i)")
            XCTAssertEqual(batch[i], reference(item), "item \(i), in the batch")
        }
        XCTAssertEqual(Item.contentHashes([Item]()), [])
    }

    /// `ItemJSONWriter`, which a sink uses for many items in a row, writes each item's line as
    /// `jsonLine()` does, and as `JSONWriter` writes the item's JSON value (`jsonValue()`, built
    /// apart), whatever `fetched` the item before had (it keeps the last one's text), with long
    /// fields that make its line buffer grow, and whatever `source`, `type` and `kind` the item
    /// before had (it keeps the last one's JSON text): inline and long, the same text in other
    /// storage, another text of the same length, text to escape, empty; and `data`'s keys.
    func testTheBatchWriterWritesEachItemsOwnLine() {
        var items: [Item] = []
        let long = "a-source-name-longer-than-fifteen-bytes"
        // The same length (and flags) as `long`, other bytes: its first word is `long`'s.
        let other = "b" + long.dropFirst()
        let sources = ["s", long, String(long.utf8.map { Character(Unicode.Scalar($0)) }), other, #"he said "x""#, "", "s", "é-source 🎉"]
        let kinds = ["entry", "entry", "video", "entry", "entry\n", "video", "video", "entry"]
        for (i, seconds) in [1_795_946_400.0, 1_795_946_400.9, 1_795_946_401, 1_795_946_400, 0, -1e20, 1e20, .nan].enumerated() {
            var item = Item(id: "a:\(i)", source: sources[i], type: i == 3 ? "feed" : "json", kind: kinds[i], title: "T \(i)", fetched: Timestamp(seconds: seconds))
            if i == 2 { item.content = String(repeating: "long \u{1}\"text\" é 🎉\n", count: 2000) }
            if i % 2 == 1 {
                item.summary = "line one\nline \"two\""
                item.published = Timestamp(seconds: seconds - 60)
                item.tags = ["x", "y"]
                item.story = "story:0123456789abcdef"
                item.data["n"] = .int(i)
            }
            // `data`'s keys change from item to item, by position too (its key texts are kept
            // by position).
            switch i % 3 {
            case 0: item.data["a"] = .string("x\(i)"); item.data["b \"q\""] = .int(i)
            case 1: item.data["b \"q\""] = .null
            default: break
            }
            items.append(item)
        }
        let writer = ItemJSONWriter(capacity: 64)
        var out: [UInt8] = []
        items.withUnsafeBufferPointer { p in
            for i in 0..<p.count {
                writer.append(p.baseAddress! + i, into: &out)
                out.append(0x0A)
            }
        }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), items.map { String(decoding: $0.jsonLine(), as: UTF8.self) + "\n" }.joined())
        XCTAssertEqual(String(decoding: out, as: UTF8.self), items.map { String(decoding: JSONWriter.serialize($0.jsonValue()), as: UTF8.self) + "\n" }.joined())
    }

    func testInvalidGeoIsOmitted() {
        var item = Item(id: "a:b", source: "s", type: "t", kind: "k", title: "x", fetched: Timestamp(seconds: 0))
        item.geo = Geo(lat: 91, lon: 0)
        XCTAssertFalse(String(decoding: item.jsonLine(), as: UTF8.self).contains("geo"))
    }
}

final class ValuesTests: XCTestCase {
    func testDurations() {
        XCTAssertEqual(Durations.parse("250ms"), 0.25)
        XCTAssertEqual(Durations.parse("20s"), 20)
        XCTAssertEqual(Durations.parse("15m"), 900)
        XCTAssertEqual(Durations.parse("2h"), 7200)
        XCTAssertEqual(Durations.parse("1d"), 86400)
        XCTAssertEqual(Durations.parse("1h30m"), 5400)
        XCTAssertEqual(Durations.parse(.int(30)), 30)
        XCTAssertEqual(Durations.parse("1.5s"), 1.5)
        for bad in ["", "abc", "10x", "-5s", "s", "5 m"] { XCTAssertNil(Durations.parse(bad), bad) }
        XCTAssertNil(Durations.parse(.int(-1)))
        XCTAssertEqual(Durations.format(0.25), "250ms")
        XCTAssertEqual(Durations.format(5400), "1h30m")
    }

    func testSizes() {
        XCTAssertEqual(ByteSizes.parse("512KiB"), 524_288)
        XCTAssertEqual(ByteSizes.parse("16MiB"), 16_777_216)
        XCTAssertEqual(ByteSizes.parse("1GiB"), 1_073_741_824)
        XCTAssertEqual(ByteSizes.parse("1MB"), 1_000_000)
        XCTAssertEqual(ByteSizes.parse(.int(100)), 100)
        for bad in ["", "lots", "-1KiB", "1TiB"] { XCTAssertNil(ByteSizes.parse(bad), bad) }
        XCTAssertEqual(ByteSizes.format(16_777_216), "16MiB")
    }

    func testInterpolation() {
        let env = ["HOME": "/home/a", "EMPTY": ""]
        let look = { (n: String) in env[n] }
        XCTAssertEqual(Environment.interpolate("${HOME}/x", lookup: look).text, "/home/a/x")
        XCTAssertEqual(Environment.interpolate("${NOPE:-dflt}", lookup: look).text, "dflt")
        XCTAssertEqual(Environment.interpolate("${EMPTY:-dflt}", lookup: look).text, "dflt")
        XCTAssertEqual(Environment.interpolate("a${EMPTY}b", lookup: look).text, "ab")
        XCTAssertEqual(Environment.interpolate("${NOPE}", lookup: look).missing, ["NOPE"])
        XCTAssertEqual(Environment.interpolate("no vars $HOME", lookup: look).text, "no vars $HOME")
        XCTAssertEqual(Environment.interpolate("${HOME}${HOME}", lookup: look).text, "/home/a/home/a")
        // Matching is by Character, as it was with Foundation's range(of:): a combining mark
        // on "{" or "-" makes it another character.
        XCTAssertEqual(Environment.interpolate("${\u{301}HOME}", lookup: look).text, "${\u{301}HOME}")
        XCTAssertEqual(Environment.interpolate("${NOPE:-\u{301}x}", lookup: look).missing, ["NOPE:-\u{301}x"])
        XCTAssertEqual(Environment.interpolate("Ünïcødé ${HOME} 東京 $ {", lookup: look).text, "Ünïcødé /home/a 東京 $ {")
        XCTAssertEqual(Environment.interpolate("unclosed ${HOME", lookup: look).text, "unclosed ${HOME")
    }

    /// `$${` is a literal `${` (issue 19, finding 1): in a run of `$` before `{`, each `$$` is one
    /// `$`; `$$` elsewhere stays; `escaped` writes any text so that it reads back as itself.
    func testDollarDollarBraceIsALiteral() {
        let env = ["HOME": "/home/a", "SOME_SECRET": "s3cret"]
        let look = { (n: String) in env[n] }
        func read(_ s: String) -> (text: String, missing: [String]) { Environment.interpolate(s, lookup: look) }
        XCTAssertEqual(read("$${HOME}").text, "${HOME}")
        XCTAssertEqual(read("$${NOPE}").missing, [], "an escaped reference is no variable, set or not")
        XCTAssertEqual(read("$$${HOME}").text, "$/home/a")
        XCTAssertEqual(read("$$$${HOME}").text, "$${HOME}")
        XCTAssertEqual(read("a$$b $$ {").text, "a$$b $$ {", "$$ before anything but { stays as written")
        XCTAssertEqual(read("$${A}${HOME}$${B:-x}").text, "${A}/home/a${B:-x}")
        XCTAssertEqual(read("$$").text, "$$")
        for text in ["http://h/feed?x=${SOME_SECRET}", "${SOME_SECRET}", "$${SOME_SECRET}", "$$$", "a$", "$$${HOME}x${",
                     "${\u{301}HOME}", "Ünïcødé $${ 東京 ${NOPE:-d}", "${HOME", "}${}$", "price: $5 {approx}"] {
            let escaped = Environment.escaped(text)
            XCTAssertEqual(read(escaped).text, text, "escaped \(escaped)")
            XCTAssertEqual(read(escaped).missing, [], escaped)
            XCTAssertEqual(Environment.unescaped(escaped), text, escaped)
        }
        XCTAssertEqual(Environment.escaped("plain text"), "plain text")
        // `unescaped`: what the config says, with references as written and no environment.
        XCTAssertEqual(Environment.unescaped("https://h/?t=${SOME_SECRET}&d=${X:-1}&l=$${Y}"), "https://h/?t=${SOME_SECRET}&d=${X:-1}&l=${Y}")
    }
}

/// Config numbers that do not fit are errors, never traps (a probe crashed `check` and `run`).
final class ConfigValueRangeTests: XCTestCase {
    func testSizesBeyondOneTebibyteAreNotSizes() {
        XCTAssertEqual(ByteSizes.parse("1024GiB"), 1 << 40)
        XCTAssertEqual(ByteSizes.parse(.number(JSONNumber(text: "1099511627776"))), 1 << 40)
        for bad in ["1e30 GiB", "1e30GiB", "99999999999999999999999", "99999999999999999999999B", "1025GiB", "inf MiB", "nan KiB", "-1KiB", "1099511627777"] {
            XCTAssertNil(ByteSizes.parse(bad), bad)
        }
        XCTAssertNil(ByteSizes.parse(.number(JSONNumber(text: "1e30"))))
    }

    func testDurationsBeyondTenYearsAreNotDurations() {
        XCTAssertEqual(Durations.parse("3650d"), 3650 * 86400)
        for bad in ["1e300", "3651d", "99999999999999999999999w", "inf", "nan", "-1s", "1e300s"] {
            XCTAssertNil(Durations.parse(bad), bad)
        }
        XCTAssertNil(Durations.parse(.number(JSONNumber(text: "1e300"))))
        XCTAssertEqual(Durations.format(Durations.max), "3650d")
    }

    /// `jsonValue()` is built directly; it must be exactly the object the item's line writes.
    func testAnItemsValueIsTheObjectItsLineWrites() throws {
        let t = try XCTUnwrap(Timestamp.parseRFC3339("2026-11-30T10:00:00Z"))
        let full = Item(id: "a:1", source: "s", type: "json", kind: "video", title: "Tí\"tle\n", summary: "s", content: "p1\n\np2",
                        contentHTML: "<p>p1</p>\n<p>p2 &amp; <em>é</em></p>", url: "https://e.org/1",
                        image: "https://e.org/1.jpg", author: "Ana", published: t, fetched: Timestamp(seconds: t.seconds + 61.5), tags: ["x", "y"],
                        story: "story:0123456789abcdef", geo: Geo(lat: -23.5, lon: 46.25),
                        data: JSONObject([("n", .number(JSONNumber(text: "1.50"))), ("big", .number(JSONNumber(text: "12345678901234567890"))),
                                          ("o", .object(JSONObject([("b", .int(2)), ("a", .null)]))), ("l", .array([.bool(true), .string("é")]))]))
        let bare = Item(id: "a:2", source: "s", type: "feed", kind: "entry", title: "t", fetched: t, geo: Geo(lat: 99, lon: 0))
        for item in [full, bare] {
            XCTAssertEqual(item.jsonValue(), try JSONParser.parse(item.jsonLine()), item.id)
            XCTAssertEqual(JSONWriter.serialize(item.jsonValue()), item.jsonLine(), item.id)
        }
    }
}
