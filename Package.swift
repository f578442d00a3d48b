// swift-tools-version:6.0
import PackageDescription
import Foundation

// A plugin's folder holds, beside its code, its doc page (README.md), its example configs
// (*.json), the example programs they run (*.py) and its recordings (recordings/): not
// sources of the target.
let pluginFiles: [String] = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources/TributaryPlugins").path
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    var out: [String] = []
    for case let path as String in walker {
        let name = (path as NSString).lastPathComponent
        if name == "recordings" { out.append(path); walker.skipDescendants() }
        else if name.hasSuffix(".md") || name.hasSuffix(".json") || name.hasSuffix(".py") { out.append(path) }
    }
    return out.sorted()
}()

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    // An expression the type checker needs more than 5 s of CPU for fails the build (the
    // compiler allows 600 s): one row of the `status` table, built of `+`s and `?:`s, took 18 s
    // of every build (debug, release and ThreadSanitizer alike) before it was split up.
    .unsafeFlags(["-Xfrontend", "-solver-expression-time-threshold=5"]),
]

// Where libxml2-dev puts <libxml/...> (what `pkg-config --cflags libxml-2.0` says on Debian),
// for the targets that import CXML: TributaryPlugins and the tests that import it @testable.
let libxml2Headers: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]

// The page walks of the HTML copy, the article extractor and the sanitizer read the document's
// arrays millions of times per run; the run-time exclusivity check of each access cost 4% of a
// fulltext run's CPU (perf). The compile-time checks stay; ThreadSanitizer covers the threads.
let uncheckedExclusivity: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"])]

