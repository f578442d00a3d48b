import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// The `yelp` source: Yelp Fusion `GET /v3/businesses/search` with a Bearer API key, one
/// `business` item per result (Docs/sources/yelp.md). The key travels only in the
/// Authorization header, which logs and recordings never contain.
public struct YelpSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "yelp", summary: "Yelp Fusion /v3/businesses/search (Bearer API key)", options: options) { settings, reader in
        YelpSource(settings: settings, reader: reader)
    }

    public static let defaultBaseURL = "https://api.yelp.com"
    static let path = "/v3/businesses/search"
    static let sortOrders = ["best_match", "rating", "review_count", "distance"]

    static let apiKey = Option.secret("api_key", "Yelp Fusion API key, sent as \"Authorization: Bearer <key>\" (never logged or recorded)").required
    static let term = Option.string("term", "search term, e.g. \"coffee\" or a business name")
    static let location = Option.string("location", "where to search: an address, city or postcode (or give latitude + longitude)")
        .checked { $0.trimmingBlanks.isEmpty ? "must not be empty" : nil }
    static let latitude = Option.number("latitude", -90...90, "latitude of the search centre, -90 to 90 (with longitude, instead of location)")
    static let longitude = Option.number("longitude", -180...180, "longitude of the search centre, -180 to 180")
    static let radius = Option.integer("radius", 1...40000, "search radius in metres (at most 40000)")
    static let categories = Option.stringOrList("categories", "category aliases, e.g. \"coffee\" or [\"bars\", \"french\"]")
    static let limit = Option.integer("limit", 1...50, "number of results").documented(default: "20 (the API's)")
    static let sortBy = Option.choice("sort_by", sortOrders, "result order").documented(default: "best_match")
    static let locale = Option.string("locale", "language and country of the results, e.g. \"de_DE\"")
        .checked { isLocale($0) ? nil : "expected a locale like \"en_US\" or \"de_DE\", found \"\($0)\"" }
    static let price = Option.stringOrList("price", "price levels 1-4 (\"1,2\" or [\"1\", \"2\"]: $ and $$)")
    static let openNow = Option.bool("open_now", "only businesses open now")
    static let baseURL = Option.baseURL("base_url", "API root; \(path) is appended").defaulted(defaultBaseURL)
    public static let options: [any OptionDeclaration] = [apiKey, term, location, latitude, longitude, radius, categories, limit, sortBy, locale, price, openNow, baseURL]

    let apiKey: String
    let url: String

    init?(settings: SourceSettings, reader: OptionReader) {
        apiKey = reader[Self.apiKey]
        // `api_key` is the Authorization header already: a second credential would be ignored.
        if settings.auth != nil { reader.error("auth", "the yelp source sends \"api_key\" as its Authorization header; give the credential there, not in \"auth\"") }
        var query: [(String, String)] = []
        if let term = reader[Self.term] { query.append(("term", term)) }
        let location = reader[Self.location]
        let lat = reader[Self.latitude], lon = reader[Self.longitude]
        if let location {
            if reader.has(Self.latitude) || reader.has(Self.longitude) { reader.error(nil, "use either \"location\" or \"latitude\" + \"longitude\", not both") }
            query.append(("location", location))
        } else if reader.has(Self.latitude) != reader.has(Self.longitude) {
            reader.error(reader.has(Self.latitude) ? Self.longitude.spec.name : Self.latitude.spec.name, "\"latitude\" and \"longitude\" go together")
        } else if !reader.has(Self.latitude) {
            reader.error(nil, "needs \"location\" or \"latitude\" + \"longitude\"")
        }
        if location == nil, let lat, let lon {
            // The digits as written: recordings and the API see the same text.
            query.append(("latitude", reader.raw(Self.latitude)?.numberValue?.text ?? JSONNumber(lat).text))
            query.append(("longitude", reader.raw(Self.longitude)?.numberValue?.text ?? JSONNumber(lon).text))
        }
        if let r = reader[Self.radius] { query.append(("radius", String(r))) }
        if let cats = reader[Self.categories] {
            let list = cats.flatMap { $0.split(separator: ",") }.map { $0.trimmingBlanks }.filter { !$0.isEmpty }
            if list.isEmpty { reader.error(Self.categories, "must name at least one category alias") } else { query.append(("categories", list.joined(with: ","))) }
        }
        if let s = reader[Self.sortBy] { query.append(("sort_by", s)) }
        if let prices = reader[Self.price] {
            let levels = prices.flatMap { $0.split(separator: ",") }.map { $0.trimmingBlanks }
            if levels.isEmpty || !levels.allSatisfy({ ["1", "2", "3", "4"].contains($0) }) {
                reader.error(Self.price, "expected price levels 1 to 4 such as \"1,2\", found \(prices.map { "\"\($0)\"" }.joined(separator: ", "))")
            } else {
                query.append(("price", levels.joined(with: ",")))
            }
        }
        if let open = reader[Self.openNow] { query.append(("open_now", open ? "true" : "false")) }
        if let loc = reader[Self.locale] { query.append(("locale", loc)) }
        if let n = reader[Self.limit] { query.append(("limit", String(n))) }
        url = URLEncoding.appendQuery(reader[Self.baseURL] + Self.path, query)
    }

    static func isLocale(_ s: String) -> Bool {
        let parts = s.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2 else { return false }
        return parts[0].allSatisfy { ("a"..."z").contains($0) } && parts[1].allSatisfy { ("A"..."Z").contains($0) }
    }

    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let businesses = try await items(context)
        try await context.emit(businesses)
    }

    /// The businesses of the one search request.
    func items(_ context: FetchContext) async throws(SourceError) -> [Item] {
        let request = HTTPRequest(url: url, headers: [(name: "Authorization", value: "Bearer \(apiKey)"), (name: "Accept", value: "application/json")])
        let root = try await context.getJSON(request, apiError: Self.apiError)
        do {
            let businesses = try root[key: "businesses"].optionalArray() ?? []
            var items: [Item] = []
            items.reserveCapacity(businesses.count)
            for b in businesses { items.append(try mapBusiness(b, context: context)) }
            return items
        } catch let e as SourceError {
            throw e
        } catch {
            throw SourceError("GET \(Redactor.redactURL(url)): \(error)")
        }
    }

    /// `{"error":{"code":"TOKEN_INVALID","description":"Invalid access token or authorization header."}}`,
    /// with an error status or a 200.
    static let apiError = APIErrorShape { root, _ in
        let err = root[key: "error"]
        guard err.kind == .object else { return nil }
        let code = (try? err[key: "code"].optionalString(allowNumber: true)) ?? nil
        let description = ((try? err[key: "description"].optionalString()) ?? nil)?.trimmingWhitespaceAndNewlines
        var reason = [code, description].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
        if reason.isEmpty { reason = "API error without a code" }
        if let field = try? err[key: "field"].optionalString(), !field.isEmpty { reason += " (field \(field))" }
        return reason
    }

    /// The business page without Yelp's tracking parameters (utm_*, adjust_creative).
    static func pageURL(_ s: String?) -> String? {
        guard let t = s?.trimmingWhitespaceAndNewlines, t.hasPrefix("http://") || t.hasPrefix("https://") else { return nil }
        guard let q = t.firstIndex(of: "?") else { return t }
        var head = String(t[..<q])
        var rest = String(t[t.index(after: q)...])
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = String(rest[..<hash])
        }
        let kept = rest.split(separator: "&").filter { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
            return !(name.hasPrefix("utm_") || name == "adjust_creative")
        }
        if !kept.isEmpty { head += "?" + kept.joined(separator: "&") }
        return head + fragment
    }

    func mapBusiness(_ b: JSONNode, context: FetchContext) throws -> Item {
        let idNode = b[key: "id"]
        guard let native = try idNode.optionalString(allowNumber: true)?.trimmingBlanks, !native.isEmpty else {
            throw JSONAccessError(path: idNode.path, expected: "business id string", found: idNode.value?.typeName)
        }
        let name = HTMLText.singleLine(try b[key: "name"].optionalString(allowNumber: true))
        let loc = b[key: "location"]
        let displayAddress = try loc[key: "display_address"].stringArray().compactMap { HTMLText.singleLine($0) }
        let address = displayAddress.isEmpty ? nil : displayAddress.joined(separator: ", ")
        let displayPhone = HTMLText.singleLine(try b[key: "display_phone"].optionalString())
        let phone = HTMLText.singleLine(try b[key: "phone"].optionalString(allowNumber: true))
        let price = HTMLText.singleLine(try b[key: "price"].optionalString())
        let rating = try b[key: "rating"].optionalNumber()
        let reviewCount = try b[key: "review_count"].optionalInt(allowString: true)
        let isClosed = try b[key: "is_closed"].optionalBool(lenient: true)
        let distance = try b[key: "distance"].optionalNumber()
        var aliases: [String] = [], titles: [String] = []
        for c in try b[key: "categories"].optionalArray() ?? [] {
            if let a = HTMLText.singleLine(try c[key: "alias"].optionalString()) { aliases.append(a) }
            if let t = HTMLText.singleLine(try c[key: "title"].optionalString()) { titles.append(t) }
        }

        var item = context.item(id: "yelp:\(native)", kind: "business", title: name ?? address ?? "Yelp business \(native)")
        var parts: [String] = []
        if let address { parts.append(address) }
        if let p = displayPhone ?? phone { parts.append(p) }
        if let price { parts.append(price) }
        if let rating {
            var r = "rating \(JSONNumber(rating.value).text)/5"
            if let reviewCount { r += " (\(reviewCount) review\(reviewCount == 1 ? "" : "s"))" }
            parts.append(r)
        }
        item.summary = parts.isEmpty ? nil : parts.joined(separator: " · ")
        item.url = Self.pageURL(try b[key: "url"].optionalString())
        if let img = try b[key: "image_url"].optionalString()?.trimmingBlanks, img.hasPrefix("http://") || img.hasPrefix("https://") {
            item.image = img
        }
        let coords = b[key: "coordinates"]
        if let lat = try coords[key: "latitude"].optionalDouble(allowString: true), let lon = try coords[key: "longitude"].optionalDouble(allowString: true) {
            let g = Geo(lat: lat, lon: lon)
            if g.isValid { item.geo = g }
        }
        item.tags = titles

        var data = JSONObject()
        if let rating { data["rating"] = rating.json }
        if let reviewCount { data["review_count"] = .number(JSONNumber(reviewCount)) }
        if let price { data["price"] = .string(price) }
        if let displayPhone { data["display_phone"] = .string(displayPhone) }
        if let phone { data["phone"] = .string(phone) }
        if let isClosed { data["is_closed"] = .bool(isClosed) }
        if let distance, distance.value >= 0 { data["distance"] = distance.json }
        if !aliases.isEmpty { data["categories"] = .array(aliases.map { .string($0) }) }
        if let address { data["address"] = .string(address) }
        if let city = HTMLText.singleLine(try loc[key: "city"].optionalString()) { data["city"] = .string(city) }
        if let country = HTMLText.singleLine(try loc[key: "country"].optionalString()) { data["country"] = .string(country) }
        item.data = data
        return item
    }
}
