// swift-tools-version:6.0
//
// libFuzzer targets for Molt's readers of untrusted input, one executable per reader. Each
// passes its input to `MoltFuzzTargets` (in the main package), which says whether the reader
// kept its promises. Built and run by `Scripts/fuzz.sh TARGET [RUNS]`:
//
//     swift build -c release --sanitize=fuzzer --package-path Fuzz --scratch-path .build-fuzz
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, whatever the clone is called.
let molt = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "MoltFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [.package(path: "..")],
    targets: [
        .executableTarget(name: "FuzzXML", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
        .executableTarget(name: "FuzzPlist", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
        .executableTarget(name: "FuzzModel", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
        .executableTarget(name: "FuzzMapping", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
        .executableTarget(name: "FuzzExpression", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
        .executableTarget(name: "FuzzPredicate", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
        .executableTarget(name: "FuzzSeed", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
        .executableTarget(name: "FuzzBinaryPlist", dependencies: [.product(name: "MoltFuzzTargets", package: molt)]),
    ]
)
