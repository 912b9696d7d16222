import Foundation

/// Work a test runs beside itself on a thread of its own, started at once and after an
/// optional delay, so it runs when the test needs it even while every thread of the shared
/// pools is busy. (A `DispatchQueue.global()` item waits for a free pool thread: on a 2-core CI
/// runner with other tests holding both, a rollback due after 0.5 s came after the reader's
/// 5 s lock wait had run out.)
public final class OwnThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` on a new thread, after `delay` seconds. The work may use what the test
    /// holds (a connection, a lock): the test hands it over and touches it again only after
    /// ``wait()``.
    public init(after delay: Double = 0, _ work: @escaping () -> Void) {
        let handedOver = HandedOver(work: work)
        let thread = Thread { [done] in
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            handedOver.work()
            done.signal()
        }
        thread.start()
    }

    /// Waits until the work has ended.
    public func wait() {
        done.wait()
        done.signal()
    }
}

/// Work given to another thread by a test that no longer touches what it uses.
private struct HandedOver: @unchecked Sendable {
    let work: () -> Void
}
