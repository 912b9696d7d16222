// swift-tools-version:6.0
//
// Molt: a Core Data-style heavyweight migration engine for SQLite object stores.
//
// Layers, lowest first (a target only imports the layers below it):
//   CSQLite, CLibXML2,     C system libraries, wrapped once each
//     CZlib
//   MoltCore               the error type, diagnostics, property lists, raw DEFLATE (zlib)
//   MoltXML, MoltSQLite    safe XML parsing; checked SQLite access
//   MoltModel              object models, Xcode model files, version hashes
//   MoltStore              Core Data's SQLite layout, metadata, objects, JSON
//   MoltMapping            mapping files, expressions, predicates, checking
//   MoltMigration          the heavyweight migration engine, policies, the file swap
//   Molt                   the public umbrella library
//   MoltPolicies           user entity-migration policies (Policies/)
//   MoltCommandLine        the whole command line as a library (an app builds its own `molt`)
//   MoltTool               `molt`: the command line with the policies in Policies/
//   MoltFuzzTargets        the readers of untrusted input as fuzz targets (Fuzz/, tests)
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "Molt",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Molt", targets: ["Molt"]),
        .executable(name: "molt", targets: ["MoltTool"]),
        // The command line as a library, and the plugin that lists a target's policies: an
        // app's package builds its own `molt` with its policies (Examples/LibraryApp).
        .library(name: "MoltCommandLine", targets: ["MoltCommandLine"]),
        .plugin(name: "PolicyListPlugin", targets: ["PolicyListPlugin"]),
        // The readers of untrusted input as fuzz targets, for the libFuzzer package in Fuzz/.
        .library(name: "MoltFuzzTargets", targets: ["MoltFuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
    ],
    targets: [
        // MARK: C shims
        .systemLibrary(
            name: "CSQLite",
            path: "Sources/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibXML2",
            path: "Sources/CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // MARK: Library layers
        .target(
            name: "MoltCore",
            dependencies: ["CZlib"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MoltXML",
            dependencies: ["CLibXML2", "MoltCore"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MoltSQLite",
            dependencies: [
                "CSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MoltModel",
            dependencies: [
                "MoltCore", "MoltXML",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MoltStore",
            dependencies: [
                "MoltCore", "MoltModel", "MoltSQLite",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MoltMapping",
            dependencies: [
                "MoltCore", "MoltXML", "MoltModel", "MoltSQLite", "MoltStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.embedInCode("Schema/mapping.xsd")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "MoltMigration",
            dependencies: [
                "MoltCore", "MoltXML", "MoltModel", "MoltSQLite", "MoltStore", "MoltMapping",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Molt",
            dependencies: [
                "MoltCore", "MoltModel", "MoltStore", "MoltMapping", "MoltMigration",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Fuzz targets (Fuzz/ and the hostile-input tests)
        .target(
            name: "MoltFuzzTargets",
            dependencies: ["MoltCore", "MoltXML", "MoltModel", "MoltSQLite", "MoltStore", "MoltMapping"],
            swiftSettings: swiftSettings
        ),

        // MARK: User policies, compiled into the tool
        .target(
            name: "MoltPolicies",
            dependencies: ["Molt"],
            path: "Policies",
            exclude: ["README.md"],
            // No InternalImportsByDefault here: a policy file starts with a plain `import Molt`.
            plugins: ["PolicyListPlugin"]
        ),
        .executableTarget(
            name: "PolicyListGenerator",
            swiftSettings: swiftSettings
        ),
        .plugin(
            name: "PolicyListPlugin",
            capability: .buildTool(),
            dependencies: ["PolicyListGenerator"]
        ),

        // MARK: Command-line tool
        .target(
            name: "MoltCommandLine",
            dependencies: [
                "Molt", "MoltXML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "MoltTool",
            dependencies: ["MoltCommandLine", "MoltPolicies"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .target(
            name: "MoltTestSupport",
            dependencies: ["Molt", "MoltSQLite"],
            path: "Tests/MoltTestSupport",
            swiftSettings: swiftSettings,
            plugins: ["PolicyListPlugin"]
        ),
        .testTarget(
            name: "MoltCoreTests",
            dependencies: ["MoltCore", "MoltTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MoltXMLTests",
            dependencies: ["MoltXML", "MoltTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MoltSQLiteTests",
            dependencies: ["MoltSQLite", "MoltTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MoltModelTests",
            dependencies: ["MoltModel", "MoltTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MoltStoreTests",
            dependencies: ["MoltStore", "MoltSQLite", "MoltTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MoltMappingTests",
            dependencies: ["MoltMapping", "MoltStore", "MoltSQLite", "MoltTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MoltMigrationTests",
            dependencies: [
                "Molt", "MoltMigration", "MoltMapping", "MoltStore", "MoltSQLite", "MoltPolicies", "MoltTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings,
            // The test policies are listed with their hooks, as an app's are.
            plugins: ["PolicyListPlugin"]
        ),
        .testTarget(
            name: "MoltHostileInputTests",
            dependencies: [
                "MoltTool", "MoltFuzzTargets", "MoltMapping", "MoltStore", "MoltSQLite", "MoltXML", "MoltTestSupport",
            ],
            exclude: ["Corpus"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "MoltCLITests",
            dependencies: ["MoltTool", "MoltCommandLine", "MoltTestSupport", "MoltSQLite"],
            swiftSettings: swiftSettings
        ),
    ]
)

// `Scripts/fuzz.sh` builds `Fuzz/` with `--sanitize=fuzzer`, which links libFuzzer's `main`
// into every executable of the package graph, plugin tools included. With MOLT_FUZZ_BUILD set,
// this package leaves out its executables, their plugin, the tests, and argument-parser (whose
// plugin tools would fail the same way): the fuzz targets need only the library layers.
if Context.environment["MOLT_FUZZ_BUILD"] != nil {
    let executablesAndTests: Set<String> = [
        "MoltPolicies", "PolicyListGenerator", "PolicyListPlugin", "MoltCommandLine", "MoltTool", "MoltTestSupport",
    ]
    package.targets.removeAll { executablesAndTests.contains($0.name) || $0.type == .test }
    package.products.removeAll { ["molt", "MoltCommandLine", "PolicyListPlugin"].contains($0.name) }
    package.dependencies.removeAll {
        if case .sourceControl(_, let location, _) = $0.kind { return location.hasSuffix("swift-argument-parser") }
        return false
    }
}

// The DocC catalogue (`Sources/Molt/Molt.docc`) is built by `.ci/docs` with the documentation
// plugin. With MOLT_DOCC set, this package depends on the plugin; ordinary builds do not, so
// they neither resolve nor fetch it.
if Context.environment["MOLT_DOCC"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
