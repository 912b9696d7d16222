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

/// A relationship ``ObjectWriter/checkLinks(_:_:to:existing:)`` checked: checking a batch
/// asks about the same few relationships of one entity again and again, in turn.
final class LinkCheckMemo {
    /// How many are kept (searched in turn; names compare fast when they are the same).
    static let capacity = 16

    let entity: String
    let relationship: String
    let link: RelationshipLayout
    /// What the check asks of the link for every object, worked out once (copying the layout
    /// for each object cost more than the check).
    let isForeignKey: Bool
    let isToMany: Bool
    /// The entities the relationship's targets may be (``ObjectWriter/targetEntities(of:)``).
    let targetEntities: Set<String>
    /// The last target's entity found among them.
    var lastTargetEntity: String?

    init(entity: String, relationship: String, link: RelationshipLayout, targetEntities: Set<String>) {
        self.entity = entity
        self.relationship = relationship
        self.link = link
        if case .foreignKey = link.storage { isForeignKey = true } else { isForeignKey = false }
        isToMany = link.relationship.isToMany
        self.targetEntities = targetEntities
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
        Self.canSetLinksInBatches(relationship, of: entity, layout: layout)
    }

    /// Whether ``setLinks(_:_:)`` can write `relationship` of `entity` in a store of `layout`.
    package static func canSetLinksInBatches(_ relationship: String, of entity: String, layout: StoreLayout) -> Bool {
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
        let ownerExists = existing.contains(owner)
        let memo: LinkCheckMemo
        if ownerExists,
            let known = linkCheckMemos.first(where: { $0.entity == owner.entity && $0.relationship == relationship })
        {
            memo = known
        } else {
            // An owner not known to exist has its row looked up every time.
            let ownerLayout = try ownerExists ? layout.requireEntity(owner.entity) : requireObject(owner)
            let link = try requireRelationship(relationship, of: ownerLayout)
            memo = LinkCheckMemo(
                entity: owner.entity, relationship: relationship, link: link, targetEntities: targetEntities(of: link))
            if linkCheckMemos.count >= LinkCheckMemo.capacity { linkCheckMemos.removeFirst() }
            linkCheckMemos.append(memo)
        }
        if memo.isForeignKey {
            guard targets.count <= 1 else {
                throw MoltError(
                    .validation, "the to-one relationship was given \(targets.count) objects", entity: owner.entity,
                    property: relationship)
            }
        } else if !memo.isToMany {
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
            let rowExists = existing.contains(target)
            // The common case: a target of an entity the relationship leads to, known to exist.
            if rowExists, target.entity == memo.lastTargetEntity { continue }
            if rowExists, memo.targetEntities.contains(target.entity) {
                memo.lastTargetEntity = target.entity
                continue
            }
            try checkTarget(target, of: memo.link, from: owner, rowExists: rowExists)
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
            // Owners of the run's first entity store it alike; another entity is asked once
            // per change of entity.
            var entity = owner.name
            var alike = true
            while end < assignments.count {
                let next = assignments[end].owner.entity
                if next != entity {
                    entity = next
                    alike = layout.entity(named: next)?.relationship(named: relationship)?.storage == link.storage
                }
                guard alike else { break }
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
            "SELECT \"Z_PK\", \(keyColumn)\(orderRead) FROM \(quotedTable) WHERE \"Z_PK\"", keys: owners, at: 0
        ) { statement in
            current[statement.int64(at: 0)] = (
                statement.isNull(at: 1) ? nil : statement.int64(at: 1),
                orderColumn == nil || statement.isNull(at: 2) ? nil : statement.int64(at: 2)
            )
        }
        let positions = orderColumn.map {
            ListEnds(
                writer: self, table: quotedTable, memberColumn: "\"Z_PK\"", listColumn: keyColumn,
                orderColumn: SQL.identifier($0), members: Set(owners),
                rows: current.compactMap { owner, state in state.partner.map { (owner, $0, state.position) } })
        }
        let assignColumns = [column, entityColumn, orderColumn].compactMap { $0 }
        // Each changed owner's row: its key, then the columns' new values.
        var rows: [SQLiteValue] = []
        for assignment in assignments {
            let key = assignment.owner.primaryKey
            let target = assignment.targets.first
            if current[key]?.partner == target?.primaryKey { continue }
            rows.append(.integer(key))
            rows.append(target.map { .integer($0.primaryKey) } ?? .null)
            if entityColumn != nil {
                rows.append(try target.map { .integer(Int64(try layout.requireEntity($0.entity).number)) } ?? .null)
            }
            if let positions {
                if let old = current[key]?.partner { positions.remove(key, from: old) }
                let position = try target.map { try positions.append(key, to: $0.primaryKey) }
                rows.append(position.map { .integer($0) } ?? .null)
            }
        }
        try updateRows(table, columns: assignColumns, values: rows)
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
        let columns = [column, entityColumn, orderColumn].compactMap { $0 }
        // Owners' entity numbers, looked up once per entity.
        var ownerNumbers: [String: Int64] = [:]
        func number(of owner: ObjectID) throws -> Int64 {
            if let known = ownerNumbers[owner.entity] { return known }
            let found = Int64(try layout.requireEntity(owner.entity).number)
            ownerNumbers[owner.entity] = found
            return found
        }
        // Rows the owners held before: released when no assignment names them, left alone
        // when they already hold what their claim would write (the inverse side of links
        // another mapping wrote).
        var released: [Int64] = []
        var unchanged: Set<Int64> = []
        try forEachRow(
            "SELECT \"Z_PK\", \(SQL.identifiers(columns)) FROM \(quotedTable) WHERE \(SQL.identifier(column))",
            keys: assignments.map(\.owner.primaryKey), at: 1
        ) { statement in
            let key = statement.int64(at: 0)
            guard let claim = claims[key] else {
                released.append(key)
                return
            }
            var index: Int32 = 2
            if entityColumn != nil {
                guard !statement.isNull(at: index), statement.int64(at: index) == (try number(of: claim.owner))
                else { return }
                index += 1
            }
            if orderColumn != nil {
                guard !statement.isNull(at: index), statement.int64(at: index) == claim.position else { return }
            }
            if statement.int64(at: 1) == claim.owner.primaryKey { unchanged.insert(key) }
        }
        if !released.isEmpty {
            let release = try prepared("UPDATE \(quotedTable) SET \(clearing(columns)) WHERE \"Z_PK\" = ?")
            for key in released {
                try release.bind([.integer(key)])
                try release.run()
                countStatement()
            }
        }
        // Each claimed target's row once (its last claim): its key, then the columns' values.
        var rows: [SQLiteValue] = []
        for assignment in assignments {
            let number = try number(of: assignment.owner)
            for target in assignment.targets {
                // A target a later owner claims ends there: only its last claim is written.
                guard let claim = claims[target.primaryKey], claim.owner == assignment.owner,
                    !unchanged.contains(target.primaryKey)
                else { continue }
                rows.append(.integer(target.primaryKey))
                rows.append(.integer(assignment.owner.primaryKey))
                if entityColumn != nil { rows.append(.integer(number)) }
                if orderColumn != nil { rows.append(.integer(claim.position)) }
            }
        }
        try updateRows(table, columns: columns, values: rows)
    }

    /// Many-to-manies (and inverse-less to-manies) in a join table (not one holding both
    /// directions). When the other side is ordered, a new link goes at the end of the target's
    /// list at that moment, the batch's earlier links counted (``ListEnds``).
    private func setJoinRows(
        _ assignments: ArraySlice<LinkAssignment>, table: String, own: String, other: String, orderColumn: String?,
        inverseOrderColumn: String?
    ) throws {
        let join = SQL.identifier(table)
        let ownColumn = SQL.identifier(own)
        let otherColumn = SQL.identifier(other)
        var before: [Int64: Set<Int64>] = [:]
        var positions: [(member: Int64, list: Int64, position: Int64?)] = []
        let inverseRead = inverseOrderColumn.map { ", \(SQL.identifier($0))" } ?? ""
        let owners = assignments.map(\.owner.primaryKey)
        try forEachRow(
            "SELECT \(ownColumn), \(otherColumn)\(inverseRead) FROM \(join) WHERE \(ownColumn)", keys: owners, at: 0
        ) { statement in
            let (owner, list) = (statement.int64(at: 0), statement.int64(at: 1))
            before[owner, default: []].insert(list)
            if inverseOrderColumn != nil {
                positions.append((owner, list, statement.isNull(at: 2) ? nil : statement.int64(at: 2)))
            }
        }
        let ends = inverseOrderColumn.map {
            ListEnds(
                writer: self, table: join, memberColumn: ownColumn, listColumn: otherColumn,
                orderColumn: SQL.identifier($0), members: Set(owners), rows: positions)
        }
        let remove = try prepared("DELETE FROM \(join) WHERE \(ownColumn) = ? AND \(otherColumn) = ?")
        let insertColumns = [own, other] + [orderColumn, inverseOrderColumn].compactMap { $0 }
        // The new rows, written after the removals and reorderings: those touch rows the
        // owners held before the batch, which no new row is.
        var inserted: [SQLiteValue] = []
        let reorder = try orderColumn.map {
            try prepared("UPDATE \(join) SET \(SQL.identifier($0)) = ? WHERE \(ownColumn) = ? AND \(otherColumn) = ?")
        }
        for assignment in assignments {
            let owner = Int64(assignment.owner.primaryKey)
            let held = before[owner] ?? []
            if !held.isEmpty {
                let wanted = Set(assignment.targets.map(\.primaryKey))
                // In key order: a set's order changes from one set to the next, and the order
                // rows are taken out in decides the pages' layout (the same store, byte for byte).
                for key in held.sorted() where !wanted.contains(key) {
                    try remove.bind([.integer(owner), .integer(key)])
                    try remove.run()
                    countStatement()
                    ends?.remove(owner, from: key)
                }
            }
            for (offset, target) in assignment.targets.enumerated() {
                let position: SQLiteValue = .integer(Int64(offset + 1))
                if held.contains(target.primaryKey) {
                    guard let reorder else { continue }
                    try reorder.bind([position, .integer(owner), .integer(target.primaryKey)])
                    try reorder.run()
                    countStatement()
                } else {
                    inserted.append(.integer(owner))
                    inserted.append(.integer(target.primaryKey))
                    if orderColumn != nil { inserted.append(position) }
                    if let ends { inserted.append(.integer(try ends.append(owner, to: target.primaryKey))) }
                }
            }
        }
        try writeRows(
            "INSERT OR IGNORE INTO \(join) (\(SQL.identifiers(insertColumns))) VALUES ", width: insertColumns.count,
            values: inserted)
    }

    // MARK: Reading a batch

    /// Runs `sql` (ending in `WHERE` and the column the keys are of) for the keys, calling
    /// `body` for each row, in the order of that column's index.
    ///
    /// Keys close together (a batch's owners, in key order) are read as one range,
    /// `BETWEEN` the least and the greatest, the rows of other keys (the result's column
    /// `column` tells) left out: one search of the index, where `IN` makes one per key (at
    /// 500 owners a batch whose join rows are not written yet, 100,000 instructions per 64
    /// keys). Else `IN`, a fixed number of placeholders at a time (unused ones NULL, which
    /// matches nothing).
    func forEachRow(
        _ sql: String, keys: [Int64], at column: Int32, _ body: (SQLiteStatement) throws -> Void
    ) throws {
        guard let low = keys.min(), let high = keys.max() else { return }
        if high - low < Int64(keys.count) * 4 + 64 {
            let statement = try prepared("\(sql) BETWEEN ? AND ?")
            try statement.bind([.integer(low), .integer(high)])
            defer { try? statement.reset() }
            var wanted: Set<Int64>?
            while try statement.step() {
                if wanted == nil { wanted = Set(keys) }
                guard wanted?.contains(statement.int64(at: column)) == true else { continue }
                try body(statement)
            }
            return
        }
        let width = 64
        let statement = try prepared("\(sql) IN (\(SQL.placeholders(width)))")
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

/// Positions at the end of ordered lists, for a batch whose members join and leave lists: a
/// member added to a list goes after the list's last member at that moment, the batch's earlier
/// additions counted and its removals not, as the object-by-object calls place it. A list is
/// the rows sharing `listColumn`'s value, ordered by `orderColumn`; a member is a row's
/// `memberColumn` value. For a to-one whose inverse is ordered, rows of the owner's table (a
/// member is in one list at most); for a join table whose other side is ordered, its rows.
final class ListEnds {
    private let writer: ObjectWriter
    private let table: String
    private let memberColumn: String
    private let listColumn: String
    private let orderColumn: String
    /// The batch's members: their rows are followed in `inside`, not read again.
    private let members: Set<Int64>
    /// Per list: the batch's members in it now and their positions.
    private var inside: [Int64: [Int64: Int64?]] = [:]
    /// Per list: the largest position among rows of members outside the batch (read once).
    private var outside: [Int64: Int64] = [:]

    init(
        writer: ObjectWriter, table: String, memberColumn: String, listColumn: String, orderColumn: String,
        members: Set<Int64>, rows: [(member: Int64, list: Int64, position: Int64?)]
    ) {
        self.writer = writer
        self.table = table
        self.memberColumn = memberColumn
        self.listColumn = listColumn
        self.orderColumn = orderColumn
        self.members = members
        for row in rows { inside[row.list, default: [:]][row.member] = .some(row.position) }
    }

    /// Adds `member` at the end of `list` and returns its position.
    func append(_ member: Int64, to list: Int64) throws -> Int64 {
        if outside[list] == nil {
            var largest: Int64 = 0
            let statement = try writer.prepared(
                "SELECT \(memberColumn), \(orderColumn) FROM \(table) WHERE \(listColumn) = ?")
            try statement.bind([.integer(list)])
            defer { try? statement.reset() }
            while try statement.step() {
                guard !members.contains(statement.int64(at: 0)), !statement.isNull(at: 1) else { continue }
                largest = max(largest, statement.int64(at: 1))
            }
            outside[list] = largest
        }
        var last = outside[list] ?? 0
        for case let position? in (inside[list] ?? [:]).values { last = max(last, position) }
        inside[list, default: [:]][member] = .some(last + 1)
        return last + 1
    }

    /// Takes `member` out of `list`.
    func remove(_ member: Int64, from list: Int64) {
        inside[list]?[member] = nil
    }
}
