// swift-tools-version:6.0
//
// Molt's benchmarks: a separate package (so the library's build and tests stay lean) that
// measures the engine against what a user would do without it, side by side in one run.
//
//     swift run -c release --package-path Benchmarks molt-bench --objects 100000,1000000
//
// See BENCHMARKS.md at the top of the repository for the measures and the latest figures.
import PackageDescription

let package = Package(
    name: "MoltBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Molt", path: "..")
    ],
    targets: [
        .systemLibrary(
            name: "CSQLiteBench",
            path: "Sources/CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "molt-bench",
            dependencies: [
                "CSQLiteBench",
                .product(name: "Molt", package: "Molt"),
            ],
            path: "Sources/MoltBench",
            // The benchmark's policies are listed with the hooks they override, as an app's are.
            plugins: [.plugin(name: "PolicyListPlugin", package: "Molt")]
        ),
    ]
)
