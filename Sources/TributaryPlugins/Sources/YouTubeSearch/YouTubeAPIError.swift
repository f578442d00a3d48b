import TributaryPluginKit
import TributaryCore

/// Reads a Google API error body, `{"error":{"code":403,"message":"...","errors":[{"reason":"quotaExceeded",...}]}}`,
/// so a failed request reports the API's own reason and message instead of the raw body:
/// `GET <url>: HTTP 403: quotaExceeded: The request cannot be completed because you have exceeded your quota.`
/// (through `FetchContext.getJSON`); errors that are not an API error body keep the HTTP layer's own description.
enum YouTubeAPIError {
    /// The shape `getJSON` reads: only an error status carries an error body.
    static let shape = APIErrorShape { root, status in status == nil ? nil : reason(in: root) }

    /// `reason: message` from `error.errors[0]` (falling back to `error.status` and `error.message`),
    /// the message as plain text (quota messages carry an `<a href>` link); nil when the document has no `error` object.
    static func reason(in root: JSONNode) -> String? {
        let error = root[key: "error"]
        guard case .object? = error.value else { return nil }
        let first = error[key: "errors"][KeyPath(components: [.index(0)])]
        let reason = text(first[key: "reason"]) ?? text(error[key: "status"])
        let message = text(first[key: "message"]) ?? text(error[key: "message"])
        switch (reason, message) {
        case let (r?, m?): return "\(r): \(m)"
        case let (r?, nil): return r
        case let (nil, m?): return m
        case (nil, nil): return nil
        }
    }

    private static func text(_ node: JSONNode) -> String? {
        guard let s = try? node.optionalString(allowNumber: true) else { return nil }
        let plain = HTMLText.toPlainText(s).split(whereSeparator: \.isNewline).joined(separator: " ")
        return plain.isEmpty ? nil : plain
    }
}
