import TributaryPluginKit
import TributaryCore

/// The `open-meteo` source: current conditions from the keyless Open-Meteo forecast API
/// (`/v1/forecast?current=...`), one request per coordinate, all at once; one item of kind
/// `weather` per place, shaped like the `openweathermap` items (Docs/sources/open-meteo.md).
public struct OpenMeteoSource: FeedSource {
    public static let descriptor = SourceDescriptor(
        type: "open-meteo",
        summary: "Open-Meteo current weather (no API key) for several coordinates",
        options: options,
        lines: [WeatherLine.registration]
    ) { settings, reader in
        OpenMeteoSource(settings: settings, reader: reader)
    }

    static let coordinates = Option.objectList("coordinates", [PlaceCoordinate.Options.lat, PlaceCoordinate.Options.lon, PlaceCoordinate.Options.name],
                                               "places: [{\"lat\": 52.52, \"lon\": 13.41, \"name\": \"Berlin\"}]").required
        .checked { $0.isEmpty ? "needs at least one place: [{\"lat\": 52.52, \"lon\": 13.41}]" : nil }
    static let units = Option.choice("units", ["metric", "imperial"], "metric (°C, m/s) or imperial (°F, mph); precipitation is always mm").defaulted("metric")
    static let baseURL = Option.baseURL("base_url", "API root (point it at a compatible, self-hosted or recorded server)").defaulted("https://api.open-meteo.com")
    public static let options: [any OptionDeclaration] = [coordinates, units, baseURL]

    /// The current-conditions variables asked for, in the order the API documents them.
    static let currentVariables = "temperature_2m,relative_humidity_2m,apparent_temperature,precipitation,weather_code,cloud_cover,pressure_msl,wind_speed_10m,wind_direction_10m,is_day"

    let places: [PlaceCoordinate]
    let units: WeatherUnits
    let baseURL: String

    init?(settings: SourceSettings, reader: OptionReader) {
        places = PlaceCoordinate.read(reader[Self.coordinates], named: true)
        units = WeatherUnits(rawValue: reader[Self.units]) ?? .metric
        baseURL = reader[Self.baseURL]
    }

    /// `{base}/v1/forecast?latitude=..&longitude=..&current=...&timezone=auto&temperature_unit=..&wind_speed_unit=..`
    /// (the fixed variable list keeps its commas; every other value is percent-encoded).
    func url(for place: PlaceCoordinate) -> String {
        let imperial = units == .imperial
        return baseURL + "/v1/forecast?" + URLEncoding.query([
            ("latitude", WeatherText.coordinate(place.lat)), ("longitude", WeatherText.coordinate(place.lon)),
        ]) + "&current=" + Self.currentVariables + "&" + URLEncoding.query([
            ("timezone", "auto"),
            ("temperature_unit", imperial ? "fahrenheit" : "celsius"),
            ("wind_speed_unit", imperial ? "mph" : "ms"),
        ])
    }

