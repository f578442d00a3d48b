import TributaryCore

/// One place given by coordinates in a weather source's `coordinates` option.
package struct PlaceCoordinate: Sendable, Equatable {
    package var lat: Double
    package var lon: Double
    package var name: String?

    /// `-19.92,-43.94`: how the place is named in ids and titles when it has no name.
    package var label: String { WeatherText.coordinate(lat) + "," + WeatherText.coordinate(lon) }

    /// The options of one place in a weather source's `coordinates` list.
    package enum Options {
        package static let lat = Option.number("lat", -90...90, "latitude, -90 to 90").required
        package static let lon = Option.number("lon", -180...180, "longitude, -180 to 180").required
        package static let name = Option.string("name", "the place's name in titles").documented(default: "\"<lat>,<lon>\"")
    }

    /// The places of a validated `coordinates` list; `named`: its objects declare `name`.
    package static func read(_ places: [OptionReader], named: Bool) -> [PlaceCoordinate] {
        places.map { r in
            var name = named ? r[Options.name].map(WeatherText.clean) : nil
            if name?.isEmpty == true { name = nil }
            return PlaceCoordinate(lat: r[Options.lat], lon: r[Options.lon], name: name)
        }
    }
}
