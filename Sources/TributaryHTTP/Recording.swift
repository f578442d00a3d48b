import TributaryBase
import TributaryJSON
import TributaryOptions
import FoundationEssentials
import Glibc
import Dispatch

/// One saved HTTP exchange, the file format shared by `--record` and `--replay`:
/// `{"method","url","status","headers":[[name,value]],"body"|"body_base64"|"json"}`.
/// The URL is stored redacted; `json` lets hand-written recordings hold the body as a JSON value.
public struct Recording: Sendable {
    public var method: String
    public var url: String
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, url: String, status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The replay lookup key: method and URL with secret query values masked.
    public static func key(method: String, url: String) -> String {
        method.uppercased() + " " + Redactor.redactURL(url)
    }

    public func encoded() -> [UInt8] {
        var obj = JSONObject()
        obj["method"] = .string(method)
        obj["url"] = .string(Redactor.redactURL(url))
        obj["status"] = .int(status)
        // Header values are redacted like any text (a server that echoes the request URL in
        // `Link` or `Content-Location` would otherwise put the API key in the recording), and the
        // body loses every registered secret (an error body that echoes the key).
        obj["headers"] = .array(headers.filter { !Redactor.isSecretHeader($0.name) && $0.name.lowercased() != "set-cookie" }
            .map { .array([.string($0.name), .string(Redactor.redactText($0.value))]) })
        let kept = Secrets.scrub(body)
        if let text = String(validating: kept, as: UTF8.self) {
            obj["body"] = .string(text)
        } else {
            obj["body_base64"] = .string(Data(kept).base64EncodedString())
        }
        var out = JSONWriter.serialize(.object(obj))
        out.append(0x0A)
        return out
    }

    public static func decode(_ bytes: [UInt8], file: String) throws -> Recording {
        let doc: JSONValue
        // The position only: a replay folder may hold anything, and its bytes are not ours to show.
        do { doc = try JSONParser.parse(bytes) } catch { throw RecordingError(message: "\(file):\(error.line):\(error.column): not a recording (invalid JSON)") }
        let n = JSONNode(doc)
        do {
            var headers: [(name: String, value: String)] = []
            for h in try n["headers"].optionalArray() ?? [] {
                let pair = try h.array()
                guard pair.count == 2 else { throw JSONAccessError(path: h.path, expected: "[name, value]", found: "array of \(pair.count)") }
                headers.append((try pair[0].string(), try pair[1].string()))
            }
            var body: [UInt8] = []
            if let s = try n["body"].optionalString() {
                body = Array(s.utf8)
            } else if let b64 = try n["body_base64"].optionalString() {
                guard let d = Data(base64Encoded: b64) else { throw RecordingError(message: "\(file): body_base64 is not valid base64") }
                body = Array(d)
            } else if let v = n["json"].value {
                body = JSONWriter.serialize(v)
            }
            return Recording(method: try n["method"].optionalString() ?? "GET", url: try n["url"].string(),
                             status: Int(try n["status"].optionalInt() ?? 200), headers: headers, body: body)
        } catch let e as JSONAccessError {
            throw RecordingError(message: "\(file): \(e)")
        }
    }
}

public struct RecordingError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}

/// Answers every request from recordings in a folder and touches no network. A request with no
/// recording fails with `no recording for GET <url>`.
public final class ReplayTransport: HTTPTransport, Sendable {
    private let table: [String: Recording]

    /// Reads every `*.json` recording in `directory`. Only regular files are read: a symbolic
    /// link (which could point at /etc/passwd), a FIFO (which would block) or a device in the
    /// folder is an error naming the entry, and nothing is read through it.
    public init(directory: String) throws {
        var table: [String: Recording] = [:]
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: directory) else {
            throw RecordingError(message: "replay folder \(directory) cannot be read")
        }
        for name in names.sorted() where name.hasSuffix(".json") {
            let path = directory + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else { continue }
            let type = st.st_mode & S_IFMT
            if type == S_IFDIR { continue }
            guard type == S_IFREG else {
                let what = type == S_IFLNK ? "a symbolic link" : "not a regular file"
                throw RecordingError(message: "replay folder \(directory): \(name) is \(what); recordings are read only from regular files in the folder")
            }
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard fd >= 0 else { throw RecordingError(message: "replay folder \(directory): cannot read \(name): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            guard let bytes = FileAccess.readAll(fd) else { throw RecordingError(message: "replay folder \(directory): cannot read \(name): \(String(cString: strerror(errno)))") }
            let rec = try Recording.decode(bytes, file: path)
            table[Recording.key(method: rec.method, url: rec.url)] = rec
        }
        self.table = table
    }

    public var count: Int { table.count }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        guard let rec = table[Recording.key(method: request.method, url: request.url)] else {
            throw HTTPError(kind: .noRecording, method: request.method, url: request.url, message: "no recording")
        }
        return HTTPResponse(status: rec.status, headers: rec.headers, body: rec.body, url: request.url)
    }
}

/// Passes requests to another transport and saves each exchange under a folder, one file per
/// exchange, secrets redacted (URL query values masked, secret headers dropped).
public final class RecordingTransport: HTTPTransport, Sendable {
    private let inner: any HTTPTransport
    private let directory: String

    public init(inner: any HTTPTransport, directory: String) throws {
        self.inner = inner
        self.directory = directory
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RecordingError(message: "cannot create record folder \(directory): \(error)")
        }
    }

    public func send(_ request: HTTPRequest) async throws(HTTPError) -> HTTPResponse {
        let response = try await inner.send(request)
        if request.carriesCredentials { OAuth2TokenResponse.registerSecrets(response.body) }
        let rec = Recording(method: request.method, url: request.url, status: response.status, headers: response.headers, body: response.body)
        let key = Recording.key(method: request.method, url: request.url)
        let host = URLEncoding.hostKey(request.url).map { $0.isLetter || $0.isNumber || $0 == "." ? $0 : "_" }
        let name = "\(request.method.lowercased())-\(String(host))-\(Names.fnv1a(key, padded: true)).json"
        let path = directory + "/" + name
        let tmp = path + ".tmp"
        if FileManager.default.createFile(atPath: tmp, contents: Data(rec.encoded())) {
            _ = rename(tmp, path)
        }
        return response
    }
}
