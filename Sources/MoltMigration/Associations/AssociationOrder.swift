/// The order in which associations were made, across mappings, when some mappings' associations
/// wait in memory (``KeptKeyIndex``) instead of being written to the association table.
///
/// Every association has a number, its row's `rowid` in the table: "in the order they were
/// associated" is rowid order. A mapping whose associations wait is given a range of numbers
/// that no other mapping's association falls in: it grows while the mapping associates with no
/// other mapping associating in between, and is closed as soon as another one does. Within a
/// range, the order of a kept mapping's own associations matters to no question (each source
/// has one destination and each destination one source), so when the waiting rows are written
/// they take the range's numbers in key order, and every question asked of the table in rowid
/// order gets the answer it would have had with each row written when it was made.
struct AssociationOrder {
    /// The last number given out.
    private(set) var last: Int64 = 0
    /// The mappings whose associations wait, with the numbers reserved for them.
    private(set) var waiting: [Int: ClosedRange<Int64>] = [:]
    /// The mapping that made the last association.
    private var latest: Int?

    /// The number of an association `mapping` writes to the table now.
    mutating func next(for mapping: Int) -> Int64 {
        latest = mapping
        last += 1
        return last
    }

    /// `mapping`'s associations wait from now on, starting with one just made.
    mutating func startWaiting(_ mapping: Int) {
        last += 1
        latest = mapping
        waiting[mapping] = last...last
    }

    /// Whether a new association of the waiting `mapping` can wait too: no other mapping has
    /// associated since its last one, so its range (`range`, its entry in `waiting`) can grow.
    func canGrow(_ mapping: Int, range: ClosedRange<Int64>) -> Bool {
        latest == mapping && range.upperBound == last
    }

    /// Grows the waiting `mapping`'s range (`range`) by one association (``canGrow(_:range:)``
    /// holds).
    mutating func grow(_ mapping: Int, range: ClosedRange<Int64>) {
        last += 1
        waiting[mapping] = range.lowerBound...last
    }

    /// `mapping`'s associations no longer wait; returns the numbers they take.
    mutating func stopWaiting(_ mapping: Int) -> ClosedRange<Int64>? {
        waiting.removeValue(forKey: mapping)
    }

    /// A new pass: nothing waits (numbers keep growing, so they stay unique in the table).
    mutating func reset() {
        waiting.removeAll()
        latest = nil
    }
}
