#if canImport(Glibc)
import Glibc
#endif

/// A C library opened at run time with `dlopen` instead of being linked, so a process that never
/// needs it never pays the dynamic loader for it and its dependencies (libcurl alone drags in
/// about 30 libraries: about 8 ms at every start). Opened libraries are never closed. Each
/// library is opened and bound to its C function table through its `LibraryLoader`.
package struct SharedLibrary: @unchecked Sendable {
    /// Why a library or one of its functions could not be had; `message` names the library and
    /// carries the loader's own text (`dlerror`).
    package struct LoadError: Error, Sendable, CustomStringConvertible, Equatable {
        package let message: String
        package var description: String { message }
        package init(message: String) { self.message = message }
    }

    package let soname: String
    private let handle: UnsafeMutableRawPointer

    /// `dlopen(soname, RTLD_LAZY | RTLD_LOCAL)`: found the way the dynamic loader finds any
    /// library; functions are bound on first call, as they were when the library was linked.
    package static func open(_ soname: String) -> Result<SharedLibrary, LoadError> {
        _ = dlerror()
        guard let h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL) else {
            return .failure(LoadError(message: loaderError() ?? "\(soname): dlopen failed"))
        }
        return .success(SharedLibrary(soname: soname, handle: h))
    }

    /// Fills a C function table: each slot gets `dlsym(name)`. Fails on the first missing name.
    package func bind<Table>(_ table: UnsafeMutablePointer<Table>, _ slots: [(WritableKeyPath<Table, UnsafeMutableRawPointer?>, String)]) -> Result<Void, LoadError> {
        for (slot, name) in slots {
            _ = dlerror()
            guard let p = dlsym(handle, name) else {
                return .failure(LoadError(message: "\(soname) has no \(name): \(Self.loaderError() ?? "dlsym failed")"))
            }
            table.pointee[keyPath: slot] = p
        }
        return .success(())
    }

    private static func loaderError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}
