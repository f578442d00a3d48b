import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// What a feed says about itself, the same options in every format: its `title`, its `link`
/// (the site it belongs to), its `description` and, when given, the URL it is served at
/// (`self_url`).
public struct FeedChannel: Sendable, Equatable {
    public var title: String
    public var link: String
    public var description: String
    public var selfURL: String?

    public init(title: String, link: String, description: String, selfURL: String? = nil) {
        self.title = title
        self.link = link
        self.description = description
        self.selfURL = selfURL
    }
}

/// A document format of a feed file sink (`rss`, `atom`, `jsonfeed`): how a window of items is
/// written, and how a document it wrote is read back into items. The format is all a feed file
/// sink type has of its own: `FeedFileOptions.descriptor` makes the type from it.
public protocol FeedFormat: Sendable {
    /// The sink type: the window's key (`SinkWindow.key`) and the start of every message.
    static var type: String { get }
    /// What a file of this format is, for errors (`an RSS 2.0 document`).
    static var documentName: String { get }
    init()
    /// The whole document of the feed `feed` describes, for `items`, which come newest first
    /// and at most `max_items`.
    func render(_ items: [Item], feed: FeedChannel, now: Timestamp) -> [UInt8]
    /// The items of a document `render` wrote, in document order. An item needs only what the
    /// format writes (`source`, `type`, `kind`, `data` come back empty: `FeedFormats.readBack`).
    /// Throws when the bytes are not such a document.
    func readBack(_ bytes: [UInt8]) throws(FeedReadError) -> [Item]
}

extension FeedFormat {
    /// `Self.type`, for a format held as `any FeedFormat`.
    public var type: String { Self.type }
    public var documentName: String { Self.documentName }
}

/// Why a feed file could not be read back: plain words, without the path (the caller adds it).
public struct FeedReadError: Error, CustomStringConvertible, Sendable {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// Helpers the formats share.
public enum FeedFormats {
    /// An item read back from a feed file: what the file says, nothing more.
    public static func readBackItem(type: String, id: String, title: String, date: Timestamp) -> Item {
        Item(id: id, source: "", type: type, kind: "entry", title: title, fetched: date)
    }

    /// The items of the `entries` of a document a format wrote, in document order: each needs
    /// an id and a date (`fetched`), or the document is not one the sink wrote; `fill` reads
    /// the rest of what the format writes. Errors name the entry by its `noun` and position,
    /// and what is missing by its name in the format (`item 3 (demo:42) has no RFC 822 <pubDate>`).
    public static func readBack<Entry>(_ entries: [Entry], type: String, noun: String,
                                       id: (name: String, read: (Entry) -> String?),
                                       date: (name: String, read: (Entry) -> Timestamp?),
                                       fill: (inout Item, Entry) -> Void) throws(FeedReadError) -> [Item] {
        var items: [Item] = []
        items.reserveCapacity(entries.count)
        for (n, entry) in entries.enumerated() {
            guard let itemID = id.read(entry), !itemID.isEmpty else { throw FeedReadError("\(noun) \(n + 1) has no \(id.name)") }
            guard let when = date.read(entry) else { throw FeedReadError("\(noun) \(n + 1) (\(itemID)) has no \(date.name)") }
            var item = readBackItem(type: type, id: itemID, title: "", date: when)
            fill(&item, entry)
            items.append(item)
        }
        return items
    }
}

/// The newest `maxItems` items of a feed across runs. Newest first by `published`, else
/// `fetched`; items with equal times keep the order they arrived in. An item whose id is
/// already there replaces it where it stands (an `emit_updates` update), so no id is ever there
/// twice, and what falls past `maxItems` is dropped.
public struct FeedWindow: Sendable, Equatable {
    public let maxItems: Int
    public private(set) var items: [Item] = []

    /// A window of `items` (any order, ids possibly repeated: a later one replaces an earlier).
    public init(maxItems: Int, items: [Item] = []) {
        self.maxItems = max(1, maxItems)
        merge(items)
    }

    /// Merges a batch in: replaces the items whose ids are there, adds the others, keeps the
    /// newest `maxItems`.
    public mutating func merge(_ batch: [Item]) {
        var all = items
        var byID: [String: Int] = [:]
        byID.reserveCapacity(all.count + batch.count)
        for (i, item) in all.enumerated() { byID[item.id] = i }
        for item in batch {
            if let i = byID[item.id] { all[i] = item } else { byID[item.id] = all.count; all.append(item) }
        }
        items = Array(Self.newestFirst(all).prefix(maxItems))
    }

    /// `items` newest first (stable: equal times keep their order).
    public static func newestFirst(_ items: [Item]) -> [Item] {
        items.enumerated().sorted { a, b in
            let ta = a.element.published ?? a.element.fetched, tb = b.element.published ?? b.element.fetched
            return ta != tb ? ta > tb : a.offset < b.offset
        }.map(\.element)
    }
}

/// The engine side of a feed file sink: the window, where it comes from, and the file.
///
/// - `open` takes the window from state (`<type>:<path>`) when state holds one. Otherwise it
///   reads it back from the sink's own existing file (`FeedFormat.readBack`): a run without
///   state (`--no-state`) keeps what the file held and adds the new items, and a first run with
///   a new state file keeps what earlier runs without state wrote. Without state a file that
///   cannot be read back fails `open` (the run exits 3 and nothing is fetched), since writing
///   would throw its items away; with state it is a warning and the state's (empty) window wins.
/// - `write` merges the batch, renders the whole document, replaces the file atomically
///   (`AtomicFile`) and saves the window to state (nothing without state).
/// - `close` writes the file only if no batch came and it does not exist.
///
/// Called from the delivery thread only (the `Sink` contract); the lock keeps the mutable
/// state sound without `@unchecked Sendable`.
public final class FeedFile: Sink {
    public let format: any FeedFormat
    public let feed: FeedChannel
    public let path: String
    public let maxItems: Int

