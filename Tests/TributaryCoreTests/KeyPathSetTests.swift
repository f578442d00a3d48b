import XCTest
@testable import TributaryJSON
import TributaryBase

/// `KeyPathSet.lookup` finds, for every path, what `node[path]` finds: the same value, kind,
/// presence and path (also for absent paths and their error messages), on records with
/// duplicate keys, escaped and non-ASCII keys, shared prefixes, non-object steps and indexes.
final class KeyPathSetTests: XCTestCase {
    func assertSame(_ json: String, _ paths: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let doc = try JSONDocument(json)
        let keyPaths = try paths.map { try KeyPath(parsing: $0) }
        let set = KeyPathSet(keyPaths)
        // The document's root, and each element of an array at "items" when there is one.
        var records = [doc.root()]
        if let items = try? doc.root()[key: "items"].array() { records += items }
        for record in records {
            let found = set.lookup(in: record)
            let direct = set.find(in: record)
            XCTAssertEqual(found.count, keyPaths.count, file: file, line: line)
            // `string` without a node: a string node's value, nil for anything else; the
            // printable ends only where the text as written has them and no escape.
            for (i, p) in keyPaths.enumerated() {
                let expected = record[p]
                let text = expected.kind == .string ? try? expected.string() : nil
                if let s = direct.string(i) {
                    XCTAssertEqual(s, text, "\(p) in \(json)", file: file, line: line)
                } else if record.document != nil, expected.kind == .string, p.components.allSatisfy({ if case .key = $0 { return true } else { return false } }), !p.components.isEmpty {
                    XCTFail("\(p) in \(json): a string the set found is read without a node", file: file, line: line)
                }
                let both = direct.stringWithPlainEnds(i)
                XCTAssertEqual(both?.text, direct.string(i), "\(p) in \(json)", file: file, line: line)
                if both?.plainEnds ?? false {
                    let t = try XCTUnwrap(text, "\(p) in \(json)", file: file, line: line)
                    XCTAssertEqual(t.trimmedWhitespaceAndNewlines(), t, "\(p) in \(json)", file: file, line: line)
                    XCTAssertTrue(t.unicodeScalars.first!.isASCII && t.unicodeScalars.last!.isASCII, "\(p) in \(json)", file: file, line: line)
                }
            }
            for (p, node) in zip(keyPaths, found) {
                let expected = record[p]
                XCTAssertEqual(node.kind, expected.kind, "\(p) in \(json)", file: file, line: line)
                XCTAssertEqual(node.value, expected.value, "\(p) in \(json)", file: file, line: line)
                XCTAssertEqual(node.path, expected.path, "\(p) in \(json)", file: file, line: line)
                XCTAssertEqual(try? node.string(), try? expected.string(), "\(p) in \(json)", file: file, line: line)
            }
        }
    }

