import TributaryPluginKit
import TributaryCore

/// The `openweathermap` source: OpenWeatherMap current weather (`/data/2.5/weather`), one
/// request per place (city name, city id or coordinates), all at once; one item of kind
/// `weather` per place (Docs/sources/openweathermap.md, Docs/origins.md).
public struct OpenWeatherMapSource: FeedSource {
    public static let descriptor = SourceDescriptor(
        type: "openweathermap",
        summary: "OpenWeatherMap current weather (/data/2.5/weather) for cities by name, id or coordinates",
        options: options,
        lines: [WeatherLine.registration]
    ) { settings, reader in
        OpenWeatherMapSource(settings: settings, reader: reader)
    }

    static let apiKey = Option.secret("api_key", "OpenWeatherMap API key (sent as APPID; never shown), e.g. \"${OWM_API_KEY}\"").required
    static let cities = Option.stringList("cities", "city names, optionally with a country code: \"Belo Horizonte,BR\"")
    static let cityIDs = Option.stringList("city_ids", "OpenWeatherMap city ids, e.g. [3470127, \"2950159\"]")
    static let coordinates = Option.objectList("coordinates", [PlaceCoordinate.Options.lat, PlaceCoordinate.Options.lon], "places by coordinates: [{\"lat\": -19.92, \"lon\": -43.94}]")
    static let units = Option.choice("units", WeatherUnits.self, "standard (K, m/s), metric (°C, m/s) or imperial (°F, mph)").defaulted(.metric)
    static let lang = Option.string("lang", "language of the condition text (OpenWeatherMap code: en, de, pt_br, ru, zh_cn, ...)").documented(default: "the API's (en)")
        .checked { isLanguageCode($0.trimmingBlanks) ? nil : "expected a language code such as \"en\", \"pt_br\" or \"zh_cn\", found \"\($0)\"" }
    static let baseURL = Option.baseURL("base_url", "API root (point it at a compatible or recorded server)").defaulted("https://api.openweathermap.org")
    public static let options: [any OptionDeclaration] = [apiKey, cities, cityIDs, coordinates, units, lang, baseURL]

    /// One place to ask about, as the API's query parameters name it.
    enum Place: Sendable {
        case city(String)
        case cityID(String)
        case coordinate(PlaceCoordinate)

        var query: [(String, String)] {
            switch self {
            case .city(let name): return [("q", name)]
            case .cityID(let id): return [("id", id)]
            case .coordinate(let c): return [("lat", WeatherText.coordinate(c.lat)), ("lon", WeatherText.coordinate(c.lon))]
            }
        }

        /// How the place is called when the response has no name (open sea, unnamed spots).
        var label: String {
            switch self {
            case .city(let name): return name
            case .cityID(let id): return "city \(id)"
            case .coordinate(let c): return c.label
            }
        }
    }

    let apiKey: String
    let places: [Place]
    let units: WeatherUnits
    let lang: String?
    let baseURL: String

    init?(settings: SourceSettings, reader: OptionReader) {
        apiKey = reader[Self.apiKey]
        var places: [Place] = []
        let errorsBefore = reader.diagnostics.errors.count
        for (i, city) in (reader[Self.cities] ?? []).enumerated() {
            let name = WeatherText.clean(city)
            if name.isEmpty { reader.error("cities[\(i)]", "expected a city name such as \"Belo Horizonte,BR\", found an empty string") } else { places.append(.city(name)) }
        }
        for (i, id) in (reader[Self.cityIDs] ?? []).enumerated() {
            let t = id.trimmingBlanks
            if t.isEmpty || !t.allSatisfy({ $0.isASCII && $0.isNumber }) {
                reader.error("city_ids[\(i)]", "expected a numeric city id such as \"3470127\", found \"\(id)\"")
            } else {
                places.append(.cityID(t))
            }
        }
        places += PlaceCoordinate.read(reader[Self.coordinates] ?? [], named: false).map(Place.coordinate)
        if !reader.has(Self.cities) && !reader.has(Self.cityIDs) && !reader.has(Self.coordinates) {
            reader.error(nil, "needs at least one place: \"cities\", \"city_ids\" or \"coordinates\"")
        } else if places.isEmpty && reader.diagnostics.errors.count == errorsBefore {
            reader.error(nil, "the place lists are empty: give at least one city, city id or coordinate")
        }
        self.places = places
        units = reader[Self.units]
        lang = reader[Self.lang].map { $0.trimmingBlanks }
        baseURL = reader[Self.baseURL]
    }