    /// One request per place (`PlaceFetch`: in config order, one failing place fails only itself).
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        try await PlaceFetch.run(places, context, url: url(for:), apiError: Self.apiError, item: item)
    }

    /// The API's own reason, `{"error":true,"reason":"..."}`, with an error status or a 200.
    static let apiError = APIErrorShape.message(at: "reason", clean: WeatherText.clean) { body in
        guard (try? body["error"].optionalBool()) == true else { return nil }
        return WeatherText.clean((try? body["reason"].optionalString(allowNumber: true)).flatMap { $0 } ?? "error without a reason")
    }

    /// `current.time` is the place's wall-clock time without an offset (`2026-11-29T07:00`);
    /// `utc_offset_seconds` turns it into UTC. A time that carries its own offset is taken as is.
    static func observationTime(_ node: JSONNode, offset: Int64) throws(JSONAccessError) -> Timestamp {
        let text = try node.string()
        let clock = text.dropFirst(11)
        let hasOffset = clock.contains { $0 == "Z" || $0 == "z" || $0 == "+" || $0 == "-" }
        guard let parsed = Timestamp.parseRFC3339(text) else {
            throw JSONAccessError(path: node.path, expected: "an ISO 8601 local time such as \"2026-11-29T07:00\"", found: "\"\(text)\"")
        }
        if hasOffset { return parsed }
        guard let utc = Timestamp(checked: parsed.seconds - Double(offset)) else {
            throw JSONAccessError(path: node.path, expected: "a local time that utc_offset_seconds (\(offset)) keeps within years 0000-9999", found: "\"\(text)\"")
        }
        return utc
    }

    func item(_ root: JSONNode, place: PlaceCoordinate, context: FetchContext) throws(JSONAccessError) -> Item {
        func number(_ node: JSONNode) throws(JSONAccessError) -> (value: Double, json: JSONValue)? { try node.optionalNumber() }

        let offset = try root["utc_offset_seconds"].int(allowString: true)
        guard abs(offset) < 86400 else {
            throw JSONAccessError(path: root["utc_offset_seconds"].path, expected: "a UTC offset under a day, in seconds", found: String(offset))
        }
        let current = root["current"]
        _ = try current.object()
        let time = try Self.observationTime(current["time"], offset: offset)
        guard let temp = try number(current["temperature_2m"]) else {
            throw JSONAccessError(path: current["temperature_2m"].path, expected: "number", found: nil)
        }
        let humidity = try number(current["relative_humidity_2m"])
        let feels = try number(current["apparent_temperature"])
        let precipitation = try number(current["precipitation"])
        let code = try current["weather_code"].optionalInt(allowString: true).map { WMOWeatherCode(code: Int($0)) }
        let clouds = try number(current["cloud_cover"])
        let pressure = try number(current["pressure_msl"])
        let windSpeed = try number(current["wind_speed_10m"])
        let windDeg = try number(current["wind_direction_10m"])
        let isDay = try current["is_day"].optionalBool(lenient: true)
        let zoneName = WeatherText.clean(try root["timezone"].optionalString() ?? "")
        let elevation = try number(root["elevation"])

        let title = WeatherText.title(place: place.name ?? place.label, temperature: temp.value, units: units,
                                      condition: code.map { $0.text.prefix(1).lowercased() + $0.text.dropFirst() })
        let seconds = Int64(time.seconds.rounded(.down))
        var item = context.item(id: "open-meteo:\(place.label):\(seconds)", kind: "weather", title: title)
        item.published = time
        item.geo = Geo(lat: place.lat, lon: place.lon)
        let icon = code?.icon(night: isDay == false)
        item.image = icon?.imageURL
        if let code, !code.isKnown { context.warn("\(place.name ?? place.label): unknown WMO weather code \(code.code)") }

        var parts = WeatherText.conditions(units: units, feelsLike: feels?.value, humidity: humidity?.value, pressure: pressure?.value,
                                           wind: windSpeed.map { ($0.value, windDeg?.value, nil) }, clouds: clouds?.value)
        if let precipitation, precipitation.value > 0 { parts.append("precipitation \(WeatherText.number(precipitation.value)) mm") }
        item.summary = WeatherText.sentence(parts)

        var data = JSONObject()
        data["temperature"] = temp.json
        data["feels_like"] = feels?.json
        data["humidity"] = humidity?.json
        data["pressure"] = pressure?.json
        data["wind_speed"] = windSpeed?.json
        data["wind_deg"] = windDeg?.json
        data["clouds"] = clouds?.json
        data["precipitation"] = precipitation?.json
        data["condition"] = code.map { .string($0.text) }
        data["weather_code"] = code.map { .int($0.code) }
        data["icon"] = icon.map { .string($0.rawValue) }
        data["is_day"] = isDay.map { .bool($0) }
        data["units"] = .string(units.rawValue)
        data["timezone"] = .number(JSONNumber(offset))
        if !zoneName.isEmpty { data["timezone_name"] = .string(zoneName) }
        data["elevation"] = elevation?.json
        item.data = data
        return item
    }
}
