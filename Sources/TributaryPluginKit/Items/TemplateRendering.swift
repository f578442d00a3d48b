import TributaryCore

/// How the sinks that take a `template` (Docs/templates.md) run it on a batch: each item with
/// its outputs in order. An item whose template fails (jq's runtime error, the time limit)
/// fails the same way on every run, so it is rejected (`SinkContext.reject`: recorded as
/// delivered, counted, and warned about, naming the sink, the item and jq's message) and the
/// rest of the batch is written.
public enum TemplateRendering {
    /// What names output `index` (from 0) of the item `itemID` where one id per message is
    /// needed (the webhook's Idempotency-Key, the nats message id): the item's id for the
    /// first, `<id>#2`, `<id>#3`, ... for the others.
    public static func outputID(_ itemID: String, _ index: Int) -> String {
        index == 0 ? itemID : "\(itemID)#\(index + 1)"
    }

    public static func render(_ items: [Item], with template: any ItemTemplate, context: SinkContext, sink: String) -> [(item: Item, outputs: [TemplateOutput])] {
        var out: [(item: Item, outputs: [TemplateOutput])] = []
        out.reserveCapacity(items.count)
        for item in items {
            switch template.render(item) {
            case .success(let outputs): out.append((item, outputs))
            case .failure(let e): context.reject(item, reason: "\(sink): its template failed on this item: \(e.message); not written")
            }
        }
        return out
    }
}
