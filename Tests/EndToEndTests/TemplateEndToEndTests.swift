import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// Sinks' `template`s (Docs/templates.md) on the release binary. Every recipe of the page is
/// read from the page itself (the ```json block after its `<!-- recipe: NAME -->` marker), run as
/// a file of a config folder against a loopback receiver, and the requests are checked against
/// what the service documents; then what stdout, exec, nats and batched webhooks do with the
/// outputs, and the three errors (compile, runtime, a sink that takes none).
final class TemplateEndToEndTests: XCTestCase {
    // MARK: - The items and the config

    /// The first item's title: markup characters, quotes and non-ASCII text.
    static let trickyTitle = #"Rock & Roll <live> "encore" — naïve café ✓ @everyone"#
    static let trickyURL = "https://e.org/1?a=1&b=2"
    /// 7,200 characters with markup characters and non-ASCII text: longer than any service's limit.
    static let longSummary = String(repeating: #"Ünïcode summary & <tags> "quoted" — "#, count: 200)

    /// A local file of three items for a `json` source: the tricky one (url, long summary,
    /// published), a plain one with a url and no summary, and one with neither url nor summary.
    func itemsFile(_ dir: TempDir) -> String {
        func json(_ s: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)
        }
        let items = [
            #"{"id":"1","title":\#(json(Self.trickyTitle)),"link":\#(json(Self.trickyURL)),"text":\#(json(Self.longSummary)),"date":"2026-01-02T03:04:05Z"}"#,
            #"{"id":"2","title":"Second item","link":"https://e.org/2"}"#,
            #"{"id":"3","title":"No link"}"#,
        ]
        return "file://" + dir.write("items.json", #"{"items":[\#(items.joined(separator: ","))]}"#)
    }

    /// A config folder `conf.d` holding the source (10-source.json) and `sinks` (90-sinks.json,
    /// as written: a recipe is put there byte for byte).
    func configFolder(_ dir: TempDir, sinks: String) -> String {
        let source = #"{"sources":[{"name":"demo","type":"json","url":"\#(itemsFile(dir))","items":"items","fields":{"id":"id","title":"title","url":"link","summary":"text","published":"date"}}]}"#
        _ = dir.write("conf.d/10-source.json", source)
        _ = dir.write("conf.d/90-sinks.json", sinks)
        return dir.path + "/conf.d"
    }

    /// A config file of the source and the given sinks (a JSON array's members).
    func configFile(_ dir: TempDir, sinks: String) -> String {
        configFolder(dir, sinks: #"{"sinks":[\#(sinks)]}"#)
    }

    // MARK: - Reading the recipes from the page

    static func page() throws -> String {
        try String(contentsOfFile: BinaryRunner.packageRoot + "/Docs/templates.md", encoding: .utf8)
    }

    /// The ```json block right after `<!-- recipe: name -->` in Docs/templates.md.
    static func recipe(_ name: String) throws -> String {
        let text = try page()
        guard let marker = text.range(of: "<!-- recipe: \(name) -->\n") else { throw RunnerError(message: "no recipe \(name) in Docs/templates.md") }
        let rest = text[marker.upperBound...]
        guard rest.hasPrefix("```json\n"), let end = rest.range(of: "\n```\n") else { throw RunnerError(message: "recipe \(name): no ```json block right after its marker") }
        return String(rest[rest.index(rest.startIndex, offsetBy: 8)..<end.lowerBound])
    }

    func testThePageHasEveryRecipeTheTestsRun() throws {
        let text = try Self.page()
        let names = text.components(separatedBy: "<!-- recipe: ").dropFirst().compactMap { $0.components(separatedBy: " -->").first }
        XCTAssertEqual(names, ["slack", "discord", "discord-content", "ntfy", "ntfy-json", "matrix", "telegram"], "a recipe added to the page needs its test here")
        for n in names {
            let block = try Self.recipe(n)
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(block.utf8)), "recipe \(n) is strict JSON")
        }
    }

