import TributaryCore
#if canImport(Glibc)
import Glibc
#endif

/// Whether a `command`'s program would start, checked when the config is loaded (so `check`
/// catches a missing or non-executable program before anything runs). It finds the program the
/// way `ChildProcess` starts it (`posix_spawnp` after changing to the config file's folder): a
/// name with a `/` is a path, relative to `directory` unless absolute; any other name is looked
/// up in `PATH` (glibc's default `/bin:/usr/bin` when unset; an empty or relative entry is
/// relative to `directory` too).
public enum ProgramLookup {
    /// What is wrong with `program` (a sentence naming where it looked), or nil when it is an
    /// executable file.
    public static func problem(_ program: String, directory: String, path: String? = Environment.get("PATH")) -> String? {
        if program.isEmpty { return "the program name is empty" }
        if program.contains("/") {
            let full = program.hasPrefix("/") || directory.isEmpty ? program : directory + "/" + program
            return fileProblem(full, shown: program == full ? program : "\(program) (\(full))")
        }
        let dirs = (path ?? "/bin:/usr/bin").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var notExecutable: String? = nil
        for dir in dirs {
            let base = dir.isEmpty ? directory : dir.hasPrefix("/") || directory.isEmpty ? dir : directory + "/" + dir
            let full = (base.isEmpty ? "." : base) + "/" + program
            switch check(full) {
            case .ok: return nil
            case .notExecutable: notExecutable = notExecutable ?? full
            case .missing, .folder: continue
            }
        }
        if let notExecutable { return "\(notExecutable) is not executable (chmod +x, or run it through its interpreter)" }
        return "\(program) was not found in PATH (\(dirs.joined(separator: ":")))"
    }

    enum Found { case ok, missing, folder, notExecutable }

    static func check(_ file: String) -> Found {
        var st = stat()
        guard stat(file, &st) == 0 else { return .missing }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .folder }
        return access(file, X_OK) == 0 ? .ok : .notExecutable
    }

    static func fileProblem(_ file: String, shown: String) -> String? {
        switch check(file) {
        case .ok: return nil
        case .missing: return "\(shown) does not exist"
        case .folder: return "\(shown) is a folder, not a program"
        case .notExecutable: return "\(shown) is not executable (chmod +x, or run it through its interpreter)"
        }
    }
}
