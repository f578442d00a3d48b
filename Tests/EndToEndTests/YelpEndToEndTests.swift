import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary run` with a `yelp` source against a loopback server that accepts one Bearer token
/// and answers Yelp's own error bodies otherwise; the token must appear nowhere in the output.
final class YelpEndToEndTests: XCTestCase {
    static let goodToken = "GOODtoken-e2e-1234567890"
    static let badToken = "BADtoken-e2e-0987654321"

    static let ok = #"""
    {"businesses":[
      {"id":"WavvLdfdP6g8aZTtbBQHTw","alias":"gary-danko-san-francisco","name":"Gary Danko","image_url":"https://s3-media3.fl.yelpcdn.com/bphoto/eyYUz3Xl7NtcJeN7x7SQwg/o.jpg",
       "is_closed":false,"url":"https://www.yelp.com/biz/gary-danko-san-francisco?adjust_creative=abc&utm_campaign=yelp_api_v3&utm_medium=api_v3_business_search&utm_source=abc",
       "review_count":5296,"categories":[{"alias":"newamerican","title":"American (New)"},{"alias":"french","title":"French"}],"rating":4.5,
       "coordinates":{"latitude":37.80587,"longitude":-122.42058},"transactions":[],"price":"$$$$",
       "location":{"address1":"800 N Point St","address2":"","address3":"","city":"San Francisco","zip_code":"94109","country":"US","state":"CA","display_address":["800 N Point St","San Francisco, CA 94109"]},
       "phone":"+14157492060","display_phone":"(415) 749-2060","distance":1508.2},
      {"id":"x-no-price","name":"Taquería\nEl Farolito","coordinates":{"latitude":null,"longitude":null},"location":{"display_address":["2779 Mission St","San Francisco, CA 94110"]},"rating":4,"review_count":"3000"}
    ],"total":2,"region":{"center":{"longitude":-122.4,"latitude":37.78}}}
    """#

    func testBearerTokenItemsAndTokenInvalid() throws {
        let server = try LoopbackServer { req in
            guard req.path.hasPrefix("/v3/businesses/search?") else { return .text(#"{"error":{"code":"NOT_FOUND","description":"Resource could not be found."}}"#, status: 404) }
            if req.header("Authorization") == "Bearer " + YelpEndToEndTests.goodToken { return .text(YelpEndToEndTests.ok) }
            return .text(#"{"error": {"code": "TOKEN_INVALID", "description": "Invalid access token or authorization header."}}"#, status: 401)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let sources = [("good", Self.goodToken), ("bad", Self.badToken)].map { name, token in
            #"{"name":"\#(name)","type":"yelp","base_url":"\#(server.baseURL)","api_key":"${\#(name.uppercased())_TOKEN}","term":"dinner & drinks","location":"San Francisco, CA","limit":2}"#
        }
        let cfg = dir.write("tributary.json", #"{"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"stdout","format":"jsonl"}]}"#)
        let record = dir.path + "/rec"
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--verbose", "--record", record], env: ["GOOD_TOKEN": Self.goodToken, "BAD_TOKEN": Self.badToken])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 2, r.stdout)
        let schema = try SchemaValidator.itemSchema()
        for line in r.stdoutLines { XCTAssertEqual(schema.validate(line: line), [], line) }
        XCTAssertTrue(r.stdoutLines[0].hasPrefix(#"{"id":"yelp:WavvLdfdP6g8aZTtbBQHTw","source":"good","type":"yelp","kind":"business","title":"Gary Danko","summary":"800 N Point St, San Francisco, CA 94109 · (415) 749-2060 · $$$$ · rating 4.5/5 (5296 reviews)","url":"https://www.yelp.com/biz/gary-danko-san-francisco","image":"https://s3-media3.fl.yelpcdn.com/bphoto/eyYUz3Xl7NtcJeN7x7SQwg/o.jpg""#), r.stdoutLines[0])
        XCTAssertTrue(r.stdoutLines[1].hasPrefix(#"{"id":"yelp:x-no-price","source":"good","type":"yelp","kind":"business","title":"Taquería El Farolito","summary":"2779 Mission St, San Francisco, CA 94110 · rating 4/5 (3000 reviews)""#), r.stdoutLines[1])
        XCTAssertFalse(r.stdoutLines[1].contains(#""geo""#), "null coordinates: no geo")

        let shown = "\(server.baseURL)/v3/businesses/search?term=dinner%20%26%20drinks&location=San%20Francisco%2C%20CA&limit=2"
        XCTAssertTrue(r.stderr.contains("good  yelp  ok  2 fetched  2 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("bad   yelp  failed: GET \(shown): HTTP 401: TOKEN_INVALID: Invalid access token or authorization header."), r.stderr)

        let auths = server.requests.compactMap { $0.header("Authorization") }.sorted()
        XCTAssertEqual(auths, ["Bearer " + Self.badToken, "Bearer " + Self.goodToken], "the token arrives in the header, 401 is not retried")
        XCTAssertTrue(server.requests.allSatisfy { $0.path == "/v3/businesses/search?term=dinner%20%26%20drinks&location=San%20Francisco%2C%20CA&limit=2" })

        for token in [Self.goodToken, Self.badToken] {
            XCTAssertFalse(r.stderr.contains(token), "token in stderr")
            XCTAssertFalse(r.stdout.contains(token), "token in stdout")
        }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: record)) ?? []
        XCTAssertEqual(files.count, 1, "the two requests differ only in the header: one URL, one file")
        for f in files {
            let text = String(decoding: FileManager.default.contents(atPath: record + "/" + f) ?? Data(), as: UTF8.self)
            XCTAssertTrue(text.contains(#""url":"\#(shown)""#), text)
            XCTAssertFalse(text.contains(Self.goodToken) || text.contains(Self.badToken), "token in \(f)")
            // The 401 body itself mentions "authorization header": look for a recorded header only.
            XCTAssertFalse(text.lowercased().contains(#"["authorization""#), f)
        }
    }

    func testLocationNotFoundAndValidationErrorBodies() throws {
        let server = try LoopbackServer { req in
            if req.path.contains("location=Atlantis") {
                return .text(#"{"error": {"code": "LOCATION_NOT_FOUND", "description": "Could not execute search, try specifying a more exact location."}}"#, status: 400)
            }
            return .text(#"{"error": {"code": "VALIDATION_ERROR", "description": "Please specify a location or a latitude and longitude"}}"#, status: 400)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[
          {"name":"nowhere","type":"yelp","base_url":"\#(server.baseURL)","api_key":"k-123456","location":"Atlantis"},
          {"name":"coords","type":"yelp","base_url":"\#(server.baseURL)","api_key":"k-123456","latitude":0.5,"longitude":-0.25}
        ]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("nowhere  yelp  failed: GET \(server.baseURL)/v3/businesses/search?location=Atlantis: HTTP 400: LOCATION_NOT_FOUND: Could not execute search, try specifying a more exact location."), r.stderr)
        XCTAssertTrue(r.stderr.contains("coords   yelp  failed: GET \(server.baseURL)/v3/businesses/search?latitude=0.5&longitude=-0.25: HTTP 400: VALIDATION_ERROR: Please specify a location or a latitude and longitude"), r.stderr)
        XCTAssertFalse(r.stderr.contains("k-123456"))
    }
}
