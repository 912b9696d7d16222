import Foundation
import MoltCore
import MoltModel
import MoltSQLite
import MoltStore

/// Checks every object of a store against its model's rules and collects what fails: the
/// object checks of the validate pass, shared by heavyweight and in-place migrations.
///
/// Rules: non-optional attributes and to-one relationships have a value; to-many
/// relationships hold at least `minCount` objects (1 when not optional) and at most `maxCount`;
/// numbers and dates lie within the attribute's minimum and maximum; strings' lengths lie
/// within them and match the regular expression; no two objects share the values of a
/// uniqueness constraint. Every failure is counted; the first 200 are kept in detail.
struct StoreValidation {
    struct Failure {
        var code: MoltError.Code
        var object: ObjectID
        var property: String?
        var message: String

        var description: String {
            "\(object)\(property.map { ".\($0)" } ?? ""): \(message) (\(code.rawValue))"
        }
    }

    static let detailLimit = 200

    let store: ObjectStore
    let batchSize: Int
    private(set) var failures: [Failure] = []
    private(set) var failureCount = 0

    init(store: ObjectStore, batchSize: Int) {
        self.store = store
        self.batchSize = batchSize
    }

    /// How many objects ``checkObjects(checkCancelled:progress:)`` reads.
    func objectCount() throws -> Int {
        try store.layout.entities.filter { !$0.isAbstract }.reduce(0) {
            $0 + (try store.count(of: $1.name, includingSubentities: false))
        }
    }

    mutating func record(_ failure: Failure) {
        failureCount += 1
        if failures.count < Self.detailLimit { failures.append(failure) }
    }

    /// Checks every object of every entity, then each entity's uniqueness constraints.
    /// `progress` gets the entity and the number of objects done so far.
    mutating func checkObjects(checkCancelled: () throws -> Void, progress: (String, Int) -> Void) throws {
        var done = 0
        for entity in store.layout.entities where !entity.isAbstract {
            guard let modelEntity = store.model.entity(named: entity.name) else { continue }
            let attributes = store.model.allAttributes(of: modelEntity).filter { !$0.isTransient }
            let relationships = store.model.allRelationships(of: modelEntity).filter { !$0.isTransient }
            let cursor = try store.objects(of: entity.name, includingSubentities: false, batchSize: batchSize)
            while let batch = try cursor.nextBatch() {
                for object in batch {
                    try checkCancelled()
                    for attribute in attributes {
                        for failure in Self.check(attribute, object.attributes[attribute.name]) {
                            record(
                                Failure(
                                    code: failure.0, object: object.id, property: attribute.name, message: failure.1))
                        }
                    }
                    for relationship in relationships {
                        if let failure = Self.check(relationship, object.relationships[relationship.name]) {
                            record(
                                Failure(
                                    code: failure.0, object: object.id, property: relationship.name, message: failure.1)
                            )
                        }
                    }
                    done += 1
                    progress(entity.name, done)
                }
            }
            for constraint in modelEntity.uniquenessConstraints where !constraint.isEmpty {
                for failure in try uniquenessFailures(entity: entity, constraint: constraint) { record(failure) }
            }
        }
    }

    /// The error for what failed (Core Data's code: the one failure's, or 1560 for several),
    /// or nil when everything passed.
    func error(recovery: String) -> MoltError? {
        guard let first = failures.first else { return nil }
        let code = failureCount == 1 ? first.code : .validationMultiple
        let more = failureCount > failures.count ? " (the first \(failures.count) are listed)" : ""
        return MoltError(
            code,
            failureCount == 1
                ? "the migrated objects do not pass validation: \(first.description)"
                : "\(failureCount) problems make the migrated objects fail validation\(more); the first: \(first.description)",
            entity: first.object.entity, property: first.property, recovery: recovery,
            details: failures.map(\.description))
    }

    // MARK: Rules

    /// The attribute's rules broken by `value`.
    static func check(_ attribute: Attribute, _ value: AttributeValue?) -> [(MoltError.Code, String)] {
        guard let value else {
            return attribute.isOptional
                ? [] : [(.validationMissingMandatoryProperty, "is not optional but has no value")]
        }
        var failures: [(MoltError.Code, String)] = []
        let minimum = attribute.minimumValue.flatMap(Double.init)
        let maximum = attribute.maximumValue.flatMap(Double.init)
        switch value {
        case .string(let text):
            let length = Double(text.count)
            if let minimum, length < minimum {
                failures.append((.validationStringTooShort, "is \(Int(length)) characters, fewer than \(Int(minimum))"))
            }
            if let maximum, length > maximum {
                failures.append((.validationStringTooLong, "is \(Int(length)) characters, more than \(Int(maximum))"))
            }
            if let pattern = attribute.regularExpression, let regex = try? NSRegularExpression(pattern: pattern) {
                let range = NSRange(text.startIndex..., in: text)
                if regex.firstMatch(in: text, options: [.anchored], range: range)?.range != range {
                    failures.append((.validationStringPatternMatching, "\"\(text)\" does not match \(pattern)"))
                }
            }
        case .integer, .double, .decimal:
            let number: Double =
                switch value {
                case .integer(let integer): Double(integer)
                case .double(let double): double
                case .decimal(let decimal): NSDecimalNumber(decimal: decimal).doubleValue
                default: 0
                }
            if let minimum, number < minimum {
                failures.append((.validationNumberTooSmall, "\(number) is less than the minimum \(minimum)"))
            }
            if let maximum, number > maximum {
                failures.append((.validationNumberTooLarge, "\(number) is more than the maximum \(maximum)"))
            }
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            if let minimum, seconds < minimum {
                failures.append((.validationDateTooSoon, "\(date) is before the minimum"))
            }
            if let maximum, seconds > maximum {
                failures.append((.validationDateTooLate, "\(date) is after the maximum"))
            }
        default:
            break
        }
        return failures
    }

    /// The relationship's rule broken by `value`, if any.
    static func check(_ relationship: Relationship, _ value: RelationshipValue?) -> (MoltError.Code, String)? {
        let count = value?.objectIDs.count ?? 0
        if !relationship.isToMany {
            return count == 0 && !relationship.isOptional
                ? (.validationMissingMandatoryProperty, "is not optional but has no object") : nil
        }
        let minimum = max(relationship.minCount, relationship.isOptional ? 0 : 1)
        if count < minimum {
            return (.validationRelationshipLacksMinimumCount, "has \(count) objects, fewer than \(minimum)")
        }
        if relationship.maxCount > 0, count > relationship.maxCount {
            return (
                .validationRelationshipExceedsMaximumCount, "has \(count) objects, more than \(relationship.maxCount)"
            )
        }
        return nil
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
        let rows = try store.store.connection.rows(
            """
            SELECT MIN("Z_PK"), COUNT(*) FROM \(SQL.identifier(entity.table)) WHERE "Z_ENT" IN (\(kinds)) AND \(present)
            GROUP BY \(list) HAVING COUNT(*) > 1 LIMIT \(Self.detailLimit)
            """)
        return rows.map { row in
            Failure(
                code: .constraintConflict, object: ObjectID(entity: entity.name, primaryKey: row[0].integerValue ?? 0),
                property: constraint.joined(separator: ", "),
                message: "\(row[1].integerValue ?? 0) objects share these values of a uniqueness constraint")
        }
    }
}
