import Foundation
import XCTest
import TributaryCore
import TributaryTestSupport

/// The common source option `auth` on the release binary: bearer and basic headers arrive at the
/// source's host and nowhere else; OAuth2 client credentials against a loopback token server
/// that counts its requests: one token for two sources of one client, cached across the
/// requests of a run, fetched again after it expires and after a 401 (once), a failing token
/// endpoint failing only its source; and no secret in any output.
final class AuthEndToEndTests: XCTestCase {
    static let bearerToken = "BEARER-tok-8f3kq2Lm"
    static let basicPassword = "pw-Zx81-basic"

    // MARK: bearer and basic

    func testBearerAndBasicHeadersArriveOnlyAtTheSourcesHosts() throws {
        let elsewhere = try LoopbackServer { _ in .text(#"{"items":[{"id":"far","title":"Far"}]}"#) }
        defer { elsewhere.stop() }
        let api = try LoopbackServer { req in
            switch req.path {
            case "/redirect": return LoopbackResponse(status: 302, headers: [("Location", elsewhere.url("/landing"))])
            case "/hop": return .text(#"{"items":[{"id":"hop","title":"Hop"}],"next":"\#(elsewhere.url("/page2"))"}"#)
            default: return .text(#"{"items":[{"id":"\#(req.path.dropFirst())","title":"T"}]}"#)
            }
        }
        defer { api.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let bearer = #""auth":{"type":"bearer","token":"${API_TOKEN}"}"#
        let sources = [
            #"{"name":"bearer","type":"json","url":"\#(api.url("/bearer"))","items":"items","fields":{"id":"id","title":"title"},\#(bearer)}"#,
            #"{"name":"basic","type":"json","url":"\#(api.url("/basic"))","items":"items","fields":{"id":"id","title":"title"},"auth":{"type":"basic","username":"reader","password":"${API_PASSWORD}"}}"#,
            #"{"name":"redirect","type":"json","url":"\#(api.url("/redirect"))","items":"items","fields":{"id":"id","title":"title"},\#(bearer)}"#,
            #"{"name":"hop","type":"json","url":"\#(api.url("/hop"))","items":"items","fields":{"id":"id","title":"title"},"pagination":{"next_url":"next"},\#(bearer)}"#,
        ]
        let cfg = dir.write("tributary.json", #"{"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"stdout","format":"jsonl"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--verbose"], env: ["API_TOKEN": Self.bearerToken, "API_PASSWORD": Self.basicPassword])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 5, r.stdout)
        let got = Dictionary(api.requests.map { ($0.path, $0.header("Authorization") ?? "none") }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(got["/bearer"], "Bearer " + Self.bearerToken)
        XCTAssertEqual(got["/basic"], "Basic " + Data("reader:\(Self.basicPassword)".utf8).base64EncodedString())
        XCTAssertEqual(got["/redirect"], "Bearer " + Self.bearerToken)
        XCTAssertEqual(got["/hop"], "Bearer " + Self.bearerToken)
        // libcurl 7.88 drops a custom Authorization header on a redirect to another port; a
        // next page on another host is not the source's host: neither gets the credential.
        XCTAssertEqual(Set(elsewhere.requests.map(\.path)), ["/landing", "/page2"])
        for req in elsewhere.requests { XCTAssertNil(req.header("Authorization"), "\(req.path) got the credential") }
        let basic = Data("reader:\(Self.basicPassword)".utf8).base64EncodedString()
        for secret in [Self.bearerToken, Self.basicPassword, basic] {
            XCTAssertFalse(r.stdout.contains(secret) || r.stderr.contains(secret), secret)
        }
    }

    /// API sources get `auth` with no code of their own: sent to their `base_url`'s host, next
    /// to their own key (openweathermap's `APPID`), one token for two sources of one client.
    func testAPISourcesSendAuthToTheirBaseURLsHost() throws {
        let desk = TokenDesk()
        let tokenServer = try LoopbackServer { desk.answer($0) }
        defer { tokenServer.stop() }
        let tokyo = #"{"latitude":35.7,"longitude":139.6875,"utc_offset_seconds":32400,"timezone":"Asia/Tokyo","current":{"time":"2026-11-30T02:00","interval":900,"temperature_2m":8.4,"relative_humidity_2m":71,"weather_code":0,"wind_speed_10m":1.2,"wind_direction_10m":10,"is_day":0}}"#
        let berlin = #"{"coord":{"lon":13.4105,"lat":52.5244},"weather":[{"id":804,"main":"Clouds","description":"overcast clouds","icon":"04d"}],"main":{"temp":3.52,"humidity":87},"wind":{"speed":4.12,"deg":250},"dt":1795956000,"sys":{"country":"DE"},"timezone":3600,"id":2950159,"name":"Berlin","cod":200}"#
        let api = try LoopbackServer { req in
            let auth = req.header("Authorization") ?? ""
            if req.path.hasPrefix("/v1/forecast?"), desk.allIssued.contains(where: { "Bearer " + $0 == auth }) { return .text(tokyo) }
            if req.path.hasPrefix("/data/2.5/weather?APPID=OWM-key-55&"), auth == "Basic " + Data("owm:\(Self.basicPassword)".utf8).base64EncodedString() { return .text(berlin) }
            return .text(#"{"error":true,"reason":"unauthorized"}"#, status: 401)
        }
        defer { api.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        let oauth = #""auth":{"type":"oauth2_client_credentials","token_url":"\#(tokenServer.url("/token/m"))","client_id":"m","client_secret":"${SECRET_M}"}"#
        let sources = [
            #"{"name":"om1","type":"open-meteo","coordinates":[{"lat":35.6895,"lon":139.6917}],"base_url":"\#(api.baseURL)",\#(oauth)}"#,
            #"{"name":"om2","type":"open-meteo","coordinates":[{"lat":48.8566,"lon":2.3522,"name":"Paris"}],"base_url":"\#(api.baseURL)",\#(oauth)}"#,
            #"{"name":"owm","type":"openweathermap","cities":["Berlin,DE"],"api_key":"OWM-key-55","base_url":"\#(api.baseURL)","auth":{"type":"basic","username":"owm","password":"${PW}"}}"#,
        ]
        let cfg = dir.write("tributary.json", #"{"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"stdout","format":"jsonl"}]}"#)
        let r = try BinaryRunner.run(["run", "-c", cfg, "--no-state"], env: ["SECRET_M": TokenDesk.secret("m"), "PW": Self.basicPassword])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdoutLines.count, 3, r.stdout)
        XCTAssertEqual(desk.issued("m").count, 1, "two open-meteo sources, one client: one token")
        XCTAssertEqual(api.requests.count, 3, "no 401")
        for secret in desk.allIssued + [TokenDesk.secret("m"), Self.basicPassword, "OWM-key-55"] {
            XCTAssertFalse(r.stdout.contains(secret) || r.stderr.contains(secret), secret)
        }
    }

    func testAuthIsCheckedWhenTheConfigIsLoaded() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let item = #""items":"items","fields":{"id":"id","title":"title"}"#
        let sources = [
            #"{"name":"e1","type":"exec","command":["true"],"auth":{"type":"bearer","token":"abcdefgh"}}"#,
            #"{"name":"e2","type":"yelp","api_key":"k-123456","location":"Paris","auth":{"type":"bearer","token":"abcdefgh"}}"#,
            #"{"name":"e3","type":"json","url":"http://127.0.0.1:9/x",\#(item),"auth":{"type":"bearer"}}"#,
            #"{"name":"e4","type":"json","url":"http://127.0.0.1:9/x",\#(item),"auth":{"type":"basic","username":"u","password":"p-secret-1","token":"t-secret-1"}}"#,
            #"{"name":"e5","type":"json","url":"http://127.0.0.1:9/x",\#(item),"headers":{"authorization":"Bearer hdr-secret-1"},"auth":{"type":"bearer","token":"abcdefgh"}}"#,
            #"{"name":"e6","type":"json","url":"http://127.0.0.1:9/x",\#(item),"auth":{"type":"oauth2_client_credentials","token_url":"file:///etc/passwd","client_id":"c","client_secret":"cs-secret-1"}}"#,
            #"{"name":"e7","type":"json","url":"http://127.0.0.1:9/x",\#(item),"auth":{"type":"digest","token":"abcdefgh"}}"#,
        ]
        let cfg = dir.write("tributary.json", #"{"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"stdout"}]}"#)
        let r = try BinaryRunner.run(["check", "-c", cfg])
        XCTAssertNotEqual(r.status, 0)
        let out = r.stdout + r.stderr
        for expected in [
            #"sources[0] ("e1").auth: the exec source makes no HTTP request (its program does): give the program its credential in "env""#,
            #"sources[1] ("e2").auth: the yelp source sends "api_key" as its Authorization header; give the credential there, not in "auth""#,
            #"sources[2] ("e3").auth: missing required key "token" (the bearer form takes "token")"#,
            #"sources[3] ("e4").auth.token: not a key of the basic form (it takes "username", "password")"#,
            #"sources[4] ("e5").auth: the source's "headers" set Authorization too: give the credential in one of them"#,
            #"sources[5] ("e6").auth.token_url: expected an http:// or https:// URL"#,
            #"sources[6] ("e7").auth.type: expected one of"#,
        ] {
            XCTAssertTrue(out.contains(expected), "missing \(expected) in\n\(out)")
        }
        for secret in ["p-secret-1", "t-secret-1", "hdr-secret-1", "cs-secret-1"] { XCTAssertFalse(out.contains(secret), secret) }
    }

    // MARK: OAuth2 client credentials

    /// The token server: `POST /token/<client>` answers a token for a client whose Basic
    /// credential and grant are right; client `y` gets tokens of 1 s, client `v` is refused.
    final class TokenDesk: Sendable {
        struct State { var issued: [String: [String]] = [:]; var refusedCalls = 0; var badRequests: [String] = [] }
        let state = Locked(State())
        static func secret(_ client: String) -> String { "cs-\(client)-S3CRET-77q" }

        func answer(_ req: LoopbackRequest) -> LoopbackResponse {
            let path = req.path.split(separator: "?", maxSplits: 1)[0]
            guard req.method == "POST", path.hasPrefix("/token/") else { return .text("{}", status: 404) }
            let client = String(path.dropFirst("/token/".count))
            let basic = "Basic " + Data("\(client):\(Self.secret(client))".utf8).base64EncodedString()
            let form = req.bodyText
            if req.header("Authorization") != basic || !form.hasPrefix("grant_type=client_credentials") || req.header("Content-Type") != "application/x-www-form-urlencoded" {
                state.withLock { $0.badRequests.append("\(client): \(req.header("Authorization") ?? "-") \(form)") }
            }
            if client == "v" {
                state.withLock { $0.refusedCalls += 1 }
                return .text(#"{"error":"invalid_client","error_description":"Client authentication failed"}"#, status: 401)
            }
            let token = state.withLock { s -> String in
                let t = "AT-\(client)-\(s.issued[client, default: []].count + 1)-x9Qw2"
                s.issued[client, default: []].append(t)
                return t
            }
            let expires = client == "y" ? 1 : 3600
            return .text(#"{"access_token":"\#(token)","token_type":"bearer","expires_in":\#(expires),"scope":"\#(form.contains("scope=feeds%3Aread") ? "feeds:read" : "")"}"#)
        }

        func issued(_ client: String) -> [String] { state.withLock { $0.issued[client] ?? [] } }
        var allIssued: [String] { state.withLock { $0.issued.values.flatMap { $0 } } }
    }

    func testOAuth2TokensAreSharedCachedRenewedAndNeverShown() throws {
        let desk = TokenDesk()
        let tokenServer = try LoopbackServer { desk.answer($0) }
        defer { tokenServer.stop() }
        let api = try LoopbackServer { req in
            let auth = req.header("Authorization") ?? ""
            let path = req.path
            func page(_ id: String, next: String? = nil, delay: Double = 0) -> LoopbackResponse {
                var r = LoopbackResponse.text(#"{"items":[{"id":"\#(id)","title":"Item \#(id)"}]\#(next.map { #","next":"\#($0)""# } ?? "")}"#)
                r.delay = delay
                return r
            }
            let valid = desk.allIssued.contains { "Bearer " + $0 == auth }
            if !valid || path.hasPrefix("/w") || (path.hasPrefix("/z") && auth == "Bearer AT-z-1-x9Qw2") {
                return .text(#"{"message":"bad token"}"#, status: 401)
            }
            switch path {
            case "/b1": return page("b1", next: "/b2")
            case "/y1": return page("y1", next: "/y2", delay: 1.4)  // the 1 s token expires meanwhile
            default: return page(String(path.dropFirst()))
            }
        }
        defer { api.stop() }
        let dir = TempDir()
        defer { dir.remove() }
        func oauth(_ client: String, query: String = "") -> String {
            #""auth":{"type":"oauth2_client_credentials","token_url":"\#(tokenServer.url("/token/" + client + query))","client_id":"\#(client)","client_secret":"${SECRET_\#(client.uppercased())}","scope":"feeds:read"}"#
        }
        func json(_ name: String, _ paths: [String], _ client: String, pages: Bool = false, query: String = "") -> String {
            let urls = paths.map { #""\#(api.url($0))""# }.joined(separator: ",")
            return #"{"name":"\#(name)","type":"json","urls":[\#(urls)],"items":"items","fields":{"id":"id","title":"title"},\#(pages ? #""pagination":{"next_url":"next"},"# : "")\#(oauth(client, query: query))}"#
        }
        let sources = [
            json("a", ["/a1", "/a2"], "x"),                    // two URLs, one client
            json("b", ["/b1"], "x", pages: true),              // the same client, two pages
            json("expiring", ["/y1"], "y", pages: true),       // expires_in 1: renewed between its pages
            json("revoked", ["/z1"], "z"),                     // the first token is refused: one renewal
            json("refused", ["/w1"], "w"),                     // every token refused: one renewal, then the 401
            json("nodesk", ["/v1"], "v", query: "?tenant=acme&api_key=QK-99zz-secret"),  // the token endpoint says no
        ]
        let cfg = dir.write("tributary.json", #"{"state":{"path":"state.sqlite"},"metrics":{"file":"metrics.prom"},"sources":[\#(sources.joined(separator: ","))],"sinks":[{"type":"stdout","format":"jsonl"}]}"#)
        var env: [String: String] = [:]
        for c in ["x", "y", "z", "w", "v"] { env["SECRET_" + c.uppercased()] = TokenDesk.secret(c) }
        let record = dir.path + "/rec"
        let r = try BinaryRunner.run(["run", "-c", cfg, "--verbose", "--record", record], env: env)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(desk.state.withLock { $0.badRequests }, [], "every token request authenticates the client with Basic and asks for client_credentials")
        XCTAssertEqual(Set(r.stdoutLines.compactMap { try? JSONParser.parse(Array($0.utf8)) }.compactMap { JSONNode($0)["id"].value?.stringValue }),
                       ["a:a1", "a:a2", "b:b1", "b:b2", "expiring:y1", "expiring:y2", "revoked:z1"], r.stdout)
        XCTAssertEqual(desk.issued("x").count, 1, "two sources of one client, three URLs and a next page: one token")
        XCTAssertEqual(desk.issued("y").count, 2, "a token of 1 s is fetched again for the next page 1.4 s later")
        XCTAssertEqual(desk.issued("z").count, 2, "a 401: one new token, and the request again")
        XCTAssertEqual(desk.issued("w").count, 2, "a 401 after the new token too: no third token")
        XCTAssertEqual(api.requests.filter { $0.path == "/z1" }.count, 2)
        XCTAssertEqual(api.requests.filter { $0.path == "/w1" }.count, 2, "the second 401 is the source's error, not retried")
        XCTAssertEqual(api.requests.filter { $0.path == "/v1" }.count, 0, "no token, no request")
        XCTAssertEqual(desk.state.withLock { $0.refusedCalls }, 1, "a 401 from the token endpoint is not retried")
        let y2 = try XCTUnwrap(api.requests.first { $0.path == "/y2" })
        XCTAssertEqual(y2.header("Authorization"), "Bearer AT-y-2-x9Qw2")
        XCTAssertTrue(r.stderr.contains(#"refused   json  failed: GET \#(api.url("/w1")): HTTP 401 Unauthorized: {"message":"bad token"}"#), r.stderr)
        let tokenURL = tokenServer.url("/token/v?tenant=acme&api_key=***")
        XCTAssertTrue(r.stderr.contains(#"nodesk    json  failed: POST \#(tokenURL): OAuth2 token request failed: the token endpoint answered HTTP 401: invalid_client: Client authentication failed (expected a JSON object with "access_token""#), r.stderr)

        // The same config again, logs as JSON: a new process fetches its own tokens.
        let second = try BinaryRunner.run(["run", "-c", cfg, "--verbose", "--log-format", "json"], env: env)
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertEqual(desk.issued("x").count, 2)
        XCTAssertTrue(second.stderr.contains("OAuth2 token request failed"), second.stderr)
        let status = try BinaryRunner.run(["status", "-c", cfg], env: env)
        let statusJSON = try BinaryRunner.run(["status", "-c", cfg, "--json"], env: env)
        XCTAssertTrue(statusJSON.stdout.contains("OAuth2 token request failed"), statusJSON.stdout)
        XCTAssertTrue(statusJSON.stdout.contains("api_key=***"), statusJSON.stdout)

        // Every output: no client secret, no access token, no Basic credential built from them.
        var secrets = desk.allIssued + ["QK-99zz-secret"]
        for c in ["x", "y", "z", "w", "v"] {
            secrets.append(TokenDesk.secret(c))
            secrets.append(Data("\(c):\(TokenDesk.secret(c))".utf8).base64EncodedString())
        }
        XCTAssertEqual([desk.issued("x").count, desk.issued("y").count, desk.issued("z").count, desk.issued("w").count], [2, 4, 3, 4], "x once a run, y and w twice a run; z twice in the first run (its first token is refused), once in the second")
        var outputs: [(String, String)] = [("run stdout", r.stdout), ("run stderr", r.stderr), ("json log stdout", second.stdout), ("json log stderr", second.stderr),
                                           ("status", status.stdout + status.stderr), ("status --json", statusJSON.stdout + statusJSON.stderr)]
        for name in ["state.sqlite", "state.sqlite-wal", "metrics.prom"] {
            if let d = FileManager.default.contents(atPath: dir.path + "/" + name) { outputs.append((name, String(decoding: d, as: UTF8.self))) }
        }
        XCTAssertTrue(outputs.contains { $0.0 == "state.sqlite" } && outputs.contains { $0.0 == "metrics.prom" })
        let files = try FileManager.default.contentsOfDirectory(atPath: record).sorted()
        XCTAssertTrue(files.contains { $0.hasPrefix("post-") }, "the token exchanges are recorded: \(files)")
        for f in files { outputs.append(("recording " + f, String(decoding: FileManager.default.contents(atPath: record + "/" + f) ?? Data(), as: UTF8.self))) }
        for (name, text) in outputs {
            for s in secrets { XCTAssertFalse(text.contains(s), "\(s) in \(name)") }
        }
        let tokenRecording = try XCTUnwrap(outputs.first { $0.0.hasPrefix("recording post-") && $0.1.contains("/token/x") }?.1)
        XCTAssertTrue(tokenRecording.contains(#"\"access_token\":\"***\""#), tokenRecording)

        // Offline: the recorded token exchange answers the token request.
        api.stop()
        tokenServer.stop()
        let replay = try BinaryRunner.run(["run", "-c", cfg, "--no-state", "--replay", record, "--only", "a,b"], env: env)
        XCTAssertEqual(replay.status, 0, replay.stderr)
        XCTAssertEqual(replay.stdoutLines.count, 4, replay.stdout)
    }
}
