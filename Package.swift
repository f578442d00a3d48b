// swift-tools-version:6.0
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Tributary",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "tributary", targets: ["tributary"]),
        .library(name: "TributaryCore", targets: ["TributaryCore"]),
        .library(name: "TributaryPlugins", targets: ["TributaryPlugins"]),
    ],
    targets: [
        // C shim over libcurl: typed wrappers for the variadic calls, nothing else.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // C shim over OpenSSL's libcrypto: digests for request signing.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // C shim over SQLite: the state store's database.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Engine: JSON layer, model, HTTP, config, engine, plugin protocols.
        .target(name: "TributaryCore", dependencies: ["CCurl", "CCrypto", "CSQLite"], swiftSettings: strict),
        // Built-in sources and sinks, one folder each, plus the registry.
        .target(name: "TributaryPlugins", dependencies: ["TributaryCore"], swiftSettings: strict),
        // Command-line front end (argument parsing, signals, summary); no business logic.
        .target(name: "TributaryCLI", dependencies: ["TributaryCore", "TributaryPlugins"], swiftSettings: strict),
        .executableTarget(name: "tributary", dependencies: ["TributaryCLI"], swiftSettings: strict),
        // Benchmark of the state store's cost per run (bench/README.md).
        .executableTarget(name: "tributary-state-bench", dependencies: ["TributaryCore"], path: "bench/StateBench", swiftSettings: strict),
        // Benchmark of the JSON layer: the corpus parsed from memory, eight fields read per item (bench/README.md).
        .executableTarget(name: "tributary-json-bench", dependencies: ["TributaryCore", "TributaryTestSupport"], path: "bench/JSONBench", swiftSettings: strict),
        // Loopback HTTP server, fixtures and an in-memory sink for tests.
        .target(name: "TributaryTestSupport", dependencies: ["TributaryCore"], swiftSettings: strict),
        .testTarget(name: "TributaryCoreTests", dependencies: ["TributaryCore", "TributaryTestSupport"], swiftSettings: strict),
        .testTarget(name: "TributaryPluginsTests", dependencies: ["TributaryPlugins", "TributaryTestSupport"], swiftSettings: strict),
        .testTarget(name: "EndToEndTests", dependencies: ["TributaryCore", "TributaryTestSupport"], swiftSettings: strict),
        // Rules about the repository itself: source constructs, docs, examples.
        .testTarget(name: "RepositoryTests", dependencies: ["TributaryTestSupport"], exclude: [], swiftSettings: strict),
    ]
)
