import Foundation
import XCTest
@testable import TributaryCore
@testable import TributaryBase
@testable import TributaryJSON
@testable import TributaryOptions
@testable import TributaryHTTP
@testable import TributaryState
@testable import TributaryPostgres
@testable import TributaryPluginKit

final class TimestampTests: XCTestCase {
    /// The fixed-place read of `YYYY-MM-DDTHH:MM:SSZ` answers what the general parse answers,
    /// for valid times and near misses: each byte replaced by a digit, a separator and a letter,
    /// and dates and times at and past their ranges (February 29th, the 31st, second 60, hour 24).
    func testTheFixedPlaceReadAgreesWithTheGeneralParse() {
        var texts = ["2026-11-29T10:00:00Z", "2024-02-29T23:59:60Z", "2023-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-12-31T24:00:00Z",
                     "0000-01-01T00:00:00Z", "9999-12-31T23:59:59z", "2026-11-29 10:00:00Z", "2026-11-29t10:00:00Z", "2026-13-01T00:00:00Z",
                     "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-01T00:60:00Z", "2026-01-01T00:00:61Z"]
        let base = Array("2024-02-29T23:59:59Z".utf8)
        for i in base.indices {
            for c in Array("09-:TtZz +.x/".utf8) + [0x00, 0x80, 0xFF] {
                var b = base
                b[i] = c
                texts.append(String(decoding: b, as: UTF8.self))
            }
        }
        var fast = 0
        for t in texts {
            let bytes = Array(t.utf8)
            let answer = bytes.withUnsafeBufferPointer { Timestamp.parseRFC3339(bytes: $0) }
            let general = bytes.withUnsafeBufferPointer { Timestamp.parseRFC3339Fields(bytes: $0) }
            XCTAssertEqual(answer?.seconds, general?.seconds, t.debugDescription)
            if answer != nil && bytes.count == 20 { fast += 1 }
        }
        XCTAssertGreaterThan(fast, 20)
    }

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

    // MARK: exhaustive

    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The C library as the oracle: a civil date exists when timegm/gmtime_r give it back
    /// unchanged (timegm rolls 31 February over into March).
    static func oracle(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> Int? {
        var t = tm()
        t.tm_year = Int32(y - 1900); t.tm_mon = Int32(mo - 1); t.tm_mday = Int32(d)
        t.tm_hour = Int32(h); t.tm_min = Int32(mi); t.tm_sec = Int32(s)
        var secs = timegm(&t)
        var back = tm()
        gmtime_r(&secs, &back)
        guard back.tm_year == Int32(y - 1900), back.tm_mon == Int32(mo - 1), back.tm_mday == Int32(d),
              back.tm_hour == Int32(h), back.tm_min == Int32(mi), back.tm_sec == Int32(s) else { return nil }
        return Int(secs)
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }

    /// The years around the leap-year exceptions (1900 and 2100 are not leap years, 2000 is) and
    /// the years feeds date their items in.
    static let years = Array(1896...1904) + Array(1996...2030) + Array(2096...2104)

    /// Every day 0 to 32 of every month of those years, in both RFC 822 and RFC 3339: read when
    /// the day exists, rejected otherwise.
    func testEveryDayOfEveryMonthIsReadOrRejectedAsTheCalendarSays() {
        var read = 0, rejected = 0
        for y in Self.years {
            for mo in 1...12 {
                for d in 0...32 {
                    let expected = Self.oracle(y, mo, d, 10, 0, 0).map(Double.init)
                    let rfc822 = "\(d) \(Self.monthNames[mo - 1]) \(y) 10:00:00 GMT"
                    let rfc3339 = "\(y)-\(Self.pad(mo, 2))-\(Self.pad(d, 2))T10:00:00Z"
                    if Timestamp.parseRFC822(rfc822)?.seconds != expected { XCTFail("\(rfc822): \(String(describing: Timestamp.parseRFC822(rfc822)))") }
                    if Timestamp.parseRFC3339(rfc3339)?.seconds != expected { XCTFail("\(rfc3339): \(String(describing: Timestamp.parseRFC3339(rfc3339)))") }
                    if expected == nil { rejected += 1 } else { read += 1 }
                }
            }
        }
        XCTAssertEqual(read, Self.years.reduce(0) { n, y in n + (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) ? 366 : 365) })
        XCTAssertGreaterThan(rejected, 0)
    }

