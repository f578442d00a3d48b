import Foundation
import TributaryCore

/// Reads JetStream streams back with a real NATS client that is not ours: nats-py (PyPI), run
/// from the venv `make test-tools` creates (`.build/test-tools/venv`, or `$TRIBUTARY_TEST_PYTHON`).
/// Each call is one short Python process; messages are fetched one by one by sequence
/// (`STREAM.MSG.GET`), so keep streams read this way small (a count alone is one request).
public enum NATSReader {
    /// One stored message.
    public struct Message: Sendable, Equatable {
        public let sequence: Int
        public let subject: String
        /// The `Nats-Msg-Id` header (nil when absent).
        public let id: String?
        public let data: String
    }

    /// What a stream holds and how it is configured.
    public struct Stream: Sendable {
        public let name: String
        public let count: Int
        public let subjects: [String]
        /// Seconds.
        public let duplicateWindow: Double
        /// Every message, in sequence order (empty when asked for the count only).
        public let messages: [Message]
    }

    public static var python: String {
        if let p = ProcessInfo.processInfo.environment["TRIBUTARY_TEST_PYTHON"], !p.isEmpty { return p }
        return BinaryRunner.packageRoot + "/.build/test-tools/venv/bin/python3"
    }

    static let script = #"""
    import asyncio, json, sys
    import nats
    from nats.js.errors import NotFoundError

    async def main():
        url, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3:]
        nc = await nats.connect(url, connect_timeout=5, allow_reconnect=False)
        js = nc.jetstream(timeout=5)
        out = None
        if cmd in ("read", "count"):
            try:
                info = await js.stream_info(args[0])
            except NotFoundError:
                out = None
            else:
                out = {"name": info.config.name, "count": info.state.messages, "subjects": info.config.subjects or [],
                       "duplicate_window": info.config.duplicate_window or 0, "messages": []}
                if cmd == "read" and info.state.messages > 0:
                    for seq in range(info.state.first_seq, info.state.last_seq + 1):
                        m = await js.get_msg(args[0], seq)
                        out["messages"].append({"seq": m.seq, "subject": m.subject,
                                                "id": (m.headers or {}).get("Nats-Msg-Id"), "data": m.data.decode()})
        elif cmd == "add-stream":
            await js.add_stream(name=args[0], subjects=args[1:])
            out = True
        elif cmd == "streams":
            out = sorted(s.config.name for s in await js.streams_info())
        print(json.dumps(out))
        await nc.close()

    asyncio.run(main())
    """#

    static func call(_ url: String, _ args: [String]) throws -> JSONValue {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw RunnerError(message: "no Python with nats-py at \(python): run `make test-tools`")
        }
        let r = try Shell.run([python, "-c", script, url] + args, timeout: 30)
        guard r.status == 0 else { throw RunnerError(message: "nats-py \(args.joined(separator: " ")) failed (\(r.status)): \(r.stderr)") }
        return try JSONParser.parse(Array(r.stdout.utf8))
    }

    /// The stream with every message, or nil when there is no such stream.
    public static func read(_ url: String, stream: String) throws -> Stream? {
        try decode(call(url, ["read", stream]))
    }

    /// The stream's configuration and message count, without its messages.
    public static func count(_ url: String, stream: String) throws -> Stream? {
        try decode(call(url, ["count", stream]))
    }

    /// Creates a stream on `subjects` with the server's defaults (duplicate window 2m).
    public static func addStream(_ url: String, name: String, subjects: [String]) throws {
        _ = try call(url, ["add-stream", name] + subjects)
    }

    /// The names of every stream on the server.
    public static func streams(_ url: String) throws -> [String] {
        (try call(url, ["streams"]).arrayValue ?? []).compactMap(\.stringValue)
    }

    private static func decode(_ v: JSONValue) -> Stream? {
        guard let o = v.objectValue else { return nil }
        let messages = (o["messages"]?.arrayValue ?? []).compactMap { m -> Message? in
            guard let m = m.objectValue else { return nil }
            return Message(sequence: Int(m["seq"]?.numberValue?.int64 ?? 0), subject: m["subject"]?.stringValue ?? "",
                           id: m["id"]?.stringValue, data: m["data"]?.stringValue ?? "")
        }
        return Stream(name: o["name"]?.stringValue ?? "", count: Int(o["count"]?.numberValue?.int64 ?? 0),
                      subjects: (o["subjects"]?.arrayValue ?? []).compactMap(\.stringValue),
                      duplicateWindow: o["duplicate_window"]?.numberValue?.double ?? 0, messages: messages)
    }
}
