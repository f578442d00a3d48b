// The engine's API includes the lower layers' types (items hold timestamps, sources parse
// JSON and fetch through HTTP, the engine talks to a state backend): a module that imports the
// engine sees them too, as swift-nio's `NIO` re-exports `NIOCore`.
@_exported import TributaryBase
@_exported import TributaryJSON
@_exported import TributaryOptions
@_exported import TributaryHTTP
@_exported import TributaryState
