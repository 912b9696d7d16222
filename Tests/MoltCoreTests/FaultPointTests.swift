import Testing

@testable import MoltCore

/// The settings of ``FaultPoint`` (the kill itself is exercised by `Scripts/crash-test.sh`).
@Suite("Fault points")
struct FaultPointTests {
    @Test("MOLT_FAULT_POINT names a point, optionally with the occurrence to stop at")
    func parsing() throws {
        let third = try #require(FaultPoint.Armed(point: "swap.renamed:3", trace: nil))
        #expect(third.name == "swap.renamed" && third.occurrence == 3 && !third.trace)
        let first = try #require(FaultPoint.Armed(point: "pass.copy", trace: nil))
        #expect(first.name == "pass.copy" && first.occurrence == 1)
        let tracing = try #require(FaultPoint.Armed(point: nil, trace: "1"))
        #expect(tracing.name == nil && tracing.trace)
    }

    @Test("with neither variable set (or set empty), nothing is armed")
    func unset() {
        #expect(FaultPoint.Armed(point: nil, trace: nil) == nil)
        #expect(FaultPoint.Armed(point: "", trace: "0") == nil)
    }

    @Test("a point that is not the armed one, or not yet its occurrence, lets the process go on")
    func otherPoints() throws {
        let armed = try #require(FaultPoint.Armed(point: "swap.renamed:2", trace: nil))
        armed.reach("swap.before-rename")
        armed.reach("swap.renamed")  // the first time: not yet
        FaultPoint.reach("swap.renamed")  // the process's own settings: never armed in tests
    }
}
