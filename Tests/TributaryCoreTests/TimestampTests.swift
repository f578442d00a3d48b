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

/// The range and the hostile inputs a probe of the release binary crashed on.
final class TimestampRangeTests: XCTestCase {
    func testRangeIsYearsZeroToNineThousandNineHundredNinetyNine() {
        XCTAssertEqual(Timestamp(seconds: Timestamp.earliest).rfc3339, "0000-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: Timestamp.latest).rfc3339, "9999-12-31T23:59:59Z")
        XCTAssertEqual(Timestamp.parseRFC3339("0000-01-01T00:00:00Z")?.seconds, Timestamp.earliest)
        XCTAssertEqual(Timestamp.parseRFC3339("9999-12-31T23:59:59Z")?.seconds, Timestamp.latest)
        XCTAssertNotNil(Timestamp(checked: Timestamp.latest))
        XCTAssertNil(Timestamp(checked: Timestamp.latest + 1))
        XCTAssertNil(Timestamp(checked: Timestamp.earliest - 1))
        for bad in [Double.nan, .infinity, -.infinity, 1e20, -1e20, 1e300, 1e17] { XCTAssertNil(Timestamp(checked: bad), "\(bad)") }
    }

    /// Formatting clamps: no trap and never an invalid RFC 3339 date, whatever the value.
    func testFormattingNeverTrapsAndStaysValid() {
        for v in [Double.nan, .infinity, -.infinity, 1e20, -1e20, 1e300, 1e17, -62_167_219_201, 253_402_300_800, Double.greatestFiniteMagnitude] {
            let t = Timestamp(seconds: v)
            XCTAssertNotNil(Timestamp.parseRFC3339(t.rfc3339), "\(v) -> \(t.rfc3339)")
            XCTAssertNotNil(Timestamp.parseRFC822(t.rfc822), "\(v) -> \(t.rfc822)")
        }
        XCTAssertEqual(Timestamp(seconds: 1e20).rfc3339, "9999-12-31T23:59:59Z")
        XCTAssertEqual(Timestamp(seconds: -1e20).rfc3339, "0000-01-01T00:00:00Z")
        XCTAssertEqual(Timestamp(seconds: -1).rfc3339, "1969-12-31T23:59:59Z")
        XCTAssertEqual(Timestamp(seconds: -86400 * 365).rfc822, "Wed, 01 Jan 1969 00:00:00 GMT")
    }

    func testEveryDayRoundTripsAcrossCenturies() {
        // civilFromDays is the inverse of daysFromCivil on every day of these years.
        for year in [0, 1, 4, 99, 100, 400, 1582, 1899, 1900, 1969, 1970, 1999, 2000, 2024, 2100, 2400, 9999] {
            for month in 1...12 {
                for day in 1...Timestamp.daysIn(month: month, year: year) {
                    let days = Timestamp.daysFromCivil(year, month, day)
                    let back = Timestamp.civilFromDays(days)
                    XCTAssertTrue(back == (year, month, day), "\(year)-\(month)-\(day) -> \(back)")
                }
            }
        }
    }

    func testUnixSecondsThatDoNotFitAreNotDates() {
        XCTAssertNil(Timestamp.parseAny("99999999999999999999999"))
        XCTAssertNil(Timestamp.parseAny("100000000000000000"))  // 1e17 s
        XCTAssertEqual(Timestamp.parseAny("253402300799")?.rfc3339, "9999-12-31T23:59:59Z")
        XCTAssertNil(Timestamp.parseAny("253402300800"))
    }

    func testRFC822YearsThatDoNotFitAreNotDates() {
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Nov 300000000000 10:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Nov 99999999999999999999999 10:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("Sun, 99999999999999999999 Nov 2026 10:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Nov 2026 99999999999999999999:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Nov 12026 10:00:00 GMT"))
    }

    func testDaysThatDoNotExistAreRejected() {
        XCTAssertNil(Timestamp.parseRFC822("Tue, 31 Feb 2026 10:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("29 Feb 2026 10:00:00 GMT"))
        XCTAssertNotNil(Timestamp.parseRFC822("29 Feb 2024 10:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("31 Apr 2026 10:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC3339("2026-02-30T10:00:00Z"))
        XCTAssertNil(Timestamp.parseRFC3339("1900-02-29T10:00:00Z"))
        XCTAssertNotNil(Timestamp.parseRFC3339("2000-02-29T10:00:00Z"))
        XCTAssertNil(Timestamp.parseRFC3339("2026-11-29T10:00:00+24:00"))
    }

    func testZoneNamesFeedsUse() {
        let base = 1_795_946_400.0  // 2026-11-29T10:00:00Z
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 11:00:00 CET")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 12:00:00 CEST")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 11:00:00 BST")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 13:00:00 MSK")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 19:00:00 JST")?.seconds, base)
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 20:30:00 ACDT")?.seconds, base, "+10:30")
        XCTAssertEqual(Timestamp.parseRFC822("Sun, 29 Nov 2026 07:30:00 NDT")?.seconds, base, "-02:30")
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Nov 2026 15:30:00 IST"), "ambiguous: India, Ireland or Israel")
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Nov 2026 10:00:00 +02x0"))
    }

    func testManyFractionDigitsStayInTheirSecond() {
        XCTAssertEqual(Timestamp.parseRFC3339("2026-11-29T10:00:00." + String(repeating: "9", count: 40) + "Z")?.rfc3339, "2026-11-29T10:00:00Z")
    }
}
