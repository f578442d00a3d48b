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
import TributaryTestSupport

final class DigestTests: XCTestCase {
    func testKnownVectors() {
        XCTAssertEqual(Digest.hex(Digest.sha1(Array("abc".utf8))), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(Digest.hex(Digest.sha1([])), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(Digest.hex(Digest.sha1(Array("abc".utf8)), uppercase: true), "A9993E364706816ABA3E25717850C26C9CD0D89D")
        XCTAssertEqual(Digest.hex(Digest.sha256(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// libcrypto is opened at run time; a missing one is reported with the loader's reason.
    func testLibcryptoLoadsAtRunTimeAndAMissingOneIsNamed() {
        guard case .success(let lib) = CryptoLibrary.open(CryptoLibrary.soname) else { return XCTFail("libcrypto.so.3 must load") }
        XCTAssertNotNil(lib.api.pointee.EVP_Digest)
        let name = "libtributary-no-such-crypto.so.3"
        guard case .failure(let e) = CryptoLibrary.open(name) else { return XCTFail("\(name) cannot load") }
        XCTAssertTrue(e.message.hasPrefix("SHA-1/SHA-256 need libcrypto (\(name)"), e.message)
        XCTAssertTrue(e.message.contains("\(name): cannot open shared object file"), e.message)
    }
}

final class HTMLTextTests: XCTestCase {
    func testEntities() {
        XCTAssertEqual(HTMLText.decodeEntities("Rock &amp; Roll"), "Rock & Roll")
        XCTAssertEqual(HTMLText.decodeEntities("Swift&#39;s &quot;Task&quot; &lt;b&gt;"), "Swift's \"Task\" <b>")
        XCTAssertEqual(HTMLText.decodeEntities("&#x4E2D;&#25991; &euro;10"), "中文 €10")
        XCTAssertEqual(HTMLText.decodeEntities("AT&T & co &unknown; &#0; &#xZZ;"), "AT&T & co &unknown; &#0; &#xZZ;")
        XCTAssertEqual(HTMLText.decodeEntities("no entities"), "no entities")
    }

    func testPlainText() {
        XCTAssertEqual(HTMLText.toPlainText("<p>Hello <b>world</b></p><p>Second&nbsp;para<br/>line</p>"), "Hello world\nSecond para\nline")
        XCTAssertEqual(HTMLText.toPlainText("<script>alert(1)</script>Safe <style>p{}</style>text"), "Safe text")
        XCTAssertEqual(HTMLText.toPlainText("  many   spaces\t\there  "), "many spaces here")
        XCTAssertEqual(HTMLText.toPlainText("a < b and c > d"), "a < b and c > d")
        XCTAssertEqual(HTMLText.toPlainText("<ul><li>one</li><li>two</li></ul>"), "one\ntwo")
    }
}

/// The Foundation-free trimming used by config validation gives Foundation's results.
final class TrimmingTests: XCTestCase {
    func testSetsAreFoundationsOverEveryScalar() {
        let blanks = CharacterSet.whitespaces, whitespace = CharacterSet.whitespacesAndNewlines
        var differ: [String] = []
        for v in UInt32(0)...0x10FFFF {
            guard let s = Unicode.Scalar(v) else { continue }
            if s.isFoundationBlank != blanks.contains(s) { differ.append("blank U+\(String(v, radix: 16))") }
            if s.isFoundationWhitespaceOrNewline != whitespace.contains(s) { differ.append("whitespace U+\(String(v, radix: 16))") }
        }
        XCTAssertEqual(differ, [])
    }

    func testTrimmingMatchesFoundation() {
        let samples = ["", " ", "  a b  ", "\t\nx\r\n", "\u{3000}東京\u{00A0}", "\u{200B}k\u{200B}", " \u{301}a ", "a\u{2028}", "\u{85}b\u{85}", "\u{FEFF}c", "e\u{301} "]
        for s in samples {
            XCTAssertEqual(s.trimmingBlanks, s.trimmingCharacters(in: .whitespaces), s.debugDescription)
            XCTAssertEqual(s.trimmingWhitespaceAndNewlines, s.trimmingCharacters(in: .whitespacesAndNewlines), s.debugDescription)
            let sub = Substring("x" + s + "y").dropFirst().dropLast()
            XCTAssertEqual(sub.trimmingBlanks, sub.trimmingCharacters(in: .whitespaces), s.debugDescription)
        }
        // The fast path (printable ASCII at both ends: the string itself) and the scalar path
        // meet at every ASCII character, at either end and inside.
        for v in UInt8(0)...0x7F {
            let c = String(UnicodeScalar(v))
            // Past 15 bytes a string is stored apart from its value, and its ends are read there.
            let long = String(repeating: "a", count: 20)
            for s in [c, c + "a", "a" + c, "a" + c + "b", c + "\u{301}", "\u{3000}" + c, c + long, long + c, c + long + c] {
                XCTAssertEqual(s.trimmingBlanks, s.trimmingCharacters(in: .whitespaces), s.debugDescription)
                XCTAssertEqual(s.trimmingWhitespaceAndNewlines, s.trimmingCharacters(in: .whitespacesAndNewlines), s.debugDescription)
            }
        }
    }
}

/// The byte-level link checks (`isURLCharacter` against Foundation's set: WebFeedSourceTests).
final class LinksTests: XCTestCase {
    func testHTTPPrefixInAnyCase() {
        for s in ["http://a", "HTTP://a", "HtTpS://a", "https://"] { XCTAssertTrue(Links.isHTTP(s), s) }
        for s in ["", "http:/", "http", "ftp://a", " http://a", "httpx://a", "ħttp://a", "https:/a"] { XCTAssertFalse(Links.isHTTP(s), s) }
        XCTAssertTrue(Links.hasPrefixIgnoringASCIICase("HTTP://x", "http://"))
        XCTAssertFalse(Links.hasPrefixIgnoringASCIICase("http:", "http://"))
        // Past 15 bytes a string's bytes are stored apart from its value, and read there.
        XCTAssertTrue(Links.isHTTP("HTTPS://example.org/a/long/path.png"))
        XCTAssertFalse(Links.isHTTP("htps://example.org/a/long/path.png"))
        XCTAssertFalse(Links.isHTTP(" https://example.org/a/long/path.png"))
    }

    func testAbsoluteLinks() {
        XCTAssertEqual(Links.absolute("  https://e.org/a b \n", base: "https://x/"), "https://e.org/a%20b")
        XCTAssertEqual(Links.absolute("/p?q=1", base: "https://e.org/dir/page"), "https://e.org/p?q=1")
        XCTAssertEqual(Links.absolute("//cdn.e.org/i.png", base: "HTTP://e.org/"), "http://cdn.e.org/i.png")
        XCTAssertEqual(Links.absolute("HTTPS://E.org/новости/1", base: "https://x/"), "HTTPS://E.org/%D0%BD%D0%BE%D0%B2%D0%BE%D1%81%D1%82%D0%B8/1")
        XCTAssertNil(Links.absolute(" \t ", base: "https://x/"))
        XCTAssertNil(Links.absolute("javascript:alert(1)", base: "https://x/"))
        XCTAssertNil(Links.absolute("file:///etc/passwd", base: "https://x/"))
        XCTAssertNil(Links.absolute("https://", base: "https://x/"))
    }

    /// The bytes check that returns a link as it is (`isHTTP(bytes:)` and `isPlainHTTP`,
    /// before any trimming) answers what the general path answers: the trimmed link, resolved,
    /// kept when it is http(s) with a host.
    func testAbsoluteLinksTakeTheGeneralPathsAnswer() {
        let links = ["https://e.org/a", "HTTP://E.ORG/x", "hTtPs://e.org:8080/p?q=1#f", " https://e.org/a", "https://e.org/a ", "https://e.org/a\t",
                     "https://e.org/a\u{A0}", "\u{A0}https://e.org/a", "https:/e.org", "http:e.org", "httpx://e.org", "https//e.org", "http",
                     "", "https://", "http://", "https://e.org", "ftp://e.org/x", "(TTP://e.org", "HTTPS://e.org/%41", "https://e.org/a b",
                     "https://u:p@e.org/", "//e.org/x", "/rel/x?y", "https://e.org/é"]
        for base in ["https://b.org/dir/page", "HTTP://b.org/"] {
            for link in links {
                let trimmed = link.trimmedWhitespaceAndNewlines()
                let general: String? = trimmed.isEmpty ? nil : Links.httpOnly(Links.resolve(trimmed, against: base))
                XCTAssertEqual(Links.absolute(link, base: base), general, "\(link.debugDescription) against \(base)")
            }
        }
        // The reference: either prefix, compared byte by byte in lower case.
        func prefixed(_ s: String) -> Bool {
            Links.hasPrefixIgnoringASCIICase(s, "http://") || Links.hasPrefixIgnoringASCIICase(s, "https://")
        }
        for prefix in ["http://", "HTTP://", "hTtPs://", "https://", "https:/", "http:", "httpx://", "https//", "http", "", "HTTPS:/x", "http:///", "(TTP://"] {
            let s = prefix + "e.org/a/long/path.png"
            XCTAssertEqual(Links.isHTTP(s), prefixed(s), s)
        }
        // Ending where the scheme does (AddressSanitizer checks that nothing past it is read).
        for s in ["https:/", "http:/", "https:", "http://", "https://", "HTTPS:/"] {
            let heap = Array(s.utf8)
            XCTAssertEqual(heap.withUnsafeBufferPointer { Links.isHTTP(bytes: $0) }, prefixed(s), s)
        }
    }

    /// After the host, the fast path takes RFC 3986's unreserved characters, sub-delims, `:@/?`
    /// and one `#` as they are, and nothing else of ASCII (`%` only before two hex digits).
    func testPlainHTTPPathBytesAreRFC3986s() {
        let taken = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?#".utf8)
        for c in UInt8(0)...0x7F {
            let s = "http://e.org/a" + String(Unicode.Scalar(c)) + "b"
            XCTAssertEqual(Links.isPlainHTTP(s), taken.contains(c), "byte \(c)")
        }
        XCTAssertTrue(Links.isPlainHTTP("http://e.org/a%2Fb"))
        XCTAssertFalse(Links.isPlainHTTP("http://e.org/a\u{80}b"))
    }

    /// The byte check that skips Foundation's parser never accepts what Foundation rejects (or
    /// gives no host for), and takes the common links: a differential test over hand-picked
    /// edge cases and generated URLs.
    func testPlainHTTPAgreesWithFoundation() {
        let plain = ["https://i.ytimg.com/vi/abc-_1/hqdefault.jpg", "http://e.org", "http://e.org:8080/a?b=c&d=%2F#frag",
                     "https://e.org/a/b;c=d/@x:y/(1)*+,$!'~", "HTTPS://E.ORG/?q=1/2?3", "http://127.0.0.1:9/x", "http://a..b/"]
        for s in plain {
            XCTAssertTrue(Links.isPlainHTTP(s), s)
            XCTAssertEqual(Links.httpOnly(s), s)
        }
        let other = ["https://u:p@e.org/", "http://[::1]/", "https://e.org/%zz", "https://e.org/%2", "https://e.org/#a#b",
                     "https://e.org/a b", "https:///path", "https://", "https://:80/", "https://e.org:8x/", "https://e_o.org/",
                     "https://e.org/[x]", "https://e.org\\x", "https://é.org/", "https://e.org/\"", "https://e.org/<x>"]
        for s in other { XCTAssertFalse(Links.isPlainHTTP(s), s) }
        // Generated: every URL the fast path accepts, Foundation accepts with a host.
        // Mostly characters a URL may hold, some that it may not; a fixed sequence.
        let good = Array("aZ09-._~!$&'()*+,;=:@/?#%".unicodeScalars), bad = Array("[]\\\"<> ^`{|}é\u{7F}".unicodeScalars)
        var rng = SeededGenerator(seed: 3986)
        func next(_ n: Int) -> Int { rng.below(n) }
        var accepted = 0
        for _ in 0..<5000 {
            var s = (next(2) == 0 ? "https://" : "http://") + (next(2) == 0 ? "e" : "")
            for _ in 0..<next(15) { s.unicodeScalars.append(next(10) == 0 ? bad[next(bad.count)] : good[next(good.count)]) }
            guard Links.isPlainHTTP(s) else { continue }
            accepted += 1
            let u = URL(string: s)
            XCTAssertNotNil(u, s)
            XCTAssertFalse((u?.host ?? "").isEmpty, s)
        }
        XCTAssertGreaterThan(accepted, 300)
    }

    /// A string's bytes as `withUTF8Bytes` lends them: small (stored in the string itself), large,
    /// empty, non-ASCII and a substring's copy, each exactly its UTF-8.
    func testUTF8BytesAreTheStringsOwn() {
        for s in ["", "a", "short", String(repeating: "long text ", count: 20), "Привет, 世界 😀", String("xx-middle-xx".dropFirst(3).dropLast(3))] {
            XCTAssertEqual(s.withUTF8Bytes { Array($0) }, Array(s.utf8), s)
        }
    }

    /// `joined(with:)` is `+`: the same bytes and the same String, at every length around the
    /// fifteen bytes a string holds in itself, with non-ASCII and decomposed text either side.
    func testAJoinedStringIsThePlusOfItsParts() {
        let parts = ["", "a", "bench:", "fifteen-bytes!!", "sixteen-bytes!!!", "é", "e\u{301}", "Привет, 世界 😀",
                     String(repeating: "x", count: 40), String("xx-middle-xx".dropFirst(3).dropLast(3))]
        for head in parts {
            for tail in parts {
                let joined = head.joined(with: tail)
                XCTAssertEqual(Array(joined.utf8), Array((head + tail).utf8), "\(head.debugDescription) + \(tail.debugDescription)")
                XCTAssertEqual(joined, head + tail)
                XCTAssertEqual(joined.count, (head + tail).count)
            }
        }
    }
}
