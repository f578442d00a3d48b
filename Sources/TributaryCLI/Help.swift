import TributaryCore

/// `--help`, `help COMMAND` and the man page's text, generated from `Commands`.
enum Help {
    static let environment = """
    Without -c, the config is ./tributary.json, then $XDG_CONFIG_HOME/tributary/config.json.
    """

    static let exitCodes: [(code: String, short: String, meaning: String)] = [
        ("0", "ok", "every selected source succeeded and every sink wrote its items"),
        ("1", "a source failed", "at least one source failed; the other sources' items were still delivered"),
        ("2", "usage or config error", "usage or config error: nothing was fetched"),
        ("3", "a sink failed", "a sink failed: state is not advanced for undelivered items"),
        ("130/143", "interrupted by SIGINT/SIGTERM", "interrupted by SIGINT / SIGTERM after a clean shutdown"),
    ]

    /// One synopsis per command, wrapped under its first flag: `--help`'s usage, and the
    /// synopsis README.md and Docs/ show (`make generate`).
    static var usage: String {
        var s = ""
        for c in Commands.all { s += wrap(units: c.synopsisUnits, width: 100, indent: 9 + c.name.rawValue.count + 1) + "\n" }
        return s + "tributary --version\n"
    }

    /// `units` joined by spaces in lines of at most `width` columns, never breaking inside a
    /// unit, continuation lines indented by `indent`.
    static func wrap(units: [String], width: Int, indent: Int) -> String {
        var lines: [String] = []
        var line = ""
        for u in units {
            if !line.isEmpty && line.count + 1 + u.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent) + u
            } else {
                line += (line.isEmpty ? "" : " ") + u
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    static var main: String {
        var s = "tributary \(Tributary.version): fetch many sources concurrently, turn them into unified items, hand them to sinks.\n\nUsage:\n"
        for line in usage.split(separator: "\n") { s += "  " + line + "\n" }
        s += "\nCommands:\n"
        let width = Commands.all.map(\.name.rawValue.count).max() ?? 0
        for c in Commands.all { s += "  " + pad(c.name.rawValue, width + 2) + c.summary + "\n" }
        s += "\n" + environment + "\n" + wrap("Exit codes: " + exitCodes.map { "\($0.code) \($0.short)" }.joined(separator: ", ") + ".", width: 96, indent: 0) + "\n"
        s += "`tributary help COMMAND` shows a command's flags."
        return s
    }

    static func command(_ c: Command) -> String {
        var s = wrap(units: c.synopsisUnits, width: 100, indent: 11 + c.name.rawValue.count) + "\n\n" + wrap(c.details, width: 96, indent: 0) + "\n"
        if !c.flags.isEmpty {
            let width = min(24, c.flags.map(\.shownWithValue.count).max() ?? 0)
            s += "\n"
            for f in c.flags {
                let head = "  " + pad(f.shownWithValue, width + 2)
                s += head + wrap(f.help, width: 100, indent: head.count, first: head.count) + "\n"
            }
        }
        return String(s.dropLast())
    }

    static func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }

    /// Words of `text` in lines of at most `width` columns, continuation lines indented by
    /// `indent`; the first line starts at column `first` (after a prefix the caller writes).
    static func wrap(_ text: String, width: Int, indent: Int, first: Int = 0) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let used = lines.isEmpty ? first + line.count : line.count
            if !line.isEmpty && used + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                line += word
            } else {
                line += (line.isEmpty || line.allSatisfy { $0 == " " } ? "" : " ") + word
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }
}

/// What the docs generator (`make generate`) takes from the command table: the usage, the man
/// page and the completion scripts, as the binary prints them.
public enum CommandLineDocs {
    public static var usage: String { Help.usage }
    public static var manPage: String { ManPage.render() }
    public static func completion(_ shell: String) -> String? { Completion.Shell(rawValue: shell).map(Completion.script) }
    public static let shells = Completion.Shell.allCases.map(\.rawValue)
}