    func testTheSameNodesAsOneWalkPerPath() throws {
        let youtube = #"{"items":[{"kind":"v","id":{"videoId":"a1"},"snippet":{"title":"T","description":"D","thumbnails":{"high":{"url":"https://i/x"}},"channelTitle":"C","publishedAt":"2024-01-01T00:00:00Z"}},"#
            + #"{"id":{"videoId":"b2"},"snippet":{"title":null}},{"id":"flat","snippet":[1,2]},7,{"snippet":{"thumbnails":{"high":{}}}}]}"#
        try assertSame(youtube, ["id.videoId", "snippet.title", "snippet.description", "snippet.thumbnails.high.url", "snippet.channelTitle",
                                 "snippet.publishedAt", "kind", "missing", "missing.deeper", "snippet", "", "id", "snippet.title.more"])
        // Duplicates: the last one, at every level, as member() finds it.
        try assertSame(#"{"a":{"b":1,"c":2},"a":{"b":3},"b":4,"b":5}"#, ["a.b", "a.c", "b", "a"])
        // Escaped and non-ASCII keys, precomposed and decomposed (equal as Strings).
        try assertSame(#"{"caf\u00e9":1,"na\"me":2,"t\u0061b":6,"é":{"x":3},"e\u0301":{"y":4},"\ud83d\ude00":5}"#,
                       ["café", "tab", "é.x", "é.y", "e\u{301}.y", "😀", "e\u{301}"])
        // Indexes and bracket keys: answered by the walk.
        try assertSame(#"{"a":[{"b":1}],"a.b":2,"w":[{"d":"x"}]}"#, ["a[0].b", #"["a.b"]"#, "w[0].d", "a", "w[1].d"])
        // A path that is a prefix of another, and the same path twice.
        try assertSame(#"{"s":{"t":{"u":1}}}"#, ["s", "s.t", "s.t.u", "s.t", "s.x"])
        // Not an object where the set expects one; empty object; empty key.
        try assertSame(#"{"s":"text","e":{},"":{"":9}}"#, ["s.t", "e.f", "s"])
        // A level of ASCII keys is searched by bucket (length, first and last byte): keys that
        // share a bucket, the empty key, many keys, and a record's escaped keys (compared with
        // every key of the level), duplicates among them either way round.
        try assertSame(#"{"t\u0061b":1,"abc":2,"axc":3,"abc":4,"":5,"k1":6,"k2":7,"k3":8,"k4":9,"k5":10,"\u00e9":11,"ab":12}"#,
                       ["tab", "abc", "axc", "", "k1", "k3", "k5", "k6", "ab", "a"])
        try assertSame(#"{"o":{"k\u0031":1,"k1":2,"kk":3},"p":{"k1":1,"k\u0031":2},"q":{"\u006b":1}}"#,
                       ["o.k1", "o.kk", "p.k1", "q.k", "o.k2", "q.kk"])
    }

    /// More paths than `Found` holds in itself (16): the rest are found the same way.
    func testMorePathsThanTheFoundValueHolds() throws {
        var members: [String] = []
        for i in 0..<40 { members.append(#""k\#(i)":{"v":"text \#(i)","n":\#(i)}"#) }
        let json = "{" + members.joined(separator: ",") + "}"
        try assertSame(json, (0..<40).flatMap { ["k\($0).v", "k\($0).n"] } + ["k41.v", "k3"])
    }

    /// A text's ends as the tape has them: trimmed (white space, escaped white space, non-ASCII
    /// white space) or not, and strings read without a node whatever their ends.
    func testTextsWithAndWithoutEndsToTrim() throws {
        try assertSame(#"{"a":"plain","b":" lead","c":"trail ","d":"\n esc","e":"esc\t","f":"\u00a0nbsp","g":"nbsp\u00a0","h":"\#u{a0}raw","i":"😀","j":"","k":"x","l":"\"q\"","m":"é","n":" "}"#,
                       ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n"])
    }

    func testAnEmptySetAndAValueTreeNode() throws {
        XCTAssertTrue(KeyPathSet([]).lookup(in: try JSONDocument(#"{"a":1}"#).root()).isEmpty)
        let tree = JSONNode(try JSONParser.parse(#"{"a":{"b":2}}"#))
        let found = KeyPathSet([try KeyPath(parsing: "a.b"), try KeyPath(parsing: "a.c")]).lookup(in: tree)
        XCTAssertEqual(found[0].value, .number(JSONNumber(2)))
        XCTAssertNil(found[1].kind)
    }

    func testSharedSetsAnswerForTheirOwnPathsWhicheverWasMadeLast() throws {
        let a = try ["snippet.title", "snippet.description", "id.videoId"].map { try KeyPath(parsing: $0) }
        let b = try ["title", "snippet.title"].map { try KeyPath(parsing: $0) }
        let doc = try JSONDocument(#"{"title":"T","snippet":{"title":"S","description":"D"},"id":{"videoId":"V"}}"#).root()
        for paths in [a, b, a, a, b] {
            let set = KeyPathSet.shared(paths)
            XCTAssertEqual(set.paths, paths)
            XCTAssertEqual(set.lookup(in: doc).map(\.value), paths.map { doc[$0].value })
        }
    }
}
