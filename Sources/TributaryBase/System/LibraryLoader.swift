import Synchronization

/// A C library opened at run time (`SharedLibrary`) and bound to its C function table: the one
/// way the program loads libcurl, libcrypto, libxml2, libpq, libnats, PCRE2 and libjq, none of which is
/// linked. Each library declares one loader: its soname, the symbol behind each slot of its
/// table, who needs it and the Debian package that installs it, and what to do once after
/// binding (libcurl's global init, libxml2's parser init).
///
/// The first `load()` opens the library, binds every slot and runs the set-up, all under one
/// lock, so no other thread reaches the library before it is ready (they wait on the lock). Its
/// outcome is kept: later calls return the same table, or the same error (a failed load is not
/// retried on every use), without taking the lock. The table is written once, before it is
/// published, and never changes or goes away.
///
/// Threading rule (why `@unchecked Sendable` is sound): every stored property is a constant but
/// `outcome`, which is set once, under `first` (which keeps it too), and read through an atomic reference (release,
/// then acquire), so a reader sees the table completely written.
package final class LibraryLoader<Table>: @unchecked Sendable {
    /// Each slot of the table with the name of the symbol that fills it.
    package typealias Slots = [(WritableKeyPath<Table, UnsafeMutableRawPointer?>, String)]

    /// The library's ABI as the dynamic loader names it (`libcurl.so.4`).
    package let soname: String
    private let empty: Table
    private let makeSlots: @Sendable () -> Slots
    private let neededBy: String
    private let name: String
    private let debianPackage: String
    private let oldest: String?
    private let setUp: @Sendable (UnsafePointer<Table>) -> SharedLibrary.LoadError?

    private final class Outcome: @unchecked Sendable {
        let result: Result<UnsafePointer<Table>, SharedLibrary.LoadError>
        init(_ result: Result<UnsafePointer<Table>, SharedLibrary.LoadError>) { self.result = result }
    }
    private let outcome = AtomicLazyReference<Outcome>()
    /// The first load's lock, holding its outcome. Not a `Locked(())`: under ThreadSanitizer
    /// the access to a lock's zero-sized value was reported outside the lock (a race between two
    /// first loads of libxml2, which the lock did keep apart).
    private let first = Locked<Outcome?>(nil)

    /// - `empty`: the table with every slot nil (the C struct's zero value).
    /// - `neededBy`, `name`, `debianPackage`: the error when the library cannot be opened says
    ///   `<neededBy> <name> (<soname>, Debian package <debianPackage>), which could not be
    ///   loaded: <the loader's reason>` (`HTTP needs libcurl (libcurl.so.4, Debian package
    ///   libcurl4), ...`).
    /// - `oldest`: the oldest version that has every symbol (`libcurl 7.68`); a missing symbol
    ///   then says `<neededBy> <oldest> or later: <soname> has no <symbol>`.
    /// - `slots`: built on the first load only (a start that never loads the library never
    ///   builds its list).
    /// - `setUp`: runs once, after binding, before anyone else gets the table; an error it
    ///   returns is the load's.
    package init(_ empty: Table, soname: String, neededBy: String, name: String, debianPackage: String, oldest: String? = nil,
                 slots: @autoclosure @escaping @Sendable () -> Slots,
                 setUp: @escaping @Sendable (UnsafePointer<Table>) -> SharedLibrary.LoadError? = { _ in nil }) {
        self.empty = empty
        self.soname = soname
        self.makeSlots = slots
        self.neededBy = neededBy
        self.name = name
        self.debianPackage = debianPackage
        self.oldest = oldest
        self.setUp = setUp
    }

    /// The symbol behind each slot.
    package var slots: Slots { makeSlots() }

    /// The process's table of this library: the first call opens, binds and sets it up; later
    /// calls return the same table, or the same error.
    package func load() -> Result<UnsafePointer<Table>, SharedLibrary.LoadError> {
        if let done = outcome.load() { return done.result }
        return first.withLock { done in
            if let done { return done.result }
            let result = open(soname).flatMap { api in setUp(api).map { .failure($0) } ?? .success(api) }
            let kept = outcome.storeIfNil(Outcome(result))
            done = kept
            return kept.result
        }
    }

    /// The table if `load()` has loaded it; never loads.
    package var loaded: UnsafePointer<Table>? {
        guard case .success(let api)? = outcome.load()?.result else { return nil }
        return api
    }

    /// Opens `soname` and binds every slot, without the set-up and without keeping the outcome:
    /// `load()`'s first step, and how tests try a library that does not exist.
    package func open(_ soname: String) -> Result<UnsafePointer<Table>, SharedLibrary.LoadError> {
        let opened = SharedLibrary.open(soname).mapError { e in
            SharedLibrary.LoadError(message: "\(neededBy) \(name) (\(soname), Debian package \(debianPackage)), which could not be loaded: \(e.message)")
        }
        return opened.flatMap { lib in
            let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
            table.initialize(to: empty)
            switch lib.bind(table, makeSlots()) {
            case .success:
                return .success(UnsafePointer(table))
            case .failure(let e):
                table.deinitialize(count: 1)
                table.deallocate()
                return .failure(oldest.map { SharedLibrary.LoadError(message: "\(neededBy) \($0) or later: \(e.message)") } ?? e)
            }
        }
    }
}

/// A library's Swift side: its table (`api`), which its wrappers take, and the loader that
/// fills it. The conforming type adds what it says about the library (a version, an error
/// text).
package protocol LoadedLibrary: Sendable {
    associatedtype Table
    static var loader: LibraryLoader<Table> { get }
    var api: UnsafePointer<Table> { get }
    init(api: UnsafePointer<Table>)
}

extension LoadedLibrary {
    package static var soname: String { loader.soname }
    package static var slots: LibraryLoader<Table>.Slots { loader.slots }

    /// The process's library (`LibraryLoader.load`).
    package static func shared() -> Result<Self, SharedLibrary.LoadError> { loader.load().map(Self.init(api:)) }

    /// The library if `shared()` has loaded it; never loads.
    package static var ifLoaded: Self? { loader.loaded.map(Self.init(api:)) }

    /// `soname` opened and bound, nothing more (`LibraryLoader.open`).
    package static func open(_ soname: String) -> Result<Self, SharedLibrary.LoadError> { loader.open(soname).map(Self.init(api:)) }
}
