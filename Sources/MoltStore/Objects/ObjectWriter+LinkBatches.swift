internal import MoltCore
internal import MoltModel
internal import MoltSQLite

/// One object's new value of a relationship, in a batch ``ObjectWriter/setLinks(_:_:)`` writes.
package struct LinkAssignment {
    package let owner: ObjectID
    package let targets: [ObjectID]

    package init(owner: ObjectID, targets: [ObjectID]) {
        self.owner = owner
        self.targets = targets
    }
}

/// Setting one relationship of many objects at once, with the result of setting it object by
/// object (``ObjectWriter/setToOne(_:_:to:)`` and ``ObjectWriter/setToMany(_:_:to:)`` called
/// in the same order), but with what those calls read for each object read once per batch.
///
/// Which store rows a batch touches, by storage:
/// - a to-one's foreign key (the owner's row): each owner's row once; when the inverse is
///   ordered, the owner goes at the end of its new partner's list, counting the owners placed
///   earlier in the batch exactly as the calls in turn would;
/// - a to-many's inverse foreign key (the targets' rows): a target named by several owners
///   ends with the last, as it would; an owner's old targets it no longer names are released;
/// - a join table: each owner's rows, its own order positions included.
/// - when the other side is ordered, the owner goes at the end of each new target's list, the
///   batch's earlier links counted.
/// Two storages are left to the object-by-object calls: a one-to-one (setting it moves the
/// partner away from another owner of the batch) and a join table that holds both directions
/// (a relationship that is its own inverse).
extension ObjectWriter {
    /// Whether ``setLinks(_:_:)`` can write `relationship` of `entity`.
    package func canSetLinksInBatches(_ relationship: String, of entity: String) -> Bool {
        guard let owner = layout.entity(named: entity), let link = owner.relationship(named: relationship) else {
            return false
        }
        switch link.storage {
        case .foreignKey:
            return layout.model.inverse(of: link.relationship)?.isToMany ?? true
        case .inverseForeignKey:
            return true
        case .joinTable(_, _, _, _, _, let mirrored):
            return !mirrored
        }
    }

    /// Checks one object's new value of `relationship` as the object-by-object calls do (the
    /// owner and each target exist and fit, no target twice, a to-one takes one at most); the
    /// objects in `existing` are known to exist.
    package func checkLinks(
        _ owner: ObjectID, _ relationship: String, to targets: [ObjectID], existing: KnownObjects
    ) throws {
        let ownerLayout = try existing.contains(owner) ? layout.requireEntity(owner.entity) : requireObject(owner)
        let link = try requireRelationship(relationship, of: ownerLayout)
        if case .foreignKey = link.storage {
            guard targets.count <= 1 else {
                throw MoltError(
                    .validation, "the to-one relationship was given \(targets.count) objects", entity: owner.entity,
                    property: relationship)
            }
        } else if !link.relationship.isToMany {
            throw MoltError(
                .validation, "the relationship is to-one; give one object or none", entity: owner.entity,
                property: relationship)
        }
        // A short list is searched; a long one hashed.
        var seen: Set<ObjectID> = []
        for (index, target) in targets.enumerated() {
            let repeated =
                targets.count <= 16 ? targets[..<index].contains(target) : !seen.insert(target).inserted
            guard !repeated else {
                throw MoltError(
                    .validation, "\(target) is listed twice", entity: owner.entity, property: relationship)
            }
            try checkTarget(target, of: link, from: owner, rowExists: existing.contains(target))
        }
    }

    /// Sets `relationship` of each assignment's owner to its targets, as the object-by-object
    /// calls in the same order would. Each assignment must have passed
    /// ``checkLinks(_:_:to:existing:)``, and the relationship
    /// ``canSetLinksInBatches(_:of:)``; an owner appears once.
    package func setLinks(_ relationship: String, _ assignments: [LinkAssignment]) throws {
        // Owners of different sub-entities may store the relationship differently: each run
        // of one storage is a batch of its own, in order.
        var start = 0
        while start < assignments.count {
            let owner = try layout.requireEntity(assignments[start].owner.entity)
            let link = try requireRelationship(relationship, of: owner)
            var end = start + 1
            while end < assignments.count,
                let other = layout.entity(named: assignments[end].owner.entity)?.relationship(named: relationship),
                other.storage == link.storage
            {
                end += 1
            }
            let run = assignments[start..<end]
            switch link.storage {
            case .foreignKey(let column, let entityColumn, let orderColumn):
                try setForeignKeys(
                    run, table: owner.table, column: column, entityColumn: entityColumn, orderColumn: orderColumn)
            case .inverseForeignKey(let column, let entityColumn, let orderColumn):
                try setInverseForeignKeys(
                    run, table: link.destinationTable, column: column, entityColumn: entityColumn,
                    orderColumn: orderColumn)
            case .joinTable(let table, let own, let other, let orderColumn, let inverseOrderColumn, _):
                try setJoinRows(
                    run, table: table, own: own, other: other, orderColumn: orderColumn,
                    inverseOrderColumn: inverseOrderColumn)
            }
            start = end
        }
    }

