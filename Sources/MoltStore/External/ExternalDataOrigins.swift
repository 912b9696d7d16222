public import Foundation

/// Which external-data file a `Data` value was read from, while that value is unchanged.
///
/// Values read from `_EXTERNAL_DATA` are mapped from their files (``ExternalDataFolder/read(_:)``),
/// so a value is known by its memory: the mapping's address and length. When a migration
/// writes such a value unchanged into the new store, the writer finds its file here and links
/// it instead of copying its bytes (a photo library is carried without reading a byte of it).
/// A value a policy changed is new memory, not found here, and written as a new file.
///
/// The registry keeps the most recent ``capacity`` values alive (their mappings with them), so
/// an address it holds cannot be reused by another mapping while it is listed; older values
/// are forgotten and, if written later, copied: slower, never wrong.
public final class ExternalDataOrigins: @unchecked Sendable {
    /// Where a value came from.
    public struct Origin: Sendable, Hashable {
        /// The `_EXTERNAL_DATA` folder's path.
        public var folder: String
        public var name: String
    }

    private struct Key: Hashable {
        let address: UInt
        let count: Int
    }

    private struct Entry {
        let origin: Origin
        let value: Data
    }

    /// The one registry of the process: mappings belong to the process, not to a store.
    public static let shared = ExternalDataOrigins()

    public let capacity: Int
    private let lock = NSLock()
    private var entries: [Key: Entry] = [:]
    private var order: [Key] = []
    private var head = 0

    init(capacity: Int = 4096) {
        self.capacity = max(1, capacity)
    }

    func register(_ value: Data, folder: String, name: String) {
        guard let key = Self.key(of: value) else { return }
        lock.lock()
        defer { lock.unlock() }
        if entries.updateValue(Entry(origin: Origin(folder: folder, name: name), value: value), forKey: key) != nil {
            return
        }
        order.append(key)
        if order.count - head > capacity {
            entries[order[head]] = nil
            head += 1
            if head > capacity {
                order.removeFirst(head)
                head = 0
            }
        }
    }

    /// The file `value` was read from, if it is an unchanged value read recently.
    public func origin(of value: Data) -> Origin? {
        guard let key = Self.key(of: value) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return entries[key]?.origin
    }

    /// Values this short may be kept inside the `Data` value itself, whose bytes then have no
    /// lasting address: they are never looked up (and copied when written).
    static let minimumLength = 64

    private static func key(of value: Data) -> Key? {
        guard value.count >= minimumLength else { return nil }
        return value.withUnsafeBytes { buffer in
            buffer.baseAddress.map { Key(address: UInt(bitPattern: $0), count: buffer.count) }
        }
    }
}
