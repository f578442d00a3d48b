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

/// What one request carries for one item: the item itself (its JSON line), or, with a
/// `template`, one of the template's outputs for it. `id` names it in the `Idempotency-Key`:
/// the item's id, and for the second and later outputs of one item `<id>#2`, `<id>#3`, ...
struct WebhookPart: Sendable {
    let item: Item
    let id: String
    /// The template's output (nil: the item's JSON line).
    let output: TemplateOutput?

    init(item: Item) {
        self.item = item
        self.id = item.id
        self.output = nil
    }

    init(item: Item, output: TemplateOutput, index: Int) {
        self.item = item
        self.id = TemplateRendering.outputID(item.id, index)
        self.output = output
    }
}

/// One `webhook` request of a batch, as bytes and headers: pure functions, so the body, the
/// signature and the idempotency key are tested without a server.
///
/// - The body is the items in delivery order, each written exactly as the `jsonl` sink writes
///   it (Docs/contract.md#items): JSON Lines, or those objects in one array. With a template,
///   the template's outputs instead (Docs/templates.md): with `batch: 1` (`single`) the body
///   is exactly the one output (a string as its text, `text/plain; charset=utf-8`; any other
///   value as compact JSON, `application/json`); otherwise one JSON array of the outputs
///   (`json`) or one compact JSON line per output (`jsonl`).
/// - `Idempotency-Key` is the lowercase hex SHA-256 of the request's item ids as one compact
///   JSON array of strings (`["a:1","a:2"]`, escaped as item lines are): the same items in the
///   same order, sent again by a retry or by the next run after a failure, carry the same key.
/// - With a secret, `X-Tributary-Signature: sha256=<lowercase hex HMAC-SHA256 of the exact
///   body bytes, keyed with the secret's UTF-8 bytes>`.
struct WebhookPayload: Sendable {
    let body: [UInt8]
    let headers: [(name: String, value: String)]
    /// The `Idempotency-Key`.
    let key: String

    static let signatureHeader = "X-Tributary-Signature"
    static let idempotencyHeader = "Idempotency-Key"

    /// Headers the sink sets itself: `headers` may not override them.
    static let reservedHeaders: Set<String> = ["content-type", "content-length", "idempotency-key", "x-tributary-signature", "transfer-encoding", "expect", "host"]

    init(items: [Item], format: WebhookFormat, secret: [UInt8]?, extraHeaders: [(name: String, value: String)]) {
        self.init(parts: items.map(WebhookPart.init(item:)), format: format, single: false, secret: secret, extraHeaders: extraHeaders)
    }

    init(parts: [WebhookPart], format: WebhookFormat, single: Bool, secret: [UInt8]?, extraHeaders: [(name: String, value: String)]) {
        let contentType: String
        if single, parts.count == 1, let output = parts[0].output {
            body = output.text
            contentType = output.string != nil ? "text/plain; charset=utf-8" : "application/json"
        } else {
            body = Self.body(parts, format: format)
            contentType = format.contentType
        }
        key = Self.idempotencyKey(parts.map(\.id))
        var h: [(name: String, value: String)] = [("Content-Type", contentType), (Self.idempotencyHeader, key)]
        if let secret { h.append((Self.signatureHeader, Self.signature(body, secret: secret))) }
        h += extraHeaders
        // No `Expect: 100-continue` (curl sends it for bodies over 1 KiB): a receiver that does not
        // answer it would cost every request a second of waiting. A blank value removes it.
        h.append(("Expect", ""))
        headers = h
    }

    static func body(_ items: [Item], format: WebhookFormat) -> [UInt8] {
        body(items.map(WebhookPart.init(item:)), format: format)
    }

    static func body(_ parts: [WebhookPart], format: WebhookFormat) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(parts.count * 512)
        func append(_ part: WebhookPart) {
            if let output = part.output { out.append(contentsOf: output.json) } else { part.item.appendJSON(into: &out) }
        }
        switch format {
        case .jsonl:
            for part in parts {
                append(part)
                out.append(0x0A)
            }
        case .json:
            out.append(0x5B)  // [
            for (i, part) in parts.enumerated() {
                if i > 0 { out.append(0x2C) }  // ,
                append(part)
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
