import MoltMapping
import MoltModel
import MoltStore

/// The plan's rules for ``KeyAtInsert`` (documented there).
extension KeyAtInsert {
    /// For each mapping of a pass related in batches or in SQL, the to-one relationships whose
    /// keys the copy pass writes; empty when the pass does not allow it (see the type's
    /// documentation for the rules).
    static func plan(
        _ mappingModel: MappingModel, chains: [String: RelateChain],
        policyTypes: [String: EntityMigrationPolicy.Type], facts: PassFacts, passCount: Int,
        evaluatesEveryValue: Bool
    ) -> [String: [KeyAtInsert]] {
        guard passCount == 1, !evaluatesEveryValue else { return [:] }
        let mappings = mappingModel.entityMappings.filter { $0.kind.readsSource && policyTypes[$0.name] != nil }
        for mapping in mappings {
            let compiled = facts.compiled(mapping)
            if let filter = mapping.filter, !readsNoDestination(filter) { return [:] }
            for (_, value) in compiled.attributes {
                if case .expression(let expression, _) = value, !readsNoDestination(expression.expression) {
                    return [:]
                }
            }
            if compiled.canonicalRelationships.contains(where: { $0 == nil }) { return [:] }
        }
        var result: [String: [KeyAtInsert]] = [:]
        for (position, mapping) in mappings.enumerated() {
            // Only a strategy that writes relationships as a set checks keys written ahead.
            guard let related = chains[mapping.name]?.planned.relationshipsWrittenAsASet, !related.isEmpty
            else { continue }
            let earlier = Array(mappings[..<position])
            let links = Self.links(of: mapping, batched: related, among: mappings, earlier: earlier, facts)
            if !links.isEmpty { result[mapping.name] = links }
        }
        return result
    }

    /// The relationships of `mapping` (among `batched`) that qualify.
    private static func links(
        of mapping: EntityMapping, batched: Set<String>, among mappings: [EntityMapping], earlier: [EntityMapping],
        _ facts: PassFacts
    ) -> [KeyAtInsert] {
        let model = facts.destinationModel
        let compiled = facts.compiled(mapping)
        guard let sourceName = mapping.sourceEntityName, let source = facts.sourceLayout.entity(named: sourceName),
            let owner = compiled.resolved.destinationEntity,
            let ownerLayout = facts.destinationLayout.entity(named: owner.name)
        else { return [] }
        var links: [KeyAtInsert] = []
        for (index, (relationship, _, _)) in compiled.relationships.enumerated() {
            guard batched.contains(relationship.name), !relationship.isToMany,
                let value = compiled.canonicalRelationships[index], let targetName = value.entityMapping,
                case .foreignKey(let column, let entityColumn, nil)? = ownerLayout.relationship(
                    named: relationship.name)?.storage,
                let sourceLink = source.relationship(named: value.sourceRelationship),
                !sourceLink.relationship.isToMany,
                let target = mappings.first(where: { $0.name == targetName }),
                let sourceTarget = target.sourceEntityName, facts.sourceLayout.entity(named: sourceTarget) != nil,
                let targetEntity = facts.compiled(target).resolved.destinationEntity,
                let targetLayout = facts.destinationLayout.entity(named: targetEntity.name),
                model.entity(targetEntity, isKindOf: relationship.destinationEntityName),
                let targetNumber = try? facts.number(of: target.name)
            else { continue }
            let inverse = model.inverse(of: relationship)
            if let inverse, !inverse.isToMany { continue }
            // A mapping related before this one that writes the inverse would see (and could
            // release) the keys before the relate pass would have written them.
            if let inverse,
                earlier.contains(where: { other in
                    let otherCompiled = facts.compiled(other)
                    guard let entity = otherCompiled.resolved.destinationEntity,
                        PassFacts.sharesHierarchy(entity.name, relationship.destinationEntityName, in: model)
                    else { return false }
                    return otherCompiled.relationships.contains { $0.relationship.name == inverse.name }
                })
            {
                continue
            }
            links.append(
                KeyAtInsert(
                    relationship: relationship.name, sourceRelationship: value.sourceRelationship,
                    sourceTarget: sourceTarget, targetMapping: targetNumber, targetEntity: targetEntity.name,
                    targetEntityNumber: targetLayout.number, owner: owner.name, column: column,
                    entityColumn: entityColumn))
        }
        return links
    }

    /// Whether evaluating the expression can read nothing of the destination store: no
    /// `FUNCTION` call (the manager's, a policy's), no `$manager`, `$destination` or
    /// `$entityPolicy`.
    static func readsNoDestination(_ expression: MappingExpression) -> Bool {
        switch expression.kind {
        case .constant, .truePredicate, .falsePredicate: return true
        case .variable(let name): return !["manager", "destination", "entityPolicy"].contains(name)
        case .keyPath(let base, _): return base.map(readsNoDestination) ?? true
        case .call: return false
        case .aggregate(let items): return items.allSatisfy(readsNoDestination)
        case .function(_, let arguments): return arguments.allSatisfy(readsNoDestination)
        case .ternary(let condition, let then, let otherwise):
            return readsNoDestination(condition) && readsNoDestination(then) && readsNoDestination(otherwise)
        case .index(let inner, _), .negate(let inner), .not(let inner): return readsNoDestination(inner)
        case .arithmetic(_, let lhs, let rhs), .and(let lhs, let rhs), .or(let lhs, let rhs):
            return readsNoDestination(lhs) && readsNoDestination(rhs)
        case .comparison(let comparison):
            return readsNoDestination(comparison.lhs) && readsNoDestination(comparison.rhs)
        }
    }
}
