import MoltCore
import MoltMapping
import MoltModel
import MoltStore

/// What choosing how one pass's entity mappings are related needs, all of it known before any
/// object is read: the two stores' layouts (made from the models, as the stores' own are), the
/// pass's mapping model worked out by its resolver, and its mappings' numbers.
struct PassFacts {
    let sourceLayout: StoreLayout
    let destinationLayout: StoreLayout
    let resolver: MappingResolver
    private let numbers: [String: Int]
    private let cache = CompiledCache()

    /// The pass's compiled mappings, made once (``compiled(_:)``).
    private final class CompiledCache {
        var byName: [String: CompiledMapping] = [:]
    }

    init(sourceLayout: StoreLayout, destinationLayout: StoreLayout, resolver: MappingResolver) {
        self.sourceLayout = sourceLayout
        self.destinationLayout = destinationLayout
        self.resolver = resolver
        var numbers: [String: Int] = [:]
        for (index, mapping) in resolver.mappingModel.entityMappings.enumerated() {
            numbers[mapping.name] = index + 1
        }
        self.numbers = numbers
    }

    var destinationModel: ObjectModel { destinationLayout.model }

    /// The mapping's values, resolved and compiled (once per pass).
    func compiled(_ mapping: EntityMapping) -> CompiledMapping {
        if let made = cache.byName[mapping.name] { return made }
        let made = CompiledMapping(resolved: resolver.resolve(mapping), sourceModel: sourceLayout.model)
        cache.byName[mapping.name] = made
        return made
    }

    /// Whether every mapping of the pass that writes the inverse of `mapping`'s relationship
    /// `relationship` (whose value is `value`) writes the very links this side writes, so
    /// that the order in which the two sides are written cannot matter: each is Core Data's
    /// default form over the two sides of one source relationship, and each side's mapping
    /// names the other side's (or any). When some writer disagrees, the object path's result
    /// depends on which side is written last.
    func sidesAgree(
        _ relationship: Relationship, value: CanonicalRelationshipValue, in mapping: EntityMapping
    ) -> Bool {
        let model = destinationModel
        guard let inverse = model.inverse(of: relationship) else { return true }
        let sourceInverse = mapping.sourceEntityName
            .flatMap { sourceLayout.entity(named: $0)?.relationship(named: value.sourceRelationship) }
            .flatMap { sourceLayout.model.inverse(of: $0.relationship) }?.name
        for other in resolver.mappingModel.entityMappings where other.kind.readsSource {
            let compiled = compiled(other)
            guard let entity = compiled.resolved.destinationEntity,
                Self.sharesHierarchy(entity.name, relationship.destinationEntityName, in: model),
                let index = compiled.relationships.firstIndex(where: { $0.relationship.name == inverse.name })
            else { continue }
            guard let otherValue = compiled.canonicalRelationships[index], let sourceInverse,
                otherValue.sourceRelationship == sourceInverse,
                value.entityMapping == nil || value.entityMapping == other.name,
                otherValue.entityMapping == nil || otherValue.entityMapping == mapping.name
            else { return false }
        }
        return true
    }

    /// The mapping's number in its pass, from 1 (what the association table records).
    func number(of mapping: String) throws -> Int {
        guard let number = numbers[mapping] else {
            throw MoltError(.migration, "there is no entity mapping called \"\(mapping)\"")
        }
        return number
    }

    /// Whether the two entities have the same root entity in `model`.
    static func sharesHierarchy(_ first: String, _ second: String, in model: ObjectModel) -> Bool {
        func root(_ name: String) -> String {
            var current = name
            var seen: Set<String> = []
            while seen.insert(current).inserted, let parent = model.entity(named: current)?.parentName {
                current = parent
            }
            return current
        }
        return root(first) == root(second)
    }
}
