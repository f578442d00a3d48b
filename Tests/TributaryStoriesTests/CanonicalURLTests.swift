import XCTest
@testable import TributaryStories

/// What makes two links one page (Docs/stories.md#what-matches), rule by rule.
final class CanonicalURLTests: XCTestCase {
    func canonical(_ url: String) -> String? { URLCanonicalizer.canonicalize(url)?.string }

    func assertSame(_ urls: [String], file: StaticString = #filePath, line: UInt = #line) {
        let forms = Set(urls.map { canonical($0) ?? "nil" })
        XCTAssertEqual(forms.count, 1, "\(urls) -> \(forms)", file: file, line: line)
    }

    func assertDifferent(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertNotEqual(canonical(a), canonical(b), "\(a) and \(b) are different pages", file: file, line: line)
    }

    func testSchemeHostPortAndPathForms() {
        XCTAssertEqual(canonical("https://www.example.com/news/story-123/"), "example.com/news/story-123")
        assertSame([
            "https://www.example.com/news/story-123",
            "http://example.com/news/story-123",
            "HTTPS://WWW.EXAMPLE.COM:443/news/story-123/",
            "http://example.com:80/news//story-123/",
            "https://m.example.com/news/./story-123",
            "https://mobile.example.com/news/x/../story-123",
            "https://amp.example.com/news/story-123",
            "https://www2.example.com/news/story-123/index.html",
            "http:/example.com/news/story-123",
            "//www.example.com/news/story-123",
            "https://user:secret@example.com./news/story-123",
        ])
        XCTAssertEqual(canonical("https://example.com:8080/a"), "example.com:8080/a", "a port that is not the default stays")
        XCTAssertEqual(canonical("https://m.co/a"), "m.co/a", "m. stays when nothing but a top-level domain would be left")
        XCTAssertEqual(canonical("https://example.com/A/B"), "example.com/A/B", "paths keep their case")
        assertDifferent("https://example.com/a", "https://example.org/a")
        assertDifferent("https://news.example.com/a", "https://sport.example.com/a")
    }

    func testAMPForms() {
        assertSame([
            "https://example.com/politics/story-1",
            "https://example.com/politics/story-1/amp",
            "https://example.com/politics/story-1/amp/",
            "https://example.com/amp/politics/story-1",
            "https://example.com/politics/story-1.amp",
            "https://example.com/politics/story-1?amp=1",
            "https://example.com/politics/story-1?amp",
            "https://example.com/politics/story-1?outputType=amp",
            "https://example.com/politics/story-1?amp_js_v=0.1&usqp=mq331AQFKAGwASA%3D",
            "https://www.google.com/amp/s/www.example.com/politics/story-1/amp",
            "https://www-example-com.cdn.ampproject.org/c/s/www.example.com/politics/story-1?amp=1",
        ])
        XCTAssertEqual(canonical("https://example.com/a/story.amp.html"), "example.com/a/story.html")
        XCTAssertEqual(canonical("https://www.google.co.uk/amp/example.com/story"), "example.com/story")
        XCTAssertEqual(canonical("https://example.com/a?format=json"), "example.com/a?format=json", "format stays unless it is amp")
    }

    func testTrackingParametersAndTheirOrder() {
        assertSame([
            "https://example.com/a?id=7",
            "https://example.com/a?id=7&utm_source=rss&utm_medium=feed&utm_campaign=x",
            "https://example.com/a?fbclid=IwAR0abc&id=7",
            "https://example.com/a?gclid=1&dclid=2&msclkid=3&yclid=4&twclid=5&id=7",
            "https://example.com/a?id=7&mc_cid=abc&mc_eid=def",
            "https://example.com/a?ref=homepage&ref_src=twsrc&id=7",
            "https://example.com/a?cmpid=rss&ocid=msedgntp&cvid=1&icid=2&id=7",
            "https://example.com/a?igshid=x&_ga=1.2&_gl=3&spm=a.b&smid=tw&id=7",
            "https://example.com/a?ns_mchannel=rss&ns_source=x&xtor=RSS-1&at_medium=feed&id=7",
            "https://example.com/a?_hsenc=x&_hsmi=y&mkt_tok=z&id=7",
            "https://example.com/a?id=7&partner=rss&emc=rss",
            "https://example.com/a?id=7&source=rss_feed",
            "https://example.com/a?UTM_Source=x&id=7",
            "https://example.com/a?id=7#comments",
        ])
        XCTAssertEqual(canonical("https://example.com/a?b=2&a=1&b=1"), "example.com/a?a=1&b=1&b=2", "sorted by name, then value")
        assertSame(["https://example.com/a?b=2&a=1", "https://example.com/a?a=1&b=2"])
        XCTAssertEqual(canonical("https://example.com/a?source=twitter&from=home"), "example.com/a?from=home&source=twitter",
                       "source and from stay unless they say rss, feed or atom")
        for name in URLCanonicalizer.trackingParameters {
            XCTAssertEqual(canonical("https://example.com/a?\(name)=1&p=2"), "example.com/a?p=2", name)
        }
    }

