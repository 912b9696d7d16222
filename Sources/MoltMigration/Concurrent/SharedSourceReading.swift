internal import Foundation
internal import MoltMapping
internal import MoltStore

/// The source side as copy workers read it: every read through the run's own reader (the
/// source connection, the resolver's caches) one at a time, under the lock that the workers'
/// batch reads take too. Source objects handed out read through it as well.
final class SharedSourceReading: SourceReading {
    /// Held by whoever uses the source connection or the resolver: a worker reading a batch
    /// or a value, or the writing thread running a hook in order.
    let lock: NSLock
    private unowned let state: PassState

    init(state: PassState, lock: NSLock) {
        self.state = state
        self.lock = lock
    }

    var sourceStore: ObjectStore { state.source }

    func completeSourceObject(_ id: ObjectID) throws -> StoredObject? {
        try lock.withLock { try state.completeSourceObject(id) }
    }

    func relationshipsAsHeld(_ object: StoredObject) -> [String: RelationshipValue] {
        lock.withLock { state.relationshipsAsHeld(object) }
    }

    func sourceValue(of key: String, on id: ObjectID) throws -> ExpressionValue {
        try lock.withLock { try state.sourceValue(of: key, on: id) }
    }

    func sourceObject(_ id: ObjectID) throws -> SourceObject {
        try sourceObject(id, includingDeleted: false)
    }

    func sourceObject(_ id: ObjectID, includingDeleted: Bool) throws -> SourceObject {
        let found = try lock.withLock { try state.sourceObject(id, includingDeleted: includingDeleted) }
        return SourceObject(stored: found.read, complete: found.complete, reader: self)
    }
}
