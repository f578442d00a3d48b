import TributaryCore

/// Where a JSON API says why a request failed: in the body of an error status, and for some APIs
/// in a 200 whose body is an error object. A source declares its API's shape once and fetches
/// with `FetchContext.getJSON`, which turns either into one readable error:
/// `GET https://api/x?key=***: HTTP 401: Invalid API key` (an error status) or
/// `GET https://api/x?key=***: <reason>` (a 200 that is an error).
public struct APIErrorShape: Sendable {
    /// The API's reason from an error status's body (`status` set) or from a successful body
    /// (`status` nil); nil when the body holds no error of this API.
    public let reason: @Sendable (_ body: JSONNode, _ status: Int?) -> String?

    public init(reason: @escaping @Sendable (_ body: JSONNode, _ status: Int?) -> String?) {
        self.reason = reason
    }

    /// The reason is the string (or number) at `path` in an error status's body; a successful
    /// body is never an error.
    public static func message(at path: KeyPath, clean: @escaping @Sendable (String) -> String = { $0 }) -> APIErrorShape {
        message(at: path, clean: clean) { _ in nil }
    }

    /// The reason is the string (or number) at `path` in an error status's body, as above; and
    /// `inSuccess` reads the reason a successful body gives for being an error (nil: it is
    /// none), for APIs that answer some errors with a 200.
    public static func message(at path: KeyPath, clean: @escaping @Sendable (String) -> String = { $0 },
                               inSuccess: @escaping @Sendable (_ body: JSONNode) -> String?) -> APIErrorShape {
        APIErrorShape { body, status in
            guard status != nil else { return inSuccess(body) }
            guard let text = try? body[path].optionalString(allowNumber: true), !text.isEmpty else { return nil }
            return clean(text)
        }
    }
}

extension FetchContext {
    /// Fetches `request` and parses its body as JSON, read on the tape (`JSONNode`). An error
    /// status whose body `apiError` reads becomes `<METHOD> <url>: HTTP <status>: <reason>`; a
    /// successful body it reads as an error becomes `<METHOD> <url>: <reason>`; every other
    /// failure keeps its HTTP error (status and body) in `SourceError.http`. URLs are redacted.
    public func getJSON(_ request: HTTPRequest, apiError: APIErrorShape) async throws(SourceError) -> JSONNode {
        let response: HTTPResponse
        do {
            response = try await http.fetch(request)
        } catch {
            if error.kind == .status, let status = error.status, let doc = try? JSONDocument(error.body),
               let reason = apiError.reason(JSONNode(doc), status) {
                throw SourceError("\(error.method) \(error.url): HTTP \(status): \(reason)")
            }
            throw SourceError(error)
        }
        let root = JSONNode(try parseJSONDocument(response, method: request.method))
        if let reason = apiError.reason(root, nil) {
            throw SourceError("\(request.method) \(Redactor.redactURL(request.url)): \(reason)")
        }
        return root
    }
}