let package = Package(
    name: "Tributary",
        products: [
        .executable(name: "tributary", targets: ["tributary"]),
        .library(name: "TributaryCore", targets: ["TributaryCore"]),
        .library(name: "TributaryPluginKit", targets: ["TributaryPluginKit"]),
        .library(name: "TributaryPlugins", targets: ["TributaryPlugins"]),
    ],
    targets: [
        // C shim over libcurl: a function table filled at run time (dlopen on first use, see
        // CurlLibrary.swift) and typed wrappers over it, nothing else. Headers only: no pkgConfig,
        // because SwiftPM would then link -lcurl and every start would load libcurl's ~30
        // libraries. Needs libcurl4-openssl-dev for <curl/curl.h>.
        .systemLibrary(name: "CCurl"),
        // dlinfo, Dl_serinfo and malloc_trim, which Swift's Glibc module hides (GNU extensions):
        // the base kit's.
        .systemLibrary(name: "CSystem"),
        // C shim over OpenSSL's libcrypto: digests for request signing and item ids, through a
        // function table filled at run time (dlopen on first digest, see Digest.swift); headers
        // only, from libssl-dev, for the same reason as CCurl.
        .systemLibrary(name: "CCrypto"),
        // C shim over the NATS C client (libnats): the nats sink's connection, through a function
        // table filled at run time (dlopen when a nats sink connects, see NATSLibrary.swift);
        // headers only, from libnats-dev, for the same reason as CCurl.
        .systemLibrary(name: "CNATS"),
        // C shim over PCRE2 (8-bit): filter rules' regular expressions, through a function table
        // filled at run time (dlopen on the first pattern, see RegexPattern.swift); headers only,
        // from libpcre2-dev.
        .systemLibrary(name: "CPCRE2"),
        // C shim over libxml2's SAX2 push parser (the feed source's RSS and Atom): a function
        // table filled at run time (dlopen on the first XML document, see XMLLibrary.swift) and
        // typed wrappers over it. Headers only, from libxml2-dev (libxml2Headers above): no
        // pkgConfig, which would link -lxml2, and every start would load libxml2 and ICU.
        .systemLibrary(name: "CXML"),
        // C shim over libjq (jq 1.6): jq programs in process, through a function table filled
        // at run time (dlopen on the first program, see JQLibrary.swift); headers only, from
        // libjq-dev, for the same reason as CCurl.
        .systemLibrary(name: "CJQ"),
        // C shim over libpq: PostgreSQL for the shared state and the postgres sink, through a
        // function table filled at run time (dlopen on first connection, see PostgresLibrary.swift);
        // headers only, from libpq-dev, for the same reason as CCurl.
        .systemLibrary(name: "CPostgres"),
        // C shim over SQLite: the state store's database.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The git commit the binary was built from (Makefile-generated header; "unknown" without it),
        // and argc/argv as the C runtime hands them over (a constructor: arguments.c).
        .target(name: "CBuildInfo"),
        // C shim over the process calls Swift cannot make (prctl, pidfd_open, waitid): child
        // processes that plugins run (TributaryPluginKit/Process).
        .systemLibrary(name: "CProcess"),
        // The base kit: locks and threads, files and output, durations and sizes, time, digests,
        // secrets and redaction, libraries opened at run time. No Foundation proper.
        .target(name: "TributaryBase", dependencies: ["CSystem", "CCrypto"], swiftSettings: strict),
        // The JSON layer: the tape parser, nodes, values, key paths, the writer.
        .target(name: "TributaryJSON", dependencies: ["TributaryBase"], swiftSettings: strict),
        // Option declarations and their reader: typed options, defaults, checks, diagnostics, the schema.
        .target(name: "TributaryOptions", dependencies: ["TributaryBase", "TributaryJSON"], swiftSettings: strict),
        // The HTTP layer: the curl transport, the client (retries, conditional GET through an
        // HTTPCache), record and replay.
        .target(name: "TributaryHTTP", dependencies: ["TributaryBase", "TributaryJSON", "TributaryOptions", "CCurl"], swiftSettings: strict),
        // A PostgreSQL connection over libpq: the shared state's and the postgres sink's.
        .target(name: "TributaryPostgres", dependencies: ["TributaryBase", "CPostgres"], swiftSettings: strict),
        // The state backends: the protocol, SQLite, PostgreSQL and in memory; and SQLiteConnection,
        // the sqlite sink's and `tributary search`'s connection (CSQLite is wrapped here only).
        .target(name: "TributaryState", dependencies: ["TributaryBase", "TributaryJSON", "TributaryOptions", "TributaryPostgres", "CSQLite"], swiftSettings: strict),
        // Cross-source story matching (Docs/stories.md): canonical URLs, normalized titles,
        // MinHash keys and the verification rules, a store protocol and its in-memory store.
        // Depends on no other target: the standard library and Glibc only. The engine's stories
        // stage (TributaryCore) uses it.
        .target(name: "TributaryStories", swiftSettings: strict),
        // The engine: item model, plugin API, config, engine, scheduler, leases, metrics.
        .target(name: "TributaryCore", dependencies: ["TributaryBase", "TributaryJSON", "TributaryOptions", "TributaryHTTP", "TributaryState", "TributaryStories", "CPCRE2"], swiftSettings: strict),
        // What several plugins share: feed files' window, HTML text and entities, XML, child
        // processes, fan-out over URLs, JSON API errors.
        .target(name: "TributaryPluginKit", dependencies: ["TributaryCore", "CProcess", "CXML"], swiftSettings: strict + libxml2Headers + uncheckedExclusivity),
        // jq programs in process (libjq through CJQ): compile once, run per item from any thread,
        // each run bounded in time (Docs/processors/jq.md).
        .target(name: "TributaryJQ", dependencies: ["TributaryBase", "TributaryJSON", "CJQ"], swiftSettings: strict),
        // Built-in sources and sinks, one folder each, plus the registry.
        .target(name: "TributaryPlugins", dependencies: ["TributaryCore", "TributaryPluginKit", "TributaryPostgres", "TributaryJQ", "CNATS"], exclude: pluginFiles,
                swiftSettings: strict + libxml2Headers + uncheckedExclusivity),
        // Command-line front end (argument parsing, signals, summary); no business logic.
        .target(name: "TributaryCLI", dependencies: ["TributaryCore", "TributaryPlugins", "CBuildInfo"], swiftSettings: strict),
        .executableTarget(name: "tributary", dependencies: ["TributaryCLI"], swiftSettings: strict),
        // What `make generate` writes (docs tables, schema, synopsis, man page, completions, the
        // entity and slug tables), and the worked example of Docs/writing-a-source.md; never in
        // the binary (it uses Foundation proper).
        .target(name: "TributaryDocs", dependencies: ["TributaryCLI", "TributaryPlugins", "TributaryPluginKit", "TributaryCore"], swiftSettings: strict),
        .executableTarget(name: "tributary-generate", dependencies: ["TributaryDocs"], path: "Tools/Generate", swiftSettings: strict),
        // Benchmark of the state store's cost per run (bench/README.md).
        .executableTarget(name: "tributary-state-bench", dependencies: ["TributaryCore", "TributaryState", "TributaryTestSupport"], path: "bench/StateBench", swiftSettings: strict),
        // Benchmark of the JSON layer: the corpus parsed from memory, eight fields read per item (bench/README.md).
        .executableTarget(name: "tributary-json-bench", dependencies: ["TributaryCore", "TributaryTestSupport"], path: "bench/JSONBench", swiftSettings: strict),
        // Filter rules: PCRE2 against POSIX regex and Swift Regex (bench/README.md).
        .executableTarget(name: "tributary-filter-bench", dependencies: ["TributaryCore"], path: "bench/FilterBench", swiftSettings: strict),
        // The story matcher's cost per item with a million remembered stories (bench/README.md).
        // The stories stage through a SQLite state (Docs/stories.md#costs).
        .executableTarget(name: "tributary-stories-state-bench", dependencies: ["TributaryCore", "TributaryPostgres", "TributaryTestSupport"], path: "bench/StoriesStateBench", swiftSettings: strict),
        .executableTarget(name: "tributary-stories-bench", dependencies: ["TributaryStories"], path: "bench/StoriesBench", swiftSettings: strict),
        // jq programs in process against the jq command on the same item lines (Docs/processors/jq.md).
        .executableTarget(name: "tributary-jq-bench", dependencies: ["TributaryJQ"], path: "bench/JQBench", swiftSettings: strict),
        // The fulltext processor's article extraction on a corpus of saved pages: text per page for
        // bench/article/score.py, ms per page and MB/s (parse + extract + render).
        .executableTarget(name: "tributary-article-bench", dependencies: ["TributaryPlugins", "TributaryPluginKit"], path: "bench/ArticleBench", swiftSettings: strict),
        // Loopback HTTP server, fixtures and an in-memory sink for tests.
        .target(name: "TributaryTestSupport", dependencies: ["TributaryCore", "TributaryPluginKit", "TributaryPostgres"], swiftSettings: strict),
        .testTarget(name: "TributaryCoreTests", dependencies: ["TributaryCore", "TributaryPluginKit", "TributaryTestSupport", "CSystem"], swiftSettings: strict + libxml2Headers),
        .testTarget(name: "TributaryPluginsTests", dependencies: ["TributaryPlugins", "TributaryPluginKit", "TributaryDocs", "TributaryTestSupport", "CNATS"], swiftSettings: strict + libxml2Headers),
        .testTarget(name: "TributaryStoriesTests", dependencies: ["TributaryStories"], swiftSettings: strict),
        .testTarget(name: "TributaryJQTests", dependencies: ["TributaryJQ", "TributaryTestSupport"], swiftSettings: strict),
        .testTarget(name: "EndToEndTests", dependencies: ["TributaryCore", "TributaryTestSupport"], swiftSettings: strict),
        // Rules about the repository itself: source constructs, docs, examples.
        .testTarget(name: "RepositoryTests", dependencies: ["TributaryTestSupport", "TributaryDocs"], exclude: [], swiftSettings: strict),
    ]
)

// libFuzzer targets (Fuzz/README.md): one executable for every parser that reads untrusted input.
// Only in the package when TRIBUTARY_FUZZ=1 (Fuzz/run.sh sets it), so `swift build` and
// `swift test` never compile it: it has no main of its own (libFuzzer supplies one) and
// `@testable import`s the libraries, which needs `-enable-testing`.
if Context.environment["TRIBUTARY_FUZZ"] == "1" {
    package.products.append(.executable(name: "TributaryFuzz", targets: ["TributaryFuzz"]))
    package.targets.append(.executableTarget(name: "TributaryFuzz", dependencies: ["TributaryCore", "TributaryPlugins"], path: "Fuzz/Harness", swiftSettings: strict + libxml2Headers))
}
