import Foundation

/// Strings gathered from callbacks on any thread (SQL traces, progress reports).
public final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    public init() {}

    public func append(_ item: String) {
        lock.lock()
        stored.append(item)
        lock.unlock()
    }

    public var items: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}
