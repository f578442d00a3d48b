import Foundation
import XCTest
import TributaryTestSupport

/// `--help`, the man page and the completion scripts come from one command table: every
/// command and every flag the help shows is parsed by the binary and appears in all of them,
/// and each generated script is accepted by its shell.
final class CommandLineDeclarationTests: XCTestCase {
    /// The commands of `tributary --help`'s Commands section.
    func commands() throws -> [String] {
        let help = try BinaryRunner.run(["--help"]).stdout
        guard let start = help.range(of: "Commands:\n") else { XCTFail("no Commands section in --help:\n\(help)"); return [] }
        return help[start.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The flags of `tributary help COMMAND` (lines starting with two spaces and a dash).
    func flags(_ command: String) throws -> [(names: [String], takesValue: Bool)] {
        let help = try BinaryRunner.run(["help", command])
        XCTAssertEqual(help.status, 0, help.stderr)
        return help.stdoutLines.filter { $0.hasPrefix("  -") }.map { line in
            let head = line.trimmingCharacters(in: .whitespaces).components(separatedBy: "  ")[0]
            let words = head.replacingOccurrences(of: ",", with: "").split(separator: " ").map(String.init)
            // `--respect-schedule[=PERIOD]`: a value only after `=`, the flag alone also parses.
            let names = words.filter { $0.hasPrefix("-") }.map { $0.components(separatedBy: "[=")[0] }
            return (names, words.count > names.count)
        }
    }

    func testEveryFlagOfTheHelpIsParsedAndInTheManPageAndEveryCompletion() throws {
        let empty = TempDir()  // no config to find: a command that got past its flags stops there
        defer { empty.remove() }
        let commands = try commands()
        XCTAssertEqual(Set(commands), ["run", "watch", "status", "search", "check", "sources", "test", "import", "export", "completion", "init", "help"])
        let man = try BinaryRunner.run(["help", "--man"]).stdout.replacingOccurrences(of: "\\-", with: "-")
        let scripts = try ["bash", "zsh", "fish"].map { try BinaryRunner.run(["completion", $0]).stdout }
        var total = 0
        for command in commands {
            XCTAssertTrue(man.contains(".SS tributary " + command), "man page lacks \(command)")
            for script in scripts { XCTAssertTrue(script.contains(command), "a completion script lacks \(command)") }
            for flag in try flags(command) {
                total += 1
                for name in flag.names {
                    XCTAssertTrue(man.contains(name), "man page lacks \(command) \(name)")
                    let bare = name.hasPrefix("--") ? String(name.dropFirst(2)) : String(name.dropFirst())
                    XCTAssertTrue(scripts[0].contains(name), "bash completion lacks \(command) \(name)")
                    XCTAssertTrue(scripts[1].contains(name), "zsh completion lacks \(command) \(name)")
                    XCTAssertTrue(scripts[2].contains((name.hasPrefix("--") ? " -l " : " -s ") + bare), "fish completion lacks \(command) \(name)")
                    // The parser knows it: a usage error for it would name it as unknown.
                    let args = [command] + (command == "test" ? ["x"] : []) + [name] + (flag.takesValue ? ["v"] : [])
                    let r = try BinaryRunner.run(args, cwd: empty.path, env: ["XDG_CONFIG_HOME": empty.path, "HOME": empty.path], timeout: 20)
                    XCTAssertFalse(r.stderr.contains("unknown option"), "\(args): \(r.stderr)")
                }
            }
        }
        XCTAssertGreaterThan(total, 15)
    }

    func testCompletionScriptsAreAcceptedByTheirShells() throws {
        let dir = TempDir()
        defer { dir.remove() }
        for (shell, check) in [("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])] {
            let script = try BinaryRunner.run(["completion", shell])
            XCTAssertEqual(script.status, 0, script.stderr)
            let file = dir.write("completion." + shell, script.stdout)
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/" + check[0]) else {
                XCTFail("\(check[0]) is not installed (make test-tools installs it)")
                continue
            }
            let r = try Shell.run(check + [file])
            XCTAssertEqual(r.status, 0, "\(shell): \(r.stderr)")
        }
        // bash: completing `tributary run --st` offers --state; `--config ` completes files.
        let bash = try Shell.run(["bash", "-c", #"source <("$0" completion bash); COMP_WORDS=(tributary run --st); COMP_CWORD=2; _tributary; echo "${COMPREPLY[@]}""#, BinaryRunner.binary])
        XCTAssertEqual(bash.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "--state", bash.stderr)
        // `tributary import o` offers opml (the FILE after it completes files: `complete -o default`).
        let format = try Shell.run(["bash", "-c", #"source <("$0" completion bash); COMP_WORDS=(tributary import o); COMP_CWORD=2; _tributary; echo "${COMPREPLY[@]}""#, BinaryRunner.binary])
        XCTAssertEqual(format.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "opml", format.stderr)
        // fish: the subcommands with their summaries.
        let fish = try Shell.run(["fish", "-c", "source (\"$argv[1]\" completion fish | psub); complete -C 'tributary wa'", BinaryRunner.binary])
        XCTAssertTrue(fish.stdout.hasPrefix("watch\t"), fish.stdout + fish.stderr)
    }

    /// `test <TAB>` and `--only <TAB>` offer the source names of the config given with -c (or
    /// found as ./tributary.json); a missing or broken config offers none, quietly.
    func testCompletionOffersTheConfigsSourceNames() throws {
        let dir = TempDir()
        defer { dir.remove() }
        func src(_ name: String, _ extra: String = "") -> String { #"{"name":"\#(name)","type":"json","url":"http://127.0.0.1:9/\#(name)","fields":{"id":"id"}\#(extra)}"# }
        // A source with an unset variable is still named (no source is selected).
        let cfg = dir.write("my config.json", #"{"sources":[\#(src("alpha")),\#(src("alps")),\#(src("beta", #","headers":{"X":"${TRIBUTARY_UNSET_FOR_TEST}"}"#))],"sinks":[]}"#)
        let names = try BinaryRunner.run(["sources", "--names", "-c", cfg])
        XCTAssertEqual(names.stdout, "alpha\nalps\nbeta\n", names.stderr)
        XCTAssertEqual(names.status, 0)
        let broken = dir.write("broken.json", "{\"sources\": [")
        let none = try BinaryRunner.run(["sources", "--names", "-c", broken])
        XCTAssertEqual(none.status, 2)
        XCTAssertEqual(none.stdout + none.stderr, "", "quiet")

        // bash: COMP_WORDS as bash sets them (the config path quoted on the line, kept as one word).
        func bash(_ words: [String]) throws -> String {
            let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            let r = try Shell.run(["bash", "-c", #"source <("$0" completion bash); COMP_WORDS=("$0" \#(quoted)); COMP_CWORD=\#(words.count); _tributary; (( ${#COMPREPLY[@]} )) && printf '%s\n' "${COMPREPLY[@]}"; true"#, BinaryRunner.binary], cwd: dir.path)
            XCTAssertEqual(r.stderr, "", "bash \(words)")
            return r.stdout
        }
        XCTAssertEqual(try bash(["test", "-c", cfg, "al"]), "alpha\nalps\n")
        XCTAssertEqual(try bash(["test", "--config=" + cfg, "b"]), "beta\n")
        XCTAssertEqual(try bash(["run", "-c", cfg, "--only", "b"]), "beta\n")
        XCTAssertEqual(try bash(["watch", "-c", cfg, "--only", "beta,al"]), "beta,alpha\nbeta,alps\n", "after a comma, the next name")
        XCTAssertEqual(try bash(["test", "-c", broken, "al"]), "", "a broken config: nothing, no error")
        XCTAssertEqual(try bash(["test", "-c", dir.path + "/nope.json", "al"]), "")
        XCTAssertEqual(try bash(["test", "--c"]), "--config\n", "flags still complete")
        // No -c: ./tributary.json, as the commands find it.
        _ = dir.write("tributary.json", #"{"sources":[\#(src("local-one"))],"sinks":[]}"#)
        XCTAssertEqual(try bash(["test", "lo"]), "local-one\n")

        // fish completes them the same way; zsh's script parses (its completion needs a terminal).
        let fish = try Shell.run(["fish", "-c", "source (\"$argv[1]\" completion fish | psub); complete -C \"$argv[1] test -c '$argv[2]' al\"; complete -C \"$argv[1] run -c '$argv[2]' --only=beta,al\"", BinaryRunner.binary, cfg])
        XCTAssertEqual(fish.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }, ["alpha", "alps", "--only=beta,alpha", "--only=beta,alps"], fish.stdout + fish.stderr)
        let zsh = try BinaryRunner.run(["completion", "zsh"])
        XCTAssertTrue(zsh.stdout.contains("'1:source:_tributary_sources'"), zsh.stdout)
        XCTAssertEqual(try Shell.run(["zsh", "-n", dir.write("_tributary", zsh.stdout)]).status, 0)
    }

    func testTheManPageRendersWithoutWarnings() throws {
        let dir = TempDir()
        defer { dir.remove() }
        let page = dir.write("tributary.1", try BinaryRunner.run(["help", "--man"]).stdout)
        let lint = try Shell.run(["groff", "-ww", "-z", "-man", page])
        XCTAssertEqual(lint.status, 0, lint.stderr)
        XCTAssertEqual(lint.stderr, "", "groff warnings")
        let shown = try Shell.run(["man", "-l", page], env: ["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        for needle in ["TRIBUTARY(1)", "SYNOPSIS", "EXIT STATUS", "--respect-schedule", "completion bash|zsh|fish"] {
            XCTAssertTrue(shown.stdout.contains(needle), "man -l output lacks \(needle)")
        }
    }
}
