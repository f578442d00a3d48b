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

/// The standard-library replacements for what the binary took from Foundation proper (which it
/// no longer links: Docs/PERFORMANCE.md, "Start-up") give Foundation's results.
final class FoundationParityTests: XCTestCase {
    /// Strings with every kind of byte a URL, a query or a config value can hold.
    private static let samples: [String] = [
        "", "plain", "a b", "100%", "%", "%2", "%zz", "%41%42", "%e2%82%ac", "%E2%82", "%C3%A9t%C3%A9",
        "https://e.org/новости/1?q=ü#f", "e\u{301}", "tab\t\nnl", "🙂", "\u{7F}", "a+b=c&d", "%00x", "%ff",
        "key=%3D%26", "-._~:/?#[]@!$&'()*+,;=",
    ]

    func testPercentDecodedIsRemovingPercentEncoding() {
        for s in Self.samples {
            XCTAssertEqual(s.percentDecoded, s.removingPercentEncoding, s)
            XCTAssertEqual(Substring(s).percentDecoded, s.removingPercentEncoding, s)
        }
    }

    func testPercentEncodedIsAddingPercentEncoding() {
        let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        for s in Self.samples {
            let ours = s.percentEncoded { b in
                (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E
            }
            XCTAssertEqual(ours, s.addingPercentEncoding(withAllowedCharacters: unreserved), s)
        }
    }

    func testFractionalDurationsAreFormattedAsPrintfDid() {
        for tenths in 11...20000 where tenths % 10 != 0 {
            let seconds = Double(tenths) / 10
            XCTAssertEqual(Durations.format(seconds), String(format: "%.1fs", seconds))
        }
        for seconds in [1.25, 1.35, 2.05, 0.999 + 1, 86400.04, 3599.96] {
            XCTAssertEqual(Durations.format(seconds), String(format: "%.1fs", seconds), "\(seconds)")
        }
    }
}

/// The concrete helpers that replace generic standard-library calls on the start-up path
/// (Docs/PERFORMANCE.md, "Start-up") answer as the standard library does (its `firstRange(of:)`,
/// which the binary's `contains` is; this file's `contains` is Foundation's, false for "").
final class StartupHelperTests: XCTestCase {
    private static let texts = ["", "a", "PASSWORD", "MY_PASSWORD_FILE", "passwor", "SECRETS", "x-secret-token", "%Y/%m", "no percent",
                                "ab", "aab", "abab", "🙂SECRET🙂", "é", "aaaaab", "тайна SECRET", "SECRE", "ECRET"]
    private static let needles = ["", "a", "b", "ab", "PASSWORD", "SECRET", "token", "%", "aab", "🙂", "é", "тайна", "aaaab"]

    func testContainsBytesIsContainsForTheseTexts() {
        for t in Self.texts {
            for n in Self.needles {
                XCTAssertEqual(t.containsBytes(n), t.firstRange(of: n) != nil, "\"\(t)\" contains \"\(n)\"")
                XCTAssertEqual(Substring(t).containsBytes(n), t.firstRange(of: n) != nil, "Substring \"\(t)\" contains \"\(n)\"")
            }
        }
    }

    func testContainsBytesMatchesBytesNotCharacters() {
        // A needle followed by a combining mark: a byte match, not a Character one.
        XCTAssertTrue("SECRET\u{301}".containsBytes("SECRET"))
        XCTAssertFalse("SECRE\u{301}T".containsBytes("SECRET"))
    }

    func testByteSearchOnASliceThatDoesNotStartAtZero() {
        let bytes = Array("\u{FEFF}<?xml?><!DOCTYPE x>".utf8)
        let body = bytes.dropFirst(3)
        XCTAssertTrue(ByteSearch.contains(body, Array("<!DOCTYPE".utf8)))
        XCTAssertTrue(ByteSearch.contains(body, Array("<?xml".utf8)), "a match at the slice's first byte")
        XCTAssertFalse(ByteSearch.contains(body, Array("\u{FEFF}".utf8)), "the dropped bytes are not searched")
        XCTAssertFalse(ByteSearch.contains(body.dropLast(), Array("x>".utf8)), "nor the bytes past its end")
        XCTAssertTrue(ByteSearch.contains(body, []))
    }

    func testJoinedWithIsJoinedSeparator() {
        let lists: [[String]] = [[], [""], ["a"], ["a", "b"], ["", ""], ["id", "kind", "data.<name>"], ["é", "🙂", "тайна"], Array(repeating: "x", count: 100)]
        for list in lists {
            for sep in ["", ",", ", ", " · "] {
                XCTAssertEqual(list.joined(with: sep), list.joined(separator: sep), "\(list) with \"\(sep)\"")
            }
        }
    }
}