    private struct Run {
        var window: FeedWindow
        var remembered: SinkWindow?
        var wrote = false
    }
    private let run: Locked<Run>

    public init(format: any FeedFormat, feed: FeedChannel, path: String, maxItems: Int) {
        self.format = format
        self.feed = feed
        self.path = path
        self.maxItems = maxItems
        run = Locked(Run(window: FeedWindow(maxItems: maxItems)))
    }

    /// The items the file shows now (or will after the next write), newest first.
    public var items: [Item] { run.withLock { $0.window.items } }

    public func open(_ context: SinkContext) throws(SinkError) {
        let remembered = context.window(type: format.type, path: path)
        var items: [Item] = []
        if let stored = try remembered.load(), !stored.isEmpty {
            items = stored
        } else {
            do throws(SinkError) { items = try readFile() } catch {
                guard remembered.isKeptInState else { throw error }
                context.warn("\(error.message); state holds no window for it, so the next batch replaces it")
            }
        }
        let window = FeedWindow(maxItems: maxItems, items: items)
        run.withLock { $0 = Run(window: window, remembered: remembered) }
    }

    public func write(_ batch: [Item]) throws(SinkError) {
        var window = run.withLock { $0.window }
        window.merge(batch)
        try writeFile(window.items)
        let remembered = run.withLock { r -> SinkWindow? in
            r.window = window
            r.wrote = true
            return r.remembered
        }
        remembered?.save(window.items)
    }

    public func close() throws(SinkError) {
        // Nothing new this run: keep the file as it is, but make sure it exists.
        let (wrote, items) = run.withLock { ($0.wrote, $0.window.items) }
        if !wrote && access(path, F_OK) != 0 { try writeFile(items) }
    }

    private func writeFile(_ items: [Item]) throws(SinkError) {
        do throws(SinkError) { try AtomicFile.write(format.render(items, feed: feed, now: Timestamp.now()), to: path) } catch {
            throw SinkError("\(format.type): \(error.message)")
        }
    }

    /// The items of the existing file, newest first; none when there is no file or it is empty.
    func readFile() throws(SinkError) -> [Item] {
        let bytes: [UInt8]
        switch FileBytes.read(path) {
        case .missing: return []
        case .failed(let reason): throw SinkError("\(format.type): cannot read back \(path) (\(reason))")
        case .bytes(let b): bytes = b
        }
        if bytes.isEmpty { return [] }
        do { return try format.readBack(bytes) } catch {
            throw SinkError("\(format.type): cannot read back \(path): \(error.reason); expected \(format.documentName) as the \(format.type) sink writes it (move the file away, or run with state)")
        }
    }
}

/// A whole regular file read into memory.
enum FileBytes {
    case missing
    case failed(String)
    case bytes([UInt8])

    static func read(_ path: String) -> FileBytes {
        // O_NONBLOCK: a FIFO at the path must not hang the run; it is refused below.
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return errno == ENOENT ? .missing : .failed(String(cString: strerror(errno))) }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failed(String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failed("not a regular file") }
        var out: [UInt8] = []
        out.reserveCapacity(Int(st.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(String(cString: strerror(errno)))
            }
            if n == 0 { return .bytes(out) }
            out.append(contentsOf: chunk[0..<n])
        }
    }
}

/// The options every feed file sink takes (`rss`, `atom`, `jsonfeed`), declared once so the
/// three stay alike.
public enum FeedFileOptions {
    public static let path = Option.outputFile("path", replaced: true, "file to write, relative to the config file").aliases("file", "filename", "output").required
    public static let title = Option.string("title", "feed title").defaulted("Tributary")
    public static let link = Option.httpURL("link", "the feed's link: the site it belongs to").defaulted("https://example.invalid/")
    public static let description = Option.string("description", "feed description").defaulted("Items collected by Tributary")
    public static let maxItems = Option.integer("max_items", 1...100_000, "newest items kept in the file").defaulted(100)
    public static let selfURL = Option.httpURL("self_url", "the URL the file is served at: the feed's own link (rel=\"self\"; atom:link in rss, feed_url in jsonfeed)")

    public static let all: [any OptionDeclaration] = [path, title, link, description, maxItems, selfURL]

    /// The sink type of `Format` (`Format.type`): these options, and a `FeedFile` writing the
    /// feed they describe in that format. The one declaration the rss, atom and jsonfeed types
    /// share.
    public static func descriptor<Format: FeedFormat>(_ format: Format.Type, summary: String) -> SinkDescriptor {
        SinkDescriptor(type: Format.type, summary: summary, options: all) { r in
            FeedFile(format: Format(), feed: FeedChannel(title: r[title], link: r[link], description: r[description], selfURL: r[selfURL]),
                     path: r[path], maxItems: r[maxItems])
        }
    }
}
