import MoltCore
import MoltModel
import MoltStore

/// Pairs each destination relationship with its inverse and finds where their links come
/// from in the source store (see ``LinkSet``).
struct LinkSetBuilder {
    let source: StoreLayout
    let destination: StoreLayout
    let correspondences: [EntityCorrespondence]
    let entityNumbers: [Int: Int]
    /// For each destination entity, the correspondences (by index, in order) whose destination
    /// is that entity or one of its sub-entities.
    private let byKind: [String: [Int]]

    init(
        source: StoreLayout, destination: StoreLayout, correspondences: [EntityCorrespondence],
        entityNumbers: [Int: Int]
    ) {
        self.source = source
        self.destination = destination
        self.correspondences = correspondences
        self.entityNumbers = entityNumbers
        var byKind: [String: [Int]] = [:]
        for (index, correspondence) in correspondences.enumerated() {
            guard let entity = destination.model.entity(named: correspondence.destination.name) else { continue }
            for kind in [entity.name] + destination.model.ancestors(of: entity).map(\.name) {
                byKind[kind, default: []].append(index)
            }
        }
        self.byKind = byKind
    }

    func build() throws -> [LinkSet] {
        var sets: [LinkSet] = []
        var done: Set<String> = []
        for entity in destination.entities {
            for link in entity.relationships where link.declaringEntity == entity.name {
                guard !done.contains(Self.key(link)) else { continue }
                let inverse = inverseLayout(of: link)
                done.insert(Self.key(link))
                if let inverse { done.insert(Self.key(inverse)) }
                sets.append(try linkSet(number: sets.count + 1, link, inverse))
            }
        }
        return sets
    }

    static func key(_ link: RelationshipLayout) -> String {
        "\(link.declaringEntity).\(link.relationship.name)"
    }

    /// The layout of `link`'s inverse, as its declaring entity lays it out.
    private func inverseLayout(of link: RelationshipLayout) -> RelationshipLayout? {
        guard let inverse = destination.model.inverse(of: link.relationship),
            let target = destination.model.entity(named: link.relationship.destinationEntityName),
            let declaring = destination.model.declaringEntity(ofRelationship: inverse.name, in: target)
        else { return nil }
        return destination.entity(named: declaring.name)?.relationship(named: inverse.name)
    }

    /// The source relationship the migrated owners of `link` infer it from; nil when the
    /// relationship is new (owners of entities that did not have it start with no links).
    private func sourceOf(_ link: RelationshipLayout) throws -> RelationshipLayout? {
        var found: RelationshipLayout?
        for index in byKind[link.declaringEntity] ?? [] {
            let correspondence = correspondences[index]
            guard let origin = correspondence.relationshipSources[link.relationship.name] ?? nil else { continue }
            if let found, Self.key(found) != Self.key(origin) {
                throw InPlaceObstacle(
                    "\(Self.key(link)) comes from different source relationships in different entities")
            }
            found = origin
        }
        return found
    }

