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

final class OpenMeteoSourceTests: XCTestCase {
    static let current = "temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,cloud_cover,pressure_msl,wind_speed_10m,wind_direction_10m,is_day"

    func url(_ lat: String, _ lon: String, imperial: Bool = false, base: String = "https://api.open-meteo.com") -> String {
        "\(base)/v1/forecast?latitude=\(lat)&longitude=\(lon)&current=\(Self.current)&timezone=auto"
            + (imperial ? "&temperature_unit=fahrenheit&wind_speed_unit=mph" : "&temperature_unit=celsius&wind_speed_unit=ms")
    }

    func source(_ coordinates: String, extra: String = "") -> String {
        #"{"sources":[{"name":"om","type":"open-meteo","coordinates":\#(coordinates)\#(extra)}]}"#
    }

    /// A minimal current-weather body at a place `offset` seconds east of UTC.
    func body(time: String, offset: Int, code: Int = 2, isDay: Int = 1, extra: String = "") -> String {
        #"{"latitude":1,"longitude":2,"utc_offset_seconds":\#(offset),"timezone":"Etc/Test","current":{"time":"\#(time)","interval":900,"temperature_2m":21.3,"weather_code":\#(code),"is_day":\#(isDay)\#(extra)}}"#
    }

    func testDocumentedResponseMapsEveryField() async throws {
        let berlin = WeatherHarness.fixture("open-meteo/current-berlin.json")
        let expected = url("52.52", "13.41")
        let t = CannedTransport { $0 == expected ? (200, berlin) : nil }
        let r = try await WeatherHarness.run(source(#"[{"lat":52.52,"lon":13.41,"name":"Berlin"}]"#), transport: t)
        XCTAssertEqual(r.report.exitCode, 0, "\(r.report.sources)")
        let item = try XCTUnwrap(r.items.first)
        XCTAssertEqual(item.id, "open-meteo:52.52,13.41:1795956300")
        XCTAssertEqual(item.kind, "weather")
        XCTAssertEqual(item.title, "Berlin: 3.9 °C, overcast")
        XCTAssertEqual(item.summary, "Feels like 0.4 °C, humidity 84%, pressure 1021 hPa, wind 3.6 m/s SW, clouds 100%")
        XCTAssertEqual(item.published?.rfc3339, "2026-11-29T12:45:00Z", "13:45 in Berlin (UTC+1) is 12:45 UTC")
        XCTAssertEqual(item.geo, Geo(lat: 52.52, lon: 13.41), "the place asked for, not the grid cell")
        XCTAssertEqual(item.image, "https://openweathermap.org/img/wn/04d@2x.png")
        XCTAssertNil(item.url)
        XCTAssertEqual(WeatherHarness.dataJSON(item), #"{"temperature":3.9,"feels_like":0.4,"humidity":84,"pressure":1021.4,"wind_speed":3.6,"wind_deg":241,"clouds":100,"precipitation":0.0,"condition":"Overcast","weather_code":3,"icon":"04d","is_day":true,"units":"metric","timezone":3600,"timezone_name":"Europe/Berlin","elevation":38.0}"#)
        XCTAssertEqual(try SchemaValidator.itemSchema().validate(item.jsonValue()), [])
    }

    func testLocalTimeWithoutOffsetIsConvertedToUTC() async throws {
        let cases: [(String, Int, String)] = [
            ("2026-11-29T09:45", -10800, "2026-11-29T12:45:00Z"),   // Belo Horizonte, UTC-3
            ("2026-11-30T02:00", 32400, "2026-11-29T17:00:00Z"),    // Tokyo: the local date is a day ahead
            ("2026-11-29T18:15", 19800, "2026-11-29T12:45:00Z"),    // India, UTC+5:30
            ("2026-11-29T01:45", -39600, "2026-11-29T12:45:00Z"),   // Pago Pago, UTC-11
            ("2026-11-29T12:45:30", 0, "2026-11-29T12:45:30Z"),     // seconds, UTC
            ("2026-11-29T12:45Z", 3600, "2026-11-29T12:45:00Z"),    // an explicit offset wins
            ("2026-11-29T13:45+01:00", 3600, "2026-11-29T12:45:00Z"),
        ]
        for (time, offset, expected) in cases {
            let b = body(time: time, offset: offset)
            let t = CannedTransport { _ in (200, b) }
            let r = try await WeatherHarness.run(source(#"[{"lat":1,"lon":2}]"#), transport: t)
            XCTAssertEqual(r.items.first?.published?.rfc3339, expected, "\(time) at \(offset): \(r.report.sources)")
        }
    }

    func testUnitsAndCoordinatesInTheRequest() async throws {
        let b = body(time: "2026-11-29T07:45", offset: -18000)
        let t = CannedTransport(delay: 0.2) { _ in (200, b) }
        let r = try await WeatherHarness.run(source(#"[{"lat":40.7128,"lon":-74.006,"name":"New York"},{"lat":-0.5,"lon":0}]"#, extra: #","units":"imperial","base_url":"http://127.0.0.1:9/om/""#), transport: t)
        XCTAssertEqual(Set(t.requested), [url("40.7128", "-74.006", imperial: true, base: "http://127.0.0.1:9/om"), url("-0.5", "0", imperial: true, base: "http://127.0.0.1:9/om")])
        XCTAssertEqual(t.maxInFlight, 2, "both places at once")
        XCTAssertEqual(r.items.map(\.title), ["New York: 21.3 °F, partly cloudy", "-0.5,0: 21.3 °F, partly cloudy"])
        XCTAssertEqual(r.items.map(\.id), ["open-meteo:40.7128,-74.006:1795956300", "open-meteo:-0.5,0:1795956300"])
        XCTAssertEqual(r.items[0].data["units"], .string("imperial"))
    }

    func testOneBadPlaceFailsOnlyItselfWithTheAPIsReason() async throws {
        let ok = WeatherHarness.fixture("open-meteo/current-berlin.json")
        let bad = WeatherHarness.fixture("open-meteo/error-400-latitude.json")
        let t = CannedTransport { $0.contains("latitude=52.52") ? (200, ok) : (400, bad) }
        // 89.999 passes our range check; the API still refuses some requests with 400.
        let r = try await WeatherHarness.run(source(#"[{"lat":89.999,"lon":0,"name":"Pole"},{"lat":52.52,"lon":13.41,"name":"Berlin"}]"#), transport: t)
        XCTAssertEqual(r.report.exitCode, 1)
        XCTAssertEqual(r.items.map(\.title), ["Berlin: 3.9 °C, overcast"])
        XCTAssertEqual(r.reason, "1 of 2 places failed: GET \(url("89.999", "0")): HTTP 400: Latitude must be in range of -90 to 90°. Given: 100.0.")
    }

    func testErrorBodiesWithAndWithout400() async throws {
        let unit = WeatherHarness.fixture("open-meteo/error-400-unit.json")
        for (status, text, expected) in [
            (400, unit, "HTTP 400: Cannot initialize TemperatureUnit from invalid String value asdfsfd for key temperature_unit"),
            (200, #"{"error":true,"reason":"No data is available for this location"}"#, "No data is available for this location"),
            (502, "<html><body>Bad gateway</body></html>", "HTTP 502 Bad Gateway"),
        ] {
            let t = CannedTransport { _ in (status, text) }
            let r = try await WeatherHarness.run(source(#"[{"lat":1,"lon":2}]"#, extra: #","retries":0"#), transport: t)
            XCTAssertEqual(r.reason, "GET \(url("1", "2")): " + expected)
        }
    }

    func testMissingOrWrongFieldsNameTheKeyPath() async throws {
        let cases: [(String, String)] = [
            (#"{"utc_offset_seconds":0,"current":{"time":"2026-11-29T12:00"}}"#, "current.temperature_2m: missing, expected number"),
            (#"{"utc_offset_seconds":0,"current":{"time":"2026-11-29T12:00","temperature_2m":"hot"}}"#, "current.temperature_2m: expected number (or a string holding one), found string"),
            (#"{"utc_offset_seconds":0,"current":{"time":"yesterday","temperature_2m":1}}"#, #"current.time: expected an ISO 8601 local time such as "2026-11-29T07:00", found "yesterday""#),
            (#"{"utc_offset_seconds":0,"current":{"time":1795956300,"temperature_2m":1}}"#, "current.time: expected string, found number"),
            (#"{"current":{"time":"2026-11-29T12:00","temperature_2m":1}}"#, "utc_offset_seconds: missing, expected integer"),
            (#"{"utc_offset_seconds":0}"#, "current: missing, expected object"),
            (#"{"utc_offset_seconds":0,"current":{"time":"2026-11-29T12:00","temperature_2m":1,"weather_code":2.5}}"#, "current.weather_code: expected integer, found number"),
            (#"{"utc_offset_seconds":0,"current":{"time":"2026-11-29T12:00","temperature_2m":1,"is_day":"maybe"}}"#, "current.is_day: expected bool (true/false, 1/0), found string"),
        ]
        for (text, expected) in cases {
            let t = CannedTransport { _ in (200, text) }
            let r = try await WeatherHarness.run(source(#"[{"lat":1,"lon":2}]"#), transport: t)
            XCTAssertEqual(r.reason, "GET \(url("1", "2")): " + expected, text)
        }
    }

    func testNullsAreAbsentAndNightUsesNightIcons() async throws {
        let b = body(time: "2026-11-29T21:45", offset: 32400, code: 61, isDay: 0, extra: #","relative_humidity_2m":null,"wind_speed_10m":2.1,"wind_direction_10m":null,"precipitation":0.4"#)
        let t = CannedTransport { _ in (200, b) }
        let r = try await WeatherHarness.run(source(#"[{"lat":35.6895,"lon":139.6917,"name":"  東京\n"}]"#), transport: t)
        let item = try XCTUnwrap(r.items.first, "\(r.report.sources)")
        XCTAssertEqual(item.title, "東京: 21.3 °C, rain")
        XCTAssertEqual(item.summary, "Wind 2.1 m/s, precipitation 0.4 mm")
        XCTAssertEqual(item.image, "https://openweathermap.org/img/wn/10n@2x.png")
        XCTAssertNil(item.data["humidity"])
        XCTAssertNil(item.data["wind_deg"])
        XCTAssertEqual(item.data["is_day"], .bool(false))
        XCTAssertEqual(item.data["timezone"], .int(32400))
    }

    func testWMOCodesReadAsText() async throws {
        let table: [([Int], String)] = [
            ([0], "Clear sky"), ([1], "Mainly clear"), ([2], "Partly cloudy"), ([3], "Overcast"), ([45, 48], "Fog"),
            ([51, 53, 55], "Drizzle"), ([56, 57], "Freezing drizzle"), ([61, 63, 65], "Rain"), ([66, 67], "Freezing rain"),
            ([71, 73, 75], "Snow fall"), ([77], "Snow grains"), ([80, 81, 82], "Rain showers"), ([85, 86], "Snow showers"),
            ([95], "Thunderstorm"), ([96, 99], "Thunderstorm with hail"),
        ]
        for (codes, text) in table {
            for c in codes {
                XCTAssertEqual(WMOWeatherCode(code: c).text, text)
                XCTAssertTrue(WMOWeatherCode(code: c).isKnown)
                XCTAssertNotEqual(WMOWeatherCode(code: c).icon(night: true), WMOWeatherCode(code: c).icon(night: false))
            }
        }
        XCTAssertEqual(WMOWeatherCode(code: 0).icon(night: true), .clearSkyNight)
        XCTAssertEqual(WMOWeatherCode(code: 95).icon(night: false), .thunderstormDay)
        // An unknown code is never a failure: it reads as its number, with a neutral icon and a warning.
        let b = body(time: "2026-11-29T12:00", offset: 0, code: 42)
        let t = CannedTransport { _ in (200, b) }
        let r = try await WeatherHarness.run(source(#"[{"lat":1,"lon":2}]"#), transport: t)
        XCTAssertEqual(r.report.exitCode, 0)
        XCTAssertEqual(r.items.first?.title, "1,2: 21.3 °C, weather code 42")
        XCTAssertEqual(r.items.first?.data["icon"], .string("03d"))
        XCTAssertEqual(r.warnings, ["1,2: unknown WMO weather code 42"])
    }

    func testOptionValidation() async {
        func errs(_ body: String) -> String { WeatherHarness.errors(#"{"sources":[{"name":"om","type":"open-meteo"\#(body)}]}"#).joined(separator: "\n") }
        let ctx = #"t.json: sources[0] ("om")"#
        XCTAssertTrue(errs("").contains(#"\#(ctx): missing required key "coordinates""#))
        XCTAssertTrue(errs(#","coordinates":[]"#).contains(#"\#(ctx).coordinates: needs at least one place"#))
        XCTAssertTrue(errs(#","coordinates":[{"lat":10,"lon":-181}]"#).contains(#"\#(ctx).coordinates[0].lon: expected a number from -180 to 180, found -181"#))
        XCTAssertTrue(errs(#","coordinates":[{"lat":10,"lon":1,"name":7}]"#).contains(#"\#(ctx).coordinates[0].name: expected a string, found 7"#))
        XCTAssertTrue(errs(#","coordinates":[{"lat":10,"lon":1,"nmae":"x"}]"#).contains(#"unknown key "nmae" (did you mean "name"?)"#))
        XCTAssertTrue(errs(#","coordinates":[{"lat":1,"lon":1}],"units":"standard""#).contains(#"\#(ctx).units: expected one of "metric", "imperial", found "standard""#))
        XCTAssertTrue(errs(#","coordinates":[{"lat":1,"lon":1}],"api_key":"x""#).contains(#"unknown key "api_key""#), "no key: none is accepted")
    }
}
