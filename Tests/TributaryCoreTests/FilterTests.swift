import XCTest
@testable import TributaryCore
import TributaryTestSupport
#if canImport(Glibc)
import Glibc
#endif

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

    func testMatchResultMapping() {
        let p = try! RegexPattern.compile("x").get()
        XCTAssertEqual(p.outcome(1), .match)
        XCTAssertEqual(p.outcome(0), .noMatch, "PCRE2_ERROR_NOMATCH, mapped by the shim")
        XCTAssertEqual(p.outcome(-47), .error("match limit exceeded"), "PCRE2_ERROR_MATCHLIMIT is not a miss")
        for rc: Int32 in [-46, -48, -53, -63, -51, -2] {
            guard case .error(let e) = p.outcome(rc) else { XCTFail("\(rc) must be an error"); continue }
            XCTAssertFalse(e.isEmpty, "\(rc)")
        }
        XCTAssertEqual(p.match(""), .noMatch, "an empty text")
        XCTAssertEqual(try! RegexPattern.compile("^$").get().match(""), .match)
    }

    func testCatastrophicBacktrackingIsAnErrorWithinTheLimits() {
        let p = try! RegexPattern.compile("^(a+)+$").get()
        let text = String(repeating: "a", count: 40) + "!"
        XCTAssertEqual(p.match(text), .error("match limit exceeded"), "not a miss")
        let cpu = ThreadCPU.seconds
        let before = cpu()
        for _ in 0..<20 { _ = p.match(text) }
        let perMatch = (cpu() - before) / 20
        // PCRE2's default limit (10,000,000) cost about 35 ms; 1,000,000 costs about a tenth.
        XCTAssertLessThan(perMatch, 0.02, "CPU seconds per match of a pathological pattern")
        // The limits leave room for what real rules do on long texts.
        let long = String(repeating: "the release of a new version was announced today, ", count: 4000)  // 200 KB
        XCTAssertEqual(try! RegexPattern.compile("(?s)(foo|the).*(baz|qux)").get().match(long), .noMatch, "a greedy scan per start")
        XCTAssertEqual(try! RegexPattern.compile("(?i)release.*announced").get().match(long), .match)
        // A repeated group with captures outgrows the JIT's default stack: a larger one, not an error.
        let abc = String(repeating: "ab ", count: 2000)
        XCTAssertEqual(try! RegexPattern.compile("^(?:(a)|(b)|( ))*\\d").get().match(abc), .noMatch)
        XCTAssertEqual(try! RegexPattern.compile("^(?:(a)|(b)|( ))*$").get().match(abc), .match)
    }

    func testARuleThatCannotTellFailsSafe() {
        let bad = FilterRule(field: .title, test: regex("^(a+)+$"), path: "sources[0] (\"a\").filter.include[0]")
        let pathological = item(title: String(repeating: "a", count: 40) + "!")
        XCTAssertEqual(bad.evaluate(pathological), .error("match limit exceeded"))
        var errors: [FilterRuleError] = []
        XCTAssertFalse(ItemFilter(include: [bad]).passes(pathological, now: now) { errors.append($0) }, "an include rule that errors does not include")
        XCTAssertEqual(errors.map(\.rule.path), ["sources[0] (\"a\").filter.include[0]"])
        XCTAssertEqual(errors.map(\.excludes), [false])
        XCTAssertEqual(errors.map(\.message), ["match limit exceeded"])
        errors = []
        XCTAssertTrue(ItemFilter(include: [bad, rule("tags", .equals("swift"))]).passes(pathological, now: now) { errors.append($0) },
                      "another include rule that matches still includes")
        XCTAssertEqual(errors.count, 1)
        errors = []
        XCTAssertFalse(ItemFilter(exclude: [bad]).passes(pathological, now: now) { errors.append($0) }, "an exclude rule that errors excludes")
        XCTAssertEqual(errors.map(\.excludes), [true])
        errors = []
        XCTAssertTrue(ItemFilter(include: [bad]).passes(item(title: "aaa"), now: now) { errors.append($0) }, "the same rule where it can tell")
        XCTAssertFalse(ItemFilter(exclude: [bad]).passes(item(title: "aaa"), now: now) { errors.append($0) })
        XCTAssertTrue(ItemFilter(exclude: [bad]).passes(item(title: "b"), now: now) { errors.append($0) })
        XCTAssertTrue(errors.isEmpty)
        // Several values: a match wins over an error, an error over a miss.
        let tagRule = FilterRule(field: .tags, test: regex("^(?:(a+)+$|swift$)"))
        XCTAssertEqual(tagRule.evaluate(item(tags: [String(repeating: "a", count: 40) + "!", "swift"])), .match)
        XCTAssertEqual(tagRule.evaluate(item(tags: [String(repeating: "a", count: 40) + "!", "rust"])), .error("match limit exceeded"))
        XCTAssertEqual(tagRule.evaluate(item(tags: ["rust"])), .noMatch)
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

extension FilterRule {
    /// For these tests: true on a match, false on none; an error fails the test.
    func matches(_ item: Item, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let r = evaluate(item)
        if case .error(let e) = r { XCTFail("unexpected error: \(e)", file: file, line: line) }
        return r == .match
    }
}
