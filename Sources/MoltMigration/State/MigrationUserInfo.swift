internal import Foundation
internal import MoltCore

/// The manager's `userInfo`: one mutable store of values shared by every entity mapping, every
/// policy hook and every pass of a migration, as Core Data's `NSMigrationManager.userInfo` is.
/// Policies keep lookup tables here, such as one destination `Author` per name across
/// mappings. (Each entity mapping's own user info, read-only, stays on the mapping:
/// ``/MoltMapping/EntityMapping/userInfoDictionary``.)
///
/// Values are `Sendable` Swift values, stored by key and read back with their type:
///
/// ```swift
/// // Core Data: var authors = manager.userInfo?["authors"] as? [String: NSManagedObject] ?? [:]
/// let known = manager.userInfo["authors", as: [String: DestinationObject].self]?[name]
/// // Grows a table in place (no copy of the table per change):
/// manager.userInfo.modify("authors", default: [String: DestinationObject]()) { $0[name] = author }
/// ```
///
/// Hooks that create instances concurrently
/// (``EntityMigrationPolicy/createsInstancesConcurrently``) reach it from several threads: each
/// read and write is whole, but what they store must not depend on the order objects come in.
public final class MigrationUserInfo {
    private var values: [String: any Sendable] = [:]
    /// Hooks that create instances concurrently may reach it from several threads at once.
    private let lock = NSLock()

    init() {}

    /// The value stored under `key`, or nil; setting nil removes it.
    public subscript(key: String) -> (any Sendable)? {
        get { lock.withLock { values[key] } }
        set { lock.withLock { values[key] = newValue } }
    }

    /// The value stored under `key` when it is a `T`; nil when there is none or it has
    /// another type.
    public subscript<T: Sendable>(key: String, as type: T.Type) -> T? {
        lock.withLock { values[key] } as? T
    }

    /// Changes the value under `key` in place, starting from `initial` when there is none, and
    /// returns what `body` returns. The value is taken out of the store while `body` runs, so a
    /// growing table is never copied. A value of another type under `key` is an error. (Not
    /// for hooks that run concurrently: another thread's `modify` of the same key meanwhile
    /// starts from `initial`.)
    @discardableResult
    public func modify<T: Sendable, Result>(
        _ key: String, default initial: @autoclosure () -> T, _ body: (inout T) throws -> Result
    ) throws -> Result {
        var value: T
        if let stored = lock.withLock({ values.removeValue(forKey: key) }) {
            guard let typed = stored as? T else {
                lock.withLock { values[key] = stored }
                throw MoltError(
                    .entityMigrationPolicy,
                    "the manager's userInfo holds a \(type(of: stored)) under \"\(key)\", not a \(T.self)")
            }
            value = typed
        } else {
            value = initial()
        }
        defer { lock.withLock { values[key] = value } }
        return try body(&value)
    }

    /// Every key with a value.
    public var keys: [String] { lock.withLock { values.keys.sorted() } }

    /// Whether a value is stored under `key`.
    public func contains(_ key: String) -> Bool { lock.withLock { values[key] != nil } }

    /// Removes every value.
    public func removeAll() { lock.withLock { values.removeAll() } }
}
