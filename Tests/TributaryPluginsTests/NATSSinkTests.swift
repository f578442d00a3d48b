import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit
@testable import TributaryPlugins

/// The `nats` sink's options, subjects and message ids, without a server (the end-to-end tests
/// in NATSEndToEndTests run it against a real one).
final class NATSSinkTests: XCTestCase {
    func load(_ sink: String) throws(ConfigError) -> Config {
        let text = #"{"sources":[{"name":"a","type":"json","url":"https://e.org/x","fields":{"title":"t"}}],"sinks":[\#(sink)]}"#
        return try ConfigLoader.load(bytes: Array(text.utf8), file: "tributary.json", directory: "/cfg", registry: BuiltinRegistry.standard, environment: { _ in nil })
    }

    func errors(_ sink: String) -> String {
        do {
            _ = try load(sink)
            XCTFail("expected config errors for \(sink)")
            return ""
        } catch {
            return error.messages.joined(separator: "\n")
        }
    }

    func item(source: String = "news", type: String = "json", kind: String = "entry") -> Item {
        Item(id: "x:1", source: source, type: type, kind: kind, title: "t", fetched: Timestamp(seconds: 0))
    }

    func testDefaults() throws {
        let sink = try XCTUnwrap(try load(#"{"type":"nats"}"#).sinks.first?.sink as? NATSSink)
        XCTAssertEqual(sink.url, "nats://127.0.0.1:4222")
        XCTAssertEqual(sink.subject.template, "tributary.items.{kind}")
        XCTAssertEqual(sink.subject.subject(for: item(kind: "video")), "tributary.items.video")
        XCTAssertNil(sink.stream)
        XCTAssertEqual(sink.duplicateWindow, 120)
        XCTAssertEqual(sink.timeout, 10)
    }

    func testOptionsAreChecked() {
        XCTAssertTrue(errors(#"{"type":"nats","url":"http://127.0.0.1:4222"}"#).contains(#"sinks[0].url: expected a nats:// URL, found "http://127.0.0.1:4222""#))
        XCTAssertTrue(errors(#"{"type":"nats","url":"nats://u:pw@"}"#).contains(#"sinks[0].url: no host in "nats://***@""#))
        XCTAssertTrue(errors(#"{"type":"nats","url":"nats://a:4222,ftp://b"}"#).contains("expected a nats:// URL"))
        XCTAssertTrue(errors(#"{"type":"nats","url":"tls://a:4222"}"#).contains(#"expected a nats:// URL, found "tls://a:4222""#))
        XCTAssertTrue(errors(#"{"type":"nats","subject":"items.{nope}"}"#).contains("sinks[0].subject: unknown placeholder {nope} in \"items.{nope}\" (known: {kind}, {source}, {type})"))
        XCTAssertTrue(errors(#"{"type":"nats","subject":"items.>"}"#).contains("cannot hold a wildcard (>)"))
        XCTAssertTrue(errors(#"{"type":"nats","subject":"items..{kind}"}"#).contains("every dot-separated token must be non-empty"))
        XCTAssertTrue(errors(#"{"type":"nats","subject":"a b"}"#).contains("cannot hold white space"))
        XCTAssertTrue(errors(#"{"type":"nats","subject":"a.{kind"}"#).contains(#"unclosed "{""#))
        XCTAssertTrue(errors(#"{"type":"nats","subject":""}"#).contains("sinks[0].subject: must not be empty"))
        XCTAssertTrue(errors(#"{"type":"nats","stream":"my.stream"}"#).contains("sinks[0].stream: a stream name cannot hold white space"))
        XCTAssertTrue(errors(#"{"type":"nats","timeout":0}"#).contains("sinks[0].timeout: must be at least 1ms, found 0s"))
        XCTAssertTrue(errors(#"{"type":"nats","duplicate_window":"soon"}"#).contains("sinks[0].duplicate_window: expected a duration"))
        XCTAssertTrue(errors(#"{"type":"nats","subjects":"x"}"#).contains(#"unknown key "subjects" (did you mean "subject"?)"#))
    }

    func testSubjectTemplate() throws {
        let s = try NATSSubject.parse("feeds.{source}.{type}-x.{kind}").get()
        XCTAssertEqual(s.parts, [.literal("feeds."), .source, .literal("."), .type, .literal("-x."), .kind])
        XCTAssertEqual(s.subject(for: item(source: "my.feed", kind: "video")), "feeds.my_feed.json-x.video")
        XCTAssertEqual(NATSSubject.token("a.b*c>d e\u{1}"), "a_b_c_d_e_")
        XCTAssertEqual(NATSSubject.token(""), "_")
        XCTAssertEqual(NATSSubject.token("müsli"), "müsli")
        XCTAssertEqual(try NATSSubject.parse("plain.subject").get().subject(for: item()), "plain.subject")
        XCTAssertTrue(try NATSSubject.parse("tributary.items.{kind}").get().isUnderDefaultStreamSubjects)
        XCTAssertFalse(try NATSSubject.parse("tributary.items").get().isUnderDefaultStreamSubjects)
        XCTAssertFalse(try NATSSubject.parse("news.{kind}").get().isUnderDefaultStreamSubjects)
    }

    func testMessageIDIsTheItemIDUnlessAHeaderCannotHoldIt() {
        XCTAssertEqual(NATSOptions.messageID("youtube:video:dQw4w9WgXcQ"), "youtube:video:dQw4w9WgXcQ")
        XCTAssertEqual(NATSOptions.messageID("feed:https://e.org/a%20b"), "feed:https://e.org/a%20b")
        XCTAssertEqual(NATSOptions.messageID("feed:a\r\nb%ü"), "feed:a%0D%0Ab%25ü")
    }

    func testCredentialsInTheURLAreSecrets() throws {
        defer { Secrets.removeAll() }
        _ = try load(#"{"type":"nats","url":"nats://alice:pa55word@h1:4222,nats://tok3n-abc@h2:4222"}"#)
        XCTAssertEqual(Redactor.redactText("auth failed for pa55word and tok3n-abc"), "auth failed for *** and ***")
        let sink = NATSSink(url: "nats://alice:pa55word@h1:4222", subject: try NATSSubject.parse("a").get(), stream: nil, duplicateWindow: 120, timeout: 10)
        XCTAssertEqual(sink.shownURL, "nats://***@h1:4222")
    }

    func testAnUnreachableServerFailsOpenNamingTheURL() throws {
        let sink = NATSSink(url: "nats://bob:hunter22@127.0.0.1:1", subject: try NATSSubject.parse("a").get(), stream: nil, duplicateWindow: 120, timeout: 2)
        XCTAssertThrowsError(try sink.open(SinkContext(window: nil))) { error in
            let message = (error as? SinkError)?.message ?? "\(error)"
            XCTAssertTrue(message.hasPrefix("nats: cannot connect to nats://***@127.0.0.1:1: "), message)
            XCTAssertFalse(message.contains("hunter22"), message)
        }
        XCTAssertThrowsError(try sink.write([item()])) { error in
            XCTAssertTrue("\(error)".contains("not connected"), "\(error)")
        }
        XCTAssertNoThrow(try sink.close())
    }
}
