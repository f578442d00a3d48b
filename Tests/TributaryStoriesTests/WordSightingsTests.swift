import XCTest
@testable import TributaryStories

/// What the matcher learns of words from the titles it reads, and putting it back.
final class WordSightingsTests: XCTestCase {
    static func tokens(_ s: TitleSignature) -> [UInt32] { (0..<s.count).map { s.tokens[$0] } }

    /// `save` and `restore` leave the sightings exactly as they were: what was learned in
    /// between is gone, what was learned before stays.
    func testRestoreForgetsWhatWasLearnedSinceSave() {
        let sightings = WordSightings()
        let before = TitleAnalyzer.signature("Council approves the harbour bridge plan after a long debate")
        sightings.learn(before)
        let known = Self.tokens(before).filter { sightings.seenAsCommon($0) || sightings.seenAsName($0) }
        XCTAssertFalse(known.isEmpty)
        let saved = sightings.save()
        let later = TitleAnalyzer.signature("Ministers reject Ferguson budget amid protests in the capital")
        sightings.learn(later)
        let learned = Self.tokens(later).filter { t in (sightings.seenAsCommon(t) || sightings.seenAsName(t)) && !known.contains(t) }
        XCTAssertFalse(learned.isEmpty, "the later title taught something")
        sightings.restore(saved)
        XCTAssertEqual(learned.filter { sightings.seenAsCommon($0) || sightings.seenAsName($0) }, [], "forgotten")
        XCTAssertTrue(known.allSatisfy { sightings.seenAsCommon($0) || sightings.seenAsName($0) }, "kept")
    }
}
