import Foundation
package import MoltCore
import MoltModel
package import MoltSQLite

/// Checks every object of a store against its model's rules and collects what fails: the
/// object checks of a migration's validate pass, shared by heavyweight and in-place
/// migrations. It reads only the store (the rules are in `StoreValidation+Rules.swift`).
///
/// Rules: non-optional attributes and to-one relationships have a value; a to-many
/// relationship holds `minCount` to `maxCount` objects, or none when it is optional or its
/// `minCount` is 0 (Core Data's rule, ``MoltModel/Relationship/countProblem(_:)``: a
/// non-optional to-many may be empty);
/// numbers and dates lie within the attribute's minimum and maximum; strings' lengths lie
/// within them and match the regular expression; no two objects share the values of a
/// uniqueness constraint. Every failure is counted; the first 200 are kept in detail.
package struct StoreValidation {
    package struct Failure {
        package var code: MoltError.Code
        package var object: ObjectID
        package var property: String?
        package var message: String
        /// For a uniqueness conflict: every object sharing the values, in key order.
        package var sharing: [ObjectID]

        package init(
            code: MoltError.Code, object: ObjectID, property: String?, message: String, sharing: [ObjectID] = []
        ) {
            self.code = code
            self.object = object
            self.property = property
            self.message = message
            self.sharing = sharing
        }

        package var description: String {
            "\(object)\(property.map { ".\($0)" } ?? ""): \(message) (\(code.rawValue))"
        }
    }

    static let detailLimit = 200

    let connection: SQLiteConnection
    let layout: StoreLayout
    let batchSize: Int
    package private(set) var failures: [Failure] = []
    package private(set) var failureCount = 0

    package init(store: ObjectStore, batchSize: Int) {
        self.init(connection: store.store.connection, layout: store.layout, batchSize: batchSize)
    }

    /// Checks the objects `connection` holds in `layout` (its model's rules): a store being
    /// made, before it is opened as an ``ObjectStore``.
    package init(connection: SQLiteConnection, layout: StoreLayout, batchSize: Int) {
        self.connection = connection
        self.layout = layout
        self.batchSize = batchSize
    }

    var model: ObjectModel { layout.model }

    /// How many objects ``checkObjects(checkCancelled:progress:)`` reads (each entity's count
    /// is kept for the progress it reports: counting is a scan of the table).
    package mutating func objectCount() throws -> Int {
        var total = 0
        for entity in layout.entities where !entity.isAbstract {
            let counted = try count(of: entity)
            counts[entity.name] = counted
            total += counted
        }
        return total
    }

    /// Each entity's count, once ``objectCount()`` counted it.
    private var counts: [String: Int] = [:]

    /// Every row of the store's entity tables has an entity number its table's layout gives
    /// (a store this run wrote): a table of one entity is then counted whole, without reading
    /// each row (``ObjectStore/count(of:includingSubentities:where:rowsAreWellFormed:)``).
    package var rowsAreWellFormed = false

    /// How many objects `entity` itself (not its sub-entities) has.
    private func count(of entity: EntityLayout) throws -> Int {
        if let counted = counts[entity.name] { return counted }
        let count = layout.countStatement(of: [entity.number], in: entity.table, rowsAreWellFormed: rowsAreWellFormed)
        return Int(try connection.scalar(count)?.integerValue ?? 0)
    }

    package mutating func record(_ failure: Failure) {
        failureCount += 1
        if failures.count < Self.detailLimit { failures.append(failure) }
    }

    /// Checks every object of every entity (unless `objects` is false), then each entity's
    /// uniqueness constraints (unless `uniqueness` is false). `progress` gets the entity and
    /// the number of objects done so far.
    ///
    /// Only the rules the model declares are checked, each with one SQL query that finds the
    /// objects that may break it (`IS NULL`, outside a numeric range, a link count out of
    /// bounds; every value for string rules), so a store whose model declares few rules is
    /// validated without loading its objects. Each candidate is then judged by the same
    /// Swift rule (``check(_:_:)``), and failures are listed in object order, then property
    /// order, as an object-by-object walk would find them.
    package mutating func checkObjects(
        objects: Bool = true, uniqueness: Bool = true, checkCancelled: () throws -> Void,
        progress: (String, Int) -> Void
    ) throws {
        var done = 0
        for entity in layout.entities where !entity.isAbstract {
            guard let modelEntity = model.entity(named: entity.name) else { continue }
            try checkCancelled()
            if uniqueness && !objects {
                for constraint in modelEntity.uniquenessConstraints where !constraint.isEmpty {
                    for failure in try uniquenessFailures(entity: entity, constraint: constraint) { record(failure) }
                }
                continue
            }
            guard objects else { continue }
            var found = EntityFailures()
            let attributes = model.allAttributes(of: modelEntity).filter { !$0.isTransient }
            for (index, attribute) in attributes.enumerated() {
                guard let column = entity.attribute(named: attribute.name)?.column,
                    let condition = Self.candidates(attribute, column: SQL.identifier(column))
                else { continue }
                try forEachCandidate(entity, select: SQL.identifier(column), where: condition) { key, value in
                    let stored = try AttributeValue.read(value, as: attribute.type)
                    for failure in Self.check(attribute, stored) {
                        found.add(
                            Failure(
                                code: failure.0, object: ObjectID(entity: entity.name, primaryKey: key),
                                property: attribute.name, message: failure.1), order: index)
                    }
                    try checkCancelled()
                }
            }
            let relationships = model.allRelationships(of: modelEntity).filter { !$0.isTransient }
            for (index, relationship) in relationships.enumerated() {
                guard let link = entity.relationship(named: relationship.name),
                    let (count, condition) = Self.candidates(relationship, link: link)
                else { continue }
                try forEachCandidate(entity, select: count, where: condition) { key, value in
                    if let failure = Self.check(relationship, count: Int(value.integerValue ?? 0)) {
                        found.add(
                            Failure(
                                code: failure.0, object: ObjectID(entity: entity.name, primaryKey: key),
                                property: relationship.name, message: failure.1), order: attributes.count + index)
                    }
                    try checkCancelled()
                }
            }
            for failure in found.inObjectOrder() { record(failure) }
            failureCount += found.count - min(found.count, found.kept.count)
            done += try count(of: entity)
            progress(entity.name, done)
            for constraint in modelEntity.uniquenessConstraints where uniqueness && !constraint.isEmpty {
                for failure in try uniquenessFailures(entity: entity, constraint: constraint) { record(failure) }
            }
        }
    }

    /// Runs `SELECT "Z_PK", <select> FROM <table> AS "t" WHERE <entity> AND (<condition>)` in
    /// key order and calls `body` with each row's key and selected value.
    private func forEachCandidate(
        _ entity: EntityLayout, select: String, where condition: String,
        _ body: (Int64, SQLiteValue) throws -> Void
    ) throws {
        let statement = try connection.prepare(
            """
            SELECT "t"."Z_PK", \(select) FROM \(SQL.identifier(entity.table)) AS "t"
            WHERE "t"."Z_ENT" = \(entity.number) AND (\(condition)) ORDER BY "t"."Z_PK"
            """)
        while try statement.step() {
            try body(statement.int64(at: 0), statement.value(at: 1))
        }
    }

    /// The SQL condition that finds the objects that may break `attribute`'s rules (all of
    /// them are then judged in Swift), or nil when it has no rule that can fail.
    static func candidates(_ attribute: Attribute, column: String) -> String? {
        var conditions: [String] = []
        if !attribute.isOptional { conditions.append("\(column) IS NULL") }
        let minimum = attribute.minimumValue.flatMap(Double.init)
        let maximum = attribute.maximumValue.flatMap(Double.init)
        switch attribute.type {
        case .string:
            if minimum != nil || maximum != nil || attribute.regularExpression != nil {
                conditions.append("\(column) IS NOT NULL")
            }
        case .integer16, .integer32, .integer64, .double, .float, .date:
            var range: [String] = []
            for (bound, comparison) in [(minimum, "<"), (maximum, ">")] {
                guard let bound else { continue }
                // A bound SQL cannot spell (infinite, NaN) leaves the judging to Swift.
                range.append(bound.isFinite ? "\(column) \(comparison) \(bound)" : "\(column) IS NOT NULL")
            }
            if !range.isEmpty { conditions.append(range.joined(separator: " OR ")) }
        case .decimal:
            if minimum != nil || maximum != nil { conditions.append("\(column) IS NOT NULL") }
        default:
            break
        }
        return conditions.isEmpty ? nil : conditions.map { "(\($0))" }.joined(separator: " OR ")
    }

    /// What to select (the related object's key for a to-one, the number of links for a
    /// to-many) and the condition that finds objects that may break `relationship`'s rule;
    /// nil when it has none.
    static func candidates(_ relationship: Relationship, link: RelationshipLayout) -> (String, String)? {
        if !relationship.isToMany {
            guard relationship.requiresObjects, case .foreignKey(let column, _, _) = link.storage else { return nil }
            let key = "\"t\".\(SQL.identifier(column))"
            return (key, "\(key) IS NULL")
        }
        guard relationship.minCount > 1 || relationship.requiresObjects || relationship.maxCount > 0 else {
            return nil
        }
        let count: String
        switch link.storage {
        case .inverseForeignKey(let column, _, _):
            count =
                "(SELECT count(*) FROM \(SQL.identifier(link.destinationTable)) AS \"d\" WHERE \"d\".\(SQL.identifier(column)) = \"t\".\"Z_PK\")"
        case .joinTable(let table, let own, _, _, _, _):
            count =
                "(SELECT count(*) FROM \(SQL.identifier(table)) AS \"j\" WHERE \"j\".\(SQL.identifier(own)) = \"t\".\"Z_PK\")"
        case .foreignKey:
            return nil
        }
        var conditions: [String] = []
        if relationship.minCount > 0 {
            // An empty value breaks the minimum only when the relationship may not be empty.
            conditions.append(
                relationship.allowsNoObjects
                    ? "\(count) BETWEEN 1 AND \(relationship.minCount - 1)" : "\(count) < \(relationship.minCount)")
        }
        if relationship.maxCount > 0 { conditions.append("\(count) > \(relationship.maxCount)") }
        guard !conditions.isEmpty else { return nil }
        return (count, conditions.joined(separator: " OR "))
    }

    /// The error for what failed (Core Data's code: the one failure's, or 1560 for several),
    /// or nil when everything passed. `objects` names what was checked in the message.
    package func error(recovery: String, objects: String = "the migrated objects") -> MoltError? {
        guard let first = failures.first else { return nil }
        let code = failureCount == 1 ? first.code : .validationMultiple
        let more = failureCount > failures.count ? " (the first \(failures.count) are listed)" : ""
        return MoltError(
            code,
            failureCount == 1
                ? "\(objects) do not pass validation: \(first.description)"
                : "\(failureCount) problems make \(objects) fail validation\(more); the first: \(first.description)",
            entity: first.object.entity, property: first.property, recovery: recovery,
            details: failures.map(\.description))
    }

    /// Objects sharing the values of a uniqueness constraint, found with one SQL query.
    func uniquenessFailures(entity: EntityLayout, constraint: [String]) throws -> [Failure] {
        var columns: [String] = []
        for name in constraint {
            if let column = entity.attribute(named: name)?.column {
                columns.append(column)
            } else if let link = entity.relationship(named: name), case .foreignKey(let column, _, _) = link.storage {
                columns.append(column)
            } else {
                return []
            }
        }
        let kinds = entity.kindNumbers.map(String.init).joined(separator: ", ")
        let list = SQL.identifiers(columns)
        // Objects without a value for a constrained property do not conflict (as SQL's UNIQUE).
        let present = columns.map { "\(SQL.identifier($0)) IS NOT NULL" }.joined(separator: " AND ")
        let rows = try connection.rows(
            """
            SELECT MIN("Z_PK"), COUNT(*), group_concat("Z_ENT" || ':' || "Z_PK") FROM \(SQL.identifier(entity.table))
            WHERE "Z_ENT" IN (\(kinds)) AND \(present)
            GROUP BY \(list) HAVING COUNT(*) > 1 LIMIT \(Self.detailLimit)
            """)
        return rows.map { row in
            let count = row[1].integerValue ?? 0
            let sharing = (row[2].textValue ?? "").split(separator: ",").compactMap { pair -> ObjectID? in
                let parts = pair.split(separator: ":")
                guard parts.count == 2, let kind = Int(parts[0]), let key = Int64(parts[1]),
                    let name = layout.entityName(number: kind)
                else { return nil }
                return ObjectID(entity: name, primaryKey: key)
            }.sorted { $0.primaryKey < $1.primaryKey }
            let listed = sharing.prefix(5).map(\.description).joined(separator: ", ")
            let more = sharing.count > 5 ? ", …" : ""
            return Failure(
                code: .constraintConflict,
                object: sharing.first ?? ObjectID(entity: entity.name, primaryKey: row[0].integerValue ?? 0),
                property: constraint.joined(separator: ", "),
                message: "\(count) objects share these values of a uniqueness constraint (\(listed)\(more))",
                sharing: sharing)
        }
    }
}

/// One entity's failures: every one counted, the first ``StoreValidation/detailLimit`` of
/// each rule kept, so that the first failures in object order are among those kept.
private struct EntityFailures {
    private(set) var kept: [(failure: StoreValidation.Failure, order: Int)] = []
    private(set) var count = 0
    private var perRule: [Int: Int] = [:]

    mutating func add(_ failure: StoreValidation.Failure, order: Int) {
        count += 1
        let rule = perRule[order, default: 0]
        guard rule < StoreValidation.detailLimit else { return }
        perRule[order] = rule + 1
        kept.append((failure, order))
    }

    /// The kept failures by object key, then property order (stable within a property).
    func inObjectOrder() -> [StoreValidation.Failure] {
        kept.enumerated().sorted { a, b in
            let (x, y) = (a.element, b.element)
            if x.failure.object.primaryKey != y.failure.object.primaryKey {
                return x.failure.object.primaryKey < y.failure.object.primaryKey
            }
            if x.order != y.order { return x.order < y.order }
            return a.offset < b.offset
        }.map(\.element.failure)
    }
}
