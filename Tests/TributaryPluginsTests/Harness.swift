import TributaryPlugins
import TributaryTestSupport

/// Every plugin test builds and fetches sources through this one harness, with the real registry.
let plugins = SourceHarness(registry: BuiltinRegistry.standard)
