import XCTest
import TributaryCore

/// Filter rules on items: every field, every test, include/exclude/max_age together, and the
/// PCRE2 patterns they use.
final class FilterTests: XCTestCase {
    let now = 1_800_000_000.0

    func item(title: String = "Swift concurrency", url: String? = "https://e.org/v/1", tags: [String] = ["swift", "talks"],
              published: Double? = 1_800_000_000 - 3600, data: [(String, JSONValue)] = []) -> Item {
        Item(id: "a:1", source: "a", type: "json", kind: "video", title: title, summary: "About actors", url: url, author: "Ann",
             published: published.map { Timestamp(seconds: $0) }, fetched: Timestamp(seconds: now), tags: tags,
             data: JSONObject(data.map { (key: $0.0, value: $0.1) }))
    }

    func rule(_ field: String, _ test: FilterRule.Test) -> FilterRule {
        FilterRule(field: FilterRule.Field(field)!, test: test)
    }

    func regex(_ p: String) -> FilterRule.Test { .regex(try! RegexPattern.compile(p).get()) }

    func testEveryFieldIsReadFromTheItem() {
        let i = item()
        XCTAssertTrue(rule("id", .equals("a:1")).matches(i))
        XCTAssertTrue(rule("kind", .equals("video")).matches(i))
        XCTAssertTrue(rule("title", .contains("CONCURRENCY")).matches(i))
        XCTAssertTrue(rule("summary", .contains("actor")).matches(i))
        XCTAssertTrue(rule("url", .contains("/v/")).matches(i))
        XCTAssertTrue(rule("author", .equals("Ann")).matches(i))
        XCTAssertTrue(rule("source", .equals("a")).matches(i))
        XCTAssertTrue(rule("tags", .equals("talks")).matches(i), "any tag")
        XCTAssertFalse(rule("tags", .equals("swif")).matches(i))
        XCTAssertFalse(rule("url", .contains("x")).matches(item(url: nil)), "an absent field matches nothing")
        XCTAssertNil(FilterRule.Field("titel"))
        XCTAssertNil(FilterRule.Field("data."))
    }

    func testEqualsIsExactAndContainsIgnoresCase() {
        XCTAssertFalse(rule("title", .equals("swift concurrency")).matches(item()))
        XCTAssertTrue(rule("title", .contains("sWiFt")).matches(item()))
        XCTAssertTrue(rule("title", .contains("ÜBER")).matches(item(title: "Alles über Swift")), "non-ASCII case folding")
    }

    func testDataFieldsByNumberTextAndArray() {
        let i = item(data: [("views", .int(500)), ("rating", .double(4.5)), ("lang", .string("pt")), ("labels", .array([.string("x"), .int(7)])), ("live", .bool(true))])
        XCTAssertTrue(rule("data.views", .range(min: 100, max: nil)).matches(i))
        XCTAssertTrue(rule("data.views", .range(min: 500, max: 500)).matches(i), "inclusive bounds")
        XCTAssertFalse(rule("data.views", .range(min: nil, max: 499)).matches(i))
        XCTAssertTrue(rule("data.rating", .range(min: 4, max: 5)).matches(i))
        XCTAssertFalse(rule("data.lang", .range(min: 0, max: nil)).matches(i), "a string holds no number")
        XCTAssertTrue(rule("data.lang", .equals("pt")).matches(i))
        XCTAssertTrue(rule("data.labels", .range(min: 5, max: 8)).matches(i), "an array matches when any element does")
        XCTAssertTrue(rule("data.labels", .equals("x")).matches(i))
        XCTAssertTrue(rule("data.live", .equals("true")).matches(i))
        XCTAssertTrue(rule("data.views", .equals("500")).matches(i), "a number as written")
        XCTAssertFalse(rule("data.missing", .contains("")).matches(i))
    }

    func testRegexIsPCRE2WithUnicode() {
        XCTAssertTrue(rule("title", regex("(?i)^swift\\b")).matches(item()))
        XCTAssertFalse(rule("title", regex("^swift")).matches(item()), "case-sensitive unless (?i)")
        XCTAssertTrue(rule("title", regex("\\w+ы")).matches(item(title: "новые часы")), "\\w covers Cyrillic")
        XCTAssertTrue(rule("title", regex("(?i)ÉTÉ")).matches(item(title: "un été")))
        XCTAssertTrue(rule("title", regex("\\d{4}")).matches(item(title: "WWDC 2026")))
        XCTAssertTrue(rule("title", regex("^.{3}$")).matches(item(title: "日本語")), "characters, not bytes")
        switch RegexPattern.compile("a(b") {
        case .success: XCTFail("an unclosed group must not compile")
        case .failure(let e): XCTAssertEqual(e.message, "invalid regular expression at offset 3: missing closing parenthesis")
        }
        if case .success = RegexPattern.compile("(?<=a+)b") { XCTFail("a variable-length lookbehind must not compile") }
    }

    func testCatastrophicBacktrackingEndsAsNoMatch() {
        let p = try! RegexPattern.compile("^(a+)+$").get()
        let start = Date()
        XCTAssertFalse(p.matches(String(repeating: "a", count: 40) + "!"))
        XCTAssertLessThan(Date().timeIntervalSince(start), 30, "PCRE2's match limit ends it")
    }

    func testIncludeExcludeAndMaxAge() {
        let f = ItemFilter(include: [rule("title", regex("(?i)swift")), rule("tags", .equals("rust"))],
                           exclude: [rule("url", .contains("/shorts/"))], maxAge: 86400)
        XCTAssertTrue(f.passes(item(), now: now))
        XCTAssertTrue(f.passes(item(title: "Ferris", tags: ["rust"]), now: now), "any include rule")
        XCTAssertFalse(f.passes(item(title: "Ferris"), now: now), "no include rule matches")
        XCTAssertFalse(f.passes(item(url: "https://e.org/shorts/2"), now: now), "excluded")
        XCTAssertFalse(f.passes(item(published: now - 86401), now: now), "too old")
        XCTAssertTrue(f.passes(item(published: now - 86400), now: now), "exactly max_age passes")
        XCTAssertTrue(f.passes(item(published: nil), now: now), "an item without a date passes max_age")
        XCTAssertTrue(ItemFilter(exclude: [rule("title", .contains("rust"))]).passes(item(), now: now), "no include rules: everything not excluded")
        XCTAssertTrue(ItemFilter().isEmpty)
    }
}
