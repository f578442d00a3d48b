import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary run` with `channels` sources against a loopback server that serves the three
/// formats from Tests/Fixtures/channels, plus an API error and a broken playlist.
final class ChannelsEndToEndTests: XCTestCase {
    static func fixture(_ name: String) -> String {
        String(decoding: FileManager.default.contents(atPath: BinaryRunner.packageRoot + "/Tests/Fixtures/channels/" + name) ?? Data(), as: UTF8.self)
    }

    func serve() throws -> LoopbackServer {
        try LoopbackServer { req in
            switch req.path {
            case "/api/channels.json": return .text(Self.fixture("list.json"))
            case "/iptv/channels.json": return .text(Self.fixture("iptv-org-channels.json"))
            case "/iptv/streams.json": return .text(Self.fixture("iptv-org-streams.json"))
            case "/playlist.m3u8": return .text(Self.fixture("playlist.m3u"), contentType: "application/vnd.apple.mpegurl")
            case "/broken.m3u": return .text(Self.fixture("playlist-malformed.m3u"), contentType: "audio/x-mpegurl")
            case let p where p.hasPrefix("/private/channels.json?token="):
                return .text(#"{"error":"invalid token","code":403}"#, status: 403)
            default: return .text("Not Found", status: 404, contentType: "text/plain")
            }
        }
    }

    func testThreeFormatsDeliveredAsJSONLines() throws {
        let server = try serve()
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"tv","type":"channels","url":"\#(server.baseURL)/api/channels.json","skip_locked":true},
          {"name":"org","type":"channels","url":"\#(server.baseURL)/iptv/channels.json","streams_url":"\#(server.baseURL)/iptv/streams.json","countries":["RU"],"categories":["music","news"]},
          {"name":"pl","type":"channels","url":"\#(server.baseURL)/playlist.m3u8","sort":"name"}
        ]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--jsonl", "--no-state"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let schema = try SchemaValidator.itemSchema()
        for line in r.stdoutLines { XCTAssertEqual(schema.validate(line: line), [], line) }
        let items = try r.stdoutLines.map { try JSONParser.parse($0) }
        func ids(_ source: String) -> [String] {
            items.compactMap { $0.objectValue }.filter { $0["source"]?.stringValue == source }.compactMap { $0["id"]?.stringValue }
        }
        XCTAssertEqual(items.count, 11, r.stdout)
        XCTAssertEqual(ids("tv"), ["channel:77777", "channel:1410", "channel:101", "channel:24"], "by priority, the locked one dropped")
        XCTAssertEqual(ids("org"), ["channel:1HDMusicTelevision.ru", "channel:360deg.ru"], "document order, RU music and news only")
        XCTAssertEqual(ids("pl"), ["channel:2x2.ru", "channel:m3u-e578c6f764f0cb6d", "channel:MuzTV.ru", "channel:Perviykanal.ru@SD", "channel:m3u-8b885e0e48be43a5"],
                       "by name: 2x2 < rtmp://... < Муз-ТВ < Первый канал < Россия 24")
        let muz = try XCTUnwrap(items.first { $0.objectValue?["id"]?.stringValue == "channel:77777" }?.objectValue)
        XCTAssertEqual(muz["title"], .string("Муз-ТВ"))
        XCTAssertEqual(muz["tags"], .array([.string("#развлекательный"), .string("#музыкальный")]))
        XCTAssertTrue(r.stderr.contains("tv    channels  ok  4 fetched  4 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("org   channels  ok  2 fetched  2 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("pl    channels  ok  5 fetched  5 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 3 sources, 0 failed, 11 fetched, 11 new"), r.stderr)
        XCTAssertEqual(server.requests.map(\.path).sorted(), ["/api/channels.json", "/iptv/channels.json", "/iptv/streams.json", "/playlist.m3u8"])
    }

    func testAPIErrorAndBrokenPlaylistFailTheirSourcesOnly() throws {
        let server = try serve()
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"private","type":"channels","url":"\#(server.baseURL)/private/channels.json?token=TOPSECRET42"},
          {"name":"broken","type":"channels","url":"\#(server.baseURL)/broken.m3u"},
          {"name":"gone","type":"channels","url":"\#(server.baseURL)/iptv/channels.json","streams_url":"\#(server.baseURL)/iptv/missing.json"}
        ],"sinks":[{"type":"stdout","format":"jsonl"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let ids = try r.stdoutLines.map { try JSONParser.parse($0).objectValue?["id"]?.stringValue }
        XCTAssertEqual(ids, ["channel:Good1.ru", "channel:m3u-d41ac5f9341e8daf", "channel:Good2.ru"], "the broken playlist's good entries are still delivered")
        XCTAssertTrue(r.stderr.contains(#"private  channels  failed: GET \#(server.baseURL)/private/channels.json?token=***: HTTP 403 Forbidden: {"error":"invalid token","code":403}"#), r.stderr)
        XCTAssertTrue(r.stderr.contains("broken   channels  failed: GET \(server.baseURL)/broken.m3u: 5 malformed playlist lines: line 4: #EXTINF has no comma before the channel name; line 6:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("gone     channels  failed: GET \(server.baseURL)/iptv/missing.json: HTTP 404 Not Found: Not Found"), r.stderr)
        XCTAssertFalse(r.stderr.contains("TOPSECRET42"), r.stderr)
        XCTAssertFalse(r.stdout.contains("TOPSECRET42"))
        XCTAssertEqual(server.requests.filter { $0.path.hasPrefix("/private") }.count, 1, "403 is not retried")
    }
}