    // MARK: Storages

    /// To-ones held in the owners' rows.
    private func setForeignKeys(
        _ assignments: ArraySlice<LinkAssignment>, table: String, column: String, entityColumn: String?,
        orderColumn: String?
    ) throws {
        let quotedTable = SQL.identifier(table)
        let keyColumn = SQL.identifier(column)
        let owners = assignments.map(\.owner.primaryKey)
        // Each owner's partner (and position in the partner's list) before the batch.
        var current: [Int64: (partner: Int64?, position: Int64?)] = [:]
        let orderRead = orderColumn.map { ", \(SQL.identifier($0))" } ?? ""
        try forEachRow(
            "SELECT \"Z_PK\", \(keyColumn)\(orderRead) FROM \(quotedTable) WHERE \"Z_PK\" IN", keys: owners
        ) { statement in
            current[statement.int64(at: 0)] = (
                statement.isNull(at: 1) ? nil : statement.int64(at: 1),
                orderColumn == nil || statement.isNull(at: 2) ? nil : statement.int64(at: 2)
            )
        }
        let positions = orderColumn.map {
            ListEnds(
                writer: self, table: quotedTable, keyColumn: keyColumn, orderColumn: SQL.identifier($0), batch: current)
        }
        let assignColumns = [column, entityColumn, orderColumn].compactMap { $0 }
        let update = try prepared(
            "UPDATE \(quotedTable) SET \(assignColumns.map { "\(SQL.identifier($0)) = ?" }.joined(separator: ", ")) WHERE \"Z_PK\" = ?"
        )
        for assignment in assignments {
            let key = assignment.owner.primaryKey
            let target = assignment.targets.first
            if current[key]?.partner == target?.primaryKey { continue }
            var values: [SQLiteValue] = [target.map { .integer($0.primaryKey) } ?? .null]
            if entityColumn != nil {
                values.append(try target.map { .integer(Int64(try layout.requireEntity($0.entity).number)) } ?? .null)
            }
            if let positions {
                let position = try target.map { try positions.append(key, to: $0.primaryKey) }
                if target == nil { positions.remove(key) }
                values.append(position.map { .integer($0) } ?? .null)
            }
            try update.bind(values + [.integer(key)])
            try update.run()
            countStatement()
        }
    }

    /// To-manies held in the targets' rows (their to-one inverse's foreign key).
    private func setInverseForeignKeys(
        _ assignments: ArraySlice<LinkAssignment>, table: String, column: String, entityColumn: String?,
        orderColumn: String?
    ) throws {
        let quotedTable = SQL.identifier(table)
        // Each target's final owner: the last assignment naming it, as the calls in turn leave it.
        var claims: [Int64: (owner: ObjectID, position: Int64)] = [:]
        for assignment in assignments {
            for (offset, target) in assignment.targets.enumerated() {
                claims[target.primaryKey] = (assignment.owner, Int64(offset + 1))
            }
        }
        // Rows the owners held before and no assignment names: released.
        var released: [Int64] = []
        try forEachRow(
            "SELECT \"Z_PK\" FROM \(quotedTable) WHERE \(SQL.identifier(column)) IN",
            keys: assignments.map(\.owner.primaryKey)
        ) { statement in
            let key = statement.int64(at: 0)
            if claims[key] == nil { released.append(key) }
        }
        let columns = [column, entityColumn, orderColumn].compactMap { $0 }
        if !released.isEmpty {
            let release = try prepared("UPDATE \(quotedTable) SET \(clearing(columns)) WHERE \"Z_PK\" = ?")
            for key in released {
                try release.bind([.integer(key)])
                try release.run()
                countStatement()
            }
        }
        let assign = try prepared(
            "UPDATE \(quotedTable) SET \(columns.map { "\(SQL.identifier($0)) = ?" }.joined(separator: ", ")) WHERE \"Z_PK\" = ?"
        )
        var ownerNumbers: [String: Int64] = [:]
        for assignment in assignments {
            let number: Int64
            if let known = ownerNumbers[assignment.owner.entity] {
                number = known
            } else {
                number = Int64(try layout.requireEntity(assignment.owner.entity).number)
                ownerNumbers[assignment.owner.entity] = number
            }
            for target in assignment.targets {
                // A target a later owner claims ends there: only its last claim is written.
                guard let claim = claims[target.primaryKey], claim.owner == assignment.owner else { continue }
                var values: [SQLiteValue] = [.integer(assignment.owner.primaryKey)]
                if entityColumn != nil { values.append(.integer(number)) }
                if orderColumn != nil { values.append(.integer(claim.position)) }
                try assign.bind(values + [.integer(target.primaryKey)])
                try assign.run()
                countStatement()
            }
        }
    }

