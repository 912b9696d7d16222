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
    /// Threads the run may use: above 1, ``forEachBatch(relationshipsOnly:reads:filled:ahead:compute:write:)``
    /// may compute one batch ahead on a thread of its own.
    var jobs = 1

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
        try forEachBatch(
            relationshipsOnly: relationshipsOnly, reads: reads, filled: filled, ahead: false, compute: { $0 },
            write: body)
    }

    /// ``forEachBatch(relationshipsOnly:reads:filled:_:)`` in two stages: `compute` gets each
    /// batch's objects with their sources read ahead, `write` what it computed. With `ahead`
    /// (and more than one job), reading ahead and computing run on a thread of their own, one
    /// batch ahead of the writes on this thread (``ReadAhead``): the caller vouches that
    /// `compute` reads neither the new store nor anything `write` changes.
    func forEachBatch<Computed>(
        relationshipsOnly: Bool, reads: Set<String>?, filled: [(table: String, columns: [String])] = [],
        ahead: Bool, compute: @escaping ([DestinationObject]) throws -> Computed, write: (Computed) throws -> Void
    ) throws {
        let number = try state.number(of: mapping.name)
        let state = state
        let batchSize = batchSize
        var after: (root: Int, primaryKey: Int64) = (0, 0)
        // The next batch, its sources read ahead (until `endRelateBatch`); nil after the last.
        let read = { () throws -> [DestinationObject]? in
            let batch = try state.associations.destinations(of: number, after: after, limit: batchSize)
            guard let last = batch.last else { return nil }
            after = (last.root, last.primaryKey)
            try state.beginRelateBatch(
                batch, mapping: number, relationshipsOnly: relationshipsOnly, relationships: reads)
            return try batch.map { DestinationObject(id: try state.objectID($0, in: state.destination)) }
        }
        try IndexesSetAside.whileFilling(filled, layout: state.destination.layout, state.destination.store.connection) {
            guard ahead, jobs > 1 else {
                while let objects = try read() {
                    defer { state.endRelateBatch() }
                    try write(try compute(objects))
                }
                return
            }
            state.logger.debug("relate: values computed a batch ahead", metadata: ["molt.mapping": "\(mapping.name)"])
            let reading = ReadAhead(depth: 2) { () throws -> Computed? in
                guard let objects = try read() else { return nil }
                defer { state.endRelateBatch() }
                return try compute(objects)
            }
            reading.start()
            defer { reading.stop() }
            while let computed = try reading.next() {
                try write(computed)
                reading.giveBack(computed)
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
