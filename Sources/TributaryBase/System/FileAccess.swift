#if canImport(Glibc)
import Glibc
#endif

/// Whether the program could write a file or start a program, found out by trying (as root,
/// `access(2)` says yes to `/proc`, where nothing can be created): what `check` and a run's
/// preflight report (`PreflightCheck`). Nothing is left behind: a folder that does not exist
/// yet is tried by creating its first missing part and removing it at once, an existing one by
/// creating and removing a file with a name of ours.
public enum FileAccess {
    /// What stops the program from writing the file at `path` (`replaced`: written next to
    /// itself and renamed into place, so its folder must be writable; otherwise opened and
    /// appended to), or nil. A path that is not a regular file (`/dev/null`, a FIFO) is
    /// written as it is and not tried.
    public static func outputProblem(_ path: String, replaced: Bool) -> String? {
        var st = stat()
        if stat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFDIR: return "\(path) is a folder, expected a file"
            case S_IFREG:
                let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY)
                guard fd >= 0 else { return "cannot write \(path) (\(errorText()))" }
                close(fd)
                if !replaced { return nil }
            default:
                return nil
            }
        }
        return folderProblem(parent(of: path))
    }

    /// What stops files from being created in the folder `dir` (which may not exist yet:
    /// then what stops it from being created), or nil.
    public static func folderProblem(_ dir: String) -> String? {
        var st = stat()
        if stat(dir, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else { return "cannot create folder \(dir): a file of that name is in the way" }
            let probe = dir + "/.tributary-check-\(getpid())"
            let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { return "cannot write in folder \(dir) (\(errorText()))" }
            close(fd)
            unlink(probe)
            return nil
        }
        // The nearest folder that exists, and the first part of `dir` below it.
        var missing = dir
        var above = parent(of: dir)
        while above != missing, stat(above, &st) != 0 {
            missing = above
            above = parent(of: above)
        }
        if stat(above, &st) == 0, st.st_mode & S_IFMT != S_IFDIR {
            return "cannot create folder \(dir): \(above) is a file"
        }
        // Tried with a name of our own beside it, never with `missing` itself: another process
        // (a second worker starting at the same moment) may be creating that folder and filling
        // it, and must not see it vanish under it. The probe is a file, not a folder: creating
        // either needs the same rights in `above`, and a file is about four times cheaper to
        // create and remove on ext4 (26 us against 117 us here), which `check` pays per path.
        let probe = (above == "/" ? "" : above) + "/.tributary-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST { return nil }
            return "cannot create folder \(dir) (\(errorText()))"
        }
        close(fd)
        unlink(probe)
        return nil
    }

    /// What stops `program` from being started the way the `exec` source starts it, or nil:
    /// with a `/` it is a path, relative to `directory` (the program's working directory);
    /// otherwise it is looked up in `searchPath` (`$PATH`; unset: `/bin:/usr/bin`, as glibc
    /// does), an empty or relative entry again relative to `directory`.
    public static func programProblem(_ program: String, directory: String, searchPath: String?) -> String? {
        if program.isEmpty { return "the program name is empty" }
        if program.contains("/") {
            var relative = Substring(program)
            while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
            let path = program.hasPrefix("/") || directory.isEmpty ? program : directory + "/" + relative
            let shown = path == program ? "\"\(program)\"" : "\"\(program)\" (\(path))"
            var st = stat()
            guard stat(path, &st) == 0 else { return "program \(shown) does not exist" }
            if st.st_mode & S_IFMT == S_IFDIR { return "program \(shown) is a folder" }
            guard isExecutable(path) else { return "program \(shown) is not executable (chmod +x)" }
            return nil
        }
        let entries = (searchPath ?? "/bin:/usr/bin").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var notExecutable: String?
        for entry in entries {
            let dir = entry.isEmpty ? directory : entry.hasPrefix("/") || directory.isEmpty ? entry : directory + "/" + entry
            let candidate = (dir.hasSuffix("/") ? dir : dir + "/") + program
            var st = stat()
            guard stat(candidate, &st) == 0, st.st_mode & S_IFMT != S_IFDIR else { continue }
            if isExecutable(candidate) { return nil }
            if notExecutable == nil { notExecutable = candidate }
        }
        let shownPath = searchPath.map { "PATH=\($0)" } ?? "PATH unset: /bin:/usr/bin"
        if let notExecutable { return "program \"\(program)\" is not executable: \(notExecutable) (\(shownPath))" }
        return "program \"\(program)\" not found in PATH (\(shownPath))"
    }

    /// A regular file with an execute bit the program may use (`access` alone says yes to root
    /// for any file with one bit set, which is also what `exec` accepts).
    static func isExecutable(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_mode & 0o111 != 0 else { return false }
        return access(path, X_OK) == 0
    }

    /// The folder a path is in: `a/b` -> `a`, `/a` -> `/`, `b` -> `.`.
    package static func parent(of path: String) -> String {
        var p = Substring(path)
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        guard let slash = p.lastIndex(of: "/") else { return "." }
        if slash == p.startIndex { return "/" }
        return String(p[..<slash])
    }

    static func errorText() -> String { String(cString: strerror(errno)) }

    /// Everything left to read from `fd`, or nil on a read error (errno says which). The buffer
    /// is the size of the file when fstat knows it (a config is a few KB), not a fixed 64 KiB:
    /// zeroing and faulting in 16 fresh pages was a measurable part of `check`. The result is
    /// reserved at that size too: grown by doubling, a 5 MB config (10,000 sources) had 8.6 MB
    /// of buffers at once at the peak of loading it.
    package static func readAll(_ fd: Int32) -> [UInt8]? {
        var st = stat()
        let size = fstat(fd, &st) == 0 && st.st_size > 0 ? Int(st.st_size) : 0
        var out: [UInt8] = []
        out.reserveCapacity(size + 1)
        var buf = [UInt8](repeating: 0, count: min(max(size + 1, 4096), 65536))
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { return out }
            out.append(contentsOf: buf[0..<n])
        }
    }
}