    private func linkSet(number: Int, _ forward: RelationshipLayout, _ inverse: RelationshipLayout?) throws -> LinkSet {
        let isSelfInverse = inverse.map { Self.key($0) == Self.key(forward) } ?? false
        let inverse = isSelfInverse ? nil : inverse
        let forwardSource = try sourceOf(forward)
        let inverseSource = try inverse.flatMap { try sourceOf($0) }
        if let forwardSource, let inverseSource, sourceInverseKey(of: forwardSource) != Self.key(inverseSource) {
            throw InPlaceObstacle(
                "\(Self.key(forward)) and its inverse come from source relationships that were not each other's inverse"
            )
        }
        if isSelfInverse {
            if forward.relationship.isOrdered {
                throw InPlaceObstacle("\(Self.key(forward)) is an ordered relationship that is its own inverse")
            }
            if let forwardSource, sourceInverseKey(of: forwardSource) != Self.key(forwardSource) {
                throw InPlaceObstacle("\(Self.key(forward)) became its own inverse")
            }
        }
        let origin: LinkSet.Origin
        let ownerTable: String
        let targetTable: String
        if let forwardSource {
            origin = .forward(forwardSource)
            ownerTable = try table(of: forwardSource.declaringEntity)
            targetTable = forwardSource.destinationTable
        } else if let inverseSource {
            origin = .backward(inverseSource)
            ownerTable = inverseSource.destinationTable
            targetTable = try table(of: inverseSource.declaringEntity)
        } else {
            origin = .none
            ownerTable = ""
            targetTable = ""
        }
        let ownerKinds = kinds(ofKindOf: forward.declaringEntity)
        let targetKinds = kinds(ofKindOf: forward.relationship.destinationEntityName)
        return LinkSet(
            number: number, forward: forward, inverse: inverse, isSelfInverse: isSelfInverse, origin: origin,
            forwardSource: forwardSource, inverseSource: inverseSource, ownerKinds: ownerKinds,
            targetKinds: targetKinds, ownerTable: ownerTable, targetTable: targetTable,
            isUnchanged: isUnchanged(
                forward: forward, inverse: inverse, forwardSource: forwardSource, inverseSource: inverseSource,
                ownerKinds: ownerKinds, targetKinds: targetKinds))
    }

    /// `Entity.relationship` of a source relationship's inverse.
    private func sourceInverseKey(of link: RelationshipLayout) -> String? {
        guard let inverse = source.model.inverse(of: link.relationship),
            let target = source.model.entity(named: link.relationship.destinationEntityName),
            let declaring = source.model.declaringEntity(ofRelationship: inverse.name, in: target)
        else { return nil }
        return "\(declaring.name).\(inverse.name)"
    }

    private func table(of entity: String) throws -> String {
        guard let layout = source.entity(named: entity) else {
            throw InPlaceObstacle("the source model has no entity \(entity)")
        }
        return layout.table
    }

    /// Source entity numbers of migrated objects that become `entity` or a sub-entity.
    private func kinds(ofKindOf entity: String) -> [Int] {
        (byKind[entity] ?? []).map { correspondences[$0].source.number }
    }

    /// Whether the links can stay as stored: same storage (tables and columns), the same
    /// objects on both sides (none dropped, numbers unchanged), the same orders.
    private func isUnchanged(
        forward: RelationshipLayout, inverse: RelationshipLayout?, forwardSource: RelationshipLayout?,
        inverseSource: RelationshipLayout?, ownerKinds: [Int], targetKinds: [Int]
    ) -> Bool {
        guard let forwardSource, forwardSource.storage == forward.storage,
            forwardSource.destinationTable == forward.destinationTable,
            forwardSource.relationship.isToMany == forward.relationship.isToMany,
            forwardSource.relationship.isOrdered == forward.relationship.isOrdered,
            (inverse == nil) == (inverseSource == nil),
            inverse.map({ $0.relationship.isOrdered == inverseSource!.relationship.isOrdered }) ?? true,
            inverse.map({ $0.relationship.isToMany == inverseSource!.relationship.isToMany }) ?? true,
            source.entity(named: forwardSource.declaringEntity)?.table
                == destination.entity(named: forward.declaringEntity)?.table
        else { return false }
        // Every object that could hold a link in the source is migrated, with its number.
        let sourceOwners = sourceKinds(ofKindOf: forwardSource.declaringEntity)
        let sourceTargets = sourceKinds(ofKindOf: forwardSource.relationship.destinationEntityName)
        return Set(sourceOwners) == Set(ownerKinds) && Set(sourceTargets) == Set(targetKinds)
            && (sourceOwners + sourceTargets).allSatisfy { entityNumbers[$0] == $0 }
    }

    /// Numbers of the concrete source entities that are `entity` or a sub-entity.
    private func sourceKinds(ofKindOf entity: String) -> [Int] {
        (source.entity(named: entity)?.kindNumbers ?? []).filter { source.entity(number: $0)?.isAbstract == false }
    }
}
