import Foundation
import MoltMapping
import MoltSQLite
import MoltStore

/// What the relate pass needs to run a mapping's relationships as SQL (``RelateInSQL``):
/// the source store attached to the new store's connection, and SQL that cancelling interrupts.
extension PassState {
    /// Attaches the source store, read-only, to the new store's connection (outside any
    /// transaction). When that fails, relationships are made object by object.
    func attachSource() {
        do {
            try destination.store.connection.attachReadOnly(source.store.url.path, as: RelateState.sourceSchema)
            relating.sourceAttached = true
        } catch {
            logger.debug(
                "relationships will be made object by object: the source cannot be attached",
                metadata: ["molt.error": "\(error)"])
        }
    }

    /// Detaches the source store (outside any transaction).
    func detachSource() throws {
        guard relating.sourceAttached else { return }
        relating.sourceAttached = false
        try destination.store.connection.detach(RelateState.sourceSchema)
    }

    /// Whether ``RelateInSQL`` can read the source store.
    var isSourceAttached: Bool { relating.sourceAttached }

    /// Runs SQL on the new store that ``cancel(with:)`` interrupts; an interrupted statement
    /// ends in the cancellation error.
    func runInterruptibly<T>(_ body: () throws -> T) throws -> T {
        relating.setRunning(true)
        defer { relating.setRunning(false) }
        try checkCancelled()
        do {
            return try body()
        } catch let error as SQLiteError where error.code.primary == .interrupt {
            try checkCancelled()
            throw error
        }
    }
}
