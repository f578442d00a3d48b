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

/// Answers requests from a function of the URL, remembers every URL asked for and how many
/// requests were in flight at once (the weather sources ask for all places concurrently).
/// Runs a config through the engine in process against a `CannedTransport`.
enum WeatherHarness {
    struct Run {
        let report: RunReport
        let items: [Item]
        let warnings: [String]
        var reason: String? {
            if case .failed(let r)? = report.sources.first?.status { return r }
            return nil
        }
    }

    static func config(_ text: String) throws -> Config {
        try ConfigLoader.load(bytes: Array(text.utf8), file: "t.json", directory: "/tmp", registry: BuiltinRegistry.standard, environment: { _ in nil })
    }

    static func run(_ configText: String, transport: CannedTransport) async throws -> Run {
        let outcome = try await EngineHarness.run(config: configText, registry: BuiltinRegistry.standard, transport: transport, directory: "/tmp")
        return Run(report: outcome.report, items: outcome.items, warnings: outcome.warnings)
    }

    /// Config errors of a config that must not load.
    static func errors(_ configText: String) -> [String] {
        do {
            _ = try config(configText)
            XCTFail("expected config errors")
            return []
        } catch let e as ConfigError {
            return e.messages
        } catch {
            XCTFail("\(error)")
            return []
        }
    }

