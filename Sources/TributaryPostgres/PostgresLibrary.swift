import TributaryBase
import CPostgres

/// libpq, opened with `dlopen("libpq.so.5")` the first time a PostgreSQL state or sink connects
/// rather than linked: a binary that never talks to PostgreSQL (most runs, `--version`,
/// `check`) never loads libpq and the libraries it brings (GSSAPI, LDAP, OpenSSL).
///
/// Every libpq function the project calls has a slot in the C table `tributary_pq`
/// (Sources/CPostgres/shim.h), filled here from `dlsym`; Swift calls libpq only through the
/// shim's wrappers, which take the table. The table is written once, before it is shared, and
/// never changes or goes away, so it may be read from any thread.
struct PostgresLibrary: @unchecked Sendable {
    /// The libpq ABI the header describes (libpq5: PostgreSQL 10 and later).
    static let soname = "libpq.so.5"

    let api: UnsafePointer<tributary_pq>

    /// The symbol behind each slot of `tributary_pq`.
    static var slots: [(WritableKeyPath<tributary_pq, UnsafeMutableRawPointer?>, String)] { [
        (\.connectdb, "PQconnectdb"),
        (\.status, "PQstatus"),
        (\.errorMessage, "PQerrorMessage"),
        (\.finish, "PQfinish"),
        (\.reset, "PQreset"),
        (\.transactionStatus, "PQtransactionStatus"),
        (\.serverVersion, "PQserverVersion"),
        (\.setNoticeProcessor, "PQsetNoticeProcessor"),
        (\.execParams, "PQexecParams"),
        (\.resultStatus, "PQresultStatus"),
        (\.resultErrorMessage, "PQresultErrorMessage"),
        (\.resultErrorField, "PQresultErrorField"),
        (\.ntuples, "PQntuples"),
        (\.nfields, "PQnfields"),
        (\.getvalue, "PQgetvalue"),
        (\.getlength, "PQgetlength"),
        (\.getisnull, "PQgetisnull"),
        (\.cmdTuples, "PQcmdTuples"),
        (\.clear, "PQclear"),
        (\.libVersion, "PQlibVersion"),
    ] }

    /// nil until the first `shared()`; then that call's outcome, kept (a failed load is not
    /// retried on every connection attempt).
    private static let state = Locked<Result<PostgresLibrary, SharedLibrary.LoadError>?>(nil)

    /// The process's libpq: the first call opens it and binds the table, under one lock; later
    /// calls return the same library, or the same error. libpq needs no global initialisation.
    static func shared() -> Result<PostgresLibrary, SharedLibrary.LoadError> {
        state.withLock { s in
            if let s { return s }
            let r = open(soname)
            s = r
            return r
        }
    }

    /// Opens `soname` and binds every slot. Internal so tests can try a library that does not exist.
    static func open(_ soname: String) -> Result<PostgresLibrary, SharedLibrary.LoadError> {
        let opened = SharedLibrary.open(soname).mapError { e in
            SharedLibrary.LoadError(message: "PostgreSQL needs libpq (\(soname), Debian package libpq5), which could not be loaded: \(e.message)")
        }
        return opened.flatMap { lib in
            let table = UnsafeMutablePointer<tributary_pq>.allocate(capacity: 1)
            table.initialize(to: tributary_pq())
            switch lib.bind(table, slots) {
            case .success:
                return .success(PostgresLibrary(api: UnsafePointer(table)))
            case .failure(let e):
                table.deallocate()
                return .failure(SharedLibrary.LoadError(message: "PostgreSQL needs libpq 10 or later: \(e.message)"))
            }
        }
    }

    /// `PQlibVersion()`, e.g. `15.18` (major * 10000 + minor).
    var version: String {
        let v = Int(tributary_pq_lib_version(api))
        return "\(v / 10000).\(v % 10000)"
    }
}
