import MoltCore
import MoltMapping
import MoltModel
import MoltStore

/// The relate strategy for a mapping whose policy keeps the default `createRelationships` and
/// whose relationship values are Core Data's default form, where SQL cannot write them
/// exactly: each destination object's values computed in turn, as the default does, and each
/// relationship written once per batch of objects
/// (``PassState/computeRelateBatch(_:mapping:plan:skipping:)``, then
/// ``PassState/writeRelateBatch(_:mapping:plan:each:)``). Only the source
/// relationships the values read are read ahead. A to-many relationship whose inverse another
/// mapping already wrote with these very links is not written again (``InverseLinks``); a
/// mapping with nothing else to write is not visited.
struct RelateInBatches: RelateStrategy {
    static let kind = RelatePlan.Strategy.inBatches
    static let declinesWhen: String? = nil

    /// Relationships written per batch; the others are set object by object.
    let batched: Set<String>
    /// The mapping's number in its pass, and its destination entity's number.
    let number: Int
    let entity: Int
    /// How each batched relationship's links would be written as a set, where they can be
    /// (``RelateInSQL/link(_:_:of:from:to:_:)``): what tells that another mapping already
    /// wrote these very links from the other side (``InverseLinks``).
    let links: [String: RelateInSQL.Link]
    /// The source relationship each relationship's value reads (those of Core Data's default
    /// form), by destination relationship name.
    let sourceRelationshipRead: [String: String]

    /// The plan for `mapping`, or nil when its relationships must be set object by object.
    init?(_ mapping: EntityMapping, facts: PassFacts) {
        let compiled = facts.compiled(mapping)
        guard let entity = compiled.resolved.destinationEntity, !compiled.relationships.isEmpty else { return nil }
        for property in compiled.resolved.relationships {
            guard case .expression(let expression) = property.value else { continue }
            if CanonicalRelationshipValue(expression) == nil { return nil }
        }
        let model = facts.destinationModel
        let names = Set(compiled.relationships.map(\.relationship.name))
        for (relationship, _, _) in compiled.relationships {
            if let inverse = model.inverse(of: relationship), names.contains(inverse.name),
                PassFacts.sharesHierarchy(relationship.destinationEntityName, entity.name, in: model)
            {
                return nil
            }
        }
        let batched = names.filter {
            ObjectWriter.canSetLinksInBatches($0, of: entity.name, layout: facts.destinationLayout)
        }
        guard !batched.isEmpty, let number = try? facts.number(of: mapping.name),
            let layout = facts.destinationLayout.entity(named: entity.name)
        else { return nil }
        self.batched = batched
        self.number = number
        self.entity = layout.number
        var links: [String: RelateInSQL.Link] = [:]
        if let sourceName = mapping.sourceEntityName, let source = facts.sourceLayout.entity(named: sourceName) {
            for (relationship, expression, _) in compiled.relationships where batched.contains(relationship.name) {
                links[relationship.name] = RelateInSQL.link(
                    relationship, expression, of: mapping, from: source, to: layout, facts)
            }
        }
        self.links = links
        var sources: [String: String] = [:]
        for (index, (relationship, _, _)) in compiled.relationships.enumerated() {
            if let value = compiled.canonicalRelationships[index] {
                sources[relationship.name] = value.sourceRelationship
            }
        }
        sourceRelationshipRead = sources
    }

    /// The join tables the mapping's batches fill (its batched relationships but `skipped`),
    /// each with the column of the other side's key, whose index ``IndexesSetAside`` may set
    /// aside: unordered, unmirrored join tables only (the order of an ordered other side is
    /// looked up by that column).
    func joinTablesFilled(skipping skipped: Set<String>, layout: StoreLayout) -> [(table: String, columns: [String])] {
        guard let owner = layout.entity(number: entity) else { return [] }
        return batched.subtracting(skipped).sorted().compactMap { name in
            guard case .joinTable(let table, _, let other, nil, nil, false)? = owner.relationship(named: name)?.storage
            else { return nil }
            return (table, [other])
        }
    }

    /// The source relationships the values of the mapping's relationships other than
    /// `skipped` read, or nil when one of them may read anything (read them all).
    func sourceRelationships(skipping skipped: Set<String>, of compiled: CompiledMapping) -> Set<String>? {
        var names: Set<String> = []
        for (relationship, _, _) in compiled.relationships where !skipped.contains(relationship.name) {
            guard let name = sourceRelationshipRead[relationship.name] else { return nil }
            names.insert(name)
        }
        return names
    }

    static func plan(_ facts: RelateFacts, after declined: [String]) -> RelateChoice {
        if let policyRelates = facts.policyRelates { return .decline(policyRelates) }
        guard facts.options.allowsRelateInBatches else {
            return .decline(
                facts.options.allowsRelateInSQL
                    ? "relationships in batches are switched off"
                    : "relationships in SQL and in batches are switched off")
        }
        guard let plan = RelateInBatches(facts.mapping, facts: facts.pass) else {
            return .decline(
                facts.compiled.canonicalRelationships.contains(where: { $0 == nil })
                    ? "a relationship value is not Core Data's default form"
                    : "its relationships must be written in the order objects are visited")
        }
        return .take(plan, reason: "default relationship values; \(declined.last ?? "written a batch at a time")")
    }

    var relationshipsWrittenAsASet: Set<String> { batched }

    /// Whether the mapping's values can be computed on a thread of their own, a batch ahead of
    /// the writes: every association they read is in memory (``KeptKeyIndex``: the mapping's
    /// own, and the target mapping of each value), so computing them reads the source store,
    /// never the new one, whose connection the writes use.
    func computesApart(_ state: PassState, compiled: CompiledMapping, skipping skipped: Set<String>) -> Bool {
        guard !state.evaluatesEveryValue, state.associations.keptIndex(of: number)?.sourceEntity != nil else {
            return false
        }
        for (index, (relationship, _, _)) in compiled.relationships.enumerated()
        where !skipped.contains(relationship.name) {
            guard let target = compiled.canonicalRelationships[index]?.entityMapping,
                let targetNumber = try? state.number(of: target), state.associations.keptIndex(of: targetNumber) != nil
            else { return false }
        }
        return true
    }

    func relate(_ job: RelateJob) throws -> RelateResult {
        let state = job.state
        // Relationships whose inverse another mapping already wrote with these very links.
        let alreadyWritten = try alreadyWritten(state)
        let skipped = alreadyWritten.union(job.keysAtInsert)
        let compiled = state.compiledMapping(job.mapping)
        if !skipped.isEmpty {
            state.logger.debug(
                "relate: already written",
                metadata: [
                    "molt.mapping": "\(job.mapping.name)", "molt.inverses": "\(alreadyWritten.sorted())",
                    "molt.atInsert": "\(job.keysAtInsert.sorted())",
                ])
        }
        if compiled.relationships.allSatisfy({ skipped.contains($0.relationship.name) }) {
            job.advanceAll()
        } else {
            let mapping = job.mapping
            try job.forEachBatch(
                relationshipsOnly: true, reads: sourceRelationships(skipping: skipped, of: compiled),
                filled: joinTablesFilled(skipping: skipped, layout: state.destination.layout),
                ahead: computesApart(state, compiled: compiled, skipping: skipped),
                compute: { objects in state.computeRelateBatch(objects, mapping: mapping, plan: self, skipping: skipped)
                },
                write: { computed in try state.writeRelateBatch(computed, mapping: mapping, plan: self, each: job.step)
                })
        }
        try recordWritten(batched.subtracting(alreadyWritten), state)
        return .done
    }
}