    /// Runs a recipe from the page with `env`, against a receiver answering `answer`; the
    /// requests it got, after checking the run went well and the next run sends nothing.
    func runRecipe(_ name: String, env: (LoopbackServer) -> [String: String], answer: LoopbackResponse = .text("{}")) throws -> [LoopbackRequest] {
        let server = try LoopbackServer { _ in answer }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = configFolder(dir, sinks: try Self.recipe(name))
        let state = dir.path + "/state.sqlite"
        let vars = env(server)
        let check = try BinaryRunner.run(["check", "-c", cfg], env: vars)
        XCTAssertEqual(check.status, 0, "recipe \(name): \(check.stderr)")
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", state], env: vars)
        XCTAssertEqual(r.status, 0, "recipe \(name): \(r.stderr)")
        XCTAssertFalse(r.stderr.contains("warning"), "recipe \(name): \(r.stderr)")
        for (key, value) in vars where key.contains("TOKEN") || key.hasSuffix("_URL") {
            XCTAssertFalse(r.stderr.contains(value), "recipe \(name): the secret \(key) is never shown")
        }
        let got = server.requests
        XCTAssertEqual(got.count, 3, "recipe \(name): one request per item (batch 1): \(r.stderr)")
        let again = try BinaryRunner.run(["run", "-c", cfg, "--state", state], env: vars)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(server.requestCount, 3, "recipe \(name): delivered items are recorded, not sent again")
        return got
    }

    func object(_ r: LoopbackRequest, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        guard let o = (try? JSONSerialization.jsonObject(with: Data(r.body))) as? [String: Any] else {
            XCTFail("the body is one JSON object: \(r.bodyText)", file: file, line: line)
            return [:]
        }
        return o
    }

    /// Characters as the services count them: Unicode code points.
    func length(_ s: Any?) -> Int { (s as? String)?.unicodeScalars.count ?? -1 }

