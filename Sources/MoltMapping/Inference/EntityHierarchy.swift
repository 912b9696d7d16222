import MoltModel

/// One model's entity hierarchy, resolved once: each entity's ancestors, its root, and whether
/// it is a kind of another entity, answered without walking parent chains again.
///
/// Inference asks these questions for every pair of entities and for every relationship, so
/// a model of a few hundred entities must not pay a walk up the hierarchy for each.
struct EntityHierarchy {
    /// Each entity's proper ancestors, nearest first.
    private let ancestorsByName: [String: [String]]
    /// The same ancestors as sets, for "is a kind of".
    private let ancestorSets: [String: Set<String>]
    /// Each entity's descendants, in model order.
    private let descendantsByName: [String: [String]]

    init(_ model: ObjectModel) {
        var ancestors: [String: [String]] = [:]
        var descendants: [String: [String]] = [:]
        for entity in model.entities where ancestors[entity.name] == nil {
            let chain = model.ancestors(of: entity).map(\.name)
            ancestors[entity.name] = chain
            for ancestor in chain { descendants[ancestor, default: []].append(entity.name) }
        }
        ancestorsByName = ancestors
        ancestorSets = ancestors.mapValues(Set.init)
        descendantsByName = descendants
    }

    /// The entity's proper ancestors, nearest first (empty for a root or an unknown name).
    func ancestors(of name: String) -> [String] {
        ancestorsByName[name] ?? []
    }

    /// The root of the entity's hierarchy: its farthest ancestor, or itself.
    func root(of name: String) -> String {
        ancestors(of: name).last ?? name
    }

    /// The entity and its descendants: the entities whose objects are kinds of it.
    func kinds(of name: String) -> [String] {
        [name] + (descendantsByName[name] ?? [])
    }

    /// Whether `name` is `ancestor` or one of its descendants.
    func isKind(_ name: String, of ancestor: String) -> Bool {
        name == ancestor || ancestorSets[name]?.contains(ancestor) == true
    }

    /// The nearest entity that is a proper ancestor of both, if any.
    func nearestCommonAncestor(_ first: String, _ second: String) -> String? {
        let others = ancestorSets[second] ?? []
        return ancestors(of: first).first { others.contains($0) }
    }
}
