import TributaryCore
import TributaryPluginKit
import CNATS

/// The NATS C client (libnats), opened with `dlopen("libnats.so.3.4")` when a `nats` sink first
/// connects rather than linked: it brings libssl, libcrypto and libprotobuf-c with it, and a
/// start that never publishes (`--version`, `check`, every config without a nats sink) should
/// not pay the dynamic loader for them.
///
/// Every libnats function the project calls has a slot in the C table `tributary_nats`
/// (Sources/CNATS/shim.h), filled by the loader (`LibraryLoader`) from `dlsym`; Swift calls
/// libnats only through the shim's wrappers, which take the table, from any thread (libnats's
/// own threads call back into code that reads it).
struct NATSLibrary: LoadedLibrary, @unchecked Sendable {
    /// Debian 12's libnats3.4 (libnats-dev 3.4.1), the ABI the headers describe. libnats
    /// initialises itself on first use.
    static let loader = LibraryLoader(
        tributary_nats(), soname: "libnats.so.3.4", neededBy: "the nats sink needs", name: "the NATS C client", debianPackage: "libnats3.4",
        oldest: "libnats 3.4",
        slots: [
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
        ])

    let api: UnsafePointer<tributary_nats>

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