    /// Many-to-manies (and inverse-less to-manies) in a join table (not one holding both
    /// directions). When the other side is ordered, a new link goes at the end of the target's
    /// list at that moment, the batch's earlier links counted (``JoinListEnds``).
    private func setJoinRows(
        _ assignments: ArraySlice<LinkAssignment>, table: String, own: String, other: String, orderColumn: String?,
        inverseOrderColumn: String?
    ) throws {
        let join = SQL.identifier(table)
        let ownColumn = SQL.identifier(own)
        let otherColumn = SQL.identifier(other)
        var before: [Int64: Set<Int64>] = [:]
        var positions: [(owner: Int64, list: Int64, position: Int64?)] = []
        let inverseRead = inverseOrderColumn.map { ", \(SQL.identifier($0))" } ?? ""
        let owners = assignments.map(\.owner.primaryKey)
        try forEachRow(
            "SELECT \(ownColumn), \(otherColumn)\(inverseRead) FROM \(join) WHERE \(ownColumn) IN", keys: owners
        ) { statement in
            let (owner, list) = (statement.int64(at: 0), statement.int64(at: 1))
            before[owner, default: []].insert(list)
            if inverseOrderColumn != nil {
                positions.append((owner, list, statement.isNull(at: 2) ? nil : statement.int64(at: 2)))
            }
        }
        let ends = inverseOrderColumn.map {
            JoinListEnds(
                writer: self, join: join, ownColumn: ownColumn, otherColumn: otherColumn,
                orderColumn: SQL.identifier($0), owners: Set(owners), rows: positions)
        }
        let remove = try prepared("DELETE FROM \(join) WHERE \(ownColumn) = ? AND \(otherColumn) = ?")
        let insertColumns = [own, other] + [orderColumn, inverseOrderColumn].compactMap { $0 }
        let insert = try prepared(
            "INSERT OR IGNORE INTO \(join) (\(SQL.identifiers(insertColumns))) VALUES (\(SQL.placeholders(insertColumns.count)))"
        )
        let reorder = try orderColumn.map {
            try prepared("UPDATE \(join) SET \(SQL.identifier($0)) = ? WHERE \(ownColumn) = ? AND \(otherColumn) = ?")
        }
        for assignment in assignments {
            let owner = Int64(assignment.owner.primaryKey)
            let held = before[owner] ?? []
            let wanted = Set(assignment.targets.map(\.primaryKey))
            for key in held where !wanted.contains(key) {
                try remove.bind([.integer(owner), .integer(key)])
                try remove.run()
                countStatement()
                ends?.remove(owner, from: key)
            }
            for (offset, target) in assignment.targets.enumerated() {
                let position: SQLiteValue = .integer(Int64(offset + 1))
                if held.contains(target.primaryKey) {
                    guard let reorder else { continue }
                    try reorder.bind([position, .integer(owner), .integer(target.primaryKey)])
                    try reorder.run()
                } else {
                    var values: [SQLiteValue] = [.integer(owner), .integer(target.primaryKey)]
                    if orderColumn != nil { values.append(position) }
                    if let ends { values.append(.integer(try ends.append(owner, to: target.primaryKey))) }
                    try insert.bind(values)
                    try insert.run()
                }
                countStatement()
            }
        }
    }

    // MARK: Reading a batch

    /// Runs `sql` (ending in `IN`) for the keys, a fixed number of placeholders at a time
    /// (unused ones NULL, which matches nothing), calling `body` for each row.
    func forEachRow(_ sql: String, keys: [Int64], _ body: (SQLiteStatement) throws -> Void) throws {
        let width = 64
        let statement = try prepared("\(sql) (\(SQL.placeholders(width)))")
        var start = 0
        while start < keys.count {
            let chunk = keys[start..<min(start + width, keys.count)]
            var values = chunk.map { SQLiteValue.integer($0) }
            values += Array(repeating: .null, count: width - chunk.count)
            try statement.bind(values)
            defer { try? statement.reset() }
            while try statement.step() { try body(statement) }
            start += width
        }
    }
}

