import Foundation
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
import TributaryTestSupport

/// The `dianping` source: request signing against published and hand-verified examples
/// (Tests/Fixtures/dianping/NOTES.md), item mapping, API errors and option validation.
final class DianpingSourceTests: XCTestCase {
    // MARK: signing

    func testSignatureMatchesPublishedSignedURLs() async {
        // Published key pair and the signed URLs a public iOS app logged (see NOTES.md).
        let key = "4123794720", secret = "5a908d5484254cf4879bb47131bfd822"
        let businesses: [(String, String)] = [
            ("category", "美食"), ("city", "杭州"), ("latitude", "30.2800590000"), ("longitude", "120.1616930000"),
            ("sort", "1"), ("limit", "20"), ("offset_type", "1"), ("out_offset_type", "1"), ("platform", "2"),
        ]
        XCTAssertEqual(DianpingSignature.sign(appKey: key, appSecret: secret, params: businesses), "D9770C7E1B3FD5C111B932A48EF3F67A65094A5A")
        let hangzhouDeals: [(String, String)] = [("city", "杭州"), ("region", "西湖区"), ("category", "美食"), ("limit", "3"), ("page", "1")]
        XCTAssertEqual(DianpingSignature.sign(appKey: key, appSecret: secret, params: hangzhouDeals), "7DA792DF7A5203CA2C08C0DFEE1338325E7CD99E")
        let shanghaiDeals: [(String, String)] = [("city", "上海"), ("region", "长宁区"), ("category", "美食"), ("limit", "3"), ("page", "1")]
        XCTAssertEqual(DianpingSignature.sign(appKey: key, appSecret: secret, params: shanghaiDeals), "7C37F212429FE883374285F7E57FC0584558D784")
        XCTAssertEqual(DianpingSignature.sign(appKey: key, appSecret: secret, params: []), "C1C7F4F1C1F08FDB0C9E8B09AD7D3F90F93E2F18")
    }

    func testSignStringMatchesTheOfficialDocumentationExample() async {
        // developer.dianping.com/app/documentation/signature, Java example (placeholder credentials).
        let params: [(String, String)] = [
            ("format", "json"), ("city", "上海"), ("latitude", "31.21524"), ("longitude", "121.420033"), ("category", "美食"),
            ("region", "长宁区"), ("limit", "20"), ("radius", "2000"), ("offset_type", "0"), ("has_coupon", "1"),
            ("has_deal", "1"), ("keyword", "泰国菜"), ("sort", "7"),
        ]
        XCTAssertEqual(
            DianpingSignature.signString(appKey: "XXXXXXXX", appSecret: String(repeating: "X", count: 32), params: params),
            "XXXXXXXXcategory美食city上海formatjsonhas_coupon1has_deal1keyword泰国菜latitude31.21524limit20longitude121.420033offset_type0radius2000region长宁区sort7XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX")
    }

    func testHandVerifiedChineseKeywordWithAmpersandAndSpace() async {
        // Computed with Python hashlib / urllib.parse.quote (NOTES.md).
        let params: [(String, String)] = [("city", "上海"), ("category", "美食"), ("keyword", "生煎 & 汤包"), ("sort", "2"), ("limit", "4"), ("format", "json")]
        XCTAssertEqual(DianpingSignature.signString(appKey: "demo_key", appSecret: "demo_secret_0123", params: params),
                       "demo_keycategory美食city上海formatjsonkeyword生煎 & 汤包limit4sort2demo_secret_0123", "raw, unescaped values")
        XCTAssertEqual(DianpingSignature.sign(appKey: "demo_key", appSecret: "demo_secret_0123", params: params), "8F95DE7B4D52CEEFF01BEB89EA6EA018310E99B7")
        XCTAssertEqual(
            DianpingSignature.signedURL(endpoint: "http://api.dianping.com/v1/business/find_businesses", appKey: "demo_key", appSecret: "demo_secret_0123", params: params),
            "http://api.dianping.com/v1/business/find_businesses?appkey=demo_key&category=%E7%BE%8E%E9%A3%9F&city=%E4%B8%8A%E6%B5%B7&format=json&keyword=%E7%94%9F%E7%85%8E%20%26%20%E6%B1%A4%E5%8C%85&limit=4&sort=2&sign=8F95DE7B4D52CEEFF01BEB89EA6EA018310E99B7")
    }

