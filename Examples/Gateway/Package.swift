// swift-tools-version: 6.1
import PackageDescription

/// A Hummingbird 2 service that calls SampleAPI and TrackerAPI through APILayer for each request
/// it serves: the example of `Docs/service.md`. It depends on APILayer by path, from this
/// repository.
///
/// A package depended on by path is named by its folder (`main`, or wherever the repository was
/// cloned), so the products of APILayer's package are named through that folder's name.
let apiLayer = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "APILayer")

/// As in APILayer's own targets: Swift 6 language mode, existentials spelled `any`.
let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Gateway",
    // swift-configuration's floor on Apple platforms.
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Command-line options (`--http-port 8081`) beside environment variables and a JSON file.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // The tests' HTTP client.
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // What the executable runs and the tests start in-process: configuration, the two APIs'
        // scopes, the routes, the service group, the direct mode.
        .target(
            name: "GatewayService",
            dependencies: [
                .product(name: "APILayer", package: apiLayer),
                .product(name: "NetOps", package: apiLayer),
                .product(name: "NetOpsNIO", package: apiLayer),
                .product(name: "SampleAPI", package: apiLayer),
                .product(name: "SampleTemplates", package: apiLayer),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "Gateway",
            dependencies: [
                "GatewayService",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GatewayTests",
            dependencies: [
                "GatewayService",
                .product(name: "APILayer", package: apiLayer),
                .product(name: "DemoServer", package: apiLayer),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
