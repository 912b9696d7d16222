import Foundation
import MoltFuzzTargets

/// libFuzzer's entry point: one input, through the `bplist` target. A broken promise is a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    if let problem = FuzzTarget.bplist.run(Data(bytes: bytes, count: count)) {
        fatalError(problem)
    }
    return 0
}

/// Run once before fuzzing: with `MOLT_FUZZ_WRITE_SEEDS=FOLDER`, writes the seed corpus there
/// and exits (what `Scripts/fuzz.sh` does first).
@_cdecl("LLVMFuzzerInitialize")
public func initialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    if let folder = ProcessInfo.processInfo.environment["MOLT_FUZZ_WRITE_SEEDS"] {
        exit(FuzzTarget.bplist.writeExampleInputs(to: folder) ? 0 : 1)
    }
    return 0
}
