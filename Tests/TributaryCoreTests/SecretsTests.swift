import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

/// Declared secrets are scrubbed by value from any text; undeclared ones are caught by the
/// shapes that carry them (`token=`, `"api_key": "..."`, `Bearer ...`).
final class SecretsTests: XCTestCase {
    override func setUp() { Secrets.removeAll() }
    override func tearDown() { Secrets.removeAll() }

    func testRegisteredValuesAreScrubbedWhereverTheyAppear() {
        Secrets.register("S3CRET-key/with+plus")
        XCTAssertEqual(Redactor.redactText("the API said: invalid key S3CRET-key/with+plus (check it)"), "the API said: invalid key *** (check it)")
        XCTAssertEqual(Redactor.redactText("GET http://h/v1/S3CRET-key%2Fwith%2Bplus/items"), "GET http://h/v1/***/items", "percent-encoded, in a path")
        XCTAssertEqual(Secrets.scrub(Array(#"{"echo":"S3CRET-key/with+plus"}"#.utf8)), Array(#"{"echo":"***"}"#.utf8))
    }

    /// What `export opml` writes for other programs: no credentials, not even masked.
    func testURLsWithoutCredentials() {
        func strip(_ url: String) -> (String, [String]) { let r = Redactor.withoutCredentials(url); return (r.url, r.removed) }
        XCTAssertEqual(strip("https://ann:hunter2@e.org/f.xml?Token=abc&page=2&API_KEY=x#top").0, "https://e.org/f.xml?page=2#top")
        XCTAssertEqual(strip("https://ann:hunter2@e.org/f.xml?Token=abc&page=2&API_KEY=x#top").1,
                       ["the user and password in the URL", "the query parameter \"Token\"", "the query parameter \"API_KEY\""])
        XCTAssertEqual(strip("https://tok123@e.org/f").0, "https://e.org/f", "a user alone may be the credential (https://TOKEN@host)")
        XCTAssertEqual(strip("https://e.org/f?access%5Ftoken=1").0, "https://e.org/f", "a percent-encoded name is still the name")
        XCTAssertEqual(strip("https://e.org/f?sig=1").1, ["the query parameter \"sig\""])
        XCTAssertEqual(strip("https://e.org/a@b/f?q=swift&keyword=x").0, "https://e.org/a@b/f?q=swift&keyword=x", "an @ in the path is no user")
        XCTAssertEqual(strip("https://e.org/f").1, [])
    }

    func testASecretURLIsScrubbedWholeAndByItsPathButNotByItsHost() {
        Secrets.registerURL("https://hooks.example.com/services/T01/B02/tok3n-abcdef")
        XCTAssertEqual(Secrets.scrub("POST https://hooks.example.com/services/T01/B02/tok3n-abcdef: HTTP 500"), "POST ***: HTTP 500")
        XCTAssertEqual(Secrets.scrub("no route for POST /services/T01/B02/tok3n-abcdef"), "no route for POST ***")
        XCTAssertEqual(Secrets.scrub("https://hooks.example.com/***"), "https://hooks.example.com/***", "the host alone is no secret")
        Secrets.registerURL("https://plain.example.com/")
        Secrets.registerURL("https://plain.example.com")
        XCTAssertEqual(Secrets.scrub("POST https://plain.example.com/***"), "POST https://plain.example.com/***", "nothing after the host: nothing registered")
        Secrets.registerURL("https://q.example.com/?token=abcd1234")
        XCTAssertEqual(Secrets.scrub("GET /?token=abcd1234"), "GET ***")
    }

    func testShortValuesAreNotRegistered() {
        Secrets.register("abc")
        XCTAssertEqual(Redactor.redactText("abc abc"), "abc abc")
    }

    func testALongerSecretContainingAShorterOneIsMaskedWhole() {
        Secrets.register("token")
        Secrets.register("token-and-more")
        XCTAssertEqual(Secrets.scrub("x token-and-more y token"), "x *** y ***")
    }

    func testSecretShapesInFreeText() {
        XCTAssertEqual(Redactor.redactText("stderr: token=abc123 retrying"), "stderr: token=*** retrying")
        XCTAssertEqual(Redactor.redactText("api_key=XYZ&q=1"), "api_key=***&q=1")
        XCTAssertEqual(Redactor.redactText(#"{"error":{"message":"bad","api_key":"XYZ-123"}}"#), #"{"error":{"message":"bad","api_key":"***"}}"#)
        XCTAssertEqual(Redactor.redactText(#"{"token": "a\"b"}"#), #"{"token": "***"}"#)
        XCTAssertEqual(Redactor.redactText("Authorization: Bearer eyJhbGciOi.payload"), "Authorization: Bearer ***")
        XCTAssertEqual(Redactor.redactText("basic dXNlcjpwYXNz"), "basic ***")
        XCTAssertEqual(Redactor.redactText("key=***"), "key=***", "already masked stays as it is")
    }

    func testProseIsLeftAlone() {
        for text in [
            "sources[0].fields.key: expected a key path",
            "items[3].key: expected string, found number",
            #"unknown key "citys" (did you mean "cities"?)"#,
            "the token is missing",
            "monkey=1 passkey=2 keyboard=3",
            "Bearer",
        ] {
            XCTAssertEqual(Redactor.redactText(text), text)
        }
    }
}

final class SecretsInURLTextTests: XCTestCase {
    func testPunctuationAfterAURLOrAValueIsKept() {
        XCTAssertEqual(Redactor.redactText("GET http://h/p?sign=ABC: API error"), "GET http://h/p?sign=***: API error")
        XCTAssertEqual(Redactor.redactText("failed: token=abc: retrying"), "failed: token=***: retrying")
        XCTAssertEqual(Redactor.redactText("see http://h/?key=1, then key=2."), "see http://h/?key=***, then key=***.")
    }
}
