import TributaryBase
import TributaryJSON
import TributaryOptions
import FoundationEssentials
import Glibc
import Dispatch

/// Why a request failed, with the URL already redacted so it can be shown anywhere.
public struct HTTPError: Error, Sendable, CustomStringConvertible, Equatable {
    public enum Kind: String, Sendable {
        case connection, timeout, status, bodyTooLarge, protocolRefused, tooManyRedirects
        case cancelled, noRecording, invalidURL, other
    }

    public let kind: Kind
    /// Redacted URL of the request.
    public let url: String
    public let method: String
    public let message: String
    /// HTTP status for `.status` errors.
    public let status: Int?
    /// Seconds the server asked us to wait (Retry-After), if any.
    public let retryAfter: Double?
    /// Part of the response body for `.status` errors (for the source to extract the API's reason).
    public let body: [UInt8]

    public init(kind: Kind, method: String = "GET", url: String, message: String, status: Int? = nil, retryAfter: Double? = nil, body: [UInt8] = []) {
        self.kind = kind
        self.method = method
        self.url = Redactor.redactURL(url)
        self.message = Redactor.redactText(message)
        self.status = status
        self.retryAfter = retryAfter
        self.body = body
    }

    /// Connection errors, timeouts and 429/500/502/503/504 are worth another attempt.
    public var isRetryable: Bool {
        switch kind {
        case .connection, .timeout: return true
        case .status: return [429, 500, 502, 503, 504].contains(status ?? 0)
        default: return false
        }
    }

    public var description: String {
        switch kind {
        case .noRecording: return "no recording for \(method) \(url)"
        case .status:
            var s = "\(method) \(url): HTTP \(status ?? 0)\(message.isEmpty ? "" : " " + message)"
            if let snippet = bodySnippet { s += ": " + snippet }
            return s
        default: return "\(method) \(url): \(message)"
        }
    }

    /// A string (or number) at `path` in a JSON error body, e.g. an API's own `message`;
    /// nil when the body is not JSON or has nothing there.
    public func bodyText(at path: KeyPath) -> String? {
        guard let doc = try? JSONParser.parse(body), let v = try? JSONNode(doc)[path].optionalString(allowNumber: true), !v.isEmpty else { return nil }
        return v
    }

    /// The start of a text body on one line (the API's own error message is usually there).
    public var bodySnippet: String? {
        guard !body.isEmpty, let text = String(validating: body.prefix(300), as: UTF8.self) ?? String(validating: body.prefix(297), as: UTF8.self) else { return nil }
        let oneLine = text.split(whereSeparator: { $0.isNewline }).joined(separator: " ").trimmingBlanks
        if oneLine.isEmpty || oneLine.lowercased().hasPrefix("<!doctype") || oneLine.lowercased().hasPrefix("<html") { return nil }
        return Redactor.redactText(oneLine.count > 200 ? String(oneLine.prefix(200)) + "..." : oneLine)
    }
}
