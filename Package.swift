// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// Where libxml2-dev puts <libxml/...> (what `pkg-config --cflags libxml-2.0` says on Debian),
// for the targets that import CXML: TributaryPlugins and the tests that import it @testable.
let libxml2Headers: [SwiftSetting] = [.unsafeFlags(["-Xcc", "-I/usr/include/libxml2"])]

let package = Package(
    name: "Tributary",
        products: [
        .executable(name: "tributary", targets: ["tributary"]),
        .library(name: "TributaryCore", targets: ["TributaryCore"]),
        .library(name: "TributaryPlugins", targets: ["TributaryPlugins"]),
    ],
    targets: [
        // C shim over libcurl: a function table filled at run time (dlopen on first use, see
        // CurlLibrary.swift) and typed wrappers over it, nothing else. Headers only: no pkgConfig,
        // because SwiftPM would then link -lcurl and every start would load libcurl's ~30
        // libraries. Needs libcurl4-openssl-dev for <curl/curl.h>.
        .systemLibrary(name: "CCurl"),
        // dlinfo and Dl_serinfo, which Swift's Glibc module hides (GNU extensions).
        .systemLibrary(name: "CDynamicLoader"),
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
        // The git commit the binary was built from (Makefile-generated header; "unknown" without it).
        .target(name: "CBuildInfo"),
        // C shim over the process calls Swift cannot make (prctl, pidfd_open, waitid): child
        // processes that plugins run (TributaryCore/Process).
        .systemLibrary(name: "CProcess"),
        // Engine: JSON layer, model, HTTP, config, engine, plugin protocols.
        .target(name: "TributaryCore", dependencies: ["CCurl", "CCrypto", "CNATS", "CPCRE2", "CSQLite", "CPostgres", "CDynamicLoader", "CProcess"], swiftSettings: strict),
        // jq programs in process (libjq through CJQ): compile once, run per item from any thread,
        // each run bounded in time (Docs/processors/jq.md).
        .target(name: "TributaryJQ", dependencies: ["TributaryCore", "CJQ"], swiftSettings: strict),
        // Built-in sources and sinks, one folder each, plus the registry.
        .target(name: "TributaryPlugins", dependencies: ["TributaryCore", "CProcess", "CXML"], swiftSettings: strict + libxml2Headers),
        // Command-line front end (argument parsing, signals, summary); no business logic.
        .target(name: "TributaryCLI", dependencies: ["TributaryCore", "TributaryPlugins", "CBuildInfo"], swiftSettings: strict),
        .executableTarget(name: "tributary", dependencies: ["TributaryCLI"], swiftSettings: strict),
        // Benchmark of the state store's cost per run (bench/README.md).
        .executableTarget(name: "tributary-state-bench", dependencies: ["TributaryCore"], path: "bench/StateBench", swiftSettings: strict),
        // Benchmark of the JSON layer: the corpus parsed from memory, eight fields read per item (bench/README.md).
        .executableTarget(name: "tributary-json-bench", dependencies: ["TributaryCore", "TributaryTestSupport"], path: "bench/JSONBench", swiftSettings: strict),
        // Filter rules: PCRE2 against POSIX regex and Swift Regex (bench/README.md).
        .executableTarget(name: "tributary-filter-bench", dependencies: ["TributaryCore"], path: "bench/FilterBench", swiftSettings: strict),
        // jq programs in process against the jq command on the same item lines (Docs/processors/jq.md).
        .executableTarget(name: "tributary-jq-bench", dependencies: ["TributaryJQ"], path: "bench/JQBench", swiftSettings: strict),
        // Loopback HTTP server, fixtures and an in-memory sink for tests.
        .target(name: "TributaryTestSupport", dependencies: ["TributaryCore"], swiftSettings: strict),
        .testTarget(name: "TributaryCoreTests", dependencies: ["TributaryCore", "TributaryTestSupport"], swiftSettings: strict),
        .testTarget(name: "TributaryPluginsTests", dependencies: ["TributaryPlugins", "TributaryTestSupport"], swiftSettings: strict + libxml2Headers),
        .testTarget(name: "TributaryJQTests", dependencies: ["TributaryJQ", "TributaryTestSupport"], swiftSettings: strict),
        .testTarget(name: "EndToEndTests", dependencies: ["TributaryCore", "TributaryTestSupport"], swiftSettings: strict),
        // Rules about the repository itself: source constructs, docs, examples.
        .testTarget(name: "RepositoryTests", dependencies: ["TributaryTestSupport"], exclude: [], swiftSettings: strict),
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
