import XCTest
@testable import TributaryStories

/// What a title is reduced to (Docs/stories.md#what-matches).
final class TitleAnalyzerTests: XCTestCase {
    func normalized(_ t: String, host: String? = nil) -> String { TitleAnalyzer.analyze(t, host: host).normalized }
    func tokens(_ t: String) -> String { TitleAnalyzer.analyze(t).tokens.map { "\($0.text)/\($0.kind)" }.joined(separator: " ") }

    func testLabelsInFrontAndAtTheEndGo() {
        let plain = "fed raises interest rates"
        for t in ["BREAKING: Fed raises interest rates", "Breaking News: Fed raises interest rates", "UPDATE: Fed raises interest rates",
                  "UPDATED: Fed raises interest rates", "UPDATE 2-Fed raises interest rates", "LIVE: Fed raises interest rates",
                  "Live updates | Fed raises interest rates", "WATCH: Fed raises interest rates", "EXCLUSIVE: Fed raises interest rates",
                  "VIDEO: Fed raises interest rates", "OPINION: Fed raises interest rates", "Opinion | Fed raises interest rates",
                  "JUST IN: Fed raises interest rates", "[VIDEO] Fed raises interest rates", "(UPDATE) Fed raises interest rates",
                  "Fed raises interest rates (video)", "Fed raises interest rates [Updated]", "Fed raises interest rates - live updates",
                  "BREAKING: UPDATE: Fed raises interest rates"] {
            XCTAssertEqual(normalized(t), plain, t)
        }
        XCTAssertEqual(normalized("Watch this space for more rates news"), "watch this space for more rates news", "a label needs its colon or bar")
        XCTAssertEqual(normalized("Live music returns to the park"), "live music returns to the park")
    }

    func testOutletNamesGo() {
        let plain = "senate passes 1.2 trillion infrastructure bill"
        for t in ["Senate passes $1.2 trillion infrastructure bill - Example News", "Senate passes $1.2 trillion infrastructure bill | The Daily Ledger",
                  "Senate passes $1.2 trillion infrastructure bill — Northern Post", "Senate passes $1.2 trillion infrastructure bill – Bay City Times",
                  "Senate passes $1.2 trillion infrastructure bill · GPA", "Senate passes $1.2 trillion infrastructure bill: Reuters",
                  "Senate passes $1.2 trillion infrastructure bill (AP)", "Senate passes $1.2 trillion infrastructure bill | World news | The Guardian"] {
            XCTAssertEqual(normalized(t), plain, t)
        }
        // After a colon only what looks like a name goes.
        XCTAssertEqual(normalized("Senate passes $1.2 trillion bill: what happens next"), "senate passes 1.2 trillion bill what happens next")
        // A segment with a number is not an outlet, unless it is the URL's host.
        XCTAssertEqual(normalized("Lakers beat Celtics in overtime - Game 5"), "lakers beat celtics in overtime game 5")
        XCTAssertEqual(normalized("Storm hits coast overnight - KTLA 5", host: "ktla.com"), "storm hits coast overnight")
        XCTAssertEqual(normalized("Pope calls for ceasefire in address: BBC News", host: "bbc.co.uk"), "pope calls for ceasefire in address")
        // A short title keeps its dash.
        XCTAssertEqual(normalized("Arsenal - Chelsea"), "arsenal chelsea")
    }

    func testCasePunctuationQuotesAndSpaces() {
        let a = TitleAnalyzer.signature("‘Devastating’ storm batters Leeds, officials say")
        let b = TitleAnalyzer.signature("'Devastating'  storm batters LEEDS;\u{00A0}officials say!")
        XCTAssertEqual(a.exactKey, b.exactKey)
        XCTAssertEqual(normalized("U.S. economy grew 2.4% in Q3"), "us economy grew 2.4 percent in q 3")
        XCTAssertEqual(normalized("Dow falls 1,000 points; S&P 500 slips"), "dow falls 1000 points s p 500 slips")
        XCTAssertEqual(normalized("Biden's plan &amp; Harris&#39;s reply"), "biden plan harris reply")
        XCTAssertEqual(normalized("Pokémon Café in Zürich"), "pokemon cafe in zurich")
        XCTAssertEqual(normalized("ＮＡＳＡ launches probe"), "nasa launches probe", "full-width forms")
        XCTAssertEqual(normalized("Москва: новости дня"), "москва новости дня")
    }

