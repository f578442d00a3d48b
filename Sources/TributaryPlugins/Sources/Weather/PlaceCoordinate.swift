import TributaryCore

/// One place given by coordinates in a weather source's `coordinates` option.
struct PlaceCoordinate: Sendable, Equatable {
    var lat: Double
    var lon: Double
    var name: String?

    /// `-19.92,-43.94`: how the place is named in ids and titles when it has no name.
    var label: String { WeatherText.coordinate(lat) + "," + WeatherText.coordinate(lon) }

    /// Reads `coordinates` (already type-checked by the reader: objects with numeric lat/lon)
    /// and records out-of-range values as config errors.
    static func read(_ reader: OptionReader, _ key: String = "coordinates") -> [PlaceCoordinate] {
        guard let list = reader.object[key]?.arrayValue else { return [] }
        var out: [PlaceCoordinate] = []
        for (i, element) in list.enumerated() {
            guard let o = element.objectValue, let lat = o["lat"]?.numberValue?.double, let lon = o["lon"]?.numberValue?.double else { continue }
            var ok = true
            if !(lat.isFinite && abs(lat) <= 90) { reader.error("\(key)[\(i)].lat", "expected a latitude from -90 to 90, found \(o["lat"]!.numberValue!.text)"); ok = false }
            if !(lon.isFinite && abs(lon) <= 180) { reader.error("\(key)[\(i)].lon", "expected a longitude from -180 to 180, found \(o["lon"]!.numberValue!.text)"); ok = false }
            var name = o["name"]?.stringValue.map(WeatherText.clean)
            if name?.isEmpty == true { name = nil }
            if ok { out.append(PlaceCoordinate(lat: lat, lon: lon, name: name)) }
        }
        return out
    }
}