/// Positions at the end of ordered lists held by a foreign key with an order column, for a
/// batch of owners moving between lists: a new member goes after the list's last member at
/// that moment, the batch's earlier moves counted, as the object-by-object calls place it.
final class ListEnds {
    private let writer: ObjectWriter
    private let table: String
    private let keyColumn: String
    private let orderColumn: String
    /// Each batch owner's list and position now.
    private var members: [Int64: (list: Int64?, position: Int64?)]
    /// Per list: the largest position among rows outside the batch (read once), and the batch
    /// owners in it now.
    private var outside: [Int64: Int64] = [:]
    private var inside: [Int64: Set<Int64>] = [:]

    init(
        writer: ObjectWriter, table: String, keyColumn: String, orderColumn: String,
        batch: [Int64: (partner: Int64?, position: Int64?)]
    ) {
        self.writer = writer
        self.table = table
        self.keyColumn = keyColumn
        self.orderColumn = orderColumn
        members = batch.mapValues { ($0.partner, $0.position) }
        for (owner, state) in batch { if let list = state.partner { inside[list, default: []].insert(owner) } }
    }

    /// Moves `owner` to the end of `list` and returns its position there.
    func append(_ owner: Int64, to list: Int64) throws -> Int64 {
        remove(owner)
        if outside[list] == nil {
            var largest: Int64 = 0
            let statement = try writer.prepared(
                "SELECT \"Z_PK\", \(orderColumn) FROM \(table) WHERE \(keyColumn) = ?")
            try statement.bind([.integer(list)])
            defer { try? statement.reset() }
            while try statement.step() {
                guard members[statement.int64(at: 0)] == nil, !statement.isNull(at: 1) else { continue }
                largest = max(largest, statement.int64(at: 1))
            }
            outside[list] = largest
        }
        var last = outside[list] ?? 0
        for member in inside[list] ?? [] { last = max(last, members[member]?.position ?? 0) }
        let position = last + 1
        members[owner] = (list, position)
        inside[list, default: []].insert(owner)
        return position
    }

    /// Takes `owner` out of its list.
    func remove(_ owner: Int64) {
        if let list = members[owner]?.list { inside[list]?.remove(owner) }
        members[owner] = (nil, nil)
    }
}

/// Positions at the end of the other side's ordered lists in a join table, for a batch of
/// owners whose links change: a new link goes after the list's last member at that moment, the
/// batch's earlier links counted and its removed ones not, as the object-by-object calls place it.
final class JoinListEnds {
    private let writer: ObjectWriter
    private let join: String
    private let ownColumn: String
    private let otherColumn: String
    private let orderColumn: String
    private let owners: Set<Int64>
    /// Per list (target): the batch owners' links in it now and their positions.
    private var inside: [Int64: [Int64: Int64?]] = [:]
    /// Per list: the largest position among links of owners outside the batch (read once).
    private var outside: [Int64: Int64] = [:]

    init(
        writer: ObjectWriter, join: String, ownColumn: String, otherColumn: String, orderColumn: String,
        owners: Set<Int64>, rows: [(owner: Int64, list: Int64, position: Int64?)]
    ) {
        self.writer = writer
        self.join = join
        self.ownColumn = ownColumn
        self.otherColumn = otherColumn
        self.orderColumn = orderColumn
        self.owners = owners
        for row in rows { inside[row.list, default: [:]][row.owner] = .some(row.position) }
    }

    /// Adds `owner`'s link at the end of `list` and returns its position.
    func append(_ owner: Int64, to list: Int64) throws -> Int64 {
        if outside[list] == nil {
            var largest: Int64 = 0
            let statement = try writer.prepared(
                "SELECT \(ownColumn), \(orderColumn) FROM \(join) WHERE \(otherColumn) = ?")
            try statement.bind([.integer(list)])
            defer { try? statement.reset() }
            while try statement.step() {
                guard !owners.contains(statement.int64(at: 0)), !statement.isNull(at: 1) else { continue }
                largest = max(largest, statement.int64(at: 1))
            }
            outside[list] = largest
        }
        var last = outside[list] ?? 0
        for case let position? in (inside[list] ?? [:]).values { last = max(last, position) }
        inside[list, default: [:]][owner] = .some(last + 1)
        return last + 1
    }

    /// Takes `owner`'s link out of `list`.
    func remove(_ owner: Int64, from list: Int64) {
        inside[list]?[owner] = nil
    }
}
