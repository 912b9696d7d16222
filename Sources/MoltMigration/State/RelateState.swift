import Foundation
import MoltModel
import MoltStore

/// What the relate pass holds (``PassState/relating``): across its mappings, the links written
/// as sets and whether the source store is attached for SQL; for one mapping, facts learnt
/// about its associations; for one batch and one value, what was read ahead and found.
/// `running` is read by other threads (cancel); the rest only by the pass's thread.
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
    /// The current batch, read ahead (``PassState/beginRelateBatch(_:mapping:relationshipsOnly:relationships:)``).
    var batch: RelateBatch?
    /// The destination relationship whose value is being computed, if any.
    var relationship: Relationship?
    /// Destination objects the association table gave while a relationship value is computed
    /// (they exist, so setting the relationship need not look their rows up).
    var associatedDestinations: Set<ObjectID> = []
    /// ``PassState/keptDestinations(of:mapping:relationship:)``'s facts, by mapping number.
    var keptTargets: [Int: KeptTarget] = [:]
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