    /// For HTML text: the tags used and the text a reader sees (entities decoded), by Python's
    /// html.parser, which fails on nothing and so shows stray `<` as text.
    func html(_ texts: [String]) throws -> [(tags: [String], visible: String)] {
        let r = try Shell.run(["python3", "-c", """
        import sys, json, html.parser
        class P(html.parser.HTMLParser):
            def __init__(self):
                super().__init__(convert_charrefs=True); self.tags = []; self.text = ''
            def handle_starttag(self, tag, attrs): self.tags.append(tag)
            def handle_data(self, d): self.text += d
        for t in json.load(sys.stdin):
            p = P(); p.feed(t); p.close()
            print(json.dumps({'tags': p.tags, 'visible': p.text}))
        """], stdin: String(decoding: try JSONSerialization.data(withJSONObject: texts), as: UTF8.self), timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.split(separator: "\n").map { line in
            let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
            return ((o["tags"] as? [String]) ?? [], (o["visible"] as? String) ?? "")
        }
    }

    // MARK: - The recipes

    func testSlackRecipe() throws {
        let got = try runRecipe("slack", env: { ["SLACK_WEBHOOK_URL": $0.url("/services/T000/B000/TOPSECRETslack")] })
        guard got.count == 3 else { return }
        for r in got {
            XCTAssertEqual(r.method, "POST")
            XCTAssertEqual(r.path, "/services/T000/B000/TOPSECRETslack")
            XCTAssertEqual(r.header("Content-Type"), "application/json")
        }
        let bodies = got.map { object($0) }
        // `text` is required with blocks (the notification's text): the escaped, linked title.
        XCTAssertEqual(bodies[0]["text"] as? String, "<https://e.org/1?a=1&b=2|Rock &amp; Roll &lt;live&gt; \"encore\" — naïve café ✓ @everyone>")
        XCTAssertEqual(bodies[1]["text"] as? String, "<https://e.org/2|Second item>")
        XCTAssertEqual(bodies[2]["text"] as? String, "No link")
        for b in bodies {
            guard let blocks = b["blocks"] as? [[String: Any]], let text = (blocks.first?["text"] as? [String: Any]) else { XCTFail("blocks: \(b)"); continue }
            XCTAssertEqual(blocks.count, 1)
            XCTAssertEqual(blocks[0]["type"] as? String, "section")
            XCTAssertEqual(text["type"] as? String, "mrkdwn")
            XCTAssertTrue((1...3000).contains(length(text["text"])), "a section's text is 1 to 3000 characters: \(length(text["text"]))")
            // Only &, < and > are escaped, and only Slack's own <...> markup is left raw.
            let raw = (text["text"] as? String ?? "").replacingOccurrences(of: "<https://e.org/1?a=1&b=2|", with: "").replacingOccurrences(of: "<https://e.org/2|", with: "")
            XCTAssertFalse(raw.contains("<"), raw)
            XCTAssertFalse(raw.contains("&quot;"), "quotes are not HTML-escaped for Slack")
        }
        let first = ((bodies[0]["blocks"] as? [[String: Any]])?.first?["text"] as? [String: Any])?["text"] as? String ?? ""
        XCTAssertTrue(first.contains("\nÜnïcode summary &amp; &lt;tags&gt; \"quoted\""), first)
    }

    func testDiscordRecipeWithEmbeds() throws {
        let got = try runRecipe("discord", env: { ["DISCORD_WEBHOOK_URL": $0.url("/api/webhooks/123/TOPSECRETdiscord")] }, answer: LoopbackResponse(status: 204))
        guard got.count == 3 else { return }
        for r in got {
            XCTAssertEqual(r.header("Content-Type"), "application/json")
            let b = object(r)
            XCTAssertEqual((b["allowed_mentions"] as? [String: Any])?["parse"] as? [String], [], "nobody is pinged")
            guard let embeds = b["embeds"] as? [[String: Any]] else { XCTFail("embeds: \(r.bodyText)"); continue }
            XCTAssertTrue((1...10).contains(embeds.count))
            var total = 0
            for e in embeds {
                XCTAssertTrue((1...256).contains(length(e["title"])))
                XCTAssertLessThanOrEqual(length(e["description"] ?? ""), 4096)
                total += length(e["title"]) + max(0, length(e["description"] ?? ""))
                for (k, v) in e { XCTAssertFalse(v is NSNull || (v as? String) == "", "no empty \(k)") }
                if let url = e["url"] as? String { XCTAssertTrue(url.hasPrefix("https://"), url) }
                let stamp = try XCTUnwrap(e["timestamp"] as? String)
                XCTAssertNotNil(ISO8601DateFormatter().date(from: stamp), stamp)
            }
            XCTAssertLessThanOrEqual(total, 6000)
        }
        let first = (object(got[0])["embeds"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(first["title"] as? String, Self.trickyTitle)
        XCTAssertEqual(first["url"] as? String, Self.trickyURL)
        XCTAssertEqual(first["description"] as? String, String(Self.longSummary.unicodeScalars.prefix(4096).map(Character.init)), "cut at exactly 4096 characters")
        XCTAssertEqual(first["timestamp"] as? String, "2026-01-02T03:04:05Z")
        let third = (object(got[2])["embeds"] as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(Set(third.keys), ["title", "timestamp"], "no url, no description when the item has none")
    }

    func testDiscordRecipeWithContent() throws {
        let got = try runRecipe("discord-content", env: { ["DISCORD_WEBHOOK_URL": $0.url("/api/webhooks/123/TOPSECRETdiscord")] }, answer: LoopbackResponse(status: 204))
        guard got.count == 3 else { return }
        let contents = got.map { object($0)["content"] as? String ?? "" }
        for c in contents { XCTAssertTrue((1...2000).contains(c.unicodeScalars.count), c) }
        XCTAssertEqual(contents, ["**\(Self.trickyTitle)**\n\(Self.trickyURL)", "**Second item**\nhttps://e.org/2", "**No link**"])
        XCTAssertEqual((object(got[0])["allowed_mentions"] as? [String: Any])?["parse"] as? [String], [])
    }

    func testNtfyRecipeWithAPlainTextBody() throws {
        let got = try runRecipe("ntfy", env: { ["NTFY_SERVER": $0.baseURL, "NTFY_TOPIC": "tributary-test-topic"] })
        guard got.count == 3 else { return }
        for r in got {
            XCTAssertEqual(r.method, "POST")
            XCTAssertEqual(r.path, "/tributary-test-topic", "published to the topic's URL")
            XCTAssertEqual(r.header("Content-Type"), "text/plain; charset=utf-8", "a string output is the body as it is")
            XCTAssertLessThanOrEqual(r.body.count, 4096, "under ntfy's message limit")
        }
        XCTAssertEqual(got.map(\.bodyText), ["\(Self.trickyTitle)\n\(Self.trickyURL)", "Second item\nhttps://e.org/2", "No link"])
    }

    func testNtfyRecipeWithJSON() throws {
        let got = try runRecipe("ntfy-json", env: { ["NTFY_SERVER": $0.baseURL, "NTFY_TOPIC": "tributary-test-topic"] })
        guard got.count == 3 else { return }
        for r in got {
            XCTAssertEqual(r.path, "/", "JSON is published to the root URL")
            XCTAssertEqual(r.header("Content-Type"), "application/json")
            let b = object(r)
            XCTAssertEqual(b["topic"] as? String, "tributary-test-topic")
            XCTAssertNotNil(b["title"] as? String)
            XCTAssertLessThanOrEqual(Array((b["message"] as? String ?? "").utf8).count, 4096)
            XCTAssertEqual(b["tags"] as? [String], ["entry"])
        }
        let bodies = got.map { object($0) }
        XCTAssertEqual(bodies[0]["title"] as? String, Self.trickyTitle)
        XCTAssertEqual(bodies[0]["click"] as? String, Self.trickyURL)
        XCTAssertEqual(bodies[0]["message"] as? String, String(Self.longSummary.unicodeScalars.prefix(1000).map(Character.init)))
        XCTAssertEqual(bodies[1]["message"] as? String, "Second item", "the title when there is no summary")
        XCTAssertNil(bodies[2]["click"], "no click without a url")
    }

    func testMatrixRecipe() throws {
        let token = "syt_TOPSECRET_matrix_token"
        let got = try runRecipe("matrix", env: { ["MATRIX_HOMESERVER": $0.baseURL, "MATRIX_ROOM_ID": "%21room%3Aexample.org", "MATRIX_ACCESS_TOKEN": token] },
                                answer: .text(#"{"event_id":"$abc:example.org"}"#))
        guard got.count == 3 else { return }
        var txns: [String] = []
        for r in got {
            XCTAssertEqual(r.method, "PUT")
            XCTAssertEqual(r.header("Authorization"), "Bearer \(token)")
            XCTAssertEqual(r.header("Content-Type"), "application/json")
            let prefix = "/_matrix/client/v3/rooms/%21room%3Aexample.org/send/m.room.message/"
            XCTAssertTrue(r.path.hasPrefix(prefix), r.path)
            let txn = String(r.path.dropFirst(prefix.count))
            XCTAssertEqual(txn, r.header("Idempotency-Key"), "the transaction id is the request's Idempotency-Key")
            XCTAssertFalse(txn.isEmpty)
            txns.append(txn)
            let b = object(r)
            XCTAssertEqual(b["msgtype"] as? String, "m.text")
            XCTAssertFalse((b["body"] as? String ?? "").isEmpty, "body is required")
            XCTAssertEqual(b["format"] as? String, "org.matrix.custom.html")
            XCTAssertNotNil(b["formatted_body"] as? String, "formatted_body is required with format")
        }
        XCTAssertEqual(Set(txns).count, 3, "one transaction id per message")
        let first = object(got[0])
        XCTAssertTrue((first["body"] as? String ?? "").hasPrefix("\(Self.trickyTitle)\n\(Self.trickyURL)\n\nÜnïcode"))
        let formatted = got.map { object($0)["formatted_body"] as? String ?? "" }
        XCTAssertTrue(formatted[0].hasPrefix("<a href='https://e.org/1?a=1&amp;b=2'>Rock &amp; Roll &lt;live&gt; &quot;encore&quot; — naïve café ✓ @everyone</a><br>"), formatted[0])
        let parsed = try html(formatted)
        XCTAssertEqual(parsed.map(\.tags), [["a", "br"], ["a"], ["b"]], "no markup but the recipe's own")
        XCTAssertTrue(parsed[0].visible.hasPrefix(Self.trickyTitle + "Ünïcode summary & <tags> \"quoted\""), parsed[0].visible)
    }

    func testTelegramRecipe() throws {
        let got = try runRecipe("telegram", env: { ["TELEGRAM_API": $0.baseURL, "TELEGRAM_BOT_TOKEN": "123456:TOPSECRET-telegram", "TELEGRAM_CHAT_ID": "-1001234567890"] },
                                answer: .text(#"{"ok":true,"result":{}}"#))
        guard got.count == 3 else { return }
        for r in got {
            XCTAssertEqual(r.method, "POST")
            XCTAssertEqual(r.path, "/bot123456:TOPSECRET-telegram/sendMessage")
            XCTAssertEqual(r.header("Content-Type"), "application/json")
            let b = object(r)
            XCTAssertEqual(b["chat_id"] as? String, "-1001234567890")
            XCTAssertEqual(b["parse_mode"] as? String, "HTML")
            XCTAssertEqual((b["link_preview_options"] as? [String: Any])?["is_disabled"] as? Bool, true)
        }
        let texts = got.map { object($0)["text"] as? String ?? "" }
        XCTAssertTrue(texts[0].hasPrefix("<b>Rock &amp; Roll &lt;live&gt; &quot;encore&quot; — naïve café ✓ @everyone</b>\n\n"), texts[0])
        let parsed = try html(texts)
        for p in parsed {
            XCTAssertEqual(p.tags, ["b"], "only the recipe's own markup")
            XCTAssertTrue((1...4096).contains(p.visible.unicodeScalars.count), "1-4096 characters after entities are parsed: \(p.visible.unicodeScalars.count)")
        }
        XCTAssertTrue(parsed[0].visible.hasPrefix(Self.trickyTitle + "\n\nÜnïcode summary & <tags> \"quoted\""), "the text reads as the item's")
        XCTAssertTrue(parsed[0].visible.hasSuffix("\n\n" + Self.trickyURL))
        XCTAssertEqual(parsed[2].visible, "No link")
    }

    // MARK: - What the other sinks do with the outputs

    func testStdoutPrintsStringsRawOtherValuesAsCompactJSONAndNothingForNoOutput() throws {
        let dir = TempDir()
        defer { dir.remove() }
        // demo:1 a string; demo:2 nothing; demo:3 two outputs, a string and an object.
        let template = #"if .id == \"demo:2\" then empty elif .id == \"demo:3\" then (.title, {id, n: 1, title}) else .title + \" | \" + .url end"#
        let cfg = configFile(dir, sinks: #"{"type":"stdout","template":"\#(template)"}"#)
        let state = dir.path + "/state.sqlite"
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "\(Self.trickyTitle) | \(Self.trickyURL)\nNo link\n{\"id\":\"demo:3\",\"n\":1,\"title\":\"No link\"}\n")
        XCTAssertTrue(r.stderr.contains("3 fetched  3 new"), r.stderr)
        let again = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, "", "every item was recorded, also the one that gave no output")
        XCTAssertTrue(again.stderr.contains("3 fetched  0 new"), again.stderr)
    }

    func testExecProgramGetsOneLinePerOutput() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let program = dir.write("deliver.py", "import sys\nopen(sys.argv[1], 'ab').write(sys.stdin.buffer.read())\n")
        let template = #"if .url then .title + \"\\t\" + .url else {id} end"#
        let cfg = configFile(dir, sinks: #"{"type":"exec","command":["python3","\#(program)","\#(dir.path)/delivered.txt"],"template":"\#(template)"}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/state.sqlite"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(dir.read("delivered.txt"),
                       "\(Self.trickyTitle)\t\(Self.trickyURL)\nSecond item\thttps://e.org/2\n{\"id\":\"demo:3\"}\n")
    }

    func testNATSPayloadIsTheOutput() throws {
        let nats = try NATSServer()
        defer { nats.remove() }
        let dir = TempDir()
        defer { dir.remove() }
        let template = #"if .id == \"demo:2\" then ({id, title}, .title) else {id, title} end"#
        let cfg = configFile(dir, sinks: #"{"type":"nats","url":"\#(nats.url)","stream":"ITEMS","template":"\#(template)"}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/state.sqlite"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let stream = try XCTUnwrap(NATSReader.read(nats.url, stream: "ITEMS"))
        XCTAssertEqual(stream.messages.map(\.id), ["demo:1", "demo:2", "demo:2#2", "demo:3"], "a second output of an item is named <id>#2")
        XCTAssertEqual(stream.messages.map(\.data), [
            #"{"id":"demo:1","title":"Rock & Roll <live> \"encore\" — naïve café ✓ @everyone"}"#,
            #"{"id":"demo:2","title":"Second item"}"#,
            "Second item",
            #"{"id":"demo:3","title":"No link"}"#,
        ])
        XCTAssertEqual(Set(stream.messages.map(\.subject)), ["tributary.items.entry"])
    }

    func testBatchedWebhookSendsOneJSONArrayOrJSONLinesOfTheOutputs() throws {
        let server = try LoopbackServer { _ in LoopbackResponse(status: 200) }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        // demo:3 gives a string: in a batch it is a JSON string, not raw text.
        let template = #"if .url then {id, title} else .title end"#
        let cfg = configFile(dir, sinks: [
            #"{"type":"webhook","name":"arr","url":"\#(server.url("/json"))","format":"json","batch":10,"template":"\#(template)"}"#,
            #"{"type":"webhook","name":"lines","url":"\#(server.url("/jsonl"))","format":"jsonl","batch":2,"template":"\#(template)"}"#,
        ].joined(separator: ","))
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", dir.path + "/state.sqlite"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let got = server.requests
        let array = got.filter { $0.path == "/json" }
        let lines = got.filter { $0.path == "/jsonl" }
        XCTAssertEqual(array.count, 1)
        XCTAssertEqual(array.first?.header("Content-Type"), "application/json")
        XCTAssertEqual(array.first?.bodyText, #"[{"id":"demo:1","title":"Rock & Roll <live> \"encore\" — naïve café ✓ @everyone"},{"id":"demo:2","title":"Second item"},"No link"]"#)
        XCTAssertEqual(lines.count, 2, "batch 2: two requests for three outputs")
        XCTAssertEqual(lines.map { $0.header("Content-Type") }, ["application/x-ndjson", "application/x-ndjson"])
        XCTAssertEqual(lines.map(\.bodyText), [
            #"{"id":"demo:1","title":"Rock & Roll <live> \"encore\" — naïve café ✓ @everyone"}"# + "\n" + #"{"id":"demo:2","title":"Second item"}"# + "\n",
            "\"No link\"\n",
        ])
    }

    // MARK: - Errors

    func testATemplateThatDoesNotCompileIsAConfigErrorNamingItsKey() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"demo","type":"json","url":"\#(itemsFile(dir))","items":"items","fields":{"id":"id","title":"title"}}],"sinks":[{"type":"stdout","template":"{text: .title"}]}"#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("tributary.json: sinks[0].template: jq: error: syntax error, unexpected $end"), r.stderr)
        XCTAssertTrue(r.stderr.contains("(1 compile error)"), r.stderr)
        let run = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(run.status, 2, run.stderr)
        XCTAssertEqual(run.stdout, "", "nothing is fetched or written")
    }

    func testATemplateOnASinkThatTakesNoneIsRefused() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"demo","type":"json","url":"\#(itemsFile(dir))","items":"items","fields":{"id":"id","title":"title"}}],"sinks":[{"type":"stdout"},{"type":"jsonl","path":"out.jsonl","template":".title"}]}"#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("tributary.json: sinks[1].template: the jsonl sink takes no template (the sinks that do: stdout, webhook, exec, nats)"), r.stderr)
    }

