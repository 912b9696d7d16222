import MoltSQLite

// The relate pass's reads, a batch of destinations at a time: a mapping's destinations in key
// order, a range at a time, and the sources of a whole batch, one query per hierarchy.
extension AssociationTable {
    /// The sources `mapping` made each of `destinations` from, in the order they were
    /// associated: for a batch of ``destinations(of:after:limit:)``, which are every
    /// destination of the mapping in their key range, so one range query per hierarchy finds
    /// them all.
    func sources(ofBatch destinations: [Key], mapping: Int) throws -> [Slot: [Key]] {
        if let index = kept[mapping], index.sourceEntity != nil {
            var result: [Slot: [Key]] = [:]
            for destination in destinations {
                if let sources = index.sources(of: destination), !sources.isEmpty { result[destination.slot] = sources }
            }
            return result
        }
        var ranges: [Int: (low: Int64, high: Int64)] = [:]
        for key in destinations {
            let range = ranges[key.root] ?? (key.primaryKey, key.primaryKey)
            ranges[key.root] = (min(range.low, key.primaryKey), max(range.high, key.primaryKey))
        }
        let wanted = Set(destinations.map(\.slot))
        let query = try statement(
            """
            SELECT destination_root, destination_pk, source_root, source_pk, source_entity FROM molt_associations
            WHERE mapping = ? AND destination_root = ? AND destination_pk BETWEEN ? AND ? ORDER BY rowid
            """)
        var result: [Slot: [Key]] = [:]
        for (root, range) in ranges {
            try query.bind([.integer(Int64(mapping)), .integer(Int64(root)), .integer(range.low), .integer(range.high)])
            while try query.step() {
                let slot = Slot(root: Int(query.int64(at: 0)), primaryKey: query.int64(at: 1))
                guard wanted.contains(slot) else { continue }
                result[slot, default: []].append(
                    Key(root: Int(query.int64(at: 2)), primaryKey: query.int64(at: 3), entity: Int(query.int64(at: 4))))
            }
        }
        return result
    }

    /// The distinct destinations `mapping` made, in key order after `after`, at most `limit`.
    func destinations(of mapping: Int, after: (root: Int, primaryKey: Int64), limit: Int) throws -> [Key] {
        if let index = kept[mapping] { return index.destinations(after: after, limit: limit) }
        let query = try statement(
            """
            SELECT destination_root, destination_pk, MIN(destination_entity) FROM molt_associations
            WHERE mapping = ? AND (destination_root, destination_pk) > (?, ?)
            GROUP BY destination_root, destination_pk ORDER BY destination_root, destination_pk LIMIT ?
            """)
        try query.bind([
            .integer(Int64(mapping)), .integer(Int64(after.root)), .integer(after.primaryKey), .integer(Int64(limit)),
        ])
        var result: [Key] = []
        while try query.step() {
            result.append(
                Key(root: Int(query.int64(at: 0)), primaryKey: query.int64(at: 1), entity: Int(query.int64(at: 2))))
        }
        return result
    }
}
