internal import Molt

/// Makes seeded mapping files for a pair of model versions: an entity mapping per concrete
/// source entity (copy, transform, custom with a policy, remove, or none), add mappings for
/// new entities, mappings filling cloned and split-off entities, now and then a second mapping
/// making a source entity's objects into another destination entity (a merge); filters, value
/// expressions of every kind (``ValueExpressions``), relationships by Core Data's default
/// functions (through the destination relationship's own source relationship, now and then
/// another) or `nil`, test policies (``DifferentialPolicies``), user info; the entity mappings
/// spread over 1–3 passes.
public struct MappingGenerator: Sendable {
    /// Generation features left out for now.
    public var exclusions: Set<DifferentialExclusion>

    /// A generator of mapping files.
    public init(exclusions: Set<DifferentialExclusion> = DifferentialExclusion.known) {
        self.exclusions = exclusions
    }

    /// The passes of a step from `pair.source` to `pair.destination`.
    public func generate(for pair: ModelPairGenerator.Pair, random: inout SplitMix) -> [GeneratedMappingFile] {
        let source = pair.source
        let destination = pair.destination
        let sameName = random.chance(5)
        var mappings: [GeneratedEntityMapping] = []
        for entity in source.entities where !entity.isAbstract {
            let counterpart = destination.entities.first { $0.formerName == entity.name && pair.clones[$0.name] == nil }
            guard let counterpart, !counterpart.isAbstract else {
                if random.chance(70) {
                    mappings.append(
                        GeneratedEntityMapping(name: "Remove\(entity.name)", kind: .remove, source: entity.name))
                }
                continue
            }
            let roll = random.next(below: 100)
            let kind: EntityMapping.Kind? =
                switch roll {
                case ..<55: .transform
                case ..<75: .copy
                case ..<81: .custom
                case ..<86: .remove
                case ..<89: nil
                default: .transform
                }
            guard let kind else { continue }
            if kind == .remove {
                mappings.append(
                    GeneratedEntityMapping(name: "Remove\(entity.name)", kind: .remove, source: entity.name))
                continue
            }
            mappings.append(
                entityMapping(
                    kind, from: entity.name, to: counterpart.name, pair: pair, sameName: sameName, random: &random))
        }
        for (clone, original) in pair.clones.sorted(by: { $0.key < $1.key }) {
            var mapping = entityMapping(
                .transform, from: original, to: clone, pair: pair, sameName: sameName, random: &random)
            if mapping.filter == nil, random.chance(40) {
                mapping.filter = ValueExpressions.filter(
                    attributes: source.allAttributes(of: original),
                    relationships: source.allRelationships(of: original),
                    random: &random)
            }
            mappings.append(mapping)
        }
        // Objects of a source entity also made into another destination entity (merging two
        // entities' objects into one).
        let concrete = destination.entities.filter { !$0.isAbstract }.map(\.name)
        for entity in source.entities where !entity.isAbstract && random.chance(8) {
            let counterpart = destination.entities.first { $0.formerName == entity.name }?.name
            guard let target = random.pickIfAny(concrete.filter { $0 != counterpart }) else { continue }
            var mapping = entityMapping(
                .transform, from: entity.name, to: target, pair: pair, sameName: sameName, random: &random)
            if mappings.contains(where: { $0.name == mapping.name }) { mapping.name += "Too" }
            mappings.append(mapping)
        }
        for entity in destination.entities where !entity.isAbstract {
            guard !mappings.contains(where: { $0.destination == entity.name }), random.chance(60) else { continue }
            mappings.append(GeneratedEntityMapping(name: "Add\(entity.name)", kind: .add, destination: entity.name))
        }
        if random.chance(20) { random.shuffle(&mappings) }
        var passes = distribute(mappings, random: &random)
        if exclusions.contains(.repeatedMappingNumbers),
            let made = destination.entities.first(where: { !$0.isAbstract })?.name
        {
            var before = 0
            for index in passes.indices {
                let padding = (0..<before).map {
                    GeneratedEntityMapping(name: "Padding\(index + 1)x\($0 + 1)", kind: .add, destination: made)
                }
                before += passes[index].count
                passes[index] = padding + passes[index]
            }
        }
        return passes.map { pass in
            GeneratedMappingFile(
                entityMappings: pass.map { relate($0, among: pass, pair: pair, random: &random) },
                sameNameDefaults: sameName)
        }
    }

