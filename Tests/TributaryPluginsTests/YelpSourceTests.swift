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

/// The `yelp` source: request URL and Authorization header, item mapping, the API's error
/// bodies, awkward data and option validation (fixtures: Tests/Fixtures/yelp/NOTES.md).
final class YelpSourceTests: XCTestCase {
    static let token = "yelp-Tok3n-ABCDEFGHIJ"
    static let url = "https://api.yelp.com/v3/businesses/search?term=Kaffee%20%26%20Kuchen&location=Kreuzberg%2C%20Berlin&categories=coffee%2Ccafes&sort_by=rating&locale=de_DE&limit=3"

    static func source(_ extra: String = "") -> String {
        #"{"sources":[{"name":"y","type":"yelp","api_key":"\#(token)","term":"Kaffee & Kuchen","location":"Kreuzberg, Berlin","categories":["coffee","cafes"],"sort_by":"rating","locale":"de_DE","limit":3\#(extra)}]}"#
    }

    /// Answers one canned response and remembers every request it was sent.
    /// Fetches the source of `config` once from a canned answer.
    func run(_ config: String = YelpSourceTests.source(), status: Int = 200, body: String) async throws -> SourceHarness.Fetch {
        let cfg = try ConfigLoader.load(bytes: Array(config.utf8), file: "t.json", directory: "", registry: BuiltinRegistry.standard, environment: { _ in nil })
        return await plugins.fetch(try XCTUnwrap(cfg.sources.first), transport: CannedTransport(status: status, body: body))
    }

    func fixture(_ name: String) throws -> String {
        try String(contentsOfFile: packageRoot + "/Tests/Fixtures/yelp/" + name, encoding: .utf8)
    }