    func testNumbersAreValues() {
        XCTAssertEqual(tokens("Third quarter profit"), "3/number quarter/common profit/common")
        XCTAssertEqual(tokens("3rd quarter profit"), "3/number quarter/common profit/common")
        XCTAssertEqual(tokens("Three killed in crash"), "3/number kill/common crash/common")
        XCTAssertEqual(normalized("Rate at 6.20% and 007 agents"), "rate at 6.2 percent and 7 agents")
        XCTAssertEqual(normalized("Knicks beat Celtics 105-96"), "knicks beat celtics 105-96", "a score is one number")
        XCTAssertEqual(normalized("Shares up 4% to $1.2bn at 10:30"), "shares up 4 percent to 1.2 bn at 10:30")
        XCTAssertEqual(normalized("The 1990s and the 21st century"), "the 1990 and the 21 century")
        // Specific numbers (decimals, scores, amounts, 1,000 and more but years) carry bit 2.
        let s = TitleAnalyzer.signature("Jobs up 177,000 in 2026, rate 4.2%, 12 states, $17 wage, score 3-2")
        let specific = s.values.filter { $0 & 3 == 3 && $0 & 4 != 0 }.count
        let plain = s.values.filter { $0 & 3 == 3 && $0 & 4 == 0 }.count
        XCTAssertEqual(specific, 4, "177000, 4.2, 17 ($), 3-2")
        XCTAssertEqual(plain, 2, "2026, 12")
    }

    func testKindsFromCaseWithoutADictionary() {
        // Sentence case: a capitalized word inside is a name; the first word could be either.
        XCTAssertEqual(tokens("Lakers beat Celtics in Boston"), "laker/unknown beat/common celtic/name boston/name")
        // Title case: case says nothing.
        XCTAssertEqual(tokens("Lakers Beat Celtics in Boston"), "laker/unknown beat/unknown celtic/unknown boston/unknown")
        // Acronyms and inner capitals are names anywhere; WHO is not the stop word "who".
        XCTAssertEqual(tokens("Storm warning From NASA for iPhone users"), "storm/unknown warn/common nasa/name iphon/name user/common")
        XCTAssertEqual(tokens("WHO declares end to emergency"), "who/name declar/common end/common emergency/common")
        // All capitals: nothing to read.
        XCTAssertEqual(tokens("FED RAISES RATES AGAIN"), "fed/unknown rais/unknown rat/unknown again/unknown")
        // After a colon or a quote, a word starts a phrase.
        XCTAssertEqual(tokens("Fed decision: Rates held steady"), "fed/unknown decision/common rat/unknown hold/common steady/common")
    }

    func testStemsAndStopWords() {
        let forms = ["Fed raises rates", "Fed raised rates", "Fed raising rates", "Fed raise rates"].map { TitleAnalyzer.signature($0).exactKey }
        XCTAssertEqual(Set(forms).count, 1)
        XCTAssertEqual(TitleAnalyzer.signature("Economy grew in May").exactKey, TitleAnalyzer.signature("Economy grows in May").exactKey, "irregular past")
        XCTAssertEqual(TitleAnalyzer.signature("The cat is on the mat").count, 2)
        XCTAssertEqual(TitleAnalyzer.stem(Array("cutting".utf8)), Array("cut".utf8))
        XCTAssertEqual(TitleAnalyzer.stem(Array("policies".utf8)), Array("policy".utf8))
    }

    func testQuestionsAndExplainers() {
        XCTAssertTrue(TitleAnalyzer.signature("What's in the infrastructure bill the Senate passed").isQuestion)
        XCTAssertTrue(TitleAnalyzer.signature("Who could replace Hollis? The contenders").isQuestion)
        XCTAssertTrue(TitleAnalyzer.signature("Here's what to know about the storm").isQuestion)
        XCTAssertTrue(TitleAnalyzer.signature("Can the Fed cut rates again?").isQuestion)
        XCTAssertFalse(TitleAnalyzer.signature("WHO declares end to mpox emergency").isQuestion)
        XCTAssertFalse(TitleAnalyzer.signature("Senate passes infrastructure bill").isQuestion)
    }

    func testScriptsWithoutSpaces() {
        let a = TitleAnalyzer.analyze("東京で大規模な火災が発生")
        XCTAssertEqual(a.tokens.first?.text, "東京")
        XCTAssertTrue(a.tokens.allSatisfy { $0.kind == .common })
        XCTAssertGreaterThan(a.signature.count, 5)
    }

    func testSignatureEncodingRoundTrips() {
        for t in ["Fed raises rates by 0.25 points to 4.5%", "What's next for Hollis?", "Dow falls 300 points", "Short", ""] {
            let s = TitleAnalyzer.signature(t)
            XCTAssertEqual(TitleSignature(encoded: s.encoded), s, t)
        }
        XCTAssertNil(TitleSignature(encoded: [1, 2, 3]))
        XCTAssertNil(TitleSignature(encoded: [2, 0, 0, 0, 1, 0, 0, 0]), "tokens out of order")
        let long = TitleAnalyzer.signature((1...40).map { "word\(Character(UnicodeScalar(96 + $0 % 26)!))\($0 % 7)x" }.joined(separator: " "))
        XCTAssertEqual(long.count, TitleSignature.capacity)
    }
}