    /// A copy, transform or custom mapping from `sourceName` to `destinationName`, with its
    /// policy, filter, user info and attribute values (relationships come once the passes
    /// are known).
    func entityMapping(
        _ kind: EntityMapping.Kind, from sourceName: String, to destinationName: String,
        pair: ModelPairGenerator.Pair, sameName: Bool, random: inout SplitMix
    ) -> GeneratedEntityMapping {
        let sourceAttributes = pair.source.allAttributes(of: sourceName)
        /// The source attribute that a destination attribute's value is inferred from.
        func counterpart(of attribute: GeneratedAttribute) -> GeneratedAttribute? {
            let renamed =
                sameName
                ? nil
                : attribute.renamingIdentifier.flatMap { identifier in
                    sourceAttributes.first { $0.name == identifier }
                }
            return renamed ?? sourceAttributes.first { $0.name == attribute.name }
        }
        var needed: Set<String> = []
        for attribute in pair.destination.allAttributes(of: destinationName) {
            let counterpart = counterpart(of: attribute)
            let inferable =
                if let counterpart {
                    AttributeTypeRules.isInferable(from: counterpart.type, to: attribute.type)
                        && (attribute.isOptional || attribute.defaultValue != nil || !counterpart.isOptional)
                } else {
                    attribute.isOptional || attribute.defaultValue != nil
                }
            if !inferable { needed.insert(attribute.name) }
        }
        var mapping = GeneratedEntityMapping(
            name: "\(sourceName)To\(destinationName)", kind: kind, source: sourceName, destination: destinationName)
        if kind == .copy, !needed.isEmpty { mapping.kind = .transform }
        if mapping.kind == .custom || random.chance(25) {
            mapping.policy = random.pick(DifferentialPolicies.names)
        }
        let userInfoKey = random.chance(15) ? "suffix" : nil
        if let userInfoKey { mapping.userInfo = [GeneratedPropertyValue(name: userInfoKey, value: "-u")] }
        guard mapping.kind != .copy else { return mapping }
        if random.chance(25) {
            mapping.filter = ValueExpressions.filter(
                attributes: sourceAttributes, relationships: pair.source.allRelationships(of: sourceName),
                random: &random)
        }
        for attribute in pair.destination.allAttributes(of: destinationName) {
            let isNeeded = needed.contains(attribute.name)
            guard isNeeded || random.chance(35) else { continue }
            if !isNeeded, random.chance(8) {
                mapping.attributes.append(GeneratedPropertyValue(name: attribute.name, value: "default"))
                continue
            }
            let counterpart = counterpart(of: attribute)
            if let value = ValueExpressions.value(
                for: attribute, counterpart: counterpart, attributes: sourceAttributes, userInfoKey: userInfoKey,
                random: &random)
            {
                mapping.attributes.append(GeneratedPropertyValue(name: attribute.name, value: value))
            }
        }
        return mapping
    }

    /// The mappings spread over 1–3 passes, none empty, each keeping the mappings' order.
    func distribute(_ mappings: [GeneratedEntityMapping], random: inout SplitMix) -> [[GeneratedEntityMapping]] {
        let count = max(1, min(mappings.count, random.pick([1, 1, 1, 1, 1, 1, 1, 2, 2, 3])))
        var order = Array(mappings.indices)
        random.shuffle(&order)
        var pass = Array(repeating: 0, count: mappings.count)
        for (position, index) in order.enumerated() {
            pass[index] = position < count ? position : random.next(below: count)
        }
        return (0..<count).map { number in mappings.indices.filter { pass[$0] == number }.map { mappings[$0] } }
    }

    /// `mapping` with some of its relationships given explicit values: Core Data's default
    /// function through a mapping of the same pass, the by-relationship form, or `nil`.
    func relate(
        _ mapping: GeneratedEntityMapping, among pass: [GeneratedEntityMapping], pair: ModelPairGenerator.Pair,
        random: inout SplitMix
    ) -> GeneratedEntityMapping {
        guard [.transform, .custom].contains(mapping.kind), let sourceName = mapping.source,
            let destinationName = mapping.destination
        else { return mapping }
        var mapping = mapping
        let sourceRelationships = pair.source.allRelationships(of: sourceName)
        for relationship in pair.destination.allRelationships(of: destinationName) where random.chance(30) {
            let targets = Set(
                [relationship.destination] + pair.destination.descendants(of: relationship.destination).map(\.name))
            var choices: [String] = []
            if relationship.isOptional { choices.append("nil") }
            let counterpart = sourceRelationships.first { $0.name == relationship.formerName }
            // Through the counterpart, and now and then through another source relationship.
            let alternatives = !exclusions.contains(.disagreeingSides)
            for link in sourceRelationships where link == counterpart || (alternatives && random.chance(15)) {
                if exclusions.contains(.toManyIntoToOne), link.isToMany, !relationship.isToMany { continue }
                let sources = Set([link.destination] + pair.source.descendants(of: link.destination).map(\.name))
                let makers = pass.filter {
                    [.transform, .copy, .custom].contains($0.kind) && targets.contains($0.destination ?? "")
                }
                for other in makers {
                    guard let read = other.source, sources.contains(read) else { continue }
                    if exclusions.contains(.disagreeingSides), makers.count > 1 { continue }
                    choices.append(
                        "FUNCTION($manager, 'destinationInstancesForEntityMappingNamed:sourceInstances:', "
                            + "'\(other.name)', $source.\(link.name))")
                }
                if link == counterpart {
                    choices.append(
                        "FUNCTION($manager, 'destinationInstancesForSourceRelationshipNamed:sourceInstances:', "
                            + "'\(link.name)', $source.\(link.name))")
                }
            }
            if let value = random.pickIfAny(choices) {
                mapping.relationships.append(GeneratedPropertyValue(name: relationship.name, value: value))
            }
        }
        return mapping
    }
}
