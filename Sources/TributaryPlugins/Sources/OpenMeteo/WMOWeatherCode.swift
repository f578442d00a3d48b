import TributaryCore
import TributaryPluginKit

/// WMO weather interpretation codes (WW) as Open-Meteo reports them in `weather_code`, with the
/// text people read and the OpenWeatherMap icon that pictures them. An unknown code is never
/// an error: it reads as "Weather code N".
struct WMOWeatherCode: Sendable, Equatable {
    let code: Int

    /// `Partly cloudy`, `Thunderstorm with hail`, ...
    var text: String {
        switch code {
        case 0: return "Clear sky"
        case 1: return "Mainly clear"
        case 2: return "Partly cloudy"
        case 3: return "Overcast"
        case 45, 48: return "Fog"
        case 51, 53, 55: return "Drizzle"
        case 56, 57: return "Freezing drizzle"
        case 61, 63, 65: return "Rain"
        case 66, 67: return "Freezing rain"
        case 71, 73, 75: return "Snow fall"
        case 77: return "Snow grains"
        case 80, 81, 82: return "Rain showers"
        case 85, 86: return "Snow showers"
        case 95: return "Thunderstorm"
        case 96, 99: return "Thunderstorm with hail"
        default: return "Weather code \(code)"
        }
    }

    var isKnown: Bool { !text.hasPrefix("Weather code") }

    /// The matching icon, day or night; unknown codes get the neutral fallback.
    func icon(night: Bool) -> WeatherIcon {
        let day: WeatherIcon
        switch code {
        case 0: day = .clearSkyDay
        case 1: day = .fewCloudsDay
        case 2: day = .scatteredCloudsDay
        case 3: day = .brokenCloudsDay
        case 45, 48: day = .mistDay
        case 51, 53, 55, 56, 57, 80, 81, 82: day = .showerRainDay
        case 61, 63, 65, 66, 67: day = .rainDay
        case 71, 73, 75, 77, 85, 86: day = .snowDay
        case 95, 96, 99: day = .thunderstormDay
        default: return WeatherIcon.fallback(night: night)
        }
        return night ? WeatherIcon.resolve(String(day.rawValue.dropLast()) + "n") : day
    }
}
