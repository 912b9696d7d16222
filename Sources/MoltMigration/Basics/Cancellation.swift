internal import Foundation
internal import MoltCore
internal import MoltMapping

/// Whether a run has been stopped, and with what error, shared by every part of the run and
/// safe to use from any thread. A part that may be blocked in SQLite when the run is stopped
/// registers how to interrupt it for as long as it runs (``whileRunning(interrupt:_:)``).
final class Cancellation: @unchecked Sendable {
    /// Core Data's 134120, for a migration stopped on request.
    static let cancelledError = MoltError(
        .migrationCancelled, "the migration was cancelled", recovery: "Run it again when ready.")

    private let lock = NSLock()
    private var stored: (any Error & Sendable)?
    private var interrupts: [Int: @Sendable () -> Void] = [:]
    private var nextToken = 0

    /// The error the run stops with, once stopped.
    var error: (any Error & Sendable)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    /// Stops the run with `error` (134120 when nil); the first error given is kept. Every
    /// registered interrupt is called before this returns.
    func cancel(with error: (any Error & Sendable)? = nil) {
        lock.lock()
        defer { lock.unlock() }
        if stored == nil { stored = error ?? Self.cancelledError }
        // Called under the lock, so a part that has left ``whileRunning(interrupt:_:)`` is
        // never interrupted afterwards (its connection may be closed by then).
        for interrupt in interrupts.values { interrupt() }
    }

    /// Throws the run's error once it is stopped.
    func check() throws {
        if let error { throw error }
    }

    /// Runs `body` with `interrupt` called if the run is stopped meanwhile (at once when it
    /// already is), and every `MATCHES` it runs on this thread stopped too (within a few
    /// thousand of ICU's steps). Whatever `body` fails with once the run is stopped (an
    /// interrupted statement, a stopped match inside SQLite), the run's error is thrown.
    /// `interrupt` must not use this cancellation.
    func whileRunning<T>(interrupt: @escaping @Sendable () -> Void, _ body: () throws -> T) throws -> T {
        do {
            return try PatternBudget.withStopCheck({ [self] in error }) {
                try registered(interrupt: interrupt, body)
            }
        } catch {
            if let stopped = self.error { throw stopped }
            throw error
        }
    }

    private func registered<T>(interrupt: @escaping @Sendable () -> Void, _ body: () throws -> T) rethrows -> T {
        lock.lock()
        let token = nextToken
        nextToken += 1
        interrupts[token] = interrupt
        if stored != nil { interrupt() }
        lock.unlock()
        defer {
            lock.lock()
            interrupts[token] = nil
            lock.unlock()
        }
        return try body()
    }
}
