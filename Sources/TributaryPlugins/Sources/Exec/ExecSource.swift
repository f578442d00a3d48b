import TributaryPluginKit
import FoundationEssentials
import Glibc
import Dispatch
import TributaryCore

/// The `exec` source: the out-of-process plugin protocol (Docs/sources/exec.md). A program,
/// started without a shell, prints one JSON item per line on stdout; its stderr goes to the log.
public struct ExecSource: FeedSource {
    public static let descriptor = SourceDescriptor(type: "exec", summary: "an external program printing one JSON item per line (the plugin protocol)", options: options) { settings, reader in
        ExecSource(settings: settings, reader: reader)
    }

    static let command = Option.stringList("command", "program and arguments, no shell (e.g. [\"python3\", \"plugin.py\"]); it runs in the config file's folder")
        .required.checked { $0.isEmpty ? "needs at least the program to run" : nil }
        // A missing program is found by `check`, and before a run fetches anything.
        .preflighted { command, directory in
            command.first.flatMap { FileAccess.programProblem($0, directory: directory, searchPath: Environment.get("PATH")) }.map { "[0]: " + $0 }
        }
    static let env = Option.stringMap("env", "extra environment variables for the program")
    static let kind = Option.itemKind("kind of items that do not print one")
    public static let options: [any OptionDeclaration] = [command, env, kind]

    /// For the tributary binary, which starts no process but exec programs: every child of the
    /// process that is not a running program is then an orphan of one, which the last run to
    /// end may kill and reap (see `ProcessReaper`). A test process running exec sources next to
    /// children of its own must not call this.
    public static func claimAllChildren() {
        ProcessReaper.claimAllChildren()
    }

    let command: [String]
    let env: [(String, String)]
    let kind: String
    let timeout: Double
    let directory: String

    init?(settings: SourceSettings, reader: OptionReader) {
        self.command = reader[Self.command]
        // The program fetches for itself: pass it a credential in `env` ("${VAR}") instead.
        if reader.object["auth"] != nil { reader.error("auth", "the exec source makes no HTTP request (its program does): give the program its credential in \"env\"") }
        self.directory = reader.configDirectory
        self.env = reader[Self.env] ?? []
        Secrets.registerCredentials(env)
        self.kind = reader[Self.kind]
        self.timeout = settings.timeout
    }

    /// The program's items are delivered when it has ended (its stdout is read whole, capped);
    /// a program that fails still delivers the items it printed.
    public func fetch(_ context: FetchContext) async throws(SourceError) {
        let what = "command \(command[0])"
        let child = ChildProcess(command: command, environment: env, directory: directory, timeout: timeout, maxOutput: 64 << 20)
        let outcome: ChildProcess.Outcome
        do {
            outcome = try await child.run { line in context.log(line) }
        } catch let e as ChildProcess.LaunchError {
            throw SourceError("\(what): \(e.description)")
        } catch {
            throw SourceError("\(what): \(error)")
        }
        var items: [Item] = []
        var problems: [String] = []
        var lineNumber = 0
        for raw in outcome.stdout.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            var line = Array(raw)
            if line.last == 0x0D { line.removeLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            do {
                items.append(try parseLine(line, context: context))
            } catch let e as JSONParseError {
                problems.append("stdout line \(lineNumber): invalid JSON at column \(e.column): \(e.message)")
            } catch {
                problems.append("stdout line \(lineNumber): \(error)")
            }
        }
        if outcome.stderr.dropped > 0 {
            let n = outcome.stderr.dropped
            context.warn("stderr: \(n) more line\(n == 1 ? "" : "s") (\(outcome.stderr.droppedBytes) bytes) not logged; a run logs at most \(outcome.stderr.lineLimit) lines")
        }
        if outcome.ending == .cancelled {
            try? await context.emit(items)  // the run is stopping: deliver what was printed if it still can
            throw SourceError.interrupted
        }
        if outcome.timedOut {
            try await context.emit(items)
            throw SourceError("\(what): timed out after \(Durations.format(timeout)) and was killed")
        }
        let n = outcome.othersKilled
        let processes = "\(n) process\(n == 1 ? "" : "es")"
        if outcome.ending == .lingered {
            context.warn("a background process held \(outcome.heldOpen.joined(separator: " and ")) open after the program exited and was killed after \(Durations.format(ChildProcess.linger)) (\(processes) killed)")
        } else if n > 0 {
            context.warn("\(processes) still running after the program exited \(n == 1 ? "was" : "were") killed")
        }
        if let sig = outcome.signal {
            try await context.emit(items)
            throw SourceError("\(what): killed by signal \(sig)\(ChildProcess.signalName(sig).map { " (\($0))" } ?? "")")
        }
        if let code = outcome.exitCode, code != 0 {
            var msg = "\(what): exited with status \(code)"
            if let l = outcome.stderr.last { msg += " (last stderr line: \(ChildProcess.bounded(l)))" }
            try await context.emit(items)
            throw SourceError(msg)
        }
        if !problems.isEmpty {
            let shown = problems.prefix(3).joined(separator: "; ")
            try await context.emit(items)
            throw SourceError("\(what): \(problems.count) invalid line\(problems.count == 1 ? "" : "s"): \(shown)\(problems.count > 3 ? "; ..." : "")")
        }
        try await context.emit(items)
    }

