import TributaryCore

/// OpenWeatherMap's weather icon codes: a closed set of 18 (nine conditions, day and night).
/// The `openweathermap` source reads them from its API; the `open-meteo` source pictures its
/// WMO weather codes with them. An unknown code never fails an item: it falls back to
/// `scattered clouds` of the same part of the day, a neutral picture.
package enum WeatherIcon: String, CaseIterable, Sendable {
    case clearSkyDay = "01d", clearSkyNight = "01n"
    case fewCloudsDay = "02d", fewCloudsNight = "02n"
    case scatteredCloudsDay = "03d", scatteredCloudsNight = "03n"
    case brokenCloudsDay = "04d", brokenCloudsNight = "04n"
    case showerRainDay = "09d", showerRainNight = "09n"
    case rainDay = "10d", rainNight = "10n"
    case thunderstormDay = "11d", thunderstormNight = "11n"
    case snowDay = "13d", snowNight = "13n"
    case mistDay = "50d", mistNight = "50n"

    /// The icon for a code as the API sent it; nil when the code is not one of the 18.
    package init?(code: String) {
        self.init(rawValue: code.trimmingBlanks.lowercased())
    }

    /// The icon for a code, or the fallback for an unknown one (night when the code ends in `n`).
    package static func resolve(_ code: String) -> WeatherIcon {
        WeatherIcon(code: code) ?? fallback(night: code.lowercased().hasSuffix("n"))
    }

    package static func fallback(night: Bool) -> WeatherIcon { night ? .scatteredCloudsNight : .scatteredCloudsDay }

    package var isNight: Bool { rawValue.hasSuffix("n") }

    /// `https://openweathermap.org/img/wn/10d@2x.png`
    package var imageURL: String { "https://openweathermap.org/img/wn/\(rawValue)@2x.png" }
}
