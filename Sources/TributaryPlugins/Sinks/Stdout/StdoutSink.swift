import TributaryPluginKit
#if canImport(Glibc)
import Glibc
#endif
import TributaryCore

/// `stdout`: one readable line per item (kind, local time, title, url), or JSON Lines; with a
/// `template`, each of its outputs as a line (a string as it is, any other value as compact
/// JSON), and nothing for an item it gives no output for.
public final class StdoutSink: Sink {
    public static let descriptor = SinkDescriptor(type: "stdout", summary: "items on standard output, readable text or JSON Lines, or what a template makes",
                                                  options: [format], aliases: ["console", "terminal", "print"],
                                                  makeWithTemplate: { reader, template in StdoutSink(format: reader[format], output: .standardOutput, template: template) })

    static let format = Option.choice("format", Format.self, "text: one readable line per item; jsonl: Docs/contract.md#items").defaulted(.text)

    public enum Format: String, CaseIterable, Sendable { case text, jsonl }
    let format: Format
    let output: FDOutput
    /// The compiled `template` (Docs/templates.md): `format` is then not used.
    let template: (any ItemTemplate)?
    /// The run's context (`SinkContext`: its item lines, where a failing template rejects),
    /// set by `open`.
    private let context = Locked(SinkContext(window: nil))

    public init(format: Format, output: FDOutput, template: (any ItemTemplate)? = nil) {
        self.format = format
        self.output = output
        self.template = template
    }

    public func open(_ context: SinkContext) throws(SinkError) {
        self.context.withLock { $0 = context }
    }

    public func write(_ items: [Item]) throws(SinkError) {
        let context = self.context.withLock { $0 }
        let lines = context.lines
        var buf: [UInt8] = []
        // About a line's worth an item, up to a chunk: a chunk's reserve for every batch was
        // 1 MiB allocated a source in a run of many one-item sources.
        buf.reserveCapacity(min(FDOutput.chunkSize + 4096, items.count * 1024))
        if let template {
            for (_, outputs) in TemplateRendering.render(items, with: template, context: context, sink: "stdout") {
                for o in outputs {
                    buf.append(contentsOf: o.text)
                    buf.append(0x0A)
                }
                if buf.count >= FDOutput.chunkSize {
                    try output.write(buf)
                    buf.removeAll(keepingCapacity: true)
                }
            }
            if !buf.isEmpty { try output.write(buf) }
            return
        }
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
