internal import MoltCore
public import MoltMapping
public import MoltModel
internal import MoltSQLite
public import MoltStore

/// Finds what a mapping leaves behind (``DiscardedData``), from the two models and the mapping
/// alone (``items()``), and counts it in a store at the source version (``counted(in:)``).
///
/// For each concrete source entity:
/// - no copy, transform or custom mapping reads it: its objects are discarded (a remove
///   mapping says so on purpose; none at all is worse, and the reason says which);
/// - otherwise, an attribute no reading mapping carries (inferred into a destination property,
///   or read by an explicit value as `$source.name…`) loses its values, and a relationship
///   neither this side nor the inverse side carries loses its links (listed once per pair, on
///   the first side found). A mapping that hands `$source` itself to a function may read
///   anything, so none of that entity's properties are listed; one with a policy is listed
///   with the policy named, since the policy may read what the mapping does not.
///
/// Objects that filters leave out are listed when every mapping reading an entity has a
/// filter; they are not counted here (that depends on the objects): a heavyweight migration
/// counts them after its copy pass when one mapping reads the entity
/// (``counting(filtered:sourceCounts:read:)``).
///
/// ```swift
/// let survey = DiscardSurvey(source: v1, destination: v2, mapping: mapping)
/// for item in try survey.counted(in: store) { print(item) }
/// ```
public struct DiscardSurvey {
    public let source: ObjectModel
    public let destination: ObjectModel
    public let mapping: MappingModel
    private let resolver: MappingResolver

    public init(source: ObjectModel, destination: ObjectModel, mapping: MappingModel) {
        self.init(resolver: MappingResolver(source: source, destination: destination, mappingModel: mapping))
    }

    /// The survey of `resolver`'s mapping model (a migration run's, worked out once).
    public init(resolver: MappingResolver) {
        self.source = resolver.source
        self.destination = resolver.destination
        self.mapping = resolver.mappingModel
        self.resolver = resolver
    }

    /// What the mapping discards, uncounted, in source entity order.
    public func items() -> [DiscardedData] {
        var reading: [String: [EntityMapping]] = [:]
        var removing: [String: String] = [:]
        for entityMapping in mapping.entityMappings {
            guard let entity = entityMapping.sourceEntityName else { continue }
            if entityMapping.kind.readsSource {
                reading[entity, default: []].append(entityMapping)
            } else if entityMapping.kind == .remove {
                removing[entity] = removing[entity] ?? entityMapping.name
            }
        }
        var carried: [String: Carried] = [:]
        func carriedBy(_ entity: String) -> Carried {
            if let known = carried[entity] { return known }
            let found = Carried(reading[entity] ?? [], resolver: resolver)
            carried[entity] = found
            return found
        }
        var items: [DiscardedData] = []
        var linkSides: [String: String] = [:]
        let destinationName = destination.name.map { " \($0)" } ?? ""
        for entity in source.entities.sorted(by: { NameOrder.precedes($0.name, $1.name) }) where !entity.isAbstract {
            guard let mappings = reading[entity.name], !mappings.isEmpty else {
                let reason =
                    removing[entity.name].map { "the mapping \($0) removes them" }
                    ?? "no entity mapping reads them, so the new version\(destinationName) has none"
                items.append(DiscardedData(kind: .objects(entity: entity.name), reason: reason))
                continue
            }
            let filters = mappings.compactMap(\.filter)
            if filters.count == mappings.count {
                items.append(
                    DiscardedData(
                        kind: .filteredObjects(entity: entity.name),
                        reason:
                            "those that fail \(mappings.count == 1 ? "the filter" : "every filter") of \(Self.names(mappings)): \(filters.map(\.description).joined(separator: "; "))"
                    ))
            }
            let kept = carriedBy(entity.name)
            guard !kept.everything else { continue }
            var policies: [String] = []
            for name in mappings.compactMap(\.policyName) where !policies.contains(name) { policies.append(name) }
            let policy = policies.isEmpty ? nil : policies.joined(separator: " or ")
            for attribute in source.allAttributes(of: entity) where !attribute.isTransient {
                guard !kept.carries(attribute: attribute.name) else { continue }
                items.append(
                    DiscardedData(
                        kind: .attributeValues(entity: entity.name, attribute: attribute.name),
                        reason: "no value of \(Self.names(mappings)) reads them", policy: policy))
            }
            for relationship in source.allRelationships(of: entity) where !relationship.isTransient {
                guard !kept.names.contains(relationship.name) else { continue }
                let declaring =
                    source.declaringEntity(ofRelationship: relationship.name, in: entity)?.name ?? entity.name
                var pair = ["\(declaring).\(relationship.name)"]
                if let inverse = source.inverse(of: relationship) {
                    // Links the other side keeps are not lost.
                    let kinds =
                        source.entity(named: relationship.destinationEntityName).map {
                            [$0] + source.descendants(of: $0)
                        } ?? []
                    if kinds.contains(where: { kind in
                        !kind.isAbstract
                            && (carriedBy(kind.name).everything || carriedBy(kind.name).names.contains(inverse.name))
                    }) {
                        continue
                    }
                    pair.append(
                        "\(relationship.inverseEntityName ?? relationship.destinationEntityName).\(inverse.name)")
                }
                let key = pair.sorted().joined(separator: " ")
                if let side = linkSides[key], side != declaring { continue }
                linkSides[key] = declaring
                items.append(
                    DiscardedData(
                        kind: .links(entity: entity.name, relationship: relationship.name),
                        reason: "neither \(Self.names(mappings)) nor a mapping of the other side keeps them",
                        policy: policy))
            }
        }
        return items
    }