    /// Every hour 0 to 25 and minute 0 to 61, with the seconds at the edges: in range read
    /// (second 60, a leap second, as 59), out of range (hour 24 and 25, minute 60, second 61)
    /// rejected, never rolled over.
    func testEveryTimeOfDayIsReadOrRejected() {
        let midnight = 1_795_910_400  // 2026-11-29T00:00:00Z
        for h in 0...25 {
            for mi in 0...61 {
                for s in [0, 1, 30, 58, 59, 60, 61, 99] {
                    let valid = h <= 23 && mi <= 59 && s <= 60
                    let expected = valid ? Double(midnight + h * 3600 + mi * 60 + min(s, 59)) : nil
                    let time = "\(Self.pad(h, 2)):\(Self.pad(mi, 2)):\(Self.pad(s, 2))"
                    if Timestamp.parseRFC822("Sun, 29 Nov 2026 \(time) GMT")?.seconds != expected { XCTFail("RFC 822 \(time)") }
                    if Timestamp.parseRFC3339("2026-11-29T\(time)Z")?.seconds != expected { XCTFail("RFC 3339 \(time)") }
                }
            }
        }
        XCTAssertNil(Timestamp.parseRFC822("Tue, 31 Feb 2026 25:00:00 GMT"))
        XCTAssertNil(Timestamp.parseRFC822("Sun, 29 Nov 2026 25:00 GMT"))
        XCTAssertNil(Timestamp.parseAny("Sun, 29 Nov 2026 24:00:00 GMT"))
    }

    /// Every zone name, checked against offsets written out here from the zones' definitions
    /// (not from the table), upper and lower case, with and without a weekday.
    func testEveryZoneNameHasItsOffset() {
        var expected: [String: Int] = [
            "UT": 0, "UTC": 0, "GMT": 0,
            "EST": -5 * 60, "EDT": -4 * 60, "CST": -6 * 60, "CDT": -5 * 60, "MST": -7 * 60, "MDT": -6 * 60, "PST": -8 * 60, "PDT": -7 * 60,
            "AKST": -9 * 60, "AKDT": -8 * 60, "HST": -10 * 60, "AST": -4 * 60, "ADT": -3 * 60, "NST": -(3 * 60 + 30), "NDT": -(2 * 60 + 30),
            "WET": 0, "WEST": 60, "BST": 60, "CET": 60, "CEST": 2 * 60, "MET": 60, "MEST": 2 * 60, "MEZ": 60, "MESZ": 2 * 60,
            "EET": 2 * 60, "EEST": 3 * 60, "MSK": 3 * 60,
            "JST": 9 * 60, "KST": 9 * 60, "HKT": 8 * 60, "SGT": 8 * 60, "AWST": 8 * 60, "ACST": 9 * 60 + 30, "ACDT": 10 * 60 + 30,
            "AEST": 10 * 60, "AEDT": 11 * 60, "NZST": 12 * 60, "NZDT": 13 * 60,
        ]
        for letter in "ABCDEFGHIKLMNOPQRSTUVWXYZ" { expected[String(letter)] = 0 }  // RFC 2822 4.3: military zones are UTC
        XCTAssertEqual(Set(Timestamp.zoneOffsets.keys), Set(expected.keys), "every name the parser knows is checked here")
        let local = "Sun, 29 Nov 2026 10:00:00"
        let utc = 1_795_946_400.0
        for (zone, minutes) in expected {
            for name in [zone, zone.lowercased()] {
                XCTAssertEqual(Timestamp.parseRFC822("\(local) \(name)")?.seconds, utc - Double(minutes * 60), name)
                XCTAssertEqual(Timestamp.parseRFC822("29 Nov 2026 10:00:00 \(name)")?.seconds, utc - Double(minutes * 60), name)
            }
            let sign = minutes < 0 ? "-" : "+"
            let numeric = sign + Self.pad(abs(minutes) / 60, 2) + Self.pad(abs(minutes) % 60, 2)
            XCTAssertEqual(Timestamp.parseRFC822("\(local) \(numeric)"), Timestamp.parseRFC822("\(local) \(zone)"), "\(zone) is \(numeric)")
        }
        for unknown in ["IST", "J", "XYZ", "CEST2", "GMT+2", "+2", "+020", "+02:00"] {
            XCTAssertNil(Timestamp.parseRFC822("\(local) \(unknown)"), unknown)
        }
        // A comment after the zone, as mail and some feeds write it.
        XCTAssertEqual(Timestamp.parseRFC822("\(local) +0100 (CET)")?.seconds, utc - 3600)
    }
}
