import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where the dynamic loader would find a library, without loading it, and what its read-only
/// data says. Used to report a library's version cheaply (see `CurlTransport.curlVersion`).
package enum LibraryFile {
    /// The file `dlopen(soname)` from the main program would open, or nil when none is found.
    ///
    /// The order is ld.so's: the directories of its own search list for the program, as
    /// `dlinfo(RTLD_DI_SERINFO)` reports them (LD_LIBRARY_PATH unless the process is setuid,
    /// then the program's RUNPATH with `$ORIGIN` expanded), then /etc/ld.so.cache, then the
    /// system directories (the tail of that list: /lib, /usr/lib and their subfolders such as
    /// /lib/x86_64-linux-gnu). Not covered: glibc-hwcaps subfolders and hwcaps cache entries
    /// (ld.so may prefer an x86-64-v3 build there; Debian ships none for the libraries used here).
    package static func locate(_ soname: String) -> String? {
        let dirs = searchDirectories()
        var systemStart = dirs.count
        while systemStart > 0 && isSystemDirectory(dirs[systemStart - 1]) { systemStart -= 1 }
        for dir in dirs[..<systemStart] {
            let path = join(dir, soname)
            if isReadableFile(path) { return path }
        }
        if let cached = cacheLookup(soname), isReadableFile(cached) { return cached }
        for dir in dirs[systemStart...] {
            let path = join(dir, soname)
            if isReadableFile(path) { return path }
        }
        return nil
    }

    // Byte-level string checks here: this runs for `--version`, and String's hasPrefix/contains
    // resolve to Foundation's NSString versions in this module, whose first use is costly.
    private static func join(_ dir: String, _ name: String) -> String {
        dir.utf8.last == UInt8(ascii: "/") ? dir + name : dir + "/" + name
    }

    /// ld.so's search list for libraries the main program opens, in order.
    static func searchDirectories() -> [String] {
        guard let me = dlopen(nil, RTLD_LAZY) else { return [] }
        var head = Dl_serinfo()
        guard dlinfo(me, Int32(RTLD_DI_SERINFOSIZE), &head) == 0, head.dls_size >= MemoryLayout<Dl_serinfo>.size else { return [] }
        let size = Int(head.dls_size)
        let count = Int(head.dls_cnt)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<Dl_serinfo>.alignment)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        raw.storeBytes(of: head, as: Dl_serinfo.self)
        guard dlinfo(me, Int32(RTLD_DI_SERINFO), raw) == 0 else { return [] }
        // Dl_serinfo ends in its array of Dl_serpath, declared with one element, which Swift
        // imports as a tuple (no key-path offset), so the array starts one element before the end.
        let entries = (raw + (MemoryLayout<Dl_serinfo>.size - MemoryLayout<Dl_serpath>.stride)).assumingMemoryBound(to: Dl_serpath.self)
        return (0..<count).compactMap { i in entries[i].dls_name.map { String(cString: $0) } }
    }

    /// glibc's built-in directories are /lib, /usr/lib (and lib64) and, on multiarch systems,
    /// one level below them.
    static func isSystemDirectory(_ dir: String) -> Bool {
        let slash = UInt8(ascii: "/")
        var d = Array(dir.utf8)
        while d.count > 1 && d.last == slash { d.removeLast() }
        for root in ["/lib", "/usr/lib", "/lib64", "/usr/lib64"] {
            let r = Array(root.utf8)
            if d == r { return true }
            if d.count > r.count + 1, d.starts(with: r), d[r.count] == slash, !d[(r.count + 1)...].contains(slash) { return true }
        }
        return false
    }

    /// The path /etc/ld.so.cache (glibc's "glibc-ld.so.cache1.1" format) gives `soname` for
    /// this machine's architecture, skipping glibc-hwcaps entries.
    static func cacheLookup(_ soname: String, cache: String = "/etc/ld.so.cache") -> String? {
        #if arch(x86_64)
        let wanted: Int32 = 0x0303  // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64
        #elseif arch(arm64)
        let wanted: Int32 = 0x0a03  // FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64
        #else
        return nil
        #endif
        guard let bytes = readFile(cache, limit: 64 << 20) else { return nil }
        let magic = Array("glibc-ld.so.cache1.1".utf8)
        let headerSize = 48, entrySize = 24
        guard bytes.count >= headerSize, Array(bytes[0..<magic.count]) == magic else { return nil }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        func cString(_ at: Int) -> [UInt8]? {
            guard at < bytes.count, let end = bytes[at...].firstIndex(of: 0) else { return nil }
            return Array(bytes[at..<end])
        }
        func isKey(_ at: Int) -> Bool {  // the NUL-terminated string at `at` is `key`, no copy
            guard at >= 0, at + key.count < bytes.count else { return false }
            for k in 0..<key.count where bytes[at + k] != key[k] { return false }
            return bytes[at + key.count] == 0
        }
        let count = Int(u32(20))
        guard headerSize + count * entrySize <= bytes.count else { return nil }
        let key = Array(soname.utf8)
        for i in 0..<count {
            let e = headerSize + i * entrySize
            let flags = Int32(bitPattern: u32(e))
            let hwcap = UInt64(u32(e + 16)) | UInt64(u32(e + 20)) << 32
            guard flags == wanted, hwcap == 0, isKey(Int(u32(e + 4))), let value = cString(Int(u32(e + 8))) else { continue }
            return String(decoding: value, as: UTF8.self)
        }
        return nil
    }

    /// The version that follows `prefix` (e.g. `libcurl/`) in the library's read-only data:
    /// digits first, then letters, digits, `.`, `-`, `+`, `_` or `~`. Reads only `.rodata` of a
    /// 64-bit little-endian ELF file; anything else is searched whole (up to 64 MiB).
    package static func embeddedVersion(after prefix: String, inFile path: String) -> String? {
        guard let data = readOnlyData(path) else { return nil }
        let p = Array(prefix.utf8)
        guard !p.isEmpty, data.count > p.count else { return nil }
        return data.withUnsafeBufferPointer { buf -> String? in
            let base = buf.baseAddress!
            var i = 0
            // memchr to each candidate first byte, then compare the rest.
            while i + p.count < buf.count, let hit = memchr(base + i, Int32(p[0]), buf.count - p.count - i) {
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + at, p, p.count) == 0 {
                    var j = at + p.count
                    if j < buf.count, buf[j] >= UInt8(ascii: "0"), buf[j] <= UInt8(ascii: "9") {
                        let start = j
                        while j < buf.count, isVersionByte(buf[j]) { j += 1 }
                        return String(decoding: UnsafeBufferPointer(rebasing: buf[start..<j]), as: UTF8.self)
                    }
                }
                i = at + 1
            }
            return nil
        }
    }

    private static func isVersionByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// The `.rodata` section of an ELF64 little-endian file, else the whole file.
    static func readOnlyData(_ path: String) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        if let section = elfSection(fd, named: ".rodata") { return section }
        return readAll(fd, limit: 64 << 20)
    }

    private static func elfSection(_ fd: Int32, named name: String) -> [UInt8]? {
        guard let h = pread(fd, offset: 0, count: 64), h.count == 64,
              h[0] == 0x7f, h[1] == UInt8(ascii: "E"), h[2] == UInt8(ascii: "L"), h[3] == UInt8(ascii: "F"),
              h[4] == 2, h[5] == 1 else { return nil }  // ELFCLASS64, ELFDATA2LSB
        let shoff = le(h, 0x28, 8), shentsize = le(h, 0x3A, 2), shnum = le(h, 0x3C, 2), shstrndx = le(h, 0x3E, 2)
        guard shoff > 0, shentsize >= 64, shnum > 0, shnum < 65_280, shstrndx < shnum,
              let table = pread(fd, offset: shoff, count: shnum * shentsize), table.count == shnum * shentsize else { return nil }
        func header(_ i: Int) -> (name: Int, type: Int, offset: Int, size: Int) {
            let b = i * shentsize
            return (le(table, b, 4), le(table, b + 4, 4), le(table, b + 24, 8), le(table, b + 32, 8))
        }
        let strtab = header(shstrndx)
        guard strtab.size < 16 << 20, let names = pread(fd, offset: strtab.offset, count: strtab.size) else { return nil }
        let wanted = Array(name.utf8) + [0]
        for i in 0..<shnum {
            let s = header(i)
            guard s.type == 1, s.name + wanted.count <= names.count, Array(names[s.name..<s.name + wanted.count]) == wanted else { continue }  // SHT_PROGBITS
            guard s.size <= 64 << 20 else { return nil }
            return pread(fd, offset: s.offset, count: s.size)
        }
        return nil
    }

    private static func le(_ b: [UInt8], _ at: Int, _ n: Int) -> Int {
        var v = 0
        for k in (0..<n).reversed() { v = v << 8 | Int(b[at + k]) }
        return v
    }

    private static func pread(_ fd: Int32, offset: Int, count: Int) -> [UInt8]? {
        guard count >= 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: count) { buf, initialized in
            var done = 0
            while done < count {
                let n = Glibc.pread(fd, buf.baseAddress! + done, count - done, off_t(offset + done))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
            initialized = done
        }
    }

    static func readFile(_ path: String, limit: Int) -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    private static func readAll(_ fd: Int32, limit: Int) -> [UInt8]? {
        var st = stat()
        guard fstat(fd, &st) == 0, Int(st.st_size) <= limit else { return nil }
        return pread(fd, offset: 0, count: Int(st.st_size))
    }

    private static func isReadableFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && access(path, R_OK) == 0
    }
}
