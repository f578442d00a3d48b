import TributaryBase
import TributaryJSON

/// Writes items as JSON Lines records (`Item.appendJSON`: keys in Docs/contract.md order,
/// optional fields omitted when absent), for a sink that writes many in a row. It reads each
/// item through a pointer, in place: a call on an array's element handed the method a copy,
/// a retain and a release of every field. It writes a line into its own `JSONLineBuffer` and
/// appends the line at once (written to an `[UInt8]` key by key and value by value, a line cost
/// about 12 instructions a byte). And it writes the `fetched` time of the item before once
/// more when it is the same, as it is for a page's items.
///
/// One writer per thread: it keeps the line buffer and the last `fetched` between items.
public final class ItemJSONWriter {
    private var line: JSONLineBuffer
    private var fetched = Timestamp(seconds: .nan)
    private var fetchedText = (UInt64(0), UInt64(0), UInt32(0))
    /// The last `source`, `type` and `kind` written and their JSON text: a source's items
    /// repeat them, and escaping each again cost about 150 instructions a field an item.
    /// Unchecked for exclusive access, as `line` is: one writer per thread. Kept from the
    /// second item on: a writer made for one item (`jsonLine`, `contentHash`) allocates nothing
    /// for them.
    @exclusivity(unchecked) private var source = JSONLineBuffer.RepeatedText()
    @exclusivity(unchecked) private var type = JSONLineBuffer.RepeatedText()
    @exclusivity(unchecked) private var kind = JSONLineBuffer.RepeatedText()
    /// The same for the keys of `data`, by position: a source's items mostly have the same.
    @exclusivity(unchecked) private var dataKeys: [JSONLineBuffer.RepeatedText] = []
    /// Items written so far (counted up to 2: whether the texts above are kept).
    private var written = 0

    /// `capacity`: the line buffer's first size, which doubles as a longer line needs.
    public init(capacity: Int = 2048) {
        line = JSONLineBuffer(capacity: capacity)
    }

    deinit { line.deallocate() }

    /// The record of `item`, without the newline.
    public func append(_ item: UnsafePointer<Item>, into out: inout [UInt8]) {
        write(item, forContentHash: false, into: &out)
    }

    /// What `Item.contentHash` hashes: the record of `item` with `source` and `type` empty,
    /// `fetched` at 1970-01-01T00:00:00Z, and no `story`, `content`, `content_html` or
    /// `data.updated` (what the item says, not who fetched it when, or what a run added). The
    /// bytes are those of the record of a copy of the item with those fields so set, which
    /// states since the first one keep the hashes of: they never change.
    public func appendForContentHash(_ item: UnsafePointer<Item>, into out: inout [UInt8]) {
        write(item, forContentHash: true, into: &out)
    }

    private func write(_ item: UnsafePointer<Item>, forContentHash hashing: Bool, into out: inout [UInt8]) {
        // The buffer is written as a local and stored back at the end: written as a stored
        // property of this class, every write was checked for exclusive access.
        var w = line
        defer { line = w }
        w.removeAll()
        let repeating = written > 0
        if written < 2 { written += 1 }
        w.append(#"{"id":"#)
        w.appendString(item.pointee.id)
        if hashing {
            w.append(#","source":"","type":"""#)
        } else {
            w.append(#","source":"#)
            if repeating { source.append(item.pointee.source, to: &w) } else { w.appendString(item.pointee.source) }
            w.append(#","type":"#)
            if repeating { type.append(item.pointee.type, to: &w) } else { w.appendString(item.pointee.type) }
        }
        w.append(#","kind":"#)
        if repeating { kind.append(item.pointee.kind, to: &w) } else { w.appendString(item.pointee.kind) }
        Self.field(#","title":"#, item.pointee.title, &w)
        // The optional texts are read in place, by their bits: the properties would hand out
        // a copy of each (a retain and a release).
        let present = item.pointee.present
        if present & Item.summaryBit != 0 { Self.field(#","summary":"#, item.pointee.storedSummary, &w) }
        if !hashing, present & Item.contentBit != 0 { Self.field(#","content":"#, item.pointee.storedContent, &w) }
        if !hashing, present & Item.contentHTMLBit != 0 { Self.field(#","content_html":"#, item.pointee.storedContentHTML, &w) }
        if present & Item.urlBit != 0 { Self.field(#","url":"#, item.pointee.storedURL, &w) }
        if present & Item.imageBit != 0 { Self.field(#","image":"#, item.pointee.storedImage, &w) }
        if present & Item.authorBit != 0 { Self.field(#","author":"#, item.pointee.storedAuthor, &w) }
        if let published = item.pointee.published {
            w.append(#","published":""#)
            w.write(upTo: 21) { p in
                published.writeRFC3339(to: p)
                p[20] = UInt8(ascii: "\"")
                return 21
            }
        }
        w.append(#","fetched":""#)
        let f = hashing ? Timestamp(seconds: 0) : item.pointee.fetched
        if f != fetched {
            fetched = f
            withUnsafeMutableBytes(of: &fetchedText) { f.writeRFC3339(to: $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        }
        let text = fetchedText
        withUnsafeBytes(of: text) { w.append($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 20) }
        w.append(UInt8(ascii: "\""))
        if !item.pointee.tags.isEmpty {
            w.append(#","tags":["#)
            for (i, t) in item.pointee.tags.enumerated() {
                if i > 0 { w.append(UInt8(ascii: ",")) }
                w.appendString(t)
            }
            w.append(UInt8(ascii: "]"))
        }
        if !hashing, present & Item.storyBit != 0 { Self.field(#","story":"#, item.pointee.storedStory, &w) }
        if let geo = item.pointee.geo, geo.isValid {
            w.append(#","geo":{"lat":"#)
            w.appendNumber(JSONNumber(geo.lat))
            w.append(#","lon":"#)
            w.appendNumber(JSONNumber(geo.lon))
            w.append(UInt8(ascii: "}"))
        }
        if hashing && item.pointee.data["updated"] != nil {
            var data = item.pointee.data
            data["updated"] = nil
            if !data.isEmpty {
                w.append(#","data":"#)
                w.appendObject(data)
            }
        } else if !item.pointee.data.isEmpty {
            w.append(#","data":"#)
            if repeating {
                withUnsafeMutablePointer(to: &dataKeys) { w.appendObject(item.pointee.data, keyTexts: $0) }
            } else {
                w.appendObject(item.pointee.data)
            }
        }
        w.append(UInt8(ascii: "}"))
        out.append(contentsOf: w.bytes)
    }

    /// `key` is the member's `,"name":`, then its value.
    @inline(__always)
    private static func field(_ key: StaticString, _ value: String, _ w: inout JSONLineBuffer) {
        w.append(key)
        w.appendString(value)
    }

}
