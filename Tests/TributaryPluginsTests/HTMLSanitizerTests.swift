import Foundation
import XCTest
@testable import TributaryPluginKit
import TributaryTestSupport

/// The sanitizer's two outputs: the plain text's paragraphs, and HTML holding only the
/// allow-list whatever the page does, checked by our own strict scan and by html5lib (an
/// independent HTML5 parser, from the test venv).
final class HTMLSanitizerTests: XCTestCase {
    func render(_ html: String, url: String = "https://blog.example.org/posts/1") throws -> HTMLSanitizer.Output {
        let doc = try HTMLDocument.parse(Array(html.utf8), url: url).get()
        return HTMLSanitizer.render(doc, blocks: doc.root == HTMLDocument.none ? [] : [doc.root])
    }

    func testTextHasParagraphsSeparatedByOneBlankLine() throws {
        let out = try render("""
        <div><h1>Title</h1><p>First   paragraph
        with a break.</p><p>Second <em>one</em>, with a <a href="/x">link</a>.</p>
        loose text<br>next line<br><br>new paragraph
        <ul><li>one</li><li>two</li></ul><pre>let x = 1
            y = 2</pre><table><tr><th>a</th><td>b</td></tr></table></div>
        """)
        XCTAssertEqual(out.text, "Title\n\nFirst paragraph with a break.\n\nSecond one, with a link.\n\nloose text\nnext line\n\nnew paragraph\n\none\n\ntwo\n\nlet x = 1\n    y = 2\n\na\n\nb")
        XCTAssertTrue(out.html.hasPrefix("<h2>Title</h2><p>First paragraph with a break.</p><p>Second <em>one</em>, with a <a href=\"https://blog.example.org/x\">link</a>.</p>"), out.html)
        XCTAssertTrue(out.html.contains("<p>loose text<br>next line</p><p>new paragraph</p>"), out.html)
        XCTAssertTrue(out.html.contains("<pre>let x = 1\n    y = 2</pre>"), out.html)
    }

    static let hostile: [String] = [
        "<p>a<script>alert(1)</script><ScRiPt>x</sCrIpT><img src=x.png onerror=alert(1)><a href='jav&#x61;script:alert(1)'>j</a></p>",
        "<svg><script>alert(1)</script><a xlink:href='javascript:alert(1)'>s</a><foreignObject><p>inside</p></foreignObject></svg><math><mi href='javascript:1'>m</mi></math>",
        "<a href=' javascript:alert(1)'>sp</a><a href='java\tscript:x'>t</a><a href='JaVaScRiPt:x'>c</a><a href='data:text/html,<script>x</script>'>d</a><a href='vbscript:x'>v</a>",
        "<div><p><table><tr><td><p>cell<iframe src=http://e.example/></iframe><form><input value=1><button>b</button></form></td></tr></table><object data=x></object><embed src=y>",
        "<p style='x:expression(alert(1))' onclick=alert(1) class=x id=y>text</p><style>p{color:red}</style><noscript><p>ns</p></noscript><template><p>t</p></template>",
        "<base href='javascript:alert(1)//'><a href='rel'>rel</a><img srcset='a.png 1x, b.png 2x'><img data-src='https://e.example/l.png'>",
        "<p>&lt;script&gt;alert(1)&lt;/script&gt; &amp;lt; \"quotes\" 'single' <b>b<i>bi</b>i</i></p><<p>>",
        "<a href=\"https://e.example/?a=1&quot;onmouseover=&quot;alert(1)\">q</a><img src=\"https://e.example/x.png\" alt='\" onerror=\"alert(1)'>",
        "<IMG SRC=\"jav&#x09;ascript:alert('XSS');\"><IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>",
        "<details open ontoggle=alert(1)><summary>s</summary>d</details><video><source onerror=alert(1)></video><marquee onstart=alert(1)>m</marquee>",
        "<!--<p>--><p title='--><script>alert(1)</script>'>t</p><![CDATA[<script>x</script>]]><?php echo 1 ?>",
        "<h1 onclick=x>H</h1><blockquote cite='javascript:x'>q</blockquote><figure><img src='/f.png' alt='fig'><figcaption>cap</figcaption></figure>",
    ]

    func testHostileMarkupLeavesOnlyTheAllowList() throws {
        var all: [String] = []
        for input in Self.hostile {
            let out = try render("<html><body>" + input + "</body></html>")
            XCTAssertNil(SanitizedHTMLCheck.problem(out.html), "\(input) -> \(out.html)")
            let lower = out.html.lowercased()
            for bad in ["<script", "<style", "<iframe", "<object", "<embed", "<form", "<input", "<svg", "<math", "javascript:", "data:", "vbscript:"] {
                XCTAssertFalse(lower.contains(bad), "\(bad) in \(out.html) from \(input)")
            }
            all.append(out.html)
        }
        // html5lib reads every output and finds only the allow-list.
        let script = """
        import sys, json, html5lib
        allowed = {"p","br","h2","h3","h4","h5","h6","ul","ol","li","blockquote","pre","code","em","strong","a","img","figure","figcaption","table","caption","thead","tbody","tfoot","tr","th","td"}
        bad = []
        for i, frag in enumerate(json.load(sys.stdin)):
            doc = html5lib.parseFragment(frag, namespaceHTMLElements=False)
            for el in doc.iter():
                if not isinstance(el.tag, str) or el.tag == "DOCUMENT_FRAGMENT": continue
                if el.tag not in allowed: bad.append("%d: element %s" % (i, el.tag))
                for k, v in el.attrib.items():
                    ok = (el.tag == "a" and k == "href") or (el.tag == "img" and k in ("src", "alt"))
                    if not ok: bad.append("%d: attribute %s on %s" % (i, k, el.tag))
                    if k in ("href", "src") and not v.lower().startswith(("http://", "https://")): bad.append("%d: url %s" % (i, v))
        print("\\n".join(bad))
        """
        let json = "[" + all.map { "\"" + $0.unicodeScalars.map { c -> String in
            switch c {
            case "\"": return "\\\""
            case "\\": return "\\\\"
            case "\n": return "\\n"
            case "\t": return "\\t"
            default: return c.value < 0x20 ? String(format: "\\u%04x", c.value) : String(c)
            }
        }.joined() + "\"" }.joined(separator: ",") + "]"
        let r = try Shell.run([FeedReader.python, "-c", script], stdin: json, timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "", "html5lib found: \(r.stdout)")
    }

    func testURLsAreAbsoluteAndLazyImagesFound() throws {
        let out = try render("<p><a href='../up'>up</a> <img src='/i.png' alt='i'> <img data-src='lazy.png'> <img srcset='s.png 1x, t.png 2x'></p>")
        XCTAssertEqual(out.html, "<p><a href=\"https://blog.example.org/up\">up</a> <img src=\"https://blog.example.org/i.png\" alt=\"i\"><img src=\"https://blog.example.org/posts/lazy.png\"><img src=\"https://blog.example.org/posts/s.png\"></p>")
        XCTAssertEqual(out.text, "up")
    }
}
