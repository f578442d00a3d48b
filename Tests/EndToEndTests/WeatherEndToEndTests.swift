import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// `tributary run` with the weather sources against loopback servers that answer like
/// OpenWeatherMap and Open-Meteo, including their error bodies.
final class WeatherEndToEndTests: XCTestCase {
    static let berlin = #"{"coord":{"lon":13.4105,"lat":52.5244},"weather":[{"id":804,"main":"Clouds","description":"overcast clouds","icon":"04d"}],"base":"stations","main":{"temp":3.52,"feels_like":0.12,"pressure":1021,"humidity":87},"wind":{"speed":4.12,"deg":250},"clouds":{"all":100},"dt":1795956000,"sys":{"country":"DE","sunrise":1795935070,"sunset":1795964102},"timezone":3600,"id":2950159,"name":"Berlin","cod":200}"#
    static let moscow = #"{"coord":{"lon":37.6156,"lat":55.7522},"weather":[{"id":600,"main":"Snow","description":"небольшой снег","icon":"13d"}],"main":{"temp":-3.41,"humidity":93},"wind":{"speed":5,"deg":200},"snow":{"1h":0.27},"dt":1795955400,"sys":{"country":"RU","sunrise":1795930857,"sunset":1795957243},"timezone":10800,"id":524901,"name":"Москва","cod":200}"#

    func testOpenWeatherMapTextLinesPartialFailureAndNoSecret() throws {
        let server = try LoopbackServer { req in
            guard req.path.hasPrefix("/data/2.5/weather?APPID=TOPSECRET-OWM&") else {
                return .text(#"{"cod":401,"message":"Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."}"#, status: 401)
            }
            if req.path.contains("q=Berlin%2CDE") { return .text(Self.berlin) }
            if req.path.contains("id=524901") { return .text(Self.moscow) }
            return .text(#"{"cod":"404","message":"city not found"}"#, status: 404)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[{"name":"weather","type":"openweathermap","cities":["Berlin,DE","Atlantis,XX"],"city_ids":["524901"],
                     "api_key":"${OWM_KEY}","base_url":"\#(server.baseURL)"}],
         "sinks":[{"type":"stdout"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"], env: ["OWM_KEY": "TOPSECRET-OWM"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdoutLines, [
            "weather  2026-11-29 13:40  Berlin: 3.5 °C, overcast clouds, humidity 87%, wind 4.1 m/s W, sunrise 07:51, sunset 15:55",
            "weather  2026-11-29 15:30  Москва: -3.4 °C, небольшой снег, humidity 93%, wind 5 m/s S, sunrise 08:40, sunset 16:00",
        ], r.stdout)
        XCTAssertTrue(r.stderr.contains("weather  openweathermap  failed: 1 of 3 places failed: GET \(server.baseURL)/data/2.5/weather?APPID=***&q=Atlantis%2CXX&units=metric: HTTP 404: city not found  2 fetched  2 new"), r.stderr)
        XCTAssertTrue(r.stderr.contains("total: 1 source, 1 failed, 2 fetched, 2 new"), r.stderr)
        XCTAssertFalse(r.stderr.contains("TOPSECRET"), r.stderr)
        XCTAssertFalse(r.stdout.contains("TOPSECRET"))
        XCTAssertEqual(server.requests.count, 3, "one request per place, 404 not retried")
        XCTAssertTrue(server.requests.allSatisfy { $0.path.contains("APPID=TOPSECRET-OWM") }, "the key is sent, only never shown")
    }

    func testOpenWeatherMapInvalidKeyJSONLines() throws {
        let server = try LoopbackServer { _ in
            .text(#"{"cod":401,"message":"Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."}"#, status: 401)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"{"sources":[{"name":"w","type":"openweathermap","cities":["Berlin,DE"],"api_key":"WRONGKEY","base_url":"\#(server.baseURL)/"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(r.stdout, "")
        XCTAssertTrue(r.stderr.contains("openweathermap  failed: GET \(server.baseURL)/data/2.5/weather?APPID=***&q=Berlin%2CDE&units=metric: HTTP 401: Invalid API key. Please see https://openweathermap.org/faq#error401 for more info."), r.stderr)
        XCTAssertFalse(r.stderr.contains("WRONGKEY"), r.stderr)
    }

    func testOpenMeteoJSONLinesWithOneRefusedPlace() throws {
        let server = try LoopbackServer { req in
            guard req.path.hasPrefix("/v1/forecast?latitude=") else { return .text("{}", status: 404) }
            if req.path.contains("latitude=35.6895") {
                return .text(#"{"latitude":35.7,"longitude":139.6875,"utc_offset_seconds":32400,"timezone":"Asia/Tokyo","timezone_abbreviation":"GMT+9","elevation":40.0,"current_units":{"time":"iso8601"},"current":{"time":"2026-11-30T02:00","interval":900,"temperature_2m":8.4,"relative_humidity_2m":71,"weather_code":0,"wind_speed_10m":1.2,"wind_direction_10m":10,"is_day":0}}"#)
            }
            return .text(#"{"error":true,"reason":"Latitude must be in range of -90 to 90°. Given: 100.0."}"#, status: 400)
        }
        defer { server.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let cfg = dir.write("tributary.json", #"""
        {"sources":[{"name":"om","type":"open-meteo","coordinates":[{"lat":35.6895,"lon":139.6917,"name":"東京"},{"lat":-90,"lon":0}],"base_url":"\#(server.baseURL)"}]}
        """#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--jsonl"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 1, r.stdout)
        let schema = try SchemaValidator.itemSchema()
        XCTAssertEqual(schema.validate(line: r.stdoutLines[0]), [])
        let item = try JSONParser.parse(r.stdoutLines[0])
        XCTAssertEqual(item.objectValue?["id"], .string("open-meteo:35.6895,139.6917:1795971600"))
        XCTAssertEqual(item.objectValue?["title"], .string("東京: 8.4 °C, clear sky"))
        XCTAssertEqual(item.objectValue?["published"], .string("2026-11-29T17:00:00Z"), "02:00 on the 30th in Tokyo is 17:00 UTC on the 29th")
        XCTAssertEqual(item.objectValue?["image"], .string("https://openweathermap.org/img/wn/01n@2x.png"))
        XCTAssertTrue(r.stderr.contains("open-meteo  failed: 1 of 2 places failed: GET \(server.baseURL)/v1/forecast?latitude=-90&longitude=0&current="), r.stderr)
        XCTAssertTrue(r.stderr.contains("&wind_speed_unit=ms: HTTP 400: Latitude must be in range of -90 to 90°. Given: 100.0."), r.stderr)
    }

    func testExampleConfigsRunOfflineWithExit0() throws {
        for type in ["openweathermap", "open-meteo"] {
            let r = try BinaryRunner.run(["run", "-c", BinaryRunner.packageRoot + "/Sources-config/examples/\(type).json", "--no-state"])
            XCTAssertEqual(r.status, 0, "\(type): \(r.stderr)")
            XCTAssertFalse(r.stdoutLines.isEmpty)
            XCTAssertTrue(r.stdoutLines.allSatisfy { $0.hasPrefix("weather  2026-11-29 ") }, r.stdout)
        }
    }
}
