import XCTest
@testable import TributaryCore

final class TimestampTests: XCTestCase {
    func testRFC3339Forms() {
        let base = 1_795_946_400.0  // 2026-11-29T10:00:00Z
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29T10:00:00Z")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29T12:00:00+02:00")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29T07:30:00-02:30")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29T10:00:00.250Z")?.seconds, base + 0.25)
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29t10:00:00z")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29 10:00:00Z")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29T10:00:00")?.seconds, base, "no offset is taken as UTC")
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29")?.seconds, base - 36000)
        XCTAssertEqual(Timestamp.parseRFC3339("1970-01-01T00:00:00Z")?.seconds, 0)
        XCTAssertEqual(Timestamp.parseRFC3339("2000-02-29T00:00:00Z")?.rfc3339, "2000-02-29T00:00:00Z")
        for bad in ["", "2026-13-01T00:00:00Z", "2026-11-29T25:00:00Z", "2026/11/29", "yesterday", "2026-11-29T10:00:00Zjunk", "2026-11-29T10:00:00.Z"] {
            XCTAssertNil(Timestamp.parseRFC3339(bad), bad)
        }
    }

    func testRFC822Forms() {
        let base = 1_795_946_400.0
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 10:00:00 GMT")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 12:00:00 +0200")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("29 Nov 2026 05:00:00 EST")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 26 10:00 UT")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 November 2026 10:00:00 Z")?.seconds, base)
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Foo 2026 10:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("not a date"))
    }

    func testUnixAndAny() {
        XCTAssertEqual(Timestamp.parseAny("1456536694")?.seconds, 1_456_536_694)
        XCTAssertEqual(Timestamp.parseAny("1456536694000")?.seconds, 1_456_536_694)
        XCTAssertEqual(Timestamp.parseAny("Sat, 27 Feb 2016 01:31:34 GMT")?.seconds, 1_456_536_694)
        XCTAssertEqual(Timestamp.parseAny("2016-02-27T01:31:34Z")?.seconds, 1_456_536_694)
    }

    func testFormatting() {
        let t = Timestamp(seconds: 1_456_536_694.9)
        XCTAssertEqual(t.rfc3339, "2016-02-27T01:31:34Z")
        XCTAssertEqual(t.rfc822, "Sat, 27 Feb 2016 01:31:34 GMT")
        XCTAssertEqual(Timestamp(seconds: 0).rfc3339, "1970-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: 4_102_444_800).rfc3339, "2100-01-01T00:00:00Z")
    }
}
