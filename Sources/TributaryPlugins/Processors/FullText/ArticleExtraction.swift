import TributaryPluginKit

/// What `ArticleExtractor` found on a page: the parts that make its article, for
/// `HTMLSanitizer.render(doc, blocks: blocks, skipping: skipping)`.
public struct ArticleExtraction: Sendable, Equatable {
    /// The article's containers, in document order, none inside another.
    public let blocks: [HTMLDocument.Node]
    /// Nodes inside `blocks` that are not article text (share bars, ads, related links,
    /// comments, the headline, bylines, ...), each left out with its subtree. Only the highest
    /// node of a left-out subtree is listed.
    public let skipping: Set<HTMLDocument.Node>

    public init(blocks: [HTMLDocument.Node], skipping: Set<HTMLDocument.Node>) {
        self.blocks = blocks
        self.skipping = skipping
    }
}
