import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The processor time the calling thread spends in `work`: what a test that bounds an
/// algorithm's cost measures, since wall-clock time also counts every other process on a busy
/// machine (a CI runner building in parallel made a 2 s bound take 3 s).
public enum ThreadCPUTime {
    public static func measure(_ work: () throws -> Void) rethrows -> Duration {
        let start = now()
        try work()
        return now() - start
    }

    static func now() -> Duration {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }
}
