// swift-tools-version:6.0
//
// An app's own `molt`, in the app's own package: its entity-migration policies in a target of
// their own (found by Molt's PolicyList plugin), a three-line executable that runs Molt's whole
// command line with them, the app's model versions, its mapping files, and a fixture for every
// version it has shipped. CI builds it and runs `verify` over the fixtures (see README.md).
import PackageDescription

let package = Package(
    name: "LibraryApp",
    platforms: [.macOS(.v13)],
    dependencies: [
        // An app depends on Molt by URL and version; this example sits inside Molt's repository.
        .package(name: "Molt", path: "../..")
    ],
    targets: [
        // The app's policies. The plugin writes `CompiledPolicies` (every policy and value
        // transformer in this target), so a new policy needs no list edited.
        .target(
            name: "LibraryPolicies",
            dependencies: [.product(name: "Molt", package: "Molt")],
            exclude: ["README.md"],
            plugins: [.plugin(name: "PolicyListPlugin", package: "Molt")]
        ),
        // `library-molt`: Molt's command line with the app's policies compiled in.
        .executableTarget(
            name: "library-molt",
            dependencies: [
                "LibraryPolicies",
                .product(name: "MoltCommandLine", package: "Molt"),
            ]
        ),
    ]
)