    static func isLanguageCode(_ s: String) -> Bool {
        let parts = s.split(separator: "_", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { p in (2...3).contains(p.count) && p.allSatisfy { $0.isASCII && $0.isLetter } }
    }

    /// `{base}/data/2.5/weather?APPID=<key>&q=..|id=..|lat=..&lon=..&lang=..&units=..`
    func url(for place: Place) -> String {
        var query = [("APPID", apiKey)] + place.query
        if let lang { query.append(("lang", lang)) }
        query.append(("units", units.rawValue))
        return URLEncoding.appendQuery(baseURL + "/data/2.5/weather", query)
    }

    /// One request per place (`PlaceFetch`: in config order, one failing place fails only itself).
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        try await PlaceFetch.run(places, context, url: url(for:), apiError: Self.apiError, item: item)
    }

    /// The API's own reason: `{"cod":401,"message":"Invalid API key..."}` with an error status;
    /// some gateways answer 200 with the error in the body, `cod` then a number or a string
    /// other than 200 (`<cod>: <message>`).
    static let apiError = APIErrorShape.message(at: "message", clean: WeatherText.clean) { body in
        guard let cod = try? body["cod"].optionalString(allowNumber: true), cod != "200" else { return nil }
        let message = (try? body["message"].optionalString(allowNumber: true)).flatMap { $0 } ?? "error code \(cod)"
        return "\(cod): \(message)"
    }

