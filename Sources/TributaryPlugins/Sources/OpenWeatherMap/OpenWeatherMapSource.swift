import Foundation
import TributaryCore

/// The `openweathermap` source: OpenWeatherMap current weather (`/data/2.5/weather`), one
/// request per place (city name, city id or coordinates), all at once; one item of kind
/// `weather` per place (Docs/sources/openweathermap.md, Docs/origins.md).
public struct OpenWeatherMapSource: FeedSource {
    public static let descriptor = SourceDescriptor(
        type: "openweathermap",
        summary: "OpenWeatherMap current weather (/data/2.5/weather) for cities by name, id or coordinates",
        options: options
    ) { settings, reader in
        OpenWeatherMapSource(settings: settings, reader: reader)
    }

    static let coordinateOptions: [OptionSpec] = [
        OptionSpec("lat", .number, required: true, "latitude, -90 to 90"),
        OptionSpec("lon", .number, required: true, "longitude, -180 to 180"),
    ]

    public static let options: [OptionSpec] = [
        OptionSpec("api_key", .string, required: true, secret: true, "OpenWeatherMap API key (sent as APPID; never shown), e.g. \"${OWM_API_KEY}\""),
        OptionSpec("cities", .stringList, "city names, optionally with a country code: \"Belo Horizonte,BR\""),
        OptionSpec("city_ids", .stringList, "OpenWeatherMap city ids, e.g. [3470127, \"2950159\"]"),
        OptionSpec("coordinates", .objectList(coordinateOptions), "places by coordinates: [{\"lat\": -19.92, \"lon\": -43.94}]"),
        OptionSpec("units", .enumeration(WeatherUnits.allCases.map(\.rawValue)), default: "metric", "standard (K, m/s), metric (°C, m/s) or imperial (°F, mph)"),
        OptionSpec("lang", .string, default: "the API's (en)", "language of the condition text (OpenWeatherMap code: en, de, pt_br, ru, zh_cn, ...)"),
        OptionSpec("base_url", .url, default: "https://api.openweathermap.org", "API root (point it at a compatible or recorded server)"),
    ]

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
        apiKey = reader.string("api_key") ?? ""
        if reader.has("api_key") && apiKey.trimmingBlanks.isEmpty {
            reader.error("api_key", "must not be empty (set the variable it refers to)")
        }
        var places: [Place] = []
        let errorsBefore = reader.diagnostics.errors.count
        for (i, city) in (reader.stringList("cities") ?? []).enumerated() {
            let name = WeatherText.clean(city)
            if name.isEmpty { reader.error("cities[\(i)]", "expected a city name such as \"Belo Horizonte,BR\", found an empty string") } else { places.append(.city(name)) }
        }
        for (i, id) in (reader.stringList("city_ids") ?? []).enumerated() {
            let t = id.trimmingBlanks
            if t.isEmpty || !t.allSatisfy({ $0.isASCII && $0.isNumber }) {
                reader.error("city_ids[\(i)]", "expected a numeric city id such as \"3470127\", found \"\(id)\"")
            } else {
                places.append(.cityID(t))
            }
        }
        places += PlaceCoordinate.read(reader).map(Place.coordinate)
        if !reader.has("cities") && !reader.has("city_ids") && !reader.has("coordinates") {
            reader.error(nil, "needs at least one place: \"cities\", \"city_ids\" or \"coordinates\"")
        } else if places.isEmpty && reader.diagnostics.errors.count == errorsBefore {
            reader.error(nil, "the place lists are empty: give at least one city, city id or coordinate")
        }
        self.places = places
        units = reader.string("units").flatMap(WeatherUnits.init(rawValue:)) ?? .metric
        lang = reader.string("lang").map { $0.trimmingBlanks }
        if let lang, !Self.isLanguageCode(lang) {
            reader.error("lang", "expected a language code such as \"en\", \"pt_br\" or \"zh_cn\", found \"\(lang)\"")
        }
        var base = reader.string("base_url") ?? "https://api.openweathermap.org"
        while base.hasSuffix("/") { base.removeLast() }
        if !(base.hasPrefix("http://") || base.hasPrefix("https://")) {
            reader.error("base_url", "expected an http:// or https:// URL, found \"\(base)\"")
        }
        baseURL = base
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

