import TributaryCore

/// How weather reads for people: rounded numbers with the decimal separator of the item's
/// language, compass directions and local clock times. Shared by the weather sources (titles,
/// summaries) and the stdout sink's weather line, so both say the same thing the same way.
/// No locale database is consulted: the output is the same bytes on every machine.
package enum WeatherText {
    /// `24.87` -> `"24.9"`, `20.0` -> `"20"`, `-0.04` -> `"0"`; `separator` replaces the point.
    package static func number(_ value: Double, decimals: Int = 1, separator: String = ".") -> String {
        guard value.isFinite else { return "?" }
        // Beyond what any measurement holds (`"temp": 1e+300`): written as the number it is,
        // never squeezed through Int64 (which traps).
        guard abs(value) < 1e15 else { return JSONNumber(value).text.replacing(".", with: separator) }
        var scale = 1.0
        for _ in 0..<max(0, decimals) { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let negative = value < 0 && scaled != 0
        let units = Int64(scaled), one = Int64(scale)
        let fraction = units % one
        var text = String(units / one)
        if fraction != 0 {
            var digits = String(fraction)
            digits = String(repeating: "0", count: decimals - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += separator + digits
        }
        return negative ? "-" + text : text
    }

    /// A coordinate as written in ids and query strings: up to 6 decimals, no exponent, no
    /// trailing zeros (`-19.92`, `52.52`, `13`).
    package static func coordinate(_ value: Double) -> String { number(value, decimals: 6) }

    /// The eight-point compass direction the wind comes from: 0 -> N, 320 -> NW.
    package static func compass(_ degrees: Double) -> String {
        let points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
        guard degrees.isFinite else { return "?" }
        let d = degrees.truncatingRemainder(dividingBy: 360)
        let i = Int(((d < 0 ? d + 360 : d) / 45).rounded()) % 8
        return points[i]
    }

    /// Languages (OpenWeatherMap `lang` codes) whose people write a decimal comma.
    package static let commaLanguages: Set<String> = [
        "af", "az", "be", "bg", "ca", "cz", "cs", "da", "de", "el", "es", "eu", "fi", "fr", "gl", "hr", "hu",
        "id", "it", "lt", "la", "mk", "nl", "no", "pl", "pt", "pt_br", "ro", "ru", "se", "sv", "sk", "sl",
        "sp", "sr", "sq", "tr", "ua", "uk", "vi",
    ]

    /// `,` for languages written with a decimal comma, else `.`.
    package static func decimalSeparator(language: String?) -> String {
        guard let language else { return "." }
        return commaLanguages.contains(language.lowercased()) ? "," : "."
    }

    /// `05:13`: the wall-clock time at a place `offset` seconds east of UTC.
    package static func clock(_ t: Timestamp, offset: Int) -> String {
        let text = Timestamp(seconds: t.seconds.rounded(.down) + Double(offset)).rfc3339
        return String(text.dropFirst(11).prefix(5))
    }

    /// `2026-11-29 10:00`: the date and wall-clock time at a place `offset` seconds east of UTC.
    package static func dateTime(_ t: Timestamp, offset: Int) -> String {
        let text = Timestamp(seconds: t.seconds.rounded(.down) + Double(offset)).rfc3339
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    /// Decodes character references and trims and joins a text to one line (API names and
    /// descriptions sometimes carry entities and newlines).
    package static func clean(_ s: String) -> String {
        HTMLText.decodeEntities(s).split(whereSeparator: { $0.isNewline || $0 == "\t" }).map { $0.trimmingBlanks }
            .filter { !$0.isEmpty }.joined(with: " ")
    }
}

extension WeatherText {
    /// The conditions both weather sources put first in an item's summary, those given, in this
    /// order: `feels like 18.1 °C, humidity 88%, pressure 1012 hPa, wind 3.6 m/s NW, gusts 7 m/s,
    /// clouds 75%`. Temperatures and speeds have one decimal (`separator` for its point), the
    /// percentages and the pressure none.
    package static func conditions(units: WeatherUnits, separator: String = ".", feelsLike: Double?, humidity: Double?, pressure: Double?,
                                   wind: (speed: Double, degrees: Double?, gust: Double?)?, clouds: Double?) -> [String] {
        func num(_ v: Double) -> String { number(v, separator: separator) }
        var parts: [String] = []
        if let feelsLike { parts.append("feels like \(num(feelsLike)) \(units.temperatureSymbol)") }
        if let humidity { parts.append("humidity \(number(humidity, decimals: 0))%") }
        if let pressure { parts.append("pressure \(number(pressure, decimals: 0)) hPa") }
        if let wind {
            var text = "wind \(num(wind.speed)) \(units.windSpeedSymbol)"
            if let degrees = wind.degrees { text += " " + compass(degrees) }
            if let gust = wind.gust { text += ", gusts \(num(gust)) \(units.windSpeedSymbol)" }
            parts.append(text)
        }
        if let clouds { parts.append("clouds \(number(clouds, decimals: 0))%") }
        return parts
    }

    /// A summary of `parts`: joined with commas, its first letter upper-case; nil for none.
    package static func sentence(_ parts: [String]) -> String? {
        guard !parts.isEmpty else { return nil }
        let text = parts.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    /// An item's title: `Belo Horizonte: 19.8 °C`, then the condition when there is one.
    package static func title(place: String, temperature: Double, units: WeatherUnits, separator: String = ".", condition: String?) -> String {
        var title = "\(place): \(number(temperature, separator: separator)) \(units.temperatureSymbol)"
        if let condition { title += ", " + condition }
        return title
    }
}