    func testKeysSortInByteOrder() async {
        let params: [(String, String)] = [("é", "4"), ("z", "5"), ("a", "3"), ("_", "2"), ("Z", "1")]
        XCTAssertEqual(DianpingSignature.sorted(params).map(\.0), ["Z", "_", "a", "z", "é"])
        XCTAssertEqual(DianpingSignature.signString(appKey: "k", appSecret: "s", params: params), "kZ1_2a3z5é4s")
        XCTAssertEqual(DianpingSignature.sign(appKey: "k", appSecret: "s", params: params), "EF0AC621047E210D6F9AE639ACC7A033F31F3F69")
        XCTAssertEqual(DianpingSignature.sorted([("has_online_reservation", "1"), ("has_deal", "1"), ("has_coupon", "1"), ("out_offset_type", "1"), ("offset_type", "1")]).map(\.0),
                       ["has_coupon", "has_deal", "has_online_reservation", "offset_type", "out_offset_type"])
    }

    // MARK: running the source

    struct Run {
        let report: RunReport
        let items: [Item]
        var reason: String? {
            if case .failed(let r)? = report.sources.first?.status { return r }
            return nil
        }
    }

    static let secret = "S3cr3t-Dianping-0042"
    static let params = #"{"city":"上海","category":"美食","keyword":"生煎 & 汤包","sort":2,"limit":4,"format":"json"}"#
    static let url = "http://api.dianping.com/v1/business/find_businesses?appkey=***&category=%E7%BE%8E%E9%A3%9F&city=%E4%B8%8A%E6%B5%B7&format=json&keyword=%E7%94%9F%E7%85%8E%20%26%20%E6%B1%A4%E5%8C%85&limit=4&sort=2&sign=***"

    func source(params: String = DianpingSourceTests.params, extra: String = "") -> String {
        #"{"sources":[{"name":"dp","type":"dianping","app_key":"KEY12345","app_secret":"\#(Self.secret)","params":\#(params)\#(extra)}]}"#
    }

    func run(_ config: String, status: Int = 200, body: String) async throws -> Run {
        let dir = TempDir()
        defer { dir.remove() }
        EngineHarness.record(dir, [(url: Self.url, status: status, body: body)], contentType: "application/json;charset=UTF-8")
        let outcome = try await EngineHarness.run(config: config, registry: BuiltinRegistry.standard, transport: try ReplayTransport(directory: dir.path), directory: dir.path)
        return Run(report: outcome.report, items: outcome.items)
    }

    func fixture(_ name: String) throws -> String {
        try String(contentsOfFile: packageRoot + "/Tests/Fixtures/dianping/" + name, encoding: .utf8)
    }

    func testRequestIsSignedAndSecretFree() async throws {
        let cfg = try ConfigLoader.load(bytes: Array(source().utf8), file: "t.json", directory: "", registry: BuiltinRegistry.standard, environment: { _ in nil })
        let dp = try XCTUnwrap(cfg.sources.first?.source as? DianpingSource)
        let expectedSign = DianpingSignature.sign(appKey: "KEY12345", appSecret: Self.secret, params: [("city", "上海"), ("category", "美食"), ("keyword", "生煎 & 汤包"), ("sort", "2"), ("limit", "4"), ("format", "json")])
        XCTAssertEqual(dp.requestURL, Self.url.replacingOccurrences(of: "appkey=***", with: "appkey=KEY12345").replacingOccurrences(of: "sign=***", with: "sign=" + expectedSign))
        XCTAssertFalse(dp.requestURL.contains(Self.secret), "the secret only signs")
        XCTAssertEqual(Redactor.redactURL(dp.requestURL), Self.url)
    }

