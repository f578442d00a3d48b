import TributaryPluginKit
import TributaryCore

/// One place given by coordinates in a weather source's `coordinates` option.
struct PlaceCoordinate: Sendable, Equatable {
    var lat: Double
    var lon: Double
    var name: String?

    /// `-19.92,-43.94`: how the place is named in ids and titles when it has no name.
    var label: String { WeatherText.coordinate(lat) + "," + WeatherText.coordinate(lon) }

    /// The options of one place in a weather source's `coordinates` list.
    enum Options {
        static let lat = Option.number("lat", -90...90, "latitude, -90 to 90").required
        static let lon = Option.number("lon", -180...180, "longitude, -180 to 180").required
        static let name = Option.string("name", "the place's name in titles").documented(default: "\"<lat>,<lon>\"")
    }

    /// The places of a validated `coordinates` list; `named`: its objects declare `name`.
    static func read(_ places: [OptionReader], named: Bool) -> [PlaceCoordinate] {
        places.map { r in
            var name = named ? r[Options.name].map(WeatherText.clean) : nil
            if name?.isEmpty == true { name = nil }
            return PlaceCoordinate(lat: r[Options.lat], lon: r[Options.lon], name: name)
        }
    }
}
