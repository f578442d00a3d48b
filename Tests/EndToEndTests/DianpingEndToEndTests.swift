import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary run` with a `dianping` source against a loopback server that checks the
/// signature the way the API does (against a sign computed independently with Python).
final class DianpingEndToEndTests: XCTestCase {
    // app key E2EKEY77, secret E2ESECRET99, city=上海 keyword="Rock & Roll 小笼" limit=2 (Tests/Fixtures/dianping/NOTES.md)
    static let query = "appkey=E2EKEY77&city=%E4%B8%8A%E6%B5%B7&keyword=Rock%20%26%20Roll%20%E5%B0%8F%E7%AC%BC&limit=2&sign=D69281EACA5E11BADF08FFDF82ED3891C701A0CC"

    static let ok = #"""
    {"status":"OK","count":2,"total_count":2,"businesses":[
      {"business_id":6137363,"name":"小杨生煎","branch_name":"吴江路店","address":"静安区吴江路269号","telephone":"021-61361361","city":"上海",
       "regions":["静安区"],"categories":["小吃快餐"],"latitude":31.23071,"longitude":121.46235,"avg_rating":4.5,"avg_price":28,"review_count":9822,
       "distance":-1,"business_url":"http://www.dianping.com/shop/6137363","photo_url":"http://i2.dpfile.com/pc/a(700x700)/thumb.jpg","has_coupon":0,"has_deal":1,"deal_count":1},
      {"business_id":"500381","name":"南翔馒头店\n","branch_name":"","address":"黄浦区豫园路85号","city":"上海","avg_rating":"3.5","avg_price":-1,"business_url":"http://www.dianping.com/shop/500381"}
    ]}
    """#

    func config(_ dir: TempDir, _ server: LoopbackServer, secrets: [(String, String)]) -> String {
        let sources = secrets.map { name, secret in
            #"{"name":"\#(name)","type":"dianping","retries":0,"base_url":"\#(server.baseURL)","app_key":"E2EKEY77","app_secret":"\#(secret)","params":{"limit":2,"keyword":"Rock & Roll 小笼","city":"上海"}}"#
        }
        return dir.write("tributary.json", #"{"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"stdout","format":"jsonl"}]}"#)
    }

    func testSignedRequestItemsAndAnInvalidSignError() throws {
        let server = try LoopbackServer { req in
            guard req.path.hasPrefix("/v1/business/find_businesses?") else { return .text("{}", status: 404) }
            if req.path == "/v1/business/find_businesses?" + DianpingEndToEndTests.query { return .text(DianpingEndToEndTests.ok, contentType: "application/json;charset=UTF-8") }
            return .text(#"{"status":"ERROR","error":{"errorCode":10005,"errorMessage":"Invalid sign. (sign签名参数值无效)"}}"#, contentType: "application/json;charset=UTF-8")
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = config(dir, server, secrets: [("good", "E2ESECRET99"), ("bad", "WRONGSECRET1")])
        let record = dir.path + "/rec"
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--verbose", "--record", record])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 2, r.stdout)
        let schema = try SchemaValidator.itemSchema()
        for line in r.stdoutLines { XCTAssertEqual(schema.validate(line: line), [], line) }
        XCTAssertTrue(r.stdoutLines[0].hasPrefix(#"{"id":"dianping:6137363","source":"good","type":"dianping","kind":"business","title":"小杨生煎(吴江路店)","summary":"静安区吴江路269号 · 021-61361361 · ¥28 per person · rating 4.5/5","url":"http://www.dianping.com/shop/6137363""#), r.stdoutLines[0])
        XCTAssertTrue(r.stdoutLines[1].hasPrefix(#"{"id":"dianping:500381","source":"good","type":"dianping","kind":"business","title":"南翔馒头店","summary":"黄浦区豫园路85号 · rating 3.5/5""#), r.stdoutLines[1])
        let shown = "\(server.baseURL)/v1/business/find_businesses?appkey=***&city=%E4%B8%8A%E6%B5%B7&keyword=Rock%20%26%20Roll%20%E5%B0%8F%E7%AC%BC&limit=2&sign=***"
        XCTAssertTrue(r.stderr.contains("good  dianping  ok  2 fetched  2 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("bad   dianping  failed: GET \(shown): API error 10005: Invalid sign. (sign签名参数值无效)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 2 sources, 1 failed, 2 fetched, 2 new"), r.stderr)
        for secret in ["E2ESECRET99", "WRONGSECRET1", "E2EKEY77", "D69281EACA5E11BADF08FFDF82ED3891C701A0CC"] {
            XCTAssertFalse(r.stderr.contains(secret), "\(secret) in stderr")
        }
        let requests = server.requests.map(\.path)
        XCTAssertEqual(requests.count, 2)
        XCTAssertTrue(requests.contains("/v1/business/find_businesses?" + Self.query), "\(requests)")

        let files = (try? FileManager.default.contentsOfDirectory(atPath: record)) ?? []
        XCTAssertEqual(files.count, 1, "both exchanges have the same URL once appkey and sign are masked: one file")
        for f in files {
            let text = String(decoding: FileManager.default.contents(atPath: record + "/" + f) ?? Data(), as: UTF8.self)
            XCTAssertTrue(text.contains(#""url":"\#(shown)""#), text)
            for secret in ["E2ESECRET99", "WRONGSECRET1", "E2EKEY77", "D69281EACA5E11BADF08FFDF82ED3891C701A0CC"] {
                XCTAssertFalse(text.contains(secret), "\(secret) in \(f)")
            }
        }

        // A recording of the good source replays offline: the masked appkey and sign still match.
        let goodRecord = dir.path + "/rec-good"
        XCTAssertEqual(try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--quiet", "--only", "good", "--record", goodRecord]).status, 0)
        let replayed = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--replay", goodRecord, "--only", "good"])
        XCTAssertEqual(replayed.status, 0, replayed.stderr)
        XCTAssertEqual(replayed.stdoutLines.count, 2)
    }

    func testOptionErrorsExit2BeforeAnyRequest() throws {
        let server = try LoopbackServer { _ in .text("{}") }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"d","type":"dianping","base_url":"\#(server.baseURL)","app_key":"k","app_secret":"s","params":{"keyword":"x","limit":100}}]}"#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains(#"sources[0] ("d").params.limit: expected an integer from 1 to 40, found 100"#), r.stderr)
        XCTAssertTrue(r.stderr.contains(#"sources[0] ("d").params: needs "city" or "latitude" + "longitude""#), r.stderr)
        XCTAssertEqual(server.requestCount, 0)
    }
}
