import TributaryCore
import TributaryPluginKit
import CNATS

/// The NATS C client (libnats), opened with `dlopen("libnats.so.3.4")` when a `nats` sink first
/// connects rather than linked: it brings libssl, libcrypto and libprotobuf-c with it, and a
/// start that never publishes (`--version`, `check`, every config without a nats sink) should
/// not pay the dynamic loader for them.
///
/// Every libnats function the project calls has a slot in the C table `tributary_nats`
/// (Sources/CNATS/shim.h), filled here from `dlsym`; Swift calls libnats only through the
/// shim's wrappers, which take the table. The table is written once, before it is shared, and
/// never changes or goes away, so it may be read from any thread (libnats's own threads call
/// back into code that reads it).
struct NATSLibrary: @unchecked Sendable {
    /// The libnats ABI the headers describe: Debian 12's libnats3.4 (libnats-dev 3.4.1).
    static let soname = "libnats.so.3.4"

    let api: UnsafePointer<tributary_nats>

    /// The symbol behind each slot of `tributary_nats` (the slot's own name).
    static var slots: [(WritableKeyPath<tributary_nats, UnsafeMutableRawPointer?>, String)] { [
        (\.nats_GetVersion, "nats_GetVersion"),
        (\.nats_GetLastError, "nats_GetLastError"),
        (\.natsStatus_GetText, "natsStatus_GetText"),
        (\.natsOptions_Create, "natsOptions_Create"),
        (\.natsOptions_Destroy, "natsOptions_Destroy"),
        (\.natsOptions_SetURL, "natsOptions_SetURL"),
        (\.natsOptions_SetName, "natsOptions_SetName"),
        (\.natsOptions_SetTimeout, "natsOptions_SetTimeout"),
        (\.natsOptions_SetMaxReconnect, "natsOptions_SetMaxReconnect"),
        (\.natsOptions_SetReconnectWait, "natsOptions_SetReconnectWait"),
        (\.natsOptions_SetReconnectedCB, "natsOptions_SetReconnectedCB"),
        (\.natsOptions_SetDisconnectedCB, "natsOptions_SetDisconnectedCB"),
        (\.natsConnection_Connect, "natsConnection_Connect"),
        (\.natsConnection_Destroy, "natsConnection_Destroy"),
        (\.natsConnection_GetMaxPayload, "natsConnection_GetMaxPayload"),
        (\.natsConnection_JetStream, "natsConnection_JetStream"),
        (\.jsCtx_Destroy, "jsCtx_Destroy"),
        (\.jsOptions_Init, "jsOptions_Init"),
        (\.jsPubOptions_Init, "jsPubOptions_Init"),
        (\.jsStreamConfig_Init, "jsStreamConfig_Init"),
        (\.js_GetStreamInfo, "js_GetStreamInfo"),
        (\.js_AddStream, "js_AddStream"),
        (\.jsStreamInfo_Destroy, "jsStreamInfo_Destroy"),
        (\.natsMsg_Create, "natsMsg_Create"),
        (\.natsMsg_Destroy, "natsMsg_Destroy"),
        (\.natsMsg_GetSubject, "natsMsg_GetSubject"),
        (\.natsMsgHeader_Set, "natsMsgHeader_Set"),
        (\.natsMsgHeader_Get, "natsMsgHeader_Get"),
        (\.js_PublishMsgAsync, "js_PublishMsgAsync"),
        (\.js_PublishAsyncComplete, "js_PublishAsyncComplete"),
        (\.js_PublishAsyncGetPendingList, "js_PublishAsyncGetPendingList"),
        (\.natsMsgList_Destroy, "natsMsgList_Destroy"),
    ] }

    /// nil until the first `shared()`; then that call's outcome, kept (a failed load is not
    /// retried for every connection).
    private static let state = Locked<Result<NATSLibrary, SharedLibrary.LoadError>?>(nil)

    /// The process's libnats, opened and bound by the first call (under one lock); later calls
    /// return the same library, or the same error. libnats initialises itself on first use.
    static func shared() -> Result<NATSLibrary, SharedLibrary.LoadError> {
        state.withLock { s in
            if let s { return s }
            let r = open(soname)
            s = r
            return r
        }
    }

    /// Opens `soname` and binds every slot. Internal so tests can try a library that does not exist.
    static func open(_ soname: String) -> Result<NATSLibrary, SharedLibrary.LoadError> {
        let opened = SharedLibrary.open(soname).mapError { e in
            SharedLibrary.LoadError(message: "the nats sink needs the NATS C client (\(soname), Debian package libnats3.4), which could not be loaded: \(e.message)")
        }
        return opened.flatMap { lib in
            let table = UnsafeMutablePointer<tributary_nats>.allocate(capacity: 1)
            table.initialize(to: tributary_nats())
            switch lib.bind(table, slots) {
            case .success:
                return .success(NATSLibrary(api: UnsafePointer(table)))
            case .failure(let e):
                table.deallocate()
                return .failure(SharedLibrary.LoadError(message: "the nats sink needs libnats 3.4 or later: \(e.message)"))
            }
        }
    }

    /// `nats_GetVersion()`, e.g. `3.4.1`.
    var version: String {
        guard let v = tributary_nats_version(api) else { return "unknown" }
        return String(cString: v)
    }

    /// The text of a status code, e.g. `No server available for connection`.
    func text(_ status: natsStatus) -> String {
        guard let t = tributary_nats_status_text(api, status) else { return "status \(status.rawValue)" }
        return String(cString: t)
    }

    /// libnats's last error on this thread (more detail than `text`), or nil; without the
    /// source location libnats puts first (`(conn.c:1234): `).
    var lastError: String? {
        guard let e = tributary_nats_last_error(api) else { return nil }
        var s = Substring(String(cString: e))
        if s.hasPrefix("("), let end = s.firstRange(of: "): "), !s[..<end.lowerBound].contains(" ") { s = s[end.upperBound...] }
        return s.isEmpty ? nil : String(s)
    }
}
