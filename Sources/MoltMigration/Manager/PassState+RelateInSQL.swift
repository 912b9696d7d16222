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
            relateState.sourceAttached = true
        } catch {
            logger.debug(
                "relationships will be made object by object: the source cannot be attached",
                metadata: ["molt.error": "\(error)"])
        }
    }

    /// Detaches the source store (outside any transaction).
    func detachSource() throws {
        guard relateState.sourceAttached else { return }
        relateState.sourceAttached = false
        try destination.store.connection.detach(RelateState.sourceSchema)
    }

    /// Whether ``RelateInSQL`` can read the source store.
    var isSourceAttached: Bool { relateState.sourceAttached }

    /// Runs SQL on the new store that ``cancel(with:)`` interrupts; an interrupted statement
    /// ends in the cancellation error.
    func runInterruptibly<T>(_ body: () throws -> T) throws -> T {
        relateState.setRunning(true)
        defer { relateState.setRunning(false) }
        try checkCancelled()
        do {
            return try body()
        } catch let error as SQLiteError where error.code.primary == .interrupt {
            try checkCancelled()
            throw error
        }
    }
}

/// The manager's state for SQL relationships; `running` is read by other threads (cancel).
final class RelateState: @unchecked Sendable {
    /// The schema name the source store is attached under.
    static let sourceSchema = "molt_source"

    /// Where a relationship's links are, the same for both of its sides: a foreign key column
    /// (in the to-one side's table) or a join table.
    struct LinkStorage: Hashable {
        let table: String
        let column: String?

        init(_ link: RelationshipLayout, in entity: EntityLayout) {
            switch link.storage {
            case .foreignKey(let column, _, _): (table, self.column) = (entity.table, column)
            case .inverseForeignKey(let column, _, _): (table, self.column) = (link.destinationTable, column)
            case .joinTable(let table, _, _, _, _, _): (self.table, column) = (table, nil)
            }
        }
    }

    /// A relationship written in SQL, remembered so that its inverse, when another mapping
    /// would write the very same links from the other side, is not written twice.
    struct Written: Hashable {
        let storedIn: LinkStorage
        let readFrom: LinkStorage
        let mapping: Int
        let targetMapping: Int
        let entity: Int
        let targetKinds: [Int]
    }

    var sourceAttached = false
    /// The relationships written in SQL so far.
    var written: Set<Written> = []
    /// Facts about the association table learnt during one mapping's SQL relate (which
    /// mappings kept keys, are one-to-one…), by question.
    var associationFacts: [String: Bool] = [:]

    /// The answer to `question`, asked once per mapping's run.
    func fact(_ question: String, _ answer: () throws -> Bool) rethrows -> Bool {
        if let known = associationFacts[question] { return known }
        let found = try answer()
        associationFacts[question] = found
        return found
    }
    private let lock = NSLock()
    private var running = false

    func setRunning(_ value: Bool) {
        lock.lock()
        running = value
        lock.unlock()
    }

    /// Calls `interrupt` when SQL is running (under the lock, so it cannot end meanwhile).
    func interruptIfRunning(_ interrupt: () -> Void) {
        lock.lock()
        defer { lock.unlock() }
        if running { interrupt() }
    }
}
