import TributaryCore

/// The unit systems the weather sources request, with the symbols people read them in.
/// `standard` is OpenWeatherMap's Kelvin + m/s; Open-Meteo offers `metric` and `imperial` only.
package enum WeatherUnits: String, Sendable, CaseIterable {
    case standard, metric, imperial

    /// `K` (written without a degree sign, as SI does), `°C` or `°F`.
    package var temperatureSymbol: String {
        switch self {
        case .standard: return "K"
        case .metric: return "°C"
        case .imperial: return "°F"
        }
    }

    package var windSpeedSymbol: String { self == .imperial ? "mph" : "m/s" }
}
