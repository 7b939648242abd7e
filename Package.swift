// swift-tools-version: 6.1
import PackageDescription

/// Every target builds in Swift 6 language mode with the strictest checks the toolchain offers.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "APILayer",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "NetOps", targets: ["NetOps"]),
        .library(name: "NetOpsHTTP", targets: ["NetOpsHTTP"]),
        .library(name: "NetOpsNIO", targets: ["NetOpsNIO"]),
        .library(name: "JSONCore", targets: ["JSONCore"]),
        .library(name: "Validator", targets: ["Validator"]),
        .library(name: "Templater", targets: ["Templater"]),
        .library(name: "Mapper", targets: ["Mapper"]),
        .library(name: "TemplateInference", targets: ["TemplateInference"]),
        .library(name: "APILayer", targets: ["APILayer"]),
        .library(name: "APILayerOpenAPI", targets: ["APILayerOpenAPI"]),
        // A token store in PostgreSQL shared by a service's replicas, with one refresh for all of
        // them: a product of its own, so that services without it do not link postgres-nio.
        .library(name: "APILayerPostgres", targets: ["APILayerPostgres"]),
        .library(name: "SampleAPI", targets: ["SampleAPI"]),
        .library(name: "DemoServer", targets: ["DemoServer"]),
        // The sample APIs' templates, for a service built on SampleAPI (Examples/Gateway).
        .library(name: "SampleTemplates", targets: ["SampleTemplates"]),
        .library(name: "Chaos", targets: ["Chaos"]),
        .executable(name: "apilayer", targets: ["APILayerTool"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        // `swift package generate-documentation` (DocC catalogs in each library module); no
        // target links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // AsyncHTTPClient and Hummingbird depend on it already: the NIO engine names its errors,
        // and the tests' HTTP/2 fault server (TestSupport) speaks it.
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        // NIOHTTPCompression: the NIO engine maps its decompression errors (AsyncHTTPClient
        // decodes with it).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/multipart-kit.git", from: "4.7.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation.git", from: "0.9.20"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // A scope's, an authenticator's and the NIO engine's settings read from environment
        // variables, JSON or YAML files (AsyncHTTPClient already depends on it, with no traits);
        // `Logging` brings its `AccessLogger`, which the tests read for secrets.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["JSON", "YAML", "Logging"]),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        // The import reads OpenAPI 3.0 and 3.1 descriptions with it (swift-openapi-generator's reader).
        .package(url: "https://github.com/mattpolzin/OpenAPIKit", from: "6.4.0"),
        // APILayerPostgres: the replicas' shared token store and refresh lease.
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .target(
            name: "NetOps",
            dependencies: [
                // An operation made from an `HTTPRequest` answers with an `HTTPResponse`
                // (swift-http-types at the edge); HTTPTypesFoundation makes the URL request.
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HTTPTypesFoundation", package: "swift-http-types"),
                // Its locks keep the mutex beside the value, in one allocation.
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            // HTTP semantics as stages of NetOps' chain: the cache, the coalescer, the rate limiter
            // and the circuit breaker; server-sent events and line splitting over a streamed body;
            // the settings readers of `ConfigReader`.
            name: "NetOpsHTTP",
            dependencies: [
                "NetOps",
                // The cache's keys and files, the rate limiter's caller keys: SHA-256 digests.
                .product(name: "Crypto", package: "swift-crypto"),
                // TLS, proxy, retry and middleware settings read from a `ConfigReader`.
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "NetOpsNIO",
            dependencies: [
                "NetOps",
                // Its settings reader reads TLS and proxy settings with NetOpsHTTP's readers.
                "NetOpsHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // A streamed body's chunks go to their reader as `Data` over the ByteBuffer's bytes.
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                // Builds the TLS configuration of `TLSSettings`, and checks a client key against
                // its certificate, the first time a transfer uses the settings.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The fingerprints of TLS settings and proxy credentials in transport identities.
                .product(name: "Crypto", package: "swift-crypto"),
                // Only to name HTTP/2's stream and protocol errors (`NIOFailureMapping`).
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Configuration", package: "swift-configuration"),
                "CNetOpsZlib",
            ],
            swiftSettings: strictSettings
        ),
        // The system's zlib, with which the NIO engine decodes gzip and deflate bodies.
        .target(
            name: "CNetOpsZlib",
            path: "Sources/CNetOpsZlib",
            linkerSettings: [.linkedLibrary("z")]
        ),
        // JSONValue, its parser and serializer, JSON Pointers: what every module that reads JSON
        // shares, with nothing about templates.
        .target(
            name: "JSONCore",
            swiftSettings: strictSettings
        ),
        .target(
            name: "Validator",
            dependencies: ["JSONCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Templater",
            dependencies: [
                "Validator",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // Its store's state is in a lock box (the package's one lock form).
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Templates from traffic: a template with rules inferred from sample responses, a
        // recorder that infers them in a running service, and the diff of two template sets.
        .target(
            name: "TemplateInference",
            dependencies: [
                "JSONCore", "Validator", "Templater",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SampleTemplates",
            path: "Templates",
            resources: [.copy("SampleAPI"), .copy("TrackerAPI"), .copy("APIManagerResponseDefaultTemplates.zip")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Mapper",
            dependencies: ["JSONCore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "APILayer",
            dependencies: [
                "NetOps", "NetOpsHTTP", "Validator", "Templater", "Mapper", "TemplateInference",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                // APIService: the APIs' graceful shutdown in a ServiceGroup.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        // Reads an OpenAPI 3.0 or 3.1 description (with OpenAPIKit) and writes templates with
        // rules, a report of what the rule dialect cannot say, and the recipe's method enum
        // (`apilayer templates import`).
        .target(
            name: "OpenAPIImport",
            dependencies: [
                "Validator", "Templater",
                .product(name: "Yams", package: "Yams"),
                .product(name: "OpenAPIKit", package: "OpenAPIKit"),
                .product(name: "OpenAPIKit30", package: "OpenAPIKit"),
                .product(name: "OpenAPIKitCompat", package: "OpenAPIKit"),
            ],
            swiftSettings: strictSettings
        ),
        // A swift-openapi-runtime `ClientTransport` that runs a generated client's requests as
        // NetOps operations through an API's scope, and a middleware that validates responses.
        .target(
            name: "APILayerOpenAPI",
            dependencies: [
                "APILayer", "NetOps", "NetOpsHTTP", "Validator", "Templater",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        // PostgresTokenStore: one row per API and account, sealed with AES-GCM, and a lease row
        // that lets one replica of a service refresh for all of them.
        .target(
            name: "APILayerPostgres",
            dependencies: [
                "APILayer", "NetOps", "NetOpsHTTP",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "SampleAPI",
            dependencies: ["APILayer", "NetOps", "NetOpsHTTP", "Validator", "Mapper"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "DemoServer",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                // TLS with HTTP/2 by ALPN, for the tests that run the conformance cases over HTTP/2.
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Chaos",
            dependencies: [
                "NetOps", "NetOpsHTTP", "NetOpsNIO", "APILayer", "DemoServer", "Templater",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "APILayerTool",
            dependencies: [
                "NetOps", "NetOpsHTTP", "NetOpsNIO",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "Validator", "Templater", "Mapper", "TemplateInference", "APILayer", "SampleAPI", "SampleTemplates", "DemoServer", "Chaos",
                "OpenAPIImport", "ThreadSanitizerSuppressions", "APILayerPostgres", "LocalPostgres", "RawBaselines",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // What the benchmarks measure an operation against, shared by `apilayer bench` and
        // InstructionProbe: raw AsyncHTTPClient driven the way a service would by hand.
        .target(
            name: "RawBaselines",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // `valgrind --tool=callgrind` cannot run an async main (the apilayer tool's): this small
        // synchronous executable sends the engines bench's requests for instruction counts.
        .executableTarget(
            name: "InstructionProbe",
            dependencies: [
                "NetOps", "NetOpsHTTP", "NetOpsNIO", "APILayer", "Templater", "DemoServer", "RawBaselines",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: strictSettings
        ),
        // Linked into the test binaries and into `apilayer` (whose `demo` the tests run as a child
        // process, DemoServer inside): the ThreadSanitizer suppressions of known false positives
        // in dependencies (read by TSan at start-up; inert in a normal build).
        .target(
            name: "ThreadSanitizerSuppressions",
            path: "Sources/ThreadSanitizerSuppressions"
        ),
        // A private PostgreSQL server per test or benchmark (initdb, pg_ctl, psql), Foundation only.
        .target(
            name: "LocalPostgres",
            swiftSettings: strictSettings
        ),
        // What several test targets share: the process's one DemoServer, a log capture, threads,
        // and the gate that keeps load tests apart from timing tests when tests run in parallel.
        .target(
            name: "TestSupport",
            dependencies: [
                "DemoServer", "NetOps", "NetOpsHTTP", "NetOpsNIO", "LocalPostgres", .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TestSupportTests",
            dependencies: ["TestSupport", "NetOps"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NetOpsTests",
            dependencies: [
                "NetOps", "NetOpsHTTP", "NetOpsNIO", "DemoServer", "ThreadSanitizerSuppressions", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "JSONCoreTests",
            dependencies: ["JSONCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ValidatorTests",
            dependencies: [
                "Validator",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TemplaterTests",
            dependencies: ["Templater", "Validator", "SampleTemplates", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TemplateInferenceTests",
            dependencies: ["TemplateInference", "Validator", "Templater", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MapperTests",
            dependencies: ["Mapper"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SampleAPITests",
            dependencies: [
                "SampleAPI", "APILayer", "NetOps", "NetOpsHTTP", "Templater", "TemplateInference", "Validator", "SampleTemplates", "DemoServer",
                "ThreadSanitizerSuppressions", "TestSupport", .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APILayerTests",
            dependencies: [
                "APILayer", "NetOps", "NetOpsHTTP", "NetOpsNIO", "Validator", "Templater", "Mapper", "DemoServer", "ThreadSanitizerSuppressions",
                "TestSupport", "APILayerOpenAPI", "OpenAPIImport", "LocalPostgres", .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "OpenAPIImportTests",
            dependencies: [
                "OpenAPIImport", "Validator", "Templater", "APILayer", "NetOps", "NetOpsHTTP", "DemoServer", "ThreadSanitizerSuppressions",
                "TestSupport",
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "APILayerOpenAPITests",
            // The client swift-openapi-generator wrote once from
            // Tests/OpenAPIImportTests/Fixtures/inventory.yaml is committed under Generated/: CI
            // does not run the generator.
            dependencies: [
                "APILayerOpenAPI", "APILayer", "NetOps", "NetOpsHTTP", "NetOpsNIO", "Validator", "Templater", "OpenAPIImport", "DemoServer",
                "ThreadSanitizerSuppressions", "TestSupport",
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: strictSettings
        ),
        // SecurityTests: hostile input and credentials (Docs/reliability.md#security), every
        // network case on both engines.
        .testTarget(
            name: "SecurityTests",
            dependencies: [
                "APILayer", "NetOps", "NetOpsHTTP", "NetOpsNIO", "Validator", "Templater", "Mapper", "DemoServer", "ThreadSanitizerSuppressions",
                "TestSupport", "APILayerOpenAPI", "OpenAPIImport", .product(name: "Logging", package: "swift-log"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: strictSettings
        ),
        // The shared token store against a private PostgreSQL cluster (initdb in a temporary
        // folder), with replicas as child processes (`apilayer replica`).
        .testTarget(
            name: "APILayerPostgresTests",
            dependencies: [
                "APILayerPostgres", "APILayer", "NetOps", "NetOpsHTTP", "DemoServer", "ThreadSanitizerSuppressions", "TestSupport", "LocalPostgres",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ChaosTests",
            dependencies: [
                "Chaos", "APILayer", "NetOps", "NetOpsHTTP", "DemoServer", "ThreadSanitizerSuppressions", "TestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
