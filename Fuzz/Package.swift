// swift-tools-version: 6.0
import PackageDescription

/// libFuzzer targets for APILayer's parsers, kept out of the main package so that its normal
/// `swift build` never sees `-parse-as-library` or sanitizer flags. Build (see Docs/reliability.md):
///
///     swift build -c release --package-path Fuzz --scratch-path Fuzz/.build-fuzz \
///         -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
let fuzzSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-parse-as-library"]),
]

let package = Package(
    name: "APILayerFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "APILayer", path: ".."),
    ],
    targets: [
        .target(
            name: "FuzzSupport",
            swiftSettings: fuzzSettings
        ),
        .executableTarget(
            name: "FuzzJSONParser",
            dependencies: ["FuzzSupport", .product(name: "JSONCore", package: "APILayer")],
            swiftSettings: fuzzSettings
        ),
        .executableTarget(
            name: "FuzzValidator",
            dependencies: ["FuzzSupport", .product(name: "Validator", package: "APILayer")],
            swiftSettings: fuzzSettings
        ),
        .executableTarget(
            name: "FuzzTemplateArchive",
            dependencies: [
                "FuzzSupport",
                .product(name: "Templater", package: "APILayer"),
                .product(name: "Validator", package: "APILayer"),
            ],
            swiftSettings: fuzzSettings
        ),
    ]
)
