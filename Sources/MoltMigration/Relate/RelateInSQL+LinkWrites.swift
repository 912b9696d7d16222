import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// How a planned ``RelateInSQL`` writes each relationship (``LinkWrite``), and running it.
extension RelateInSQL {
    /// How one relationship is written.
    enum LinkWrite {
        /// Its inverse was written from the other side with these very links.
        case skip
        /// Straight from the join into empty storage (each object gets at most one target where
        /// that matters).
        case direct
        /// Through a table of pairs: clears what is there and settles objects claimed twice.
        case pairs
    }

    /// Sets every relationship of the mapping's destination objects but those in `written`
    /// (to-ones the copy pass wrote with each new row, as this would write them); false
    /// (nothing written) when the associations rule relating in SQL out.
    func run(state: PassState, skipping written: Set<String> = []) throws -> Bool {
        let connection = state.destination.store.connection
        // Facts about the associations hold for this run only: a policy's own
        // createRelationships may associate more.
        state.relating.associationFacts = [:]
        guard try Self.isOneToOne(number, entity: destination.number, state) else { return false }
        defer {
            for index in links.indices { try? connection.execute("DROP TABLE IF EXISTS temp.\(Self.pairs(index))") }
        }
        var writes: [LinkWrite] = []
        for link in links {
            writes.append(written.contains(link.relationship.name) ? .skip : try linkWrite(for: link, state: state))
        }
        let queries = try links.indices.map { index in
            writes[index] == .skip ? nil : try linkQuery(links[index], state: state)
        }
        // The to-ones written through pairs are checked before anything is written, so that a
        // fallback leaves the mapping's objects as the copy pass made them.
        for (index, link) in links.enumerated() where !link.relationship.isToMany && writes[index] == .pairs {
            try fillPairs(queries[index]!, into: Self.pairs(index), connection)
            if try connection.scalar(
                "SELECT EXISTS (SELECT 1 FROM temp.\(Self.pairs(index)) GROUP BY d HAVING count(*) > 1)")?
                .integerValue != 0
            {
                return false
            }
        }
        for (index, link) in links.enumerated() {
            try state.checkCancelled()
            switch writes[index] {
            case .skip:
                // Written from the other side (recorded there), or with each new row (recorded
                // here, so the other side is skipped in turn).
                guard written.contains(link.relationship.name) else { continue }
            case .direct:
                try writeDirectly(link, queries[index]!, state.destination.layout, connection)
            case .pairs:
                if link.relationship.isToMany { try fillPairs(queries[index]!, into: Self.pairs(index), connection) }
                try write(link, from: Self.pairs(index), associations: try state.associations.sqlTable(), connection)
                try connection.execute("DROP TABLE temp.\(Self.pairs(index))")
            }
            if let target = link.targetMapping {
                state.relating.written.insert(
                    Written(
                        storedIn: link.storedIn, readFrom: link.readFrom, mapping: number, targetMapping: target,
                        entity: destination.number, targetKinds: link.targetKinds))
            }
        }
        return true
    }

    /// Whether every destination object `mapping` made is of `entity` and made from one source.
    static func isOneToOne(_ mapping: Int, entity: Int, _ state: PassState) throws -> Bool {
        // Kept keys: one source per destination, all of one entity.
        if let kept = state.associations.keptIndex(of: mapping) { return kept.destinationEntity == entity }
        return try state.relating.fact("one-to-one \(mapping) \(entity)") {
            let table = try state.associations.sqlTable()
            return try state.destination.store.connection.scalar(
                """
                SELECT NOT EXISTS (SELECT 1 FROM \(table) WHERE mapping = ?1 AND destination_entity <> ?2)
                    AND NOT EXISTS (SELECT 1 FROM \(table) WHERE mapping = ?1
                                    GROUP BY destination_root, destination_pk HAVING count(*) > 1)
                """, [.integer(Int64(mapping)), .integer(Int64(entity))])?.integerValue == 1
        }
    }

    /// Whether no source object gave `mapping` more than one destination object.
    func isFunction(_ mapping: Int, _ state: PassState) throws -> Bool {
        // Kept keys: one destination per source.
        if state.associations.keptIndex(of: mapping) != nil { return true }
        return try state.relating.fact("function \(mapping)") {
            let table = try state.associations.sqlTable()
            return try state.destination.store.connection.scalar(
                """
                SELECT NOT EXISTS (SELECT 1 FROM \(table) WHERE mapping = ?
                                   GROUP BY source_root, source_pk HAVING count(*) > 1)
                """, [.integer(Int64(mapping))])?.integerValue == 1
        }
    }

    func linkWrite(for link: Link, state: PassState) throws -> LinkWrite {
        let connection = state.destination.store.connection
        // A to-one whose source side may hold several objects is not skipped: the object path
        // computes its value and fails when it has more than one (the pairs' check falls back).
        if let target = link.targetMapping, link.relationship.isToMany || link.sourceFanOut == 1,
            let inverse = state.relating.written.first(where: {
                $0.storedIn == link.storedIn && $0.readFrom == link.readFrom && $0.mapping == target
                    && $0.targetMapping == number
            }),
            inverse.targetKinds.contains(destination.number), link.targetKinds.contains(inverse.entity)
        {
            return .skip
        }
        guard let target = link.targetMapping else { return .pairs }
        let empty: Bool
        switch link.storage {
        case .foreignKey(let column, _, _):
            // One target per object: one related source object, made into one destination object.
            guard link.sourceFanOut == 1, try isFunction(target, state) else { return .pairs }
            empty = try isEmpty(destination.table, column: column, connection)
        case .inverseForeignKey(let column, _, _):
            // One owner per target: one source object per related one, one source per target.
            guard link.sourceFanIn == 1,
                let targets = state.destination.layout.entity(named: link.relationship.destinationEntityName),
                try Self.isOneToOne(target, entity: targets.number, state)
            else { return .pairs }
            empty = try isEmpty(link.targetTable, column: column, connection)
        case .joinTable(let table, _, _, _, _, _):
            empty = try isEmpty(table, column: nil, connection)
        }
        return empty ? .direct : .pairs
    }

    /// Whether `table` holds no link: no row at all, or none with `column` set.
    func isEmpty(_ table: String, column: String?, _ connection: SQLiteConnection) throws -> Bool {
        let condition = column.map { " WHERE \(SQL.identifier($0)) IS NOT NULL" } ?? ""
        return try connection.scalar("SELECT NOT EXISTS (SELECT 1 FROM main.\(SQL.identifier(table))\(condition))")?
            .integerValue == 1
    }
}
