import TributaryPluginKit
#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `stdout`: one readable line per item (kind, local time, title, url), or JSON Lines.
public final class StdoutSink: Sink {
    public static let descriptor = SinkDescriptor(type: "stdout", summary: "items on standard output, readable text or JSON Lines", options: [format], aliases: ["console", "terminal", "print"]) { reader in
        StdoutSink(format: reader[format], output: .standardOutput)
    }

    static let format = Option.choice("format", Format.self, "text: one readable line per item; jsonl: Docs/contract.md#items").defaulted(.text)

    public enum Format: String, CaseIterable, Sendable { case text, jsonl }
    let format: Format
    let output: FDOutput
    /// The item lines of the run (`SinkContext.lines`), set by `open`.
    private let lines = Locked(ItemLines.standard)

    public init(format: Format, output: FDOutput) {
        self.format = format
        self.output = output
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        lines.withLock { $0 = context.lines }
    }

    public func write(_ items: [Item]) throws(SinkError) {
        let lines = self.lines.withLock { $0 }
        var buf: [UInt8] = []
        buf.reserveCapacity(FDOutput.chunkSize + 4096)
        for item in items {
            switch format {
            case .jsonl: item.appendJSON(into: &buf)
            case .text: buf.append(contentsOf: lines.line(item).utf8)
            }
            buf.append(0x0A)
            if buf.count >= FDOutput.chunkSize {
                try output.write(buf)
                buf.removeAll(keepingCapacity: true)
            }
        }
        if !buf.isEmpty { try output.write(buf) }
    }

    public func close() throws(SinkError) {}

}