    /// What the mapping discards, counted in `store` (which must be bound to the source model).
    /// Items that turn out empty (no objects, no values, no links) are left out.
    /// Objects left out by filters stay uncounted.
    public func counted(in store: ObjectStore) throws -> [DiscardedData] {
        try items().compactMap { item in
            var item = item
            item.count = try count(item.kind, in: store)
            return item.isEmpty ? nil : item
        }
    }

    /// `items` with the objects filters left out counted from what the copy pass read, where
    /// one mapping reads the entity (`sourceCounts`: objects per source entity; `read`: objects
    /// each mapping read). Items found empty are left out.
    public func counting(
        filtered items: [DiscardedData], sourceCounts: [String: Int], read: [String: Int]
    ) -> [DiscardedData] {
        items.compactMap { item in
            guard case .filteredObjects(let entity) = item.kind else { return item }
            let readers = mapping.entityMappings.filter { $0.kind.readsSource && $0.sourceEntityName == entity }
            guard readers.count == 1, let total = sourceCounts[entity], let done = read[readers[0].name] else {
                return item
            }
            var counted = item
            counted.count = max(0, total - done)
            return counted.isEmpty ? nil : counted
        }
    }

    func count(_ kind: DiscardedData.Kind, in store: ObjectStore) throws -> Int? {
        let connection = store.store.connection
        switch kind {
        case .filteredObjects:
            return nil
        case .objects(let entity):
            return try store.count(of: entity, includingSubentities: false)
        case .attributeValues(let entity, let attribute):
            let layout = try store.layout.requireEntity(entity)
            guard let column = layout.attribute(named: attribute)?.column else { return 0 }
            return try Self.integer(
                connection,
                "SELECT count(*) FROM \(SQL.identifier(layout.table)) WHERE \"Z_ENT\" = \(layout.number) AND \(SQL.identifier(column)) IS NOT NULL"
            )
        case .links(let entity, let relationship):
            let layout = try store.layout.requireEntity(entity)
            guard let link = layout.relationship(named: relationship) else { return 0 }
            let owners = "SELECT \"Z_PK\" FROM \(SQL.identifier(layout.table)) WHERE \"Z_ENT\" = \(layout.number)"
            switch link.storage {
            case .foreignKey(let column, _, _):
                return try Self.integer(
                    connection,
                    "SELECT count(*) FROM \(SQL.identifier(layout.table)) WHERE \"Z_ENT\" = \(layout.number) AND \(SQL.identifier(column)) IS NOT NULL"
                )
            case .inverseForeignKey(let column, _, _):
                return try Self.integer(
                    connection,
                    "SELECT count(*) FROM \(SQL.identifier(link.destinationTable)) WHERE \(SQL.identifier(column)) IN (\(owners))"
                )
            case .joinTable(let table, let own, _, _, _, _):
                return try Self.integer(
                    connection,
                    "SELECT count(*) FROM \(SQL.identifier(table)) WHERE \(SQL.identifier(own)) IN (\(owners))")
            }
        }
    }

    static func integer(_ connection: SQLiteConnection, _ sql: String) throws -> Int {
        Int(try connection.scalar(sql)?.integerValue ?? 0)
    }

    static func names(_ mappings: [EntityMapping]) -> String {
        mappings.count == 1
            ? "the mapping \(mappings[0].name)" : "the mappings \(mappings.map(\.name).joined(separator: ", "))"
    }
}

/// The source properties an entity's reading mappings carry into the new version.
private struct Carried {
    /// Source attributes and relationships some mapping carries (inferred, or read by a value).
    var names: Set<String> = []
    /// Properties read whole by a one-key path (`$source.home`): for a composite, every leaf
    /// below it may be read (a policy function or a comparison is handed the composite).
    var wholes: Set<String> = []
    /// A value hands `$source` itself on: anything may be read.
    var everything = false

    init(_ mappings: [EntityMapping], resolver: MappingResolver) {
        for entityMapping in mappings {
            let resolved = resolver.resolve(entityMapping)
            for property in resolved.attributes + resolved.relationships {
                if case .inferred(let name) = property.origin { names.insert(name) }
                if case .expression(let expression) = property.value, property.origin == .explicit {
                    read(expression)
                }
            }
        }
    }

    /// Whether the stored attribute `name` is carried: read itself, or a composite's leaf
    /// (`home.city`) whose composite is read whole.
    func carries(attribute name: String) -> Bool {
        if names.contains(name) { return true }
        guard let dot = name.firstIndex(of: ".") else { return false }
        return wholes.contains(String(name[..<dot]))
    }

    /// Records what `expression` reads from the source object: `$source.name…` reads `name`;
    /// `$source` alone reads anything.
    mutating func read(_ expression: MappingExpression) {
        switch expression.kind {
        case .keyPath(let base?, let components) where base.kind == .variable("source"):
            if let first = components.first { names.insert(first) } else { everything = true }
            if components.count == 1 { wholes.insert(components[0]) }
        case .variable("source"):
            everything = true
        default:
            for child in expression.children { read(child) }
        }
    }
}
