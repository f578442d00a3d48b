#if canImport(Glibc)
import Glibc
#endif

/// How an item reads as one line of text (the `stdout` sink's `text` format): by default
/// `kind  local time  title  url` (`ItemLine.standard`). A source type may register its own
/// line for a kind it makes (`SourceDescriptor.lines`), as the weather sources do for
/// `weather`; the line then applies to every item of that kind, whichever source made it.
public struct ItemLine: Sendable {
    public let kind: String
    public let render: @Sendable (Item) -> String

    public init(kind: String, render: @escaping @Sendable (Item) -> String) {
        self.kind = kind
        self.render = render
    }

    /// `video    2026-11-29 11:00  Title  https://...`, the time in this machine's zone.
    public static func standard(_ item: Item) -> String {
        var s = paddedKind(item.kind) + " " + localTime(item.published ?? item.fetched) + "  " + oneLine(item.title)
        if let url = item.url { s += "  " + oneLine(url) }
        return s
    }

    /// The kind padded to 8 columns.
    public static func paddedKind(_ kind: String) -> String {
        kind.count >= 8 ? kind : kind + String(repeating: " ", count: 8 - kind.count)
    }

    /// Line breaks and tabs become spaces and other control characters are dropped, so one item
    /// is always one line and nothing reaches the terminal as a control sequence.
    public static func oneLine(_ s: String) -> String {
        var out = String.UnicodeScalarView()
        var lastSpace = false
        for u in s.unicodeScalars {
            if u == "\n" || u == "\r" || u == "\t" {
                if !lastSpace { out.append(" ") }
                lastSpace = true
            } else if u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0) {
                continue
            } else {
                out.append(u)
                lastSpace = u == " "
            }
        }
        return String(out)
    }

    /// `2026-11-29 11:00` in this machine's time zone.
    public static func localTime(_ t: Timestamp) -> String {
        var secs = time_t(t.seconds)
        var tmv = tm()
        localtime_r(&secs, &tmv)
        func p(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(tmv.tm_year + 1900)-\(p(tmv.tm_mon + 1))-\(p(tmv.tm_mday)) \(p(tmv.tm_hour)):\(p(tmv.tm_min))"
    }
}

/// The lines the source types registered, by kind; `line` falls back to `ItemLine.standard`.
public struct ItemLines: Sendable {
    /// One line per kind, in registration order (a handful; an array, not a dictionary of
    /// closures, whose generic metadata the runtime would build at every start).
    private let lines: [ItemLine]

    /// The first registration of a kind wins.
    public init(_ lines: [ItemLine]) {
        var kept: [ItemLine] = []
        for l in lines where !kept.contains(where: { $0.kind == l.kind }) { kept.append(l) }
        self.lines = kept
    }

    public static let standard = ItemLines([])

    /// The item's line; an item with a `story` (`stories`, `action: tag`) ends with it, so
    /// copies of one story read as such.
    public func line(_ item: Item) -> String {
        var text = ItemLine.standard(item)
        for l in lines where l.kind == item.kind {
            text = l.render(item)
            break
        }
        if let story = item.story { text += "  " + story }
        return text
    }
}
