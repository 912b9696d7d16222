import Dispatch
import Molt

#if canImport(Glibc)
    import Glibc
#endif

/// Turns Ctrl-C into a clean cancellation (134120): the store is left as it was.
enum Interrupts {
    /// Stops `context`'s run on Ctrl-C until the returned source is cancelled.
    static func cancelling(_ context: RunContext) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { context.cancel() }
        source.resume()
        return source
    }
}
