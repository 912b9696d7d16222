import Dispatch
import Foundation
import Molt

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the signals that stop a program — Ctrl-C (SIGINT), SIGTERM (`kill`, `timeout`, CI
/// runners, service managers) and SIGHUP (a closed terminal) — into a clean cancellation
/// (134120): the run stops, removes what it made and leaves the store as it was. The exit code
/// is the shell's for that signal (128 + its number: 130, 143, 129).
///
/// SIGXFSZ, which a file-size limit (`ulimit -f`) sends when a write would pass it, is ignored
/// instead: the write then fails with "file too large", and the run stops on that error, as
/// on a full disk (same clean-up, a message naming the file, exit code 74), which says more
/// than a cancellation would.
enum Interrupts {
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The first signal received while a run was listening, if any.
    private static let received = ReceivedSignal()

    /// The signal that stopped the run, if one did.
    static var receivedSignal: Int32? { received.value }

    /// A name for `signal`: "SIGTERM".
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    /// Every command ignores SIGXFSZ, from its start.
    static func ignoreFileSizeSignal() {
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Stops `context`'s run on any of ``handled`` until the returned sources are cancelled.
    static func cancelling(_ context: RunContext) -> Listening {
        let sources = handled.map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                received.record(number)
                context.cancel()
            }
            source.resume()
            return source
        }
        return Listening(sources: sources)
    }

    /// The signal sources of one run.
    struct Listening {
        let sources: [any DispatchSourceSignal]

        func cancel() {
            for source in sources { source.cancel() }
        }
    }
}

/// The first signal received, behind a lock (set from a dispatch queue, read on exit).
private final class ReceivedSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var signal: Int32?

    var value: Int32? { lock.withLock { signal } }

    func record(_ number: Int32) {
        lock.withLock { if signal == nil { signal = number } }
    }
}