    /// One printed line into an item. Accepts Docs/contract.md#items fields; `source`, `type` and
    /// `fetched` are always this run's; a missing `id` is derived from `url`, else `title`.
    func parseLine(_ line: [UInt8], context: FetchContext) throws -> Item {
        let doc = try JSONParser.parse(line)
        guard case .object(let obj) = doc else { throw JSONAccessError(path: .root, expected: "a JSON object (one item)", found: doc.typeName) }
        let known: Set<String> = ["id", "source", "type", "kind", "title", "summary", "content", "content_html", "url", "image", "author", "published", "fetched", "tags", "geo", "data"]
        if let unknown = obj.keys.first(where: { !known.contains($0) }) {
            throw JSONAccessError(path: KeyPath(components: [.key(unknown)]), expected: "one of the item fields (\(known.sorted().joined(separator: ", ")))", found: "an unknown field")
        }
        let n = JSONNode(doc)
        let url = try n["url"].optionalString()
        if let url, !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
            throw JSONAccessError(path: "url", expected: "an absolute http(s) URL", found: "\"\(url)\"")
        }
        let title = try n["title"].optionalString()?.trimmingWhitespaceAndNewlines
        let summary = try n["summary"].optionalString()
        let name = context.settings.name
        var id: String
        if let given = try n["id"].optionalString(allowNumber: true), !given.isEmpty {
            id = Self.hasFamily(given) ? given : "\(name):\(given)"
        } else if let url {
            id = "\(name):\(url)"
        } else if let title, !title.isEmpty {
            id = "\(name):t\(Names.textHash(title))"
        } else {
            throw JSONAccessError(path: "id", expected: "an id, or a url or title to derive one from", found: nil)
        }
        let kind = try n["kind"].optionalString() ?? self.kind
        if !Names.isSnakeCase(kind) { throw JSONAccessError(path: "kind", expected: "[a-z][a-z0-9_]*", found: "\"\(kind)\"") }
        var item = context.item(id: id, kind: kind, title: (title?.isEmpty == false ? title : nil) ?? summary.map { String($0.prefix(80)) } ?? url ?? id)
        item.summary = summary
        item.content = try n["content"].optionalString()
        item.contentHTML = try n["content_html"].optionalString()
        item.url = url
        if let image = try n["image"].optionalString() {
            guard image.hasPrefix("http://") || image.hasPrefix("https://") else { throw JSONAccessError(path: "image", expected: "an absolute http(s) URL", found: "\"\(image)\"") }
            item.image = image
        }
        item.author = try n["author"].optionalString()
        if let p = try n["published"].optionalString(allowNumber: true) {
            guard let t = Timestamp.parseAny(p) else { throw JSONAccessError(path: "published", expected: "an RFC 3339 date or unix seconds", found: "\"\(p)\"") }
            item.published = t
        }
        item.tags = try n["tags"].stringArray()
        if !n["geo"].isMissing {
            let g = Geo(lat: try n["geo.lat"].double(), lon: try n["geo.lon"].double())
            guard g.isValid else { throw JSONAccessError(path: "geo", expected: "lat in [-90, 90] and lon in [-180, 180]", found: "\(g.lat), \(g.lon)") }
            item.geo = g
        }
        if !n["data"].isMissing {
            let data = try n["data"].object()
            if let bad = data.keys.first(where: { !Names.isSnakeCase($0) }) {
                throw JSONAccessError(path: KeyPath(components: [.key("data"), .key(bad)]), expected: "a snake_case name", found: "\"\(bad)\"")
            }
            item.data = data
        }
        return item
    }

    /// `youtube:video:x` has a family; `x` or `http://...` alone does not.
    static func hasFamily(_ id: String) -> Bool {
        guard let colon = id.firstIndex(of: ":"), colon != id.startIndex else { return false }
        let family = id[..<colon]
        if id[colon...].hasPrefix("://") { return false }
        return ConfigLoader.isValidName(String(family))
    }
}