    /// A number at `node` (a numeric string is accepted): its value, and the JSON to keep in `data`.
    func item(_ root: JSONNode, place: Place, context: FetchContext) throws(JSONAccessError) -> Item {
        let sep = WeatherText.decimalSeparator(language: lang)
        func num(_ v: Double) -> String { WeatherText.number(v, separator: sep) }

        let cityID = try root["id"].int(allowString: true)
        let dt = try root["dt"].int(allowString: true)
        guard let temp = try root["main.temp"].optionalNumber() else { throw JSONAccessError(path: root["main.temp"].path, expected: "number", found: nil) }
        let name = WeatherText.clean(try root["name"].optionalString(allowNumber: true) ?? "")
        let lat = try root["coord.lat"].optionalDouble(allowString: true)
        let lon = try root["coord.lon"].optionalDouble(allowString: true)

        var descriptions: [String] = []
        for w in try root["weather"].optionalArray() ?? [] {
            let description = try w["description"].optionalString(allowNumber: true)
            let group = try w["main"].optionalString(allowNumber: true)
            let d = WeatherText.clean(description ?? group ?? "")
            if !d.isEmpty && !descriptions.contains(d) { descriptions.append(d) }
        }
        let first = root["weather[0]"]
        let conditionID = try first["id"].optionalInt(allowString: true)
        let iconCode = try first["icon"].optionalString()
        var icon: WeatherIcon? = nil
        if let iconCode {
            icon = WeatherIcon.resolve(iconCode)
            if WeatherIcon(code: iconCode) == nil {
                context.warn("\(place.label): unknown icon code \"\(iconCode)\", using \(icon!.rawValue)")
            }
        }

        // Ocean coordinates come back as city 0 without a name: the coordinates tell them apart.
        let native: String
        if cityID != 0 {
            native = String(cityID)
        } else if let lat, let lon {
            native = WeatherText.coordinate(lat) + "," + WeatherText.coordinate(lon)
        } else {
            native = "0"
        }
        let title = WeatherText.title(place: name.isEmpty ? place.label : name, temperature: temp.value, units: units, separator: sep,
                                      condition: descriptions.isEmpty ? nil : descriptions.joined(separator: ", "))
        var item = context.item(id: "owm:\(native):\(dt)", kind: "weather", title: title)
        guard let observed = Timestamp(checked: Double(dt)) else {
            throw JSONAccessError(path: root["dt"].path, expected: "a unix time within years 0000-9999", found: String(dt))
        }
        item.published = observed
        if cityID != 0 { item.url = "https://openweathermap.org/city/\(cityID)" }
        item.image = icon?.imageURL
        if let lat, let lon {
            let g = Geo(lat: lat, lon: lon)
            if g.isValid { item.geo = g }
        }

        let feels = try root["main.feels_like"].optionalNumber()
        let tempMin = try root["main.temp_min"].optionalNumber()
        let tempMax = try root["main.temp_max"].optionalNumber()
        let humidity = try root["main.humidity"].optionalNumber()
        let pressure = try root["main.pressure"].optionalNumber()
        let seaLevel = try root["main.sea_level"].optionalNumber()
        let groundLevel = try root["main.grnd_level"].optionalNumber()
        let visibility = try root["visibility"].optionalNumber()
        let windSpeed = try root["wind.speed"].optionalNumber()
        let windDeg = try root["wind.deg"].optionalNumber()
        let windGust = try root["wind.gust"].optionalNumber()
        let clouds = try root["clouds.all"].optionalNumber()
        let rain1h = try root["rain.1h"].optionalNumber()
        let rain3h = try root["rain.3h"].optionalNumber()
        let snow1h = try root["snow.1h"].optionalNumber()
        let snow3h = try root["snow.3h"].optionalNumber()
        let country = WeatherText.clean(try root["sys.country"].optionalString() ?? "")
        let sunrise = try root["sys.sunrise"].optionalInt(allowString: true).flatMap { $0 == 0 ? nil : Timestamp(checked: Double($0)) }
        let sunset = try root["sys.sunset"].optionalInt(allowString: true).flatMap { $0 == 0 ? nil : Timestamp(checked: Double($0)) }
        let timezone = try root["timezone"].optionalInt(allowString: true)

        var parts = WeatherText.conditions(units: units, separator: sep, feelsLike: feels?.value, humidity: humidity?.value, pressure: pressure?.value,
                                           wind: windSpeed.map { ($0.value, windDeg?.value, windGust?.value) }, clouds: clouds?.value)
        for (label, amount, hours) in [("rain", rain1h, "1h"), ("rain", rain3h, "3h"), ("snow", snow1h, "1h"), ("snow", snow3h, "3h")] {
            if let amount { parts.append("\(label) \(num(amount.value)) mm in \(hours)") }
        }
        if let timezone {
            if let sunrise { parts.append("sunrise \(WeatherText.clock(sunrise, offset: Int(timezone)))") }
            if let sunset { parts.append("sunset \(WeatherText.clock(sunset, offset: Int(timezone)))") }
        }
        item.summary = WeatherText.sentence(parts)

        var data = JSONObject()
        data["temperature"] = temp.json
        data["feels_like"] = feels?.json
        data["temp_min"] = tempMin?.json
        data["temp_max"] = tempMax?.json
        data["humidity"] = humidity?.json
        data["pressure"] = pressure?.json
        data["sea_level"] = seaLevel?.json
        data["grnd_level"] = groundLevel?.json
        data["visibility"] = visibility?.json
        data["wind_speed"] = windSpeed?.json
        data["wind_deg"] = windDeg?.json
        data["wind_gust"] = windGust?.json
        data["clouds"] = clouds?.json
        data["rain_1h"] = rain1h?.json
        data["rain_3h"] = rain3h?.json
        data["snow_1h"] = snow1h?.json
        data["snow_3h"] = snow3h?.json
        if !descriptions.isEmpty { data["condition"] = .string(descriptions[0]) }
        data["condition_id"] = conditionID.map { .number(JSONNumber($0)) }
        data["icon"] = icon.map { .string($0.rawValue) }
        data["units"] = .string(units.rawValue)
        if let lang { data["lang"] = .string(lang) }
        data["sunrise"] = sunrise.map { .string($0.rfc3339) }
        data["sunset"] = sunset.map { .string($0.rfc3339) }
        data["city_id"] = .number(JSONNumber(cityID))
        if !country.isEmpty { data["country"] = .string(country) }
        data["timezone"] = timezone.map { .number(JSONNumber($0)) }
        item.data = data
        return item
    }
}
