import TributaryPluginKit
import TributaryCore

/// The body format of a `webhook` request.
enum WebhookFormat: String, CaseIterable, Sendable {
    /// The items as JSON Lines: one compact object per line, each ending in `\n`.
    case jsonl
    /// One JSON array of the items, without a trailing newline.
    case json

    var contentType: String {
        switch self {
        case .jsonl: return "application/x-ndjson"
        case .json: return "application/json"
        }
    }
}

/// One `webhook` request of a batch, as bytes and headers: pure functions, so the body, the
/// signature and the idempotency key are tested without a server.
///
/// - The body is the items in delivery order, each written exactly as the `jsonl` sink writes
///   it (Docs/contract.md#items): JSON Lines, or those objects in one array.
/// - `Idempotency-Key` is the lowercase hex SHA-256 of the request's item ids as one compact
///   JSON array of strings (`["a:1","a:2"]`, escaped as item lines are): the same items in the
///   same order, sent again by a retry or by the next run after a failure, carry the same key.
/// - With a secret, `X-Tributary-Signature: sha256=<lowercase hex HMAC-SHA256 of the exact
///   body bytes, keyed with the secret's UTF-8 bytes>`.
struct WebhookPayload: Sendable {
    let body: [UInt8]
    let headers: [(name: String, value: String)]

    static let signatureHeader = "X-Tributary-Signature"
    static let idempotencyHeader = "Idempotency-Key"

    /// Headers the sink sets itself: `headers` may not override them.
    static let reservedHeaders: Set<String> = ["content-type", "content-length", "idempotency-key", "x-tributary-signature", "transfer-encoding", "expect", "host"]

    init(items: [Item], format: WebhookFormat, secret: [UInt8]?, extraHeaders: [(name: String, value: String)]) {
        body = Self.body(items, format: format)
        var h: [(name: String, value: String)] = [("Content-Type", format.contentType), (Self.idempotencyHeader, Self.idempotencyKey(items.map(\.id)))]
        if let secret { h.append((Self.signatureHeader, Self.signature(body, secret: secret))) }
        h += extraHeaders
        // No `Expect: 100-continue` (curl sends it for bodies over 1 KiB): a receiver that does not
        // answer it would cost every request a second of waiting. A blank value removes it.
        h.append(("Expect", ""))
        headers = h
    }

    static func body(_ items: [Item], format: WebhookFormat) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(items.count * 512)
        switch format {
        case .jsonl:
            for item in items {
                item.appendJSON(into: &out)
                out.append(0x0A)
            }
        case .json:
            out.append(0x5B)  // [
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }  // ,
                item.appendJSON(into: &out)
            }
            out.append(0x5D)  // ]
        }
        return out
    }

    static func idempotencyKey(_ ids: [String]) -> String {
        Digest.hex(Digest.sha256(JSONWriter.serialize(.array(ids.map { .string($0) }))))
    }

    static func signature(_ body: [UInt8], secret: [UInt8]) -> String {
        "sha256=" + Digest.hex(Digest.hmacSHA256(key: secret, message: body))
    }

    /// What is wrong with the configured headers, or nil: names must be HTTP tokens and not
    /// set by the sink itself, and values must not hold line breaks or other control characters
    /// (they would end the header and start another).
    static func headersProblem(_ headers: [(String, String)]) -> String? {
        for (name, value) in headers {
            if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
                return "header name \"\(name)\" is not a valid HTTP header name (letters, digits and !#$%&'*+-.^_`|~)"
            }
            if reservedHeaders.contains(name.lowercased()) {
                return "the sink sets \(name) itself; it cannot be configured"
            }
            if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                return "the value of \(name) holds a line break or another control character"
            }
        }
        return nil
    }

    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }
}