    func testARuntimeErrorRejectsThatItemForThatSinkOnlyAndRecordsIt() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let template = #"if .id == \"demo:2\" then (.title, error(\"no \" + .id)) else .title end"#
        let cfg = configFile(dir, sinks: #"{"type":"stdout","template":"\#(template)"},{"type":"jsonl","path":"../out.jsonl"}"#)
        let state = dir.path + "/state.sqlite"
        let r = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(r.status, 0, "a rejected item does not change the exit code: \(r.stderr)")
        XCTAssertEqual(r.stdout, "\(Self.trickyTitle)\nNo link\n", "nothing of the item it failed on, not even the output before the error")
        XCTAssertEqual(dir.read("out.jsonl")?.split(separator: "\n").count, 3, "the other sink writes every item")
        XCTAssertTrue(r.stderr.contains("warning: demo: sink stdout rejected item demo:2: stdout: its template failed on this item: jq: error: no demo:2; not written; recorded as delivered, so it is not retried"), r.stderr)
        XCTAssertTrue(r.stderr.contains("1 rejected"), r.stderr)
        let again = try BinaryRunner.run(["run", "-c", cfg, "--state", state])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.stdout, "", "the rejected item was recorded as delivered")
        XCTAssertTrue(again.stderr.contains("3 fetched  0 new"), again.stderr)
    }
}
