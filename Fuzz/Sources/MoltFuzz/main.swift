import Foundation
import MoltFuzzTargets

// One libFuzzer executable for every reader: `MOLT_FUZZ_TARGET` names the target (xml, plist,
// model, mapping, expression, predicate, seed, bplist, inflate, modelarchive, transformable);
// `Scripts/fuzz.sh` sets it.

/// The target named by the environment, read once.
let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["MOLT_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let known = FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
        FileHandle.standardError.write(Data("MOLT_FUZZ_TARGET must name one of: \(known)\n".utf8))
        exit(64)
    }
    return target
}()

/// libFuzzer's entry point: one input through the target. A broken promise is a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if let problem = target.run(Data(bytes: bytes, count: count)) {
        fatalError(problem)
    }
    return 0
}

/// Run once before fuzzing: with `MOLT_FUZZ_WRITE_SEEDS=FOLDER`, writes the target's seed corpus
/// there and exits (what `Scripts/fuzz.sh` does first).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    if let folder = ProcessInfo.processInfo.environment["MOLT_FUZZ_WRITE_SEEDS"] {
        exit(target.writeExampleInputs(to: folder) ? 0 : 1)
    }
    _ = target
    return 0
}
