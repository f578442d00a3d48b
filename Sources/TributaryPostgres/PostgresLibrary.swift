import TributaryBase
import CPostgres

/// libpq, opened with `dlopen("libpq.so.5")` the first time a PostgreSQL state or sink connects
/// rather than linked: a binary that never talks to PostgreSQL (most runs, `--version`,
/// `check`) never loads libpq and the libraries it brings (GSSAPI, LDAP, OpenSSL).
///
/// Every libpq function the project calls has a slot in the C table `tributary_pq`
/// (Sources/CPostgres/shim.h), filled by the loader (`LibraryLoader`) from `dlsym`; Swift calls
/// libpq only through the shim's wrappers, which take the table.
struct PostgresLibrary: LoadedLibrary, @unchecked Sendable {
    /// libpq5 (PostgreSQL 14 and later: pipeline mode), the ABI the header describes. libpq needs no global
    /// initialisation.
    static let loader = LibraryLoader(
        tributary_pq(), soname: "libpq.so.5", neededBy: "PostgreSQL needs", name: "libpq", debianPackage: "libpq5", oldest: "libpq 14",
        slots: [
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
            (\.enterPipelineMode, "PQenterPipelineMode"),
            (\.exitPipelineMode, "PQexitPipelineMode"),
            (\.pipelineSync, "PQpipelineSync"),
            (\.sendQueryParams, "PQsendQueryParams"),
            (\.sendPrepare, "PQsendPrepare"),
            (\.sendQueryPrepared, "PQsendQueryPrepared"),
            (\.getResult, "PQgetResult"),
        ])

    let api: UnsafePointer<tributary_pq>

    /// `PQlibVersion()`, e.g. `15.18` (major * 10000 + minor).
    var version: String {
        let v = Int(tributary_pq_lib_version(api))
        return "\(v / 10000).\(v % 10000)"
    }
}
