internal import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A testing aid: named instants at which the process can be made to die on the spot, as
/// `kill -9` or a power cut would kill it (no cleanup, no flushing, no `defer`), so that crash
/// tests (`Scripts/crash-test.sh`) hit the instants that matter (inside a file swap, between a
/// commit and a checkpoint…) rather than only those that timing luck gives.
///
/// Only the `molt` command arms them (``armFromEnvironment()``, when it starts): an app that
/// uses the library is never killed by a variable in its environment. The command reads two
/// environment variables:
///
/// - `MOLT_FAULT_POINT=name` kills the process with `SIGKILL` the first time the point `name`
///   is reached; `MOLT_FAULT_POINT=name:N` the Nth time (N from 1).
/// - `MOLT_FAULT_TRACE=1` writes `molt-fault-point: name` on standard error each time a point
///   is reached, so a test can list the points a run goes through and how often.
///
/// With neither set, reaching a point costs one check of a value read once. Points are named
/// `area.instant` (`swap.renamed`, `inplace.committed`); those of a migration's passes
/// (`pass.copy`, `pass.relate`, `pass.validate`, `pass.alter`) are reached each time the pass
/// reports progress (for the copy pass: after each source object), whether or not anyone
/// listens. The documentation's "Crash safety" article (`Sources/Molt/Molt.docc`) lists every
/// point.
package enum FaultPoint {
    /// Marks the instant `name`: kills the process here when the points are armed and
    /// `MOLT_FAULT_POINT` names it.
    @inline(__always)
    package static func reach(_ name: StaticString) {
        guard let armed = Armed.current else { return }
        armed.reach(name.description)
    }

    /// Arms the points as the environment says (nothing when neither variable is set). Called
    /// once by the `molt` command before any work, and by nothing else.
    package static func armFromEnvironment() {
        let environment = ProcessInfo.processInfo.environment
        Armed.current = Armed(point: environment["MOLT_FAULT_POINT"], trace: environment["MOLT_FAULT_TRACE"])
    }

    /// The points' settings, when one of the two variables is set.
    final class Armed: @unchecked Sendable {
        /// Set once, by ``armFromEnvironment()``, before the command starts any thread.
        nonisolated(unsafe) static var current: Armed?

        let name: String?
        let occurrence: Int
        let trace: Bool
        private let lock = NSLock()
        private var reached = 0

        init?(point: String?, trace: String?) {
            let tracing = !(trace ?? "").isEmpty && trace != "0"
            var name = point.flatMap { $0.isEmpty ? nil : $0 }
            var occurrence = 1
            if let point = name, let colon = point.lastIndex(of: ":"),
                let count = Int(point[point.index(after: colon)...])
            {
                name = String(point[..<colon])
                occurrence = max(1, count)
            }
            guard name != nil || tracing else { return nil }
            self.name = name
            self.occurrence = occurrence
            self.trace = tracing
        }

        func reach(_ point: String) {
            if trace { FileHandle.standardError.write(Data("molt-fault-point: \(point)\n".utf8)) }
            guard point == name else { return }
            lock.lock()
            reached += 1
            let now = reached == occurrence
            lock.unlock()
            guard now else { return }
            kill(getpid(), SIGKILL)
            while true { pause() }
        }
    }
}