    func testRequestURLAndBearerHeader() async throws {
        let r = try await run(body: #"{"businesses":[],"total":0}"#)
        XCTAssertNil(r.error)
        let req = try XCTUnwrap(r.requests.first)
        XCTAssertEqual(req.method, "GET")
        XCTAssertEqual(req.url, Self.url)
        XCTAssertEqual(req.headers.first { $0.name == "Authorization" }?.value, "Bearer \(Self.token)")
        XCTAssertFalse(req.url.contains(Self.token), "the key never goes in the URL")
    }

    func testCoordinatesRadiusPriceOpenNowAndBaseURL() async throws {
        let cfg = #"{"sources":[{"name":"y","type":"yelp","api_key":"k","latitude":37.786882,"longitude":-122.399972,"radius":40000,"categories":"bars, french","price":["1","2"],"open_now":true,"sort_by":"distance","base_url":"http://127.0.0.1:9/"}]}"#
        let r = try await run(cfg, body: #"{"businesses":[]}"#)
        XCTAssertEqual(r.requests.first?.url, "http://127.0.0.1:9/v3/businesses/search?latitude=37.786882&longitude=-122.399972&radius=40000&categories=bars%2Cfrench&sort_by=distance&price=1%2C2&open_now=true")
    }

    func testSuccessMapsEveryField() async throws {
        let r = try await run(body: try fixture("search_ok.json"))
        XCTAssertNil(r.error)
        XCTAssertEqual(r.items.map(\.id), ["yelp:f9G3L0ZbnBkG6n4nUZ1E2w", "yelp:Qm2kXh0yV5cR8tB1nL4sPA", "yelp:c4Wn7sJ2dK9eQ0rT6yU1vB"])
        let a = r.items[0]
        XCTAssertEqual(a.kind, "business")
        XCTAssertEqual(a.title, "Five Elephant")
        XCTAssertEqual(a.summary, "Reichenberger Str. 101, 10999 Berlin, Deutschland · +49 30 96081527 · €€ · rating 4.5/5 (412 reviews)")
        XCTAssertEqual(a.url, "https://www.yelp.com/biz/five-elephant-berlin", "tracking parameters dropped")
        XCTAssertEqual(a.image, "https://s3-media2.fl.yelpcdn.com/bphoto/Xp3r2d9kQmW4xv1cZ0aL7g/o.jpg")
        XCTAssertEqual(a.geo, Geo(lat: 52.4966, lon: 13.4274))
        XCTAssertEqual(a.tags, ["Kaffee & Tee", "Bäckereien", "Konditorei"])
        XCTAssertEqual(String(decoding: JSONWriter.serialize(.object(a.data)), as: UTF8.self),
                       #"{"rating":4.5,"review_count":412,"price":"€€","display_phone":"+49 30 96081527","phone":"+493096081527","is_closed":false,"distance":1043.8771240230417,"categories":["coffee","bakeries","cakeshop"],"address":"Reichenberger Str. 101, 10999 Berlin, Deutschland","city":"Berlin","country":"DE"}"#)

        let b = r.items[1]  // Cyrillic name, no price, empty image and phones
        XCTAssertEqual(b.title, "Кофейня «Самовар»")
        XCTAssertEqual(b.summary, "Oranienstr. 18, 10999 Berlin, Deutschland · rating 5/5 (1 review)")
        XCTAssertNil(b.image)
        XCTAssertNil(b.data["price"])
        XCTAssertNil(b.data["phone"])

        let c = r.items[2]  // null coordinates, percent-encoded path kept
        XCTAssertNil(c.geo)
        XCTAssertEqual(c.url, "https://www.yelp.com/biz/caf%C3%A9-s%C3%BC%C3%9F-und-salzig-berlin")
        let schema = try SchemaValidator.itemSchema()
        for item in r.items { XCTAssertEqual(schema.validate(item.jsonValue()), [], item.id) }
    }

    func testAwkwardValues() async throws {
        let body = #"""
        {"businesses":[{"id":"x1","name":" Joe&#39;s\nPizza ","url":"https://www.yelp.com/biz/joes?osq=pizza&utm_source=abc#reviews","rating":"4.5","review_count":"12",
          "coordinates":{"latitude":"40.73","longitude":"-73.99"},"is_closed":1,"distance":"12.5","categories":[{"alias":"pizza","title":"Pizza"},{"alias":"italian"}],
          "location":{"display_address":["  7 Carmine St\n", "", "New York, NY 10014"],"city":"New York","country":"US"}},
         {"id":"x2","location":{"display_address":["Somewhere 1"]}},
         {"id":"x3"}]}
        """#
        let r = try await run(body: body)
        XCTAssertNil(r.error)
        let a = r.items[0]
        XCTAssertEqual(a.title, "Joe's Pizza")
        XCTAssertEqual(a.url, "https://www.yelp.com/biz/joes?osq=pizza#reviews")
        XCTAssertEqual(a.geo, Geo(lat: 40.73, lon: -73.99))
        XCTAssertEqual(a.data["rating"], .double(4.5))
        XCTAssertEqual(a.data["review_count"], .int(12))
        XCTAssertEqual(a.data["is_closed"], .bool(true))
        XCTAssertEqual(a.data["address"], .string("7 Carmine St, New York, NY 10014"))
        XCTAssertEqual(a.data["categories"], .array([.string("pizza"), .string("italian")]))
        XCTAssertEqual(a.tags, ["Pizza"])
        XCTAssertEqual(r.items[1].title, "Somewhere 1", "no name: the address")
        XCTAssertEqual(r.items[2].title, "Yelp business x3")
        XCTAssertNil(r.items[2].summary)
    }

    func testAPIErrorBodies() async throws {
        let cases: [(Int, String, String)] = [
            (401, "error_token_invalid.json", "HTTP 401: TOKEN_INVALID: Invalid access token or authorization header."),
            (400, "error_validation.json", "HTTP 400: VALIDATION_ERROR: Please specify a location or a latitude and longitude"),
            (400, "error_location_not_found.json", "HTTP 400: LOCATION_NOT_FOUND: Could not execute search, try specifying a more exact location."),
        ]
        for (status, file, reason) in cases {
            let r = try await run(status: status, body: try fixture(file))
            XCTAssertEqual(r.error, "GET \(Self.url): \(reason)", file)
            XCTAssertEqual(r.items.count, 0)
        }
        var r = try await run(status: 400, body: #"{"error":{"code":"VALIDATION_ERROR","description":"50000 is greater than the maximum of 40000","field":"radius","instance":50000}}"#)
        XCTAssertEqual(r.error, "GET \(Self.url): HTTP 400: VALIDATION_ERROR: 50000 is greater than the maximum of 40000 (field radius)")
        r = try await run(status: 500, body: "<html>oops</html>")
        XCTAssertEqual(r.error, "GET \(Self.url): HTTP 500 Internal Server Error")
        r = try await run(status: 401, body: #"{"error":{"code":"TOKEN_INVALID","description":"Invalid token \#(Self.token)"}}"#)
        XCTAssertEqual(r.error, "GET \(Self.url): HTTP 401: TOKEN_INVALID: Invalid token ***", "an echoed key is masked")
        r = try await run(body: #"{"error":{"code":"INTERNAL_ERROR","description":"Something went wrong internally, please try again later"}}"#)
        XCTAssertEqual(r.error, "GET \(Self.url): INTERNAL_ERROR: Something went wrong internally, please try again later", "an error body with status 200")
    }

    func testBadDataNamesTheKeyPath() async throws {
        let cases: [(String, String)] = [
            (#"{"businesses":[{"id":"a","name":"ok"},{"name":"no id"}]}"#, "businesses[1].id: missing, expected business id string"),
            (#"{"businesses":[{"id":"a","name":["x"]}]}"#, "businesses[0].name: expected string or number, found array"),
            (#"{"businesses":[{"id":"a","coordinates":{"latitude":"north","longitude":1}}]}"#, "businesses[0].coordinates.latitude: expected number (or a string holding one), found string"),
            (#"{"businesses":[{"id":"a","categories":[{"alias":7}]}]}"#, "businesses[0].categories[0].alias: expected string, found number"),
            (#"{"businesses":[{"id":"a","location":{"display_address":"1 Main St"}}]}"#, "businesses[0].location.display_address: expected array, found string"),
            (#"{"businesses":"none"}"#, "businesses: expected array, found string"),
        ]
        for (body, expected) in cases {
            let r = try await run(body: body)
            XCTAssertEqual(r.error, "GET \(Self.url): \(expected)", body)
        }
        let r = try await run(body: "")
        XCTAssertEqual(r.error, "GET \(Self.url): empty response body, expected JSON")
    }


    func testOptionValidation() async {
        let p = #""name":"y","type":"yelp","api_key":"k""#
        let cases: [(String, String)] = [
            (#"{"name":"y","type":"yelp","location":"Berlin"}"#, #"missing required key "api_key""#),
            (#"{\#(p),"term":"x"}"#, #"sources[0] ("y"): needs "location" or "latitude" + "longitude""#),
            (#"{\#(p),"location":"Berlin","latitude":1,"longitude":2}"#, #"sources[0] ("y"): use either "location" or "latitude" + "longitude", not both"#),
            (#"{\#(p),"latitude":52.5}"#, #"sources[0] ("y").longitude: "latitude" and "longitude" go together"#),
            (#"{\#(p),"latitude":91,"longitude":2}"#, #"sources[0] ("y").latitude: expected a number from -90 to 90, found 91"#),
            (#"{\#(p),"location":"Berlin","radius":40001}"#, #"sources[0] ("y").radius: expected an integer <= 40000, found 40001"#),
            (#"{\#(p),"location":"Berlin","limit":0}"#, #"sources[0] ("y").limit: expected an integer >= 1, found 0"#),
            (#"{\#(p),"location":"Berlin","limit":51}"#, #"sources[0] ("y").limit: expected an integer <= 50, found 51"#),
            (#"{\#(p),"location":"Berlin","sort_by":"ratings"}"#, #"sources[0] ("y").sort_by: expected one of "best_match", "rating", "review_count", "distance", found "ratings" (did you mean "rating"?)"#),
            (#"{\#(p),"location":"Berlin","locale":"de-DE"}"#, #"sources[0] ("y").locale: expected a locale like "en_US" or "de_DE", found "de-DE""#),
            (#"{\#(p),"location":"Berlin","price":"1,5"}"#, #"sources[0] ("y").price: expected price levels 1 to 4 such as "1,2", found "1,5""#),
            (#"{\#(p),"location":"Berlin","open_now":"yes"}"#, #"sources[0] ("y").open_now: expected true or false, found "yes""#),
            (#"{"name":"y","type":"yelp","api_key":" ","location":"Berlin"}"#, #"sources[0] ("y").api_key: must not be empty"#),
            (#"{\#(p),"location":""}"#, #"sources[0] ("y").location: must not be empty"#),
            (#"{\#(p),"location":"Berlin","categories":[]}"#, #"sources[0] ("y").categories: must name at least one category alias"#),
            (#"{\#(p),"location":"Berlin","apikey":"x"}"#, #"unknown key "apikey" (did you mean "api_key"?)"#),
        ]
        for (json, expected) in cases {
            let errors = plugins.configErrors(json)
            XCTAssertTrue(errors.contains { $0.contains(expected) }, "\(json)\n  expected: \(expected)\n  got: \(errors)")
        }
        XCTAssertEqual(plugins.configErrors(#"{\#(p),"latitude":-33.87,"longitude":151.2,"radius":250,"price":"1,2","open_now":false,"locale":"en_AU"}"#), [])
    }
}
