// swift-tools-version:6.0
//
// libFuzzer for Molt's readers of untrusted input: one executable, the reader chosen by
// MOLT_FUZZ_TARGET. It passes each input to `MoltFuzzTargets` (in the main package), which
// says whether the reader kept its promises. Built and run by `Scripts/fuzz.sh TARGET [RUNS]`:
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
        // One executable; the reader is chosen by MOLT_FUZZ_TARGET at run time.
        .executableTarget(name: "MoltFuzz", dependencies: [.product(name: "MoltFuzzTargets", package: molt)])
    ]
)
