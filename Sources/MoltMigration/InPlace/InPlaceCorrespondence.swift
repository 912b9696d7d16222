import MoltCore
import MoltMapping
import MoltModel
import MoltSQLite
import MoltStore

/// Why a migration cannot run in place; the heavyweight engine runs it instead.
struct InPlaceObstacle: Error, CustomStringConvertible {
    let reason: String
    init(_ reason: String) { self.reason = reason }
    var description: String { reason }
}

/// What one attribute column of a destination row holds.
enum ColumnValue: Hashable {
    case null
    /// A fixed value (the model's default of a new attribute).
    case constant(SQLiteValue)
    /// The source row's column, copied as it is (same attribute type).
    case column(String)
    /// A value computed from the source row by the engine's own expression evaluation (see
    /// ``RowExpressions``): the entry's number there.
    case evaluated(Int)
}

/// How the objects of one destination entity come from the source store, read from the
/// mapping the way the heavyweight engine reads it (``MappingResolver``): the entity mapping,
/// its source entity, and each destination attribute column's value.
struct EntityCorrespondence {
    let mapping: EntityMapping
    /// The mapping's position in the mapping model (the relate pass's order).
    let mappingIndex: Int
    let source: EntityLayout
    let destination: EntityLayout
    let resolved: ResolvedEntityMapping
    /// Destination attribute column → value.
    let attributes: [String: ColumnValue]
    /// Destination relationship name → the source relationship it is inferred from (nil: new).
    let relationshipSources: [String: RelationshipLayout?]
}

/// Reads a mapping as correspondences between source and destination entities, or finds why
/// it cannot be run in place.
///
/// In place needs what an inferred mapping is: entity mappings that copy or transform one
/// concrete source entity into one concrete destination entity, without policies or filters;
/// attribute values that only read the source row; relationships left to inference.
struct CorrespondenceBuilder {
    let source: StoreLayout
    let destination: StoreLayout
    let resolver: MappingResolver
    let expressions: RowExpressions

    var mapping: MappingModel { resolver.mappingModel }

    func build() throws -> [EntityCorrespondence] {
        var result: [EntityCorrespondence] = []
        var seenSources: Set<String> = []
        var seenDestinations: Set<String> = []
        for (index, entityMapping) in mapping.entityMappings.enumerated() {
            switch entityMapping.kind {
            case .add, .remove: continue
            case .custom:
                throw InPlaceObstacle("the entity mapping \(entityMapping.name) is custom")
            case .copy, .transform: break
            }
            if let policy = entityMapping.policyName {
                throw InPlaceObstacle("the entity mapping \(entityMapping.name) has a policy (\(policy))")
            }
            if entityMapping.filter != nil {
                throw InPlaceObstacle("the entity mapping \(entityMapping.name) has a filter")
            }
            guard let sourceName = entityMapping.sourceEntityName, let sourceLayout = source.entity(named: sourceName),
                let destinationName = entityMapping.destinationEntityName,
                let destinationLayout = destination.entity(named: destinationName)
            else {
                throw InPlaceObstacle("the entity mapping \(entityMapping.name) does not name two known entities")
            }
            guard !destinationLayout.isAbstract else {
                throw InPlaceObstacle("the entity mapping \(entityMapping.name) makes objects of an abstract entity")
            }
            guard seenSources.insert(sourceName).inserted else {
                throw InPlaceObstacle("\(sourceName) objects are read by two entity mappings")
            }
            guard seenDestinations.insert(destinationName).inserted else {
                throw InPlaceObstacle("\(destinationName) objects are made by two entity mappings")
            }
            let resolved = resolver.resolve(entityMapping)
            result.append(
                EntityCorrespondence(
                    mapping: entityMapping, mappingIndex: index, source: sourceLayout, destination: destinationLayout,
                    resolved: resolved,
                    attributes: try attributeValues(resolved, source: sourceLayout, destination: destinationLayout),
                    relationshipSources: try relationshipSources(resolved, source: sourceLayout)))
        }
        return result
    }

    private func attributeValues(
        _ resolved: ResolvedEntityMapping, source sourceLayout: EntityLayout,
        destination destinationLayout: EntityLayout
    ) throws -> [String: ColumnValue] {
        var values: [String: ColumnValue] = [:]
        for column in destinationLayout.attributes {
            let attribute = column.attribute
            guard let property = resolved.attributes.first(where: { $0.name == attribute.name }) else {
                values[column.column] = .null
                continue
            }
            switch property.value {
            case .noValue:
                values[column.column] = .null
            case .modelDefault:
                values[column.column] =
                    AttributeValue(defaultOf: attribute).map { .constant(Self.constant($0, for: attribute)) } ?? .null
            case .expression(let expression):
                if let name = RowExpressions.sourceAttribute(expression), let old = sourceLayout.attribute(named: name),
                    old.attribute.type == attribute.type
                {
                    // The stored bytes carry over only when both sides keep them the same way.
                    guard old.attribute.usesExternalStorage == attribute.usesExternalStorage else {
                        throw InPlaceObstacle(
                            "\(destinationLayout.name).\(attribute.name) changes whether its values may be kept in files (external storage)"
                        )
                    }
                    values[column.column] = .column(old.column)
                    continue
                }
                let external = RowExpressions.attributesRead(by: expression).filter {
                    sourceLayout.attribute(named: $0)?.attribute.usesExternalStorage == true
                }
                guard !attribute.usesExternalStorage, external.isEmpty else {
                    throw InPlaceObstacle(
                        "the value of \(destinationLayout.name).\(attribute.name) (\(expression)) involves values that may be kept in files (external storage)"
                    )
                }
                guard
                    RowExpressions.readsOnlyTheRow(
                        expression, of: sourceLayout, userInfo: resolved.mapping.userInfoDictionary)
                else {
                    throw InPlaceObstacle(
                        "the value of \(destinationLayout.name).\(attribute.name) (\(expression)) reads more than the object's own attributes"
                    )
                }
                values[column.column] = .evaluated(
                    expressions.add(
                        expression, sourceEntity: sourceLayout, destination: attribute,
                        mapping: resolved.mapping))
            }
        }
        return values
    }

    /// The stored form of a constant: with external storage's in-row marker when the attribute
    /// has it (a default value is never long enough for a file of its own here).
    static func constant(_ value: AttributeValue, for attribute: Attribute) -> SQLiteValue {
        guard attribute.usesExternalStorage, case .data(let bytes) = value else { return value.sqliteValue }
        return .blob(ExternalBinaryColumn.inline(bytes).encoded)
    }

    private func relationshipSources(
        _ resolved: ResolvedEntityMapping, source sourceLayout: EntityLayout
    ) throws
        -> [String: RelationshipLayout?]
    {
        var sources: [String: RelationshipLayout?] = [:]
        for property in resolved.relationships {
            switch property.origin {
            case .inferred(let name):
                guard let link = sourceLayout.relationship(named: name) else {
                    throw InPlaceObstacle("\(sourceLayout.name) has no stored relationship \(name)")
                }
                sources[property.name] = .some(link)
            case .nothing, .modelDefault:
                sources[property.name] = .some(nil)
            case .explicit:
                throw InPlaceObstacle(
                    "the relationship \(resolved.mapping.destinationEntityName ?? "").\(property.name) has an explicit value"
                )
            }
        }
        return sources
    }
}
