import MoltMapping
import MoltStore

/// One mapping for a relate strategy to relate: its destination objects, its policy, and the
/// pass's state, transaction and tally.
struct RelateJob {
    let mapping: EntityMapping
    let policy: EntityMigrationPolicy
    /// The policies' view of the run, handed to each hook.
    let manager: MigrationManager
    let state: PassState
    let transaction: BatchTransaction
    let tally: RelateTally
    let batchSize: Int
    /// How many destination objects the mapping made.
    let count: Int
    /// To-one relationships whose foreign keys the copy pass wrote with each new row, as the
    /// relate pass would write them (checked: ``PassState/settleKeysAtInsert(_:)``).
    let keysAtInsert: Set<String>

    /// Every object of the mapping counted as related (by one statement or none).
    func advanceAll() {
        tally.advance(by: count, in: mapping)
    }

    /// One more object related: counted, and the transaction committed every so many.
    func step() throws {
        try transaction.step()
        tally.advance(by: 1, in: mapping)
    }

    /// Calls `body` with the mapping's destination objects a batch at a time, in the pass's
    /// order, after reading ahead their sources (and, when `relationshipsOnly`, only the source
    /// relationships `reads` names, or all of them for nil). Join tables in `filled` are filled
    /// without their index on the other side's key, made again after the last batch.
    func forEachBatch(
        relationshipsOnly: Bool, reads: Set<String>?, filled: [(table: String, columns: [String])] = [],
        _ body: ([DestinationObject]) throws -> Void
    ) throws {
        let number = try state.number(of: mapping.name)
        var after: (root: Int, primaryKey: Int64) = (0, 0)
        try IndexesSetAside.whileFilling(filled, layout: state.destination.layout, state.destination.store.connection) {
            while true {
                let batch = try state.associations.destinations(of: number, after: after, limit: batchSize)
                guard let last = batch.last else { break }
                after = (last.root, last.primaryKey)
                try state.beginRelateBatch(
                    batch, mapping: number, relationshipsOnly: relationshipsOnly, relationships: reads)
                defer { state.endRelateBatch() }
                try body(try batch.map { DestinationObject(id: try state.objectID($0, in: state.destination)) })
            }
        }
    }
}

/// How far the relate pass is: objects related so far of the pass's total, reported as it goes.
final class RelateTally {
    let total: Int
    private(set) var done = 0
    private let progress: ProgressReporter

    init(total: Int, progress: ProgressReporter) {
        self.total = total
        self.progress = progress
    }

    /// `count` more objects of `mapping` related.
    func advance(by count: Int, in mapping: EntityMapping) {
        done += count
        progress.report(.relate, mapping.name, done, total)
    }
}
