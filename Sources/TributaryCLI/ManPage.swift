import TributaryCore

/// `tributary help --man`: the roff man page (tributary(1)), generated from `Commands`,
/// `Flags` and `Help` like `--help`; `make install` and the Debian package install it.
enum ManPage {
    /// Text safe in roff: backslashes doubled, a leading `.` or `'` guarded, `-` as a hyphen
    /// that copies as one.
    static func roff(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            default: out.append(ch)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    static func bold(_ s: String) -> String { "\\fB" + roff(s) + "\\fR" }
    static func italic(_ s: String) -> String { "\\fI" + roff(s) + "\\fR" }

    static func flagHead(_ f: Flag) -> String {
        var parts: [String] = []
        if let short = f.short { parts.append(bold(short)) }
        parts.append(bold(f.long))
        if case .optionalValue(let p) = f.kind { return parts.joined(separator: ", ") + "[=" + italic(p) + "]" }
        return parts.joined(separator: ", ") + (f.placeholder.map { " " + italic($0) } ?? "")
    }

    static func render() -> String {
        var s = """
        .TH TRIBUTARY 1 "" "tributary \(Tributary.version)" "User Commands"
        .SH NAME
        tributary \\- fetch many sources concurrently and deliver unified items to sinks
        .SH SYNOPSIS

        """
        for c in Commands.all {
            s += ".B tributary \(roff(c.name.rawValue))\n"
            var args: [String] = []
            switch c.positional {
            case .none: break
            case .one(let p, _): args.append(italic(p))
            case .optional(let p): args.append("[" + italic(p) + "]")
            case .choice(let w): args.append(bold(w.joined(separator: "|")))
            case .choiceThen(let w, let p): args += [bold(w.joined(separator: "|")), italic(p)]
            }
            for f in c.flags {
                if case .optionalValue(let p) = f.kind { args.append("[" + bold(f.long) + "[=" + italic(p) + "]]"); continue }
                args.append("[" + bold(f.short ?? f.long) + (f.placeholder.map { " " + italic($0) } ?? "") + "]")
            }
            if !args.isEmpty { s += args.joined(separator: " ") + "\n" }
            s += ".br\n"
        }
        s += ".B tributary \\-\\-version\n"
        s += """
        .SH DESCRIPTION
        Tributary reads a JSON config, fetches every enabled source concurrently, turns the responses \
        into unified items and hands them to every configured sink. A state file remembers what was \
        emitted, so each scheduled run emits only what is new, once.
        .PP
        \(roff(Help.environment))
        .SH COMMANDS

        """
        for c in Commands.all {
            s += ".SS \(roff(c.synopsis))\n\(roff(c.details))\n"
            for f in c.flags { s += ".TP\n\(flagHead(f))\n\(roff(f.help))\n" }
        }
        s += ".SH EXIT STATUS\n"
        for e in Help.exitCodes { s += ".TP\n\(bold(e.code))\n\(roff(e.meaning))\n" }
        s += """
        .SH FILES
        .TP
        \(italic("./tributary.json")), \(italic("$XDG_CONFIG_HOME/tributary/config.json"))
        the config, when \\fB\\-c\\fR is not given
        .TP
        \(italic("$XDG_STATE_HOME/tributary/state.sqlite"))
        the default state file
        .SH SEE ALSO
        The documentation in \(italic("/usr/share/doc/tributary")): contract.md (commands, config, items, \
        sinks, state), configuration.md, sources/, sinks.md, scheduling.md.

        """
        return s
    }
}
