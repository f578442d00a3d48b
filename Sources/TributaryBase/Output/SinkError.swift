/// Output that could not be written.
public struct SinkError: Error, CustomStringConvertible, Sendable {
    public let message: String
    /// The sink's reader went away (`readerGone`): the run stops quietly.
    public let isOutputClosed: Bool

    public init(_ message: String, outputClosed: Bool = false) {
        self.message = message
        self.isOutputClosed = outputClosed
    }

    /// What a sink throws when the reader of its output went away (`output` names it: `stdout`,
    /// `fd 5`, a socket): not a failure, the run stops quietly.
    public static func readerGone(_ output: String) -> SinkError {
        SinkError("\(output) was closed by its reader", outputClosed: true)
    }
    public var description: String { message }
}