    func testIdsLikeParametersMakePagesDifferent() {
        assertDifferent("https://example.com/article?id=123", "https://example.com/article?id=124")
        assertDifferent("https://example.com/?p=42", "https://example.com/?p=43")
        assertDifferent("https://www.facebook.com/permalink.php?story_fbid=1&id=2", "https://www.facebook.com/permalink.php?story_fbid=3&id=2")
        assertDifferent("https://www.youtube.com/watch?v=abc", "https://www.youtube.com/watch?v=abd")
        assertDifferent("https://example.com/a", "https://example.com/a?page=2")
    }

    func testPercentEncodingHasOneForm() {
        assertSame([
            "https://example.com/caf%C3%A9/%7euser?q=a+b",
            "https://example.com/café/~user?q=a%20b",
            "https://example.com/caf%c3%a9/%7Euser?q=a%20b",
        ])
        XCTAssertEqual(canonical("https://example.com/a%2fb?x=%2f"), "example.com/a%2Fb?x=%2F", "an escaped slash stays escaped, upper case")
        XCTAssertEqual(canonical("https://example.com/a b"), "example.com/a%20b")
    }

    func testRedirectWrappersGiveWayToTheirTarget() {
        let target = "example.com/world/story-9?id=3"
        XCTAssertEqual(canonical("https://news.google.com/news/url?sa=t&fd=R&ct2=us&usg=AOvVaw1&url=https%3A%2F%2Fwww.example.com%2Fworld%2Fstory-9%3Fid%3D3%26utm_source%3Dgn"), target)
        XCTAssertEqual(canonical("https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com%2Fworld%2Fstory-9%3Fid%3D3%26fbclid%3DIwAR1&h=AT0x"), target)
        XCTAssertEqual(canonical("https://www.google.com/url?sa=t&q=https://example.com/world/story-9?id=3"), "example.com/world/story-9?id=3")
        XCTAssertEqual(canonical("https://out.reddit.com/t3_x?url=https%3A%2F%2Fexample.com%2Fworld%2Fstory-9%3Fid%3D3&token=x"), target)
        XCTAssertEqual(canonical("https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fworld%2Fstory-9%3Fid%3D3"), target)
        XCTAssertEqual(canonical("https://example.com/share?target=https%3A%2F%2Fexample.org%2Fx"), "example.org/x")
        XCTAssertEqual(canonical("https://example.com/search?q=weather"), "example.com/search?q=weather", "q that is not a URL stays")
        XCTAssertEqual(canonical("https://example.com/x?url=ftp%3A%2F%2Fexample.org%2Ff"), "example.com/x?url=ftp%3A%2F%2Fexample.org%2Ff")
        // Shorteners and feed proxies need a fetch to resolve: they stay what they are.
        XCTAssertEqual(canonical("https://t.co/AbC123"), "t.co/AbC123")
        XCTAssertEqual(canonical("http://feedproxy.google.com/~r/Example/~3/abc/story"), "feedproxy.google.com/~r/Example/~3/abc/story")
    }

    func testFragments() {
        // BBC's GUIDs: one page with #0 in one feed and #3 in another.
        assertSame(["https://www.bbc.co.uk/news/world-123#0", "https://www.bbc.co.uk/news/world-123#3", "https://www.bbc.co.uk/news/world-123"])
        XCTAssertEqual(canonical("https://example.com/#!/route/a"), "example.com#!/route/a", "a #! route chooses the page")
        assertDifferent("https://example.com/#!/a", "https://example.com/#!/b")
    }

    func testWhatIsNotAWebURL() {
        XCTAssertNil(canonical(""))
        XCTAssertNil(canonical("   "))
        XCTAssertNil(canonical("https://"))
        XCTAssertEqual(canonical("urn:uuid:1234#x"), "urn:uuid:1234")
        XCTAssertEqual(canonical("TAG:example.com,2005:Post/1"), "tag:example.com,2005:Post/1")
        XCTAssertEqual(canonical("example.com/x#y"), "example.com/x", "no scheme: the text without its fragment")
        XCTAssertEqual(URLCanonicalizer.canonicalize("urn:uuid:1")?.hostLength, 0)
        XCTAssertEqual(URLCanonicalizer.canonicalize("https://www.example.com/a")?.host, "example.com")
    }

    func testHashesAreStable() {
        // Stored story ids are these hashes: they must not change between versions.
        XCTAssertEqual(URLCanonicalizer.canonicalize("https://www.example.com/a?utm_source=x")?.hash, 0x47EB_7F78_2E32_FB8A)
        XCTAssertEqual(stableHash("", seed: 0), 0x05F8_0708_ADB6_C5A9)
        XCTAssertEqual(stableHash("story", seed: HashSeed.itemID), 0x8DB4_01B7_5ED1_E8F0)
    }
}