    static func fixture(_ path: String) -> String {
        let full = packageRoot + "/Tests/Fixtures/" + path
        guard let data = FileManager.default.contents(atPath: full) else {
            XCTFail("missing fixture \(full)")
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func dataJSON(_ item: Item) -> String { String(decoding: JSONWriter.serialize(.object(item.data)), as: UTF8.self) }
}

final class OpenWeatherMapSourceTests: XCTestCase {
    let base = "https://api.openweathermap.org/data/2.5/weather?APPID=SECRET42"

    func source(_ places: String, extra: String = "") -> String {
        #"{"sources":[{"name":"w","type":"openweathermap","api_key":"SECRET42",\#(places)\#(extra)}]}"#
    }

    func testDocumentedResponseMapsEveryField() async throws {
        let zocca = WeatherHarness.fixture("openweathermap/current-zocca.json")
        let url = base + "&q=Zocca%2CIT&units=standard"
        let t = CannedTransport { $0 == url ? (200, zocca) : nil }
        let r = try await WeatherHarness.run(source(#""cities":["Zocca,IT"]"#, extra: #","units":"standard""#), transport: t)
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.id, "owm:3163858:1661870592")
        XCTAssertEqual(item.kind, "weather")
        XCTAssertEqual(item.title, "Zocca: 298.5 K, moderate rain")
        XCTAssertEqual(item.summary, "Feels like 298.7 K, humidity 64%, pressure 1015 hPa, wind 0.6 m/s N, gusts 1.2 m/s, clouds 100%, rain 3.2 mm in 1h, sunrise 06:36, sunset 19:57")
        XCTAssertEqual(item.url, "https://openweathermap.org/city/3163858")
        XCTAssertEqual(item.image, "https://openweathermap.org/img/wn/10d@2x.png")
        XCTAssertEqual(item.published?.rfc3339, "2022-08-30T14:43:12Z")
        XCTAssertEqual(item.geo, Geo(lat: 44.34, lon: 10.99))
        XCTAssertEqual(WeatherHarness.dataJSON(item), #"{"temperature":298.48,"feels_like":298.74,"temp_min":297.56,"temp_max":300.05,"humidity":64,"pressure":1015,"sea_level":1015,"grnd_level":933,"visibility":10000,"wind_speed":0.62,"wind_deg":349,"wind_gust":1.18,"clouds":100,"rain_1h":3.16,"condition":"moderate rain","condition_id":501,"icon":"10d","units":"standard","sunrise":"2022-08-30T04:36:27Z","sunset":"2022-08-30T17:57:28Z","city_id":3163858,"country":"IT","timezone":7200}"#)
        let problems = try SchemaValidator.itemSchema().validate(item.jsonValue())
        XCTAssertEqual(problems, [])
    }

    func testRequestsOnePerPlaceConcurrentlyInConfigOrderWithEncodedQueries() async throws {
        // Each answer names the query it answers; later places answer sooner than earlier ones.
        let names: [(fragment: String, name: String)] = [
            ("q=S%C3%A3o", "São Paulo"), ("q=%D0%9C", "Москва"), ("id=524901", "Moscow"), ("lat=-19.92", "BH"), ("lat=0.00001", ""),
        ]
        let t = CannedTransport(delay: 0.2) { url in
            guard let i = names.firstIndex(where: { url.contains($0.fragment) }) else { return nil }
            return (200, #"{"id":\#(i + 1),"name":"\#(names[i].name)","dt":1795956000,"main":{"temp":1},"cod":200}"#)
        }
        let r = try await WeatherHarness.run(source(#""cities":["São Paulo,BR","Москва, RU"],"city_ids":["524901"],"coordinates":[{"lat":-19.92,"lon":-43.94},{"lat":0.00001,"lon":180}]"#,
                                              extra: #","lang":"zh_cn","units":"imperial""#), transport: t)
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        XCTAssertEqual(Set(t.requested), [
            base + "&q=S%C3%A3o%20Paulo%2CBR&lang=zh_cn&units=imperial",
            base + "&q=%D0%9C%D0%BE%D1%81%D0%BA%D0%B2%D0%B0%2C%20RU&lang=zh_cn&units=imperial",
            base + "&id=524901&lang=zh_cn&units=imperial",
            base + "&lat=-19.92&lon=-43.94&lang=zh_cn&units=imperial",
            base + "&lat=0.00001&lon=180&lang=zh_cn&units=imperial",
        ])
        XCTAssertEqual(t.maxInFlight, 5, "all places are asked for at once")
        XCTAssertEqual(r.items.map(\.title), ["São Paulo: 1 °F", "Москва: 1 °F", "Moscow: 1 °F", "BH: 1 °F", "0.00001,180: 1 °F"], "items in the order of the places in the config")
        XCTAssertEqual(r.items.map(\.id), (1...5).map { "owm:\($0):1795956000" })
    }

    func testOneUnknownCityFailsOnlyThatPlace() async throws {
        let berlin = #"{"coord":{"lon":13.4105,"lat":52.5244},"weather":[{"id":804,"main":"Clouds","description":"overcast clouds","icon":"04d"}],"main":{"temp":3.52,"humidity":87},"wind":{"speed":4.12,"deg":250},"dt":1795956000,"sys":{"country":"DE","sunrise":1795935070,"sunset":1795964102},"timezone":3600,"id":2950159,"name":"Berlin","cod":200}"#
        let notFound = WeatherHarness.fixture("openweathermap/error-404.json")
        let t = CannedTransport { url in url.contains("Atlantis") ? (404, notFound) : (200, berlin) }
        let r = try await WeatherHarness.run(source(#""cities":["Atlantis,XX","Berlin,DE"]"#), transport: t)
        XCTAssertEqual(r.report.exitCode, 1)
        XCTAssertEqual(r.items.map(\.id), ["owm:2950159:1795956000"], "the other place is still delivered")
        XCTAssertEqual(r.reason, "1 of 2 places failed: GET https://api.openweathermap.org/data/2.5/weather?APPID=***&q=Atlantis%2CXX&units=metric: HTTP 404: city not found")
        XCTAssertEqual(r.report.sources[0].fetched, 1)
    }

    func testInvalidKeyAndQuotaBodiesGiveTheAPIsReasonWithoutTheKey() async throws {
        for (fixture, status, expected) in [
            ("error-401.json", 401, "HTTP 401: Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."),
            ("error-429.json", 429, "HTTP 429: Your account is temporary blocked due to exceeding of requests limitation"),
        ] {
            let body = WeatherHarness.fixture("openweathermap/" + fixture)
            let t = CannedTransport { _ in (status, body) }
            let r = try await WeatherHarness.run(source(#""city_ids":["3470127"]"#, extra: #","retries":0"#), transport: t)
            let reason = try XCTUnwrap(r.reason, fixture)
            XCTAssertTrue(reason.hasPrefix("GET https://api.openweathermap.org/data/2.5/weather?APPID=***&id=3470127&units=metric: " + expected), reason)
            XCTAssertFalse(reason.contains("SECRET42"), reason)
            XCTAssertEqual(r.items, [])
        }
    }

    func testErrorInsideA200BodyWithCodAsStringOrNumber() async throws {
        for body in [#"{"cod":"404","message":"city not found"}"#, #"{"cod":401,"message":"Invalid API key"}"#, #"{"cod":"500"}"#] {
            let t = CannedTransport { _ in (200, body) }
            let r = try await WeatherHarness.run(source(#""cities":["Nowhere"]"#), transport: t)
            let reason = try XCTUnwrap(r.reason, body)
            XCTAssertTrue(reason.hasPrefix("GET https://api.openweathermap.org/data/2.5/weather?APPID=***&q=Nowhere&units=metric: "), reason)
            XCTAssertTrue(reason.hasSuffix(body.contains("city") ? "404: city not found" : body.contains("401") ? "401: Invalid API key" : "500: error code 500"), reason)
        }
    }

    func testMissingOrWrongRequiredFieldsNameTheKeyPath() async throws {
        let cases: [(String, String)] = [
            (#"{"id":1,"dt":1795956000,"main":{"humidity":50},"name":"X","cod":200}"#, "main.temp: missing, expected number"),
            (#"{"id":1,"dt":1795956000,"main":{"temp":"warm"},"name":"X","cod":200}"#, "main.temp: expected number (or a string holding one), found string"),
            (#"{"id":1,"main":{"temp":3},"name":"X","cod":200}"#, "dt: missing, expected integer"),
            (#"{"dt":1795956000,"main":{"temp":3},"name":"X","cod":200}"#, "id: missing, expected integer"),
            (#"{"id":1,"dt":1795956000,"main":{"temp":3,"humidity":{"v":1}},"cod":200}"#, "main.humidity: expected number or numeric string, found object"),
            (#"{"id":1,"dt":1795956000,"main":{"temp":3},"weather":{"icon":"01d"},"cod":200}"#, "weather: expected array, found object"),
            (#"{"id":1,"dt":1795956000,"main":{"temp":3},"rain":{"3h":true},"cod":200}"#, "rain.3h: expected number or numeric string, found bool"),
            (#"[1,2]"#, "id: missing, expected integer"),
        ]
        for (body, expected) in cases {
            let t = CannedTransport { _ in (200, body) }
            let r = try await WeatherHarness.run(source(#""city_ids":["1"]"#), transport: t)
            XCTAssertEqual(r.reason, "GET https://api.openweathermap.org/data/2.5/weather?APPID=***&id=1&units=metric: " + expected, body)
        }
    }

    func testOptionalFieldsAreSimplyAbsentAndNumbersMayBeStrings() async throws {
        let body = #"{"id":"3470127","dt":"1795956600","main":{"temp":"19.8","humidity":null},"weather":[],"name":"  Belo\nHorizonte ","cod":"200"}"#
        let t = CannedTransport { _ in (200, body) }
        let r = try await WeatherHarness.run(source(#""city_ids":["3470127"]"#), transport: t)
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.id, "owm:3470127:1795956600")
        XCTAssertEqual(item.title, "Belo Horizonte: 19.8 °C")
        XCTAssertNil(item.summary)
        XCTAssertNil(item.image)
        XCTAssertNil(item.geo)
        XCTAssertEqual(WeatherHarness.dataJSON(item), #"{"temperature":19.8,"units":"metric","city_id":3470127}"#)
    }

    func testCyrillicEntitiesSeveralConditionsSnowAndDecimalComma() async throws {
        let body = #"{"coord":{"lon":37.6156,"lat":55.7522},"weather":[{"id":600,"main":"Snow","description":"небольшой снег","icon":"13d"},{"id":701,"main":"Mist","description":"мгла &amp; дымка","icon":"50d"},{"id":600,"main":"Snow","description":"небольшой снег","icon":"13d"}],"main":{"temp":-3.41,"feels_like":-8.93,"pressure":1008,"humidity":93},"wind":{"speed":5,"deg":200},"snow":{"1h":0.27,"3h":0.8},"dt":1795955400,"sys":{"country":"RU","sunrise":1795930857,"sunset":1795957243},"timezone":10800,"id":524901,"name":"Москва","cod":200}"#
        let t = CannedTransport { _ in (200, body) }
        let r = try await WeatherHarness.run(source(#""city_ids":["524901"]"#, extra: #","lang":"ru""#), transport: t)
        let item = try XCTUnwrap(r.items.first, "\(r.report.sources)")
        XCTAssertEqual(item.title, "Москва: -3,4 °C, небольшой снег, мгла & дымка", "conditions once each, entities decoded")
        XCTAssertEqual(item.summary, "Feels like -8,9 °C, humidity 93%, pressure 1008 hPa, wind 5 m/s S, snow 0,3 mm in 1h, snow 0,8 mm in 3h, sunrise 08:40, sunset 16:00")
        XCTAssertEqual(item.data["condition"], .string("небольшой снег"))
        XCTAssertEqual(item.data["snow_3h"], .number(JSONNumber(text: "0.8")))
        XCTAssertEqual(item.data["lang"], .string("ru"))
    }

    func testUnknownIconFallsBackAndOceanPlacesAreToldApartByCoordinates() async throws {
        let ocean = WeatherHarness.fixture("openweathermap/current-ocean.json").replacingOccurrences(of: "\"04n\"", with: "\"99n\"")
        let t = CannedTransport { _ in (200, ocean) }
        let r = try await WeatherHarness.run(source(#""coordinates":[{"lat":0.5,"lon":-30}]"#), transport: t)
        let item = try XCTUnwrap(r.items.first, "\(r.report.sources)")
        XCTAssertEqual(item.id, "owm:0.5,-30:1795956000", "city id 0 is not an identity")
        XCTAssertEqual(item.title, "0.5,-30: 26.7 °C, broken clouds", "no name: the coordinates asked for")
        XCTAssertNil(item.url, "no city page for city 0")
        XCTAssertEqual(item.image, "https://openweathermap.org/img/wn/03n@2x.png")
        XCTAssertEqual(item.data["icon"], .string("03n"))
        XCTAssertNil(item.data["country"])
        XCTAssertEqual(r.warnings, [#"0.5,-30: unknown icon code "99n", using 03n"#])
    }

    func testIconsAreAClosedSetOfEighteenWithAFallback() async {
        XCTAssertEqual(WeatherIcon.allCases.count, 18)
        XCTAssertEqual(Set(WeatherIcon.allCases.map(\.rawValue)), ["01d", "01n", "02d", "02n", "03d", "03n", "04d", "04n", "09d", "09n", "10d", "10n", "11d", "11n", "13d", "13n", "50d", "50n"])
        for icon in WeatherIcon.allCases { XCTAssertEqual(WeatherIcon.resolve(icon.rawValue), icon) }
        XCTAssertEqual(WeatherIcon.resolve("10N"), .rainNight)
        XCTAssertEqual(WeatherIcon.resolve(""), .scatteredCloudsDay)
        XCTAssertEqual(WeatherIcon.resolve("05n"), .scatteredCloudsNight)
        XCTAssertEqual(WeatherIcon.rainDay.imageURL, "https://openweathermap.org/img/wn/10d@2x.png")
    }

    func testWeatherTextNumbersCompassAndClock() async {
        XCTAssertEqual(WeatherText.number(24.87), "24.9")
        XCTAssertEqual(WeatherText.number(20.0), "20")
        XCTAssertEqual(WeatherText.number(-0.04), "0")
        XCTAssertEqual(WeatherText.number(-3.45, separator: ","), "-3,5")
        XCTAssertEqual(WeatherText.number(1012.8, decimals: 0), "1013")
        XCTAssertEqual(WeatherText.coordinate(-43.9378), "-43.9378")
        XCTAssertEqual(WeatherText.coordinate(0.00001), "0.00001")
        XCTAssertEqual(WeatherText.coordinate(52), "52")
        XCTAssertEqual(["N", "N", "NE", "E", "SW", "NW", "N", "W"], [0, 22, 23, 90, 225, 320, 359, -90].map { WeatherText.compass(Double($0)) })
        XCTAssertEqual(WeatherText.clock(Timestamp(seconds: 1795940201), offset: -10800), "05:16")
        XCTAssertEqual(WeatherText.dateTime(Timestamp(seconds: 1795946400), offset: 19800), "2026-11-29 15:30")
        XCTAssertEqual(WeatherText.decimalSeparator(language: "pt_BR"), ",")
        XCTAssertEqual(WeatherText.decimalSeparator(language: "zh_cn"), ".")
        XCTAssertEqual(WeatherText.decimalSeparator(language: nil), ".")
    }

    func testOptionValidation() async {
        func errs(_ body: String) -> String { WeatherHarness.errors(#"{"sources":[{"name":"w","type":"openweathermap",\#(body)}]}"#).joined(separator: "\n") }
        let ctx = #"t.json: sources[0] ("w")"#
        XCTAssertTrue(errs(#""cities":["Berlin"]"#).contains(#"\#(ctx): missing required key "api_key""#))
        XCTAssertTrue(errs(#""api_key":"k""#).contains(#"\#(ctx): needs at least one place: "cities", "city_ids" or "coordinates""#))
        XCTAssertTrue(errs(#""api_key":"k","cities":[]"#).contains(#"\#(ctx): the place lists are empty"#))
        XCTAssertTrue(errs(#""api_key":"","cities":["x"]"#).contains(#"\#(ctx).api_key: must not be empty"#))
        XCTAssertTrue(errs(#""api_key":"k","citys":["Berlin"]"#).contains(#"unknown key "citys" (did you mean "cities"?)"#))
        XCTAssertTrue(errs(#""api_key":"k","city_ids":[true]"#).contains(#"\#(ctx).city_ids: expected a list of strings, found [true]"#))
        XCTAssertTrue(errs(#""api_key":"k","city_ids":["BH"]"#).contains(#"\#(ctx).city_ids[0]: expected a numeric city id such as "3470127", found "BH""#))
        XCTAssertTrue(errs(#""api_key":"k","cities":["x"],"units":"celsius""#).contains(#"\#(ctx).units: expected one of "standard", "metric", "imperial", found "celsius""#))
        XCTAssertTrue(errs(#""api_key":"k","cities":["x"],"lang":"português""#).contains(#"\#(ctx).lang: expected a language code"#))
        XCTAssertTrue(errs(#""api_key":"k","coordinates":[{"lat":91,"lon":0}]"#).contains(#"\#(ctx).coordinates[0].lat: expected a number from -90 to 90, found 91"#))
        XCTAssertTrue(errs(#""api_key":"k","coordinates":[{"lat":1}]"#).contains(#"\#(ctx).coordinates[0]: missing required key "lon""#))
        XCTAssertTrue(errs(#""api_key":"k","coordinates":[{"lat":"1","lon":2}]"#).contains(#"\#(ctx).coordinates[0].lat: expected a number, found "1""#))
        XCTAssertTrue(errs(#""api_key":"k","cities":["x"],"base_url":"ftp://h""#).contains(#"\#(ctx).base_url: expected an http:// or https:// URL"#))
    }

    func testBaseURLAndSecretStayOutOfTheItems() async throws {
        let zocca = WeatherHarness.fixture("openweathermap/current-zocca.json")
        let t = CannedTransport { _ in (200, zocca) }
        let r = try await WeatherHarness.run(source(#""cities":["Zocca"]"#, extra: #","base_url":"http://127.0.0.1:9/owm/""#), transport: t)
        XCTAssertEqual(t.requested, ["http://127.0.0.1:9/owm/data/2.5/weather?APPID=SECRET42&q=Zocca&units=metric"])
        XCTAssertEqual(r.items.count, 1)
        XCTAssertFalse(String(decoding: r.items[0].jsonLine(), as: UTF8.self).contains("SECRET42"))
    }
}