    func testSuccessMapsEveryField() async throws {
        let r = try await run(source(), body: try fixture("find_businesses_ok.json"))
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        XCTAssertEqual(r.items.map(\.id), ["dianping:6137363", "dianping:2190823", "dianping:500381", "dianping:93275564"])
        let a = r.items[0]
        XCTAssertEqual(a.kind, "business")
        XCTAssertEqual(a.type, "dianping")
        XCTAssertEqual(a.title, "小杨生煎(吴江路店)")
        XCTAssertEqual(a.summary, "静安区吴江路269号湟普汇2楼 · 021-61361361 · ¥28 per person · rating 4.5/5")
        XCTAssertEqual(a.url, "http://www.dianping.com/shop/6137363")
        XCTAssertEqual(a.image, "http://i2.dpfile.com/pc/8a6d7c1f3e2b4a5c9d0e1f2a3b4c5d6e(700x700)/thumb.jpg")
        XCTAssertEqual(a.geo, Geo(lat: 31.23071, lon: 121.46235))
        XCTAssertEqual(a.tags, ["小吃快餐", "生煎"])
        XCTAssertEqual(String(decoding: JSONWriter.serialize(.object(a.data)), as: UTF8.self),
                       #"{"rating":4.5,"avg_price":28,"review_count":9822,"categories":["小吃快餐","生煎"],"regions":["静安区","南京西路"],"has_coupon":false,"has_deal":true,"deal_count":1,"telephone":"021-61361361","address":"静安区吴江路269号湟普汇2楼","city":"上海","branch_name":"吴江路店"}"#)

        let b = r.items[1]  // id, rating and coordinates as strings
        XCTAssertEqual(b.data["rating"], .int(4))
        XCTAssertEqual(b.geo, Geo(lat: 31.23554, lon: 121.47016))
        XCTAssertEqual(b.summary, "黄浦区黄河路90号（近凤阳路） · 021-63276878 · ¥35 per person · rating 4/5")

        let c = r.items[2]  // embedded newline, empty branch name
        XCTAssertEqual(c.title, "南翔馒头店 （豫园店）")
        XCTAssertNil(c.data["branch_name"])
        XCTAssertEqual(c.data["has_coupon"], .bool(true))

        let d = r.items[3]  // test-data suffix left alone, padded branch, -1 price, no photo, no phone
        XCTAssertEqual(d.title, "老盛昌汤包馆(这是一条测试商户数据，仅用于测试开发，开发完成后请申请正式数据...)(徐家汇店)")
        XCTAssertEqual(d.summary, "徐汇区漕溪北路398号汇智大厦1楼 · rating 3.5/5")
        XCTAssertNil(d.image)
        XCTAssertNil(d.data["avg_price"], "-1 means unknown")
        XCTAssertNil(d.data["distance"])
        XCTAssertNil(d.data["telephone"])
        let schema = try SchemaValidator.itemSchema()
        for item in r.items { XCTAssertEqual(schema.validate(item.jsonValue()), [], item.id) }
    }

    func testPublishedTestDataShape() async throws {
        let r = try await run(source(), body: try fixture("find_businesses_test_data.json"))
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        let a = try XCTUnwrap(r.items.first)
        XCTAssertEqual(a.id, "dianping:1916992")
        XCTAssertEqual(a.title, "北京欢乐谷(这是一条测试商户数据，仅用于测试开发，开发完成后请申请正式数据...)")
        XCTAssertEqual(a.summary, "朝阳区东四环南路东侧小武基路路北(四方桥东南角) · 4006040616", "price 0 and rating 0 are not shown")
        XCTAssertEqual(a.url, "http://www.dianping.com/shop/1916992?utm_source=open")
        XCTAssertEqual(a.data["rating"], .int(0))
        XCTAssertEqual(a.data["deal_count"], .int(18))
    }

    func testSmallPhotoIsTheImageFallbackAndEntitiesAreDecoded() async throws {
        let body = #"{"status":"OK","count":1,"businesses":[{"business_id":"77","name":" Tom &amp; Jerry\t西餐厅 ","branch_name":"\n","address":"","photo_url":"","s_photo_url":"http://i1.dpfile.com/s.jpg","latitude":0,"longitude":0,"has_coupon":"1","distance":"350"}]}"#
        let r = try await run(source(), body: body)
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        let a = try XCTUnwrap(r.items.first)
        XCTAssertEqual(a.title, "Tom & Jerry 西餐厅")
        XCTAssertEqual(a.image, "http://i1.dpfile.com/s.jpg")
        XCTAssertNil(a.summary)
        XCTAssertNil(a.geo, "0,0 is no position")
        XCTAssertEqual(a.data["has_coupon"], .bool(true))
        XCTAssertEqual(a.data["distance"], .int(350))
    }

    func testEmptyResultAndFallbackTitle() async throws {
        var r = try await run(source(), body: #"{"status":"OK","count":0,"total_count":0,"businesses":[]}"#)
        XCTAssertEqual(r.report.exitCode, 0)
        XCTAssertEqual(r.items.count, 0)
        r = try await run(source(), body: #"{"status":"OK","count":0}"#)
        XCTAssertEqual(r.report.exitCode, 0, "an absent list is an empty result")
        r = try await run(source(), body: #"{"status":"OK","businesses":[{"business_id":5,"name":"","branch_name":""}]}"#)
        XCTAssertEqual(r.items.first?.title, "Dianping business 5")
    }

    func testStatusErrorFailsWithCodeAndMessage() async throws {
        for (file, reason) in [
            ("error_invalid_sign.json", "API error 10005: Invalid sign. (sign签名参数值无效)"),
            ("error_invalid_appkey.json", "API error 10003: Invalid appkey. (appkey参数值无效)"),
            ("error_not_accessible.json", "API error 10006: This API is not accessible. (无当前API访问权限)"),
        ] {
            let r = try await run(source(), body: try fixture(file))
            XCTAssertEqual(r.report.exitCode, 1, file)
            XCTAssertEqual(r.reason, "GET \(Self.url): \(reason)")
            XCTAssertFalse(r.reason?.contains("KEY12345") ?? true)
            XCTAssertFalse(r.reason?.contains(Self.secret) ?? true)
        }
        let r = try await run(source(), body: #"{"status":"ERROR","error":{"errorCode":"10007"}}"#)
        XCTAssertEqual(r.reason, "GET \(Self.url): API error 10007", "a code as a string, no message")
    }

    func testHTTPErrorStatusWithAnAPIBodyAndWithout() async throws {
        var r = try await run(source(extra: #","retries":0"#), status: 403, body: try fixture("error_invalid_sign.json"))
        XCTAssertEqual(r.reason, "GET \(Self.url): HTTP 403: API error 10005: Invalid sign. (sign签名参数值无效)")
        r = try await run(source(extra: #","retries":0"#), status: 502, body: "<html><body>Bad Gateway</body></html>")
        XCTAssertEqual(r.reason, "GET \(Self.url): HTTP 502 Bad Gateway")
    }

    func testBadDataNamesTheKeyPath() async throws {
        let cases: [(String, String)] = [
            (#"{"status":"OK","businesses":[{"business_id":1,"name":"a"},{"business_id":2,"name":{"zh":"b"}}]}"#, "businesses[1].name: expected string or number, found object"),
            (#"{"status":"OK","businesses":[{"name":"no id"}]}"#, "businesses[0].business_id: missing, expected business id (string or number)"),
            (#"{"status":"OK","businesses":[{"business_id":1,"latitude":"north","longitude":1}]}"#, "businesses[0].latitude: expected number (or a string holding one), found string"),
            (#"{"status":"OK","businesses":[{"business_id":1,"categories":"美食"}]}"#, "businesses[0].categories: expected array, found string"),
            (#"{"status":"OK","businesses":{"business_id":1}}"#, "businesses: expected array, found object"),
            (#"{"status":"WHAT","businesses":[]}"#, #"status: expected "OK" or "ERROR", found "WHAT""#),
            (#"{"businesses":[]}"#, #"status: missing, expected "OK" or "ERROR""#),
            (#"[1,2]"#, "(document): expected object, found array"),
            (#"{"status":"OK","businesses":[{"business_id":1,"has_deal":"maybe"}]}"#, "businesses[0].has_deal: expected bool (true/false, 1/0), found string"),
        ]
        for (body, expected) in cases {
            let r = try await run(source(), body: body)
            XCTAssertEqual(r.reason, "GET \(Self.url): \(expected)", body)
            XCTAssertEqual(r.items.count, 0)
        }
        let r = try await run(source(), body: #"{"status":"OK","businesses":[{"business_id":1"#)
        XCTAssertEqual(r.reason?.hasPrefix("GET \(Self.url): invalid JSON at 1:"), true, r.reason ?? "")
    }

    // MARK: options


    func testOptionValidation() async {
        let cases: [(String, String)] = [
            (#"{"name":"d","type":"dianping","app_key":"k","params":{"city":"上海"}}"#, #"t.json: sources[0] ("d"): missing required key "app_secret""#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s"}"#, #"missing required key "params""#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"keyword":"x"}}"#, #"sources[0] ("d").params: needs "city" or "latitude" + "longitude""#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"latitude":31.2}}"#, #"sources[0] ("d").params: "latitude" and "longitude" go together"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"city":"上海","limit":41}}"#, #"sources[0] ("d").params.limit: expected an integer from 1 to 40, found 41"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"city":"上海","radius":"far"}}"#, #"sources[0] ("d").params.radius: expected an integer, found "far""#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"latitude":95,"longitude":121}}"#, #"sources[0] ("d").params.latitude: expected a number from -90 to 90, found 95"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"city":"上海","has_deal":true}}"#, #"sources[0] ("d").params.has_deal: expected a string or number, found true (Dianping flags are 1 or 0)"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"city":"上海","sign":"ABC"}}"#, #"sources[0] ("d").params.sign: is added by the source"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"city":"上海","format":"xml"}}"#, #"sources[0] ("d").params.format: only "json" is supported, found "xml""#),
            (#"{"name":"d","type":"dianping","app_key":"","app_secret":"s","params":{"city":"上海"}}"#, #"sources[0] ("d").app_key: must not be empty"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"city":["上海"]}}"#, #"sources[0] ("d").params.city: expected a string, found ["上海"]"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"city":"上海"},"base_url":"ftp://x"}"#, #"sources[0] ("d").base_url: expected an http:// or https:// URL"#),
            (#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","parms":{"city":"上海"}}"#, #"unknown key "parms" (did you mean "params"?)"#),
        ]
        for (json, expected) in cases {
            let errors = plugins.configErrors(json)
            XCTAssertTrue(errors.contains { $0.contains(expected) }, "\(json)\n  expected: \(expected)\n  got: \(errors)")
        }
        XCTAssertEqual(plugins.configErrors(#"{"name":"d","type":"dianping","app_key":"k","app_secret":"s","params":{"latitude":"31.2","longitude":121.4,"radius":5000,"sort":7,"offset_type":0,"has_coupon":"1"}}"#), [])
    }

    func testBaseURLWithOrWithoutSlash() async throws {
        for base in ["http://127.0.0.1:9/", "http://127.0.0.1:9"] {
            let cfg = try ConfigLoader.load(bytes: Array(source(params: #"{"city":"上海"}"#, extra: #","base_url":"\#(base)""#).utf8), file: "t.json", directory: "", registry: BuiltinRegistry.standard, environment: { _ in nil })
            let dp = try XCTUnwrap(cfg.sources.first?.source as? DianpingSource)
            XCTAssertTrue(dp.requestURL.hasPrefix("http://127.0.0.1:9/v1/business/find_businesses?appkey=KEY12345&city=%E4%B8%8A%E6%B5%B7&sign="), dp.requestURL)
        }
    }
}
