import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// The `dianping` source: Dianping open API `v1/business/find_businesses`, each request signed
/// with SHA-1 (Docs/contract.md#dianping-signing), one `business` item per result (Docs/sources/dianping.md).
public struct DianpingSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "dianping", summary: "Dianping open API v1/business/find_businesses, requests signed with SHA-1", options: options) { settings, reader in
        DianpingSource(settings: settings, reader: reader)
    }

    public static let defaultBaseURL = "http://api.dianping.com"
    static let path = "v1/business/find_businesses"

    static let appKey = Option.secret("app_key", "app key, sent as appkey (shown as *** in logs, errors and recordings)").required
    static let appSecret = Option.secret("app_secret", "app secret: only signs requests, never sent or shown").required
    static let params = Option.stringMap("params", "request parameters (strings or numbers): city or latitude+longitude, region, category, keyword, radius, sort, limit, page, platform, has_coupon, has_deal, format ...").required
    static let baseURL = Option.baseURL("base_url", "API root; \(path) is appended").defaulted(defaultBaseURL)
    public static let options: [any OptionDeclaration] = [appKey, appSecret, params, baseURL]

    /// Parameters with integer values and their allowed ranges (Dianping API documentation).
    /// Parameters with integer values and their allowed ranges (Dianping API documentation).
    /// Switches rather than dictionaries of ranges: nothing to build at start.
    static func integerRange(_ name: String) -> ClosedRange<Int64>? {
        switch name {
        case "limit": 1...40
        case "page": 1...Int64(Int32.max)
        case "radius": 1...5000
        case "sort": 1...9
        case "offset_type": 0...2
        case "out_offset_type", "platform": 1...2
        case "has_coupon", "has_deal", "has_online_reservation": 0...1
        default: nil
        }
    }
    static func coordinateRange(_ name: String) -> ClosedRange<Double>? {
        switch name {
        case "latitude": -90...90
        case "longitude": -180...180
        default: nil
        }
    }

    let appKey: String
    let appSecret: String
    let params: [(String, String)]
    let endpoint: String

    init?(settings: SourceSettings, reader: OptionReader) {
        appKey = reader[Self.appKey]
        appSecret = reader[Self.appSecret]
        endpoint = reader[Self.baseURL] + "/" + Self.path

        // Later duplicates win, as they do for lookups in the config object.
        var pairs: [(String, String)] = []
        for (k, v) in reader[Self.params] {
            pairs.removeAll { $0.0 == k }
            pairs.append((k, v))
        }
        if let raw = reader.raw(Self.params)?.objectValue {
            for e in raw.entries {
                if case .bool(let b) = e.value {
                    reader.error("params.\(e.key)", "expected a string or number, found \(b) (Dianping flags are 1 or 0)")
                }
            }
            pairs.removeAll { raw[$0.0]?.boolValue != nil }
        }
        for (k, v) in pairs {
            if k.isEmpty { reader.error("params", "a parameter name must not be empty") }
            if k == "appkey" || k == "sign" { reader.error("params.\(k)", "is added by the source; set \"app_key\" / \"app_secret\" instead") }
            if let range = Self.integerRange(k) {
                if let n = Int64(v.trimmingBlanks) {
                    if !range.contains(n) { reader.error("params.\(k)", "expected an integer from \(range.lowerBound) to \(range.upperBound == Int64(Int32.max) ? "up" : String(range.upperBound)), found \(v)") }
                } else {
                    reader.error("params.\(k)", "expected an integer, found \"\(v)\"")
                }
            }
            if let range = Self.coordinateRange(k) {
                if let d = Double(v.trimmingBlanks), d.isFinite {
                    if !range.contains(d) { reader.error("params.\(k)", "expected a number from \(Int(range.lowerBound)) to \(Int(range.upperBound)), found \(v)") }
                } else {
                    reader.error("params.\(k)", "expected a number, found \"\(v)\"")
                }
            }
            if k == "format" && v != "json" { reader.error("params.format", "only \"json\" is supported, found \"\(v)\"") }
        }
        if reader.has(Self.params) {
            let keys = Set(pairs.map(\.0))
            if keys.contains("latitude") != keys.contains("longitude") {
                reader.error("params", "\"latitude\" and \"longitude\" go together")
            } else if !keys.contains("city") && !keys.contains("latitude") {
                reader.error("params", "needs \"city\" or \"latitude\" + \"longitude\"")
            }
        }
        params = pairs
    }

    /// The signed request URL (appkey first, parameters in signing order, sign last).
    var requestURL: String {
        DianpingSignature.signedURL(endpoint: endpoint, appKey: appKey, appSecret: appSecret, params: params)
    }

    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let businesses = try await items(context)
        try await context.emit(businesses)
    }

    /// The businesses of the one signed request.
    func items(_ context: FetchContext) async throws(SourceError) -> [Item] {
        let url = requestURL
        let root = try await context.getJSON(HTTPRequest(url: url), apiError: Self.apiError)
        do {
            return try mapResponse(root, context: context)
        } catch {
            throw SourceError("GET \(Redactor.redactURL(url)): \(error)")
        }
    }

    /// `status: ERROR` bodies, with an error status or a 200:
    /// `{"status":"ERROR","error":{"errorCode":10005,"errorMessage":"Invalid sign. ..."}}`.
    static let apiError = APIErrorShape { root, _ in
        guard (try? root[key: "status"].optionalString()) == "ERROR" else { return nil }
        let err = root[key: "error"]
        let code = (try? err[key: "errorCode"].optionalString(allowNumber: true)) ?? nil
        let message = ((try? err[key: "errorMessage"].optionalString()) ?? nil).map { $0.trimmingWhitespaceAndNewlines }
        switch (code, message) {
        case let (c?, m?) where !m.isEmpty: return "API error \(c): \(m)"
        case let (c?, _): return "API error \(c)"
        case let (nil, m?) where !m.isEmpty: return "API error: \(m)"
        default: return "API error (status ERROR without an error code)"
        }
    }

    func mapResponse(_ root: JSONNode, context: FetchContext) throws -> [Item] {
        guard root.kind == .object else { throw JSONAccessError(path: .root, expected: "object", found: root.typeName) }
        let status = try root[key: "status"].optionalString()
        guard status == "OK" else {
            throw JSONAccessError(path: root[key: "status"].path, expected: "\"OK\" or \"ERROR\"", found: status.map { "\"\($0)\"" } ?? root[key: "status"].typeName)
        }
        let businesses = try root[key: "businesses"].optionalArray() ?? []
        var items: [Item] = []
        items.reserveCapacity(businesses.count)
        for b in businesses { items.append(try mapBusiness(b, context: context)) }
        return items
    }

    static func httpURL(_ s: String?) -> String? {
        guard let t = s?.trimmingWhitespaceAndNewlines, t.hasPrefix("http://") || t.hasPrefix("https://") else { return nil }
        return t
    }

    static func formatted(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : JSONNumber(d).text
    }

    func mapBusiness(_ b: JSONNode, context: FetchContext) throws -> Item {
        let idNode = b[key: "business_id"]
        guard let native = try idNode.optionalString(allowNumber: true)?.trimmingBlanks, !native.isEmpty else {
            throw JSONAccessError(path: idNode.path, expected: "business id (string or number)", found: idNode.value?.typeName)
        }
        let name = HTMLText.singleLine(try b[key: "name"].optionalString(allowNumber: true))
        let branch = HTMLText.singleLine(try b[key: "branch_name"].optionalString(allowNumber: true))
        let address = HTMLText.singleLine(try b[key: "address"].optionalString(allowNumber: true))
        let telephone = HTMLText.singleLine(try b[key: "telephone"].optionalString(allowNumber: true))
        let city = HTMLText.singleLine(try b[key: "city"].optionalString(allowNumber: true))
        let rating = try b[key: "avg_rating"].optionalNumber()
        let avgPrice = try b[key: "avg_price"].optionalNumber()
        let reviewCount = try b[key: "review_count"].optionalInt(allowString: true)
        let distance = try b[key: "distance"].optionalNumber()
        let dealCount = try b[key: "deal_count"].optionalInt(allowString: true)
        let hasCoupon = try b[key: "has_coupon"].optionalBool(lenient: true)
        let hasDeal = try b[key: "has_deal"].optionalBool(lenient: true)
        let categories = try b[key: "categories"].stringArray(allowNumber: true).compactMap { HTMLText.singleLine($0) }
        let regions = try b[key: "regions"].stringArray(allowNumber: true).compactMap { HTMLText.singleLine($0) }

        var title = name ?? branch ?? address ?? "Dianping business \(native)"
        if name != nil, let branch { title += "(\(branch))" }
        var item = context.item(id: "dianping:\(native)", kind: "business", title: title)

        // -1 is the API's "unknown" for prices, distances and counts.
        let price = avgPrice.flatMap { $0.value > 0 ? $0 : nil }
        let stars = rating.flatMap { $0.value > 0 ? $0.value : nil }
        var parts: [String] = []
        if let address { parts.append(address) }
        if let telephone { parts.append(telephone) }
        if let price { parts.append("¥\(Self.formatted(price.value)) per person") }
        if let stars { parts.append("rating \(Self.formatted(stars))/5") }
        item.summary = parts.isEmpty ? nil : parts.joined(separator: " · ")
        item.url = Self.httpURL(try b[key: "business_url"].optionalString())
        let photo = Self.httpURL(try b[key: "photo_url"].optionalString())
        let smallPhoto = Self.httpURL(try b[key: "s_photo_url"].optionalString())
        item.image = photo ?? smallPhoto
        if let lat = try b[key: "latitude"].optionalDouble(allowString: true), let lon = try b[key: "longitude"].optionalDouble(allowString: true) {
            let g = Geo(lat: lat, lon: lon)
            if g.isValid && !(lat == 0 && lon == 0) { item.geo = g }
        }
        item.tags = categories

        var data = JSONObject()
        if let rating, rating.value >= 0 { data["rating"] = rating.json }
        if let price { data["avg_price"] = price.json }
        if let reviewCount, reviewCount >= 0 { data["review_count"] = .number(JSONNumber(reviewCount)) }
        if !categories.isEmpty { data["categories"] = .array(categories.map { .string($0) }) }
        if !regions.isEmpty { data["regions"] = .array(regions.map { .string($0) }) }
        if let distance, distance.value >= 0 { data["distance"] = distance.json }
        if let hasCoupon { data["has_coupon"] = .bool(hasCoupon) }
        if let hasDeal { data["has_deal"] = .bool(hasDeal) }
        if let dealCount, dealCount >= 0 { data["deal_count"] = .number(JSONNumber(dealCount)) }
        if let telephone { data["telephone"] = .string(telephone) }
        if let address { data["address"] = .string(address) }
        if let city { data["city"] = .string(city) }
        if let branch { data["branch_name"] = .string(branch) }
        item.data = data
        return item
    }
}
