import TributaryBase
import TributaryJSON

/// Writes items as JSON Lines records (`Item.appendJSON`: keys in Docs/contract.md order,
/// optional fields omitted when absent), for a sink that writes many in a row. It reads each
/// item through a pointer, in place: a call on an array's element handed the method a copy,
/// a retain and a release of every field. And it writes the `fetched` time of the item before
/// once more when it is the same, as it is for a page's items.
public struct ItemJSONWriter {
    private var fetched = Timestamp(seconds: .nan)
    private var fetchedText: [UInt8] = []

    public init() {}

    /// The record of `item`, without the newline.
    public mutating func append(_ item: UnsafePointer<Item>, into out: inout [UInt8]) {
        raw(#"{"id":"#, &out)
        JSONWriter.writeString(item.pointee.id, into: &out)
        field(#","source":"#, item.pointee.source, &out)
        field(#","type":"#, item.pointee.type, &out)
        field(#","kind":"#, item.pointee.kind, &out)
        field(#","title":"#, item.pointee.title, &out)
        if let summary = item.pointee.summary { field(#","summary":"#, summary, &out) }
        if let content = item.pointee.content { field(#","content":"#, content, &out) }
        if let contentHTML = item.pointee.contentHTML { field(#","content_html":"#, contentHTML, &out) }
        if let url = item.pointee.url { field(#","url":"#, url, &out) }
        if let image = item.pointee.image { field(#","image":"#, image, &out) }
        if let author = item.pointee.author { field(#","author":"#, author, &out) }
        if let published = item.pointee.published {
            raw(#","published":""#, &out)
            published.appendRFC3339(into: &out)
            out.append(UInt8(ascii: "\""))
        }
        raw(#","fetched":""#, &out)
        let f = item.pointee.fetched
        if f != fetched {
            fetched = f
            fetchedText.removeAll(keepingCapacity: true)
            f.appendRFC3339(into: &fetchedText)
        }
        out.append(contentsOf: fetchedText)
        out.append(UInt8(ascii: "\""))
        if !item.pointee.tags.isEmpty {
            raw(#","tags":["#, &out)
            for (i, t) in item.pointee.tags.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(t, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        if let story = item.pointee.story { field(#","story":"#, story, &out) }
        if let geo = item.pointee.geo, geo.isValid {
            raw(#","geo":{"lat":"#, &out)
            out.append(contentsOf: JSONNumber(geo.lat).text.utf8)
            raw(#","lon":"#, &out)
            out.append(contentsOf: JSONNumber(geo.lon).text.utf8)
            out.append(UInt8(ascii: "}"))
        }
        if !item.pointee.data.isEmpty {
            raw(#","data":"#, &out)
            JSONWriter.write(item.pointee.data, into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A literal's bytes, appended at once: a `String`'s `utf8` view is appended through the
    /// generic sequence path, which was 1.7% of a decode run's CPU for the keys alone.
    @inline(__always)
    private func raw(_ text: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `key` is the member's `,"name":`, then its value.
    @inline(__always)
    private func field(_ key: StaticString, _ value: String, _ out: inout [UInt8]) {
        raw(key, &out)
        JSONWriter.writeString(value, into: &out)
    }
}
