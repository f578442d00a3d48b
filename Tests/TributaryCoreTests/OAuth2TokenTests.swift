import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryHTTP

/// The token endpoint's answer as `OAuth2TokenResponse` reads it, and `OAuth2TokenCache`'s
/// expiry, single flight and invalidation, on a clock the test moves.
final class OAuth2TokenTests: XCTestCase {
    override func setUp() { Secrets.removeAll() }
    override func tearDown() { Secrets.removeAll() }

    private func parse(_ status: Int, _ body: String, now: Double = 100) -> Result<OAuth2Token, OAuth2TokenError> {
        OAuth2TokenResponse.parse(status: status, body: Array(body.utf8), now: now)
    }

    func testAGoodResponseIsATokenThatExpiresBeforeItsExpiresIn() throws {
        let t = try parse(200, #"{"access_token":"AT-1234567","token_type":"bearer","expires_in":3600,"scope":"read"}"#).get()
        XCTAssertEqual(t.accessToken, "AT-1234567")
        XCTAssertEqual(t.authorization, "Bearer AT-1234567", "the scheme is written Bearer whatever case the server used")
        XCTAssertEqual(t.expiresIn, 3600)
        XCTAssertEqual(t.refreshAt, 100 + 3600 - 30, "the margin is at most 30 s")
        XCTAssertTrue(t.isFresh(at: 3669.9))
        XCTAssertFalse(t.isFresh(at: 3670))
        let short = try parse(200, #"{"access_token":"AT-short1","token_type":"Bearer","expires_in":"10"}"#).get()
        XCTAssertEqual(short.refreshAt, 109, "10% of a short lifetime; a numeric string is read too")
        let forever = try parse(201, #"{"access_token":"AT-forever"}"#).get()
        XCTAssertNil(forever.refreshAt, "no expires_in: used until a 401")
        XCTAssertTrue(forever.isFresh(at: 1e12))
        XCTAssertEqual(Redactor.redactText("x AT-1234567 AT-short1 AT-forever"), "x *** *** ***", "every token read is registered as a secret")
    }

    func testBadResponsesSayWhatCameAndWhatWasExpected() {
        func message(_ r: Result<OAuth2Token, OAuth2TokenError>) -> String {
            if case .failure(let e) = r { return e.message }
            return "a token"
        }
        let expected = #"(expected a JSON object with "access_token", "token_type": "Bearer" and "expires_in" (RFC 6749 section 5.1))"#
        XCTAssertEqual(message(parse(400, #"{"error":"invalid_client","error_description":"Client authentication failed"}"#)),
                       "the token endpoint answered HTTP 400: invalid_client: Client authentication failed " + expected)
        XCTAssertEqual(message(parse(503, "<html>busy</html>")), "the token endpoint answered HTTP 503 " + expected)
        XCTAssertEqual(message(parse(200, "access_token=abc&token_type=bearer")), "the token endpoint answered HTTP 200 with a body that is not a JSON object " + expected)
        XCTAssertEqual(message(parse(200, "[1,2]")), "the token endpoint answered HTTP 200 with a body that is not a JSON object " + expected)
        XCTAssertEqual(message(parse(200, #"{"token_type":"bearer"}"#)), #"the token endpoint's answer has no "access_token" "# + expected)
        XCTAssertEqual(message(parse(200, #"{"error":"unauthorized_client"}"#)), #"the token endpoint's answer has no "access_token": unauthorized_client "# + expected)
        XCTAssertEqual(message(parse(200, #"{"access_token":"  "}"#)), #"the token endpoint's answer has no "access_token" "# + expected)
        XCTAssertEqual(message(parse(200, #"{"access_token":"AT-mac-token","token_type":"mac"}"#)),
                       #"the token endpoint issued a token of type "mac"; only Bearer tokens (RFC 6750) are supported"#)
        XCTAssertTrue(message(parse(200, #"{"access_token":"AT-neg-token","expires_in":-5}"#)).hasPrefix(#"the token endpoint's "expires_in" is -5.0"#))
    }

    func testTheTokenRequestAuthenticatesTheClientWithBasicAndFormEncodes() {
        let c = OAuth2ClientCredentials(tokenURL: "https://auth.example/token", clientID: "my app", clientSecret: "s3:cr/et", scope: "read write")
        let r = c.tokenRequest()
        XCTAssertEqual(r.method, "POST")
        XCTAssertTrue(r.carriesCredentials)
        XCTAssertEqual(String(decoding: r.body ?? [], as: UTF8.self), "grant_type=client_credentials&scope=read+write")
        // RFC 6749 2.3.1: id and secret form-encoded, then Basic.
        XCTAssertEqual(r.headers.first { $0.name == "Authorization" }?.value, "Basic " + Data("my+app:s3%3Acr%2Fet".utf8).base64EncodedString())
        XCTAssertEqual(r.headers.first { $0.name == "Content-Type" }?.value, "application/x-www-form-urlencoded")
        let noScope = OAuth2ClientCredentials(tokenURL: "https://auth.example/token", clientID: "id", clientSecret: "secret").tokenRequest()
        XCTAssertEqual(String(decoding: noScope.body ?? [], as: UTF8.self), "grant_type=client_credentials")
    }

    func testTheCacheReusesAFreshTokenAndFetchesAnExpiredOneAgain() async throws {
        let clock = Locked(1000.0)
        let cache = OAuth2TokenCache(clock: { clock.withLock { $0 } })
        let c = OAuth2ClientCredentials(tokenURL: "http://t/token", clientID: "id", clientSecret: "secret")
        let n = Locked(0)
        let fetch: @Sendable () async -> Result<OAuth2Token, HTTPError> = {
            let i = n.withLock { $0 += 1; return $0 }
            return .success(OAuth2Token(accessToken: "tok-\(i)", expiresIn: 100, receivedAt: clock.withLock { $0 }))
        }
        let first = try await cache.token(for: c, fetch: fetch)
        XCTAssertEqual(first.accessToken, "tok-1")
        clock.withLock { $0 = 1089.9 }
        let again = try await cache.token(for: c, fetch: fetch)
        XCTAssertEqual(again.accessToken, "tok-1", "still fresh (100 s less a 10 s margin)")
        clock.withLock { $0 = 1090 }
        let renewed = try await cache.token(for: c, fetch: fetch)
        XCTAssertEqual(renewed.accessToken, "tok-2", "expired at expires_in less the margin")
        var other = c
        other.scope = "admin"
        let scoped = try await cache.token(for: other, fetch: fetch)
        XCTAssertEqual(scoped.accessToken, "tok-3", "another scope is another token")
        XCTAssertEqual(cache.fetchCount, 3)
    }

    func testConcurrentCallersShareOneFetchAndAStale401TokenIsDroppedOnce() async throws {
        let cache = OAuth2TokenCache(clock: { 0 })
        let c = OAuth2ClientCredentials(tokenURL: "http://t/token", clientID: "id", clientSecret: "secret")
        let n = Locked(0)
        let fetch: @Sendable () async -> Result<OAuth2Token, HTTPError> = {
            let i = n.withLock { $0 += 1; return $0 }
            try? await Task.sleep(nanoseconds: 100_000_000)
            return .success(OAuth2Token(accessToken: "tok-\(i)", receivedAt: 0))
        }
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await cache.token(for: c, fetch: fetch).accessToken } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(tokens), ["tok-1"])
        XCTAssertEqual(n.withLock { $0 }, 1, "50 callers at once: one fetch")
        // 50 requests answered 401 with tok-1: the first invalidation drops it, the rest find tok-2.
        cache.invalidate(c, stale: "tok-1")
        let renewed = try await cache.token(for: c, fetch: fetch)
        XCTAssertEqual(renewed.accessToken, "tok-2")
        cache.invalidate(c, stale: "tok-1")
        let kept = try await cache.token(for: c, fetch: fetch)
        XCTAssertEqual(kept.accessToken, "tok-2", "a stale token no longer cached changes nothing")
        XCTAssertEqual(n.withLock { $0 }, 2)
    }

    func testAFailedFetchIsSharedByItsWaitersButNotCached() async throws {
        let cache = OAuth2TokenCache(clock: { 0 })
        let c = OAuth2ClientCredentials(tokenURL: "http://t/token", clientID: "id", clientSecret: "secret")
        let n = Locked(0)
        let fetch: @Sendable () async -> Result<OAuth2Token, HTTPError> = {
            let i = n.withLock { $0 += 1; return $0 }
            try? await Task.sleep(nanoseconds: 50_000_000)
            if i == 1 { return .failure(HTTPError(kind: .other, method: "POST", url: "http://t/token", message: "OAuth2 token request failed: down")) }
            return .success(OAuth2Token(accessToken: "tok-\(i)", receivedAt: 0))
        }
        let outcomes = await withTaskGroup(of: String.self) { group in
            for _ in 0..<5 { group.addTask { do { return try await cache.token(for: c, fetch: fetch).accessToken } catch { return "\(error)" } } }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(outcomes), ["POST http://t/token: OAuth2 token request failed: down"])
        let next = try await cache.token(for: c, fetch: fetch)
        XCTAssertEqual(next.accessToken, "tok-2", "the failure was not kept")
    }
}