    /// One request per place, at most `context.parallelism` at once; the items are delivered
    /// in the order of the places in the config, each as soon as the places before it are done,
    /// and one failing place fails only itself.
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let failures = try await FanOut.runOrdered(places, limit: context.parallelism, emit: { items throws(SourceError) in try await context.emit(items) }) { place throws(SourceError) in
            let item = try await fetchPlace(place, context)
            return [item]
        }
        guard let first = failures.first else { return }
        if places.count == 1 { throw first.error }
        throw SourceError(FanOut.summary(failures.map(\.error.message), of: places.count, noun: "places"))
    }

    func fetchPlace(_ place: Place, _ context: FetchContext) async throws(SourceError) -> Item {
        let url = url(for: place)
        let shown = "GET " + Redactor.redactURL(url)
        let response: HTTPResponse
        do {
            response = try await context.http.fetch(HTTPRequest(url: url, timeout: context.settings.timeout))
        } catch {
            throw Self.apiError(error)
        }
        let doc = try context.parseJSON(response)
        let root = JSONNode(doc)
        // Some gateways answer 200 with the error in the body; `cod` is a number or a string.
        if let cod = try? root["cod"].optionalString(allowNumber: true), cod != "200" {
            let message = (try? root["message"].optionalString(allowNumber: true)).flatMap { $0 } ?? "error code \(cod)"
            throw SourceError("\(shown): \(cod): \(message)")
        }
        do {
            return try item(root, place: place, context: context)
        } catch {
            throw SourceError("\(shown): \(error)")
        }
    }

    /// The API's own reason for a failed request: `{"cod":401,"message":"Invalid API key..."}`.
    static func apiError(_ error: HTTPError) -> SourceError {
        guard error.kind == .status, let status = error.status, let message = error.bodyText(at: "message") else { return SourceError(error) }
        return SourceError("\(error.method) \(error.url): HTTP \(status): \(WeatherText.clean(message))")
    }

    /// A number at `node` (a numeric string is accepted): its value, and the JSON to keep in `data`.
    static func number(_ node: JSONNode) throws(JSONAccessError) -> (value: Double, json: JSONValue)? {
        guard let d = try node.optionalDouble(allowString: true) else { return nil }
        if case .number(let n)? = node.value { return (d, .number(n)) }
        return (d, .double(d))
    }

    func item(_ root: JSONNode, place: Place, context: FetchContext) throws(JSONAccessError) -> Item {
        let sep = WeatherText.decimalSeparator(language: lang)
        func num(_ v: Double) -> String { WeatherText.number(v, separator: sep) }

        let cityID = try root["id"].int(allowString: true)
        let dt = try root["dt"].int(allowString: true)
        guard let temp = try Self.number(root["main.temp"]) else { throw JSONAccessError(path: root["main.temp"].path, expected: "number", found: nil) }
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
        let placeName = name.isEmpty ? place.label : name
        var title = "\(placeName): \(num(temp.value)) \(units.temperatureSymbol)"
        if !descriptions.isEmpty { title += ", " + descriptions.joined(separator: ", ") }
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

        let feels = try Self.number(root["main.feels_like"])
        let tempMin = try Self.number(root["main.temp_min"])
        let tempMax = try Self.number(root["main.temp_max"])
        let humidity = try Self.number(root["main.humidity"])
        let pressure = try Self.number(root["main.pressure"])
        let seaLevel = try Self.number(root["main.sea_level"])
        let groundLevel = try Self.number(root["main.grnd_level"])
        let visibility = try Self.number(root["visibility"])
        let windSpeed = try Self.number(root["wind.speed"])
        let windDeg = try Self.number(root["wind.deg"])
        let windGust = try Self.number(root["wind.gust"])
        let clouds = try Self.number(root["clouds.all"])
        let rain1h = try Self.number(root["rain.1h"])
        let rain3h = try Self.number(root["rain.3h"])
        let snow1h = try Self.number(root["snow.1h"])
        let snow3h = try Self.number(root["snow.3h"])
        let country = WeatherText.clean(try root["sys.country"].optionalString() ?? "")
        let sunrise = try root["sys.sunrise"].optionalInt(allowString: true).flatMap { $0 == 0 ? nil : Timestamp(checked: Double($0)) }
        let sunset = try root["sys.sunset"].optionalInt(allowString: true).flatMap { $0 == 0 ? nil : Timestamp(checked: Double($0)) }
        let timezone = try root["timezone"].optionalInt(allowString: true)

        var parts: [String] = []
        if let feels { parts.append("feels like \(num(feels.value)) \(units.temperatureSymbol)") }
        if let humidity { parts.append("humidity \(WeatherText.number(humidity.value, decimals: 0))%") }
        if let pressure { parts.append("pressure \(WeatherText.number(pressure.value, decimals: 0)) hPa") }
        if let windSpeed {
            var wind = "wind \(num(windSpeed.value)) \(units.windSpeedSymbol)"
            if let windDeg { wind += " " + WeatherText.compass(windDeg.value) }
            if let windGust { wind += ", gusts \(num(windGust.value)) \(units.windSpeedSymbol)" }
            parts.append(wind)
        }
        if let clouds { parts.append("clouds \(WeatherText.number(clouds.value, decimals: 0))%") }
        for (label, amount, hours) in [("rain", rain1h, "1h"), ("rain", rain3h, "3h"), ("snow", snow1h, "1h"), ("snow", snow3h, "3h")] {
            if let amount { parts.append("\(label) \(num(amount.value)) mm in \(hours)") }
        }
        if let timezone {
            if let sunrise { parts.append("sunrise \(WeatherText.clock(sunrise, offset: Int(timezone)))") }
            if let sunset { parts.append("sunset \(WeatherText.clock(sunset, offset: Int(timezone)))") }
        }
        if !parts.isEmpty {
            var summary = parts.joined(separator: ", ")
            summary = summary.prefix(1).uppercased() + summary.dropFirst()
            item.summary = summary
        }

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
