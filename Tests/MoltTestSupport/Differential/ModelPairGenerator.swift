internal import Molt

/// Makes a seeded pair of model versions: a source model (1–5 entities, inheritance with
/// abstract and concrete parents, every stored attribute type, to-one, to-many, ordered,
/// many-to-many, one-to-one and self relationships with inverses, sometimes uniqueness
/// constraints, sometimes composite attributes, nested and shared) and a destination model
/// derived from it by 0–5 changes (attributes added,
/// removed, renamed, made required or optional, retyped; entities added, removed, renamed or
/// cloned; relationships added, removed, renamed, made to-many, to-one, ordered or not;
/// composites' elements added, removed or renamed).
///
/// With ``inferableOnly`` the changes are those Core Data's inference accepts; otherwise also
/// changes only a mapping file can carry (a type change that needs a conversion, a new
/// required attribute without a default, a new entity filled from an existing one).
public struct ModelPairGenerator: Sendable {
    /// A source model, the destination derived from it, and what changed.
    public struct Pair: Sendable {
        public var source: GeneratedModel
        public var destination: GeneratedModel
        /// The changes, in words.
        public var changes: [String]
        /// Destination entities made from a source entity that has its own counterpart too:
        /// destination entity → source entity (only a mapping file can fill them).
        public var clones: [String: String]
    }

    /// Only changes inference accepts.
    public var inferableOnly: Bool
    /// Generation features left out for now (see ``DifferentialExclusion``).
    public var exclusions: Set<DifferentialExclusion>

    /// A generator of pairs; `inferableOnly` for steps whose mapping is inferred.
    public init(inferableOnly: Bool, exclusions: Set<DifferentialExclusion> = DifferentialExclusion.known) {
        self.inferableOnly = inferableOnly
        self.exclusions = exclusions
    }

    static let entityNames = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]
    static let newEntityNames = ["Foxtrot", "Golf", "Hotel", "India", "Juliett"]
    static let renamedEntityNames = ["Kilo", "Lima", "Mike", "November", "Oscar"]

    /// A pair made from `random`.
    public func generate(_ random: inout SplitMix) -> Pair {
        var names = PropertyNames()
        let source = sourceModel(&random, names: &names)
        var destination = source
        destination.name = "V2"
        var changes: [String] = []
        var clones: [String: String] = [:]
        let wanted = random.pick([0, 1, 1, 2, 2, 2, 3, 3, 4, 5])
        var tries = 0
        while changes.count < wanted, tries < wanted * 4 {
            tries += 1
            var kinds = ModelChange.allCases
            if inferableOnly { kinds.removeAll { [.cloneEntity, .splitEntity].contains($0) } }
            let kind = random.pick(kinds)
            var change = ChangeRun(
                model: destination, source: source, random: random, names: names, inferableOnly: inferableOnly,
                exclusions: exclusions)
            guard let description = change.apply(kind) else {
                random = change.random
                continue
            }
            destination = change.model
            random = change.random
            names = change.names
            changes.append(description)
            if let clone = change.clone { clones[clone.destination] = clone.source }
        }
        // A clone renamed or removed by a later change is no longer one.
        clones = clones.filter { destination.entity($0.key) != nil }
        return Pair(source: source, destination: destination, changes: changes, clones: clones)
    }

    /// The source model.
    func sourceModel(_ random: inout SplitMix, names: inout PropertyNames) -> GeneratedModel {
        let count = 1 + random.next(below: 5)
        var model = GeneratedModel(name: "V1", entities: [])
        for index in 0..<count {
            let parent = index > 0 && random.chance(30) ? model.entities[random.next(below: index)].name : nil
            model.entities.append(GeneratedEntity(name: Self.entityNames[index], parent: parent))
        }
        for index in model.entities.indices {
            let name = model.entities[index].name
            if model.entities.contains(where: { $0.parent == name }), random.chance(50) {
                model.entities[index].isAbstract = true
            }
            let count = (model.entities[index].parent == nil ? 1 : 0) + random.next(below: 3)
            for _ in 0..<count {
                model.entities[index].attributes.append(
                    Self.attribute(&random, names: &names, isNew: false, inferableOnly: true))
            }
        }
        if random.chance(35) { Self.addComposites(to: &model, random: &random, names: &names) }
        let pairs = random.next(below: count + 1) + (random.chance(30) ? 1 : 0)
        for _ in 0..<pairs {
            Self.addRelationshipPair(
                to: &model, between: random.pick(model.entities).name, and: random.pick(model.entities).name,
                random: &random, names: &names, requiredAllowed: true)
        }
        for index in model.entities.indices where model.entities[index].parent == nil && random.chance(15) {
            let candidates = model.entities[index].attributes.filter {
                !$0.isOptional && [.string, .uuid, .integer64].contains($0.type)
            }
            if let attribute = random.pickIfAny(candidates) {
                model.entities[index].uniquenessConstraints = [[attribute.name]]
            }
        }
        return model
    }

    /// A new attribute. A new one in a destination (`isNew`) is optional or has a default,
    /// unless a mapping file may fill it (not `inferableOnly`).
    static func attribute(
        _ random: inout SplitMix, names: inout PropertyNames, isNew: Bool, inferableOnly: Bool
    ) -> GeneratedAttribute {
        let types = AttributeTypeRules.storedTypes + [.string, .integer32]
        let type = random.pick(types)
        var attribute = GeneratedAttribute(
            name: names.make(PropertyNames.stem(of: type)), type: type, isOptional: random.chance(45))
        if AttributeTypeRules.hasDefault(type), random.chance(attribute.isOptional ? 20 : 65) {
            attribute.defaultValue = AttributeTypeRules.defaultLiteral(type, random: &random)
        }
        if isNew, !attribute.isOptional, attribute.defaultValue == nil, inferableOnly || random.chance(50) {
            attribute.isOptional = true
        }
        if type == .binary { attribute.allowsExternalStorage = random.chance(30) }
        if type == .transformable, random.chance(50) { attribute.transformerName = "NSSecureUnarchiveFromData" }
        return attribute
    }

    /// A composite of 1–3 elements (sometimes with a nested composite of two numbers) held by
    /// 1–3 composite attributes of the model's entities, the same composite by several.
    static func addComposites(to model: inout GeneratedModel, random: inout SplitMix, names: inout PropertyNames) {
        var elements: [GeneratedAttribute] = []
        for _ in 0..<(1 + random.next(below: 3)) {
            var element = attribute(&random, names: &names, isNew: false, inferableOnly: true)
            element.allowsExternalStorage = false  // Core Data refuses it in a composite
            elements.append(element)
        }
        if random.chance(40) {
            let nested = names.make("Geo").capitalized
            model.composites.append(
                GeneratedComposite(
                    name: nested,
                    elements: [
                        GeneratedAttribute(
                            name: names.make("latitude"), type: .double, isOptional: false, defaultValue: "0.0"),
                        GeneratedAttribute(name: names.make("longitude"), type: .double, isOptional: random.chance(50)),
                    ]))
            elements.append(
                GeneratedAttribute(
                    name: names.make("geo"), type: .composite, isOptional: random.chance(60), composite: nested))
        }
        let name = names.make("Place").capitalized
        model.composites.append(GeneratedComposite(name: name, elements: elements))
        for _ in 0..<(1 + random.next(below: 3)) {
            let index = random.next(below: model.entities.count)
            model.entities[index].attributes.append(
                GeneratedAttribute(
                    name: names.make("place"), type: .composite, isOptional: random.chance(70), composite: name))
        }
    }

    /// Adds a relationship between `first` and `second` and its inverse (one relationship
    /// when it is its own inverse).
    static func addRelationshipPair(
        to model: inout GeneratedModel, between first: String, and second: String, random: inout SplitMix,
        names: inout PropertyNames, requiredAllowed: Bool
    ) {
        guard let firstIndex = model.index(of: first), let secondIndex = model.index(of: second) else { return }
        let forward = names.make("to\(second)")
        let backward = names.make("to\(first)")
        let rule = { (random: inout SplitMix) in random.chance(15) ? "Cascade" : "Nullify" }
        let canRequire = requiredAllowed && model.hasConcreteKind(second)
        switch random.next(below: first == second ? 4 : 3) {
        case 0:
            // One-to-many: `first` has one `second`, `second` has many `first`.
            var one = GeneratedRelationship(
                name: forward, destination: second, inverse: backward, isToMany: false, deletionRule: rule(&random))
            if canRequire, random.chance(15) { one.isOptional = false }
            var many = GeneratedRelationship(
                name: backward, destination: first, inverse: forward, isToMany: true, isOrdered: random.chance(30),
                deletionRule: rule(&random))
            if requiredAllowed, random.chance(10) { many.isOptional = false }
            model.entities[firstIndex].relationships.append(one)
            model.entities[secondIndex].relationships.append(many)
        case 1:
            model.entities[firstIndex].relationships.append(
                GeneratedRelationship(
                    name: forward, destination: second, inverse: backward, isToMany: true,
                    isOrdered: random.chance(20), deletionRule: rule(&random)))
            model.entities[secondIndex].relationships.append(
                GeneratedRelationship(
                    name: backward, destination: first, inverse: forward, isToMany: true,
                    isOrdered: random.chance(20), deletionRule: rule(&random)))
        case 2:
            model.entities[firstIndex].relationships.append(
                GeneratedRelationship(name: forward, destination: second, inverse: backward, isToMany: false))
            model.entities[secondIndex].relationships.append(
                GeneratedRelationship(name: backward, destination: first, inverse: forward, isToMany: false))
        default:
            // Its own inverse.
            let toMany = random.chance(70)
            model.entities[firstIndex].relationships.append(
                GeneratedRelationship(
                    name: forward, destination: first, inverse: forward, isToMany: toMany,
                    isOrdered: toMany && random.chance(20)))
        }
    }
}

/// Unique property names: a stem and a number (`label3`, `toBravo7`), never reused in a pair.
struct PropertyNames: Sendable {
    private var counter = 0

    /// A new name from `stem`.
    mutating func make(_ stem: String) -> String {
        counter += 1
        let lowered = stem.prefix(1).lowercased() + stem.dropFirst()
        return "\(lowered)\(counter)"
    }

    /// A stem saying an attribute's type.
    static func stem(of type: AttributeType) -> String {
        switch type {
        case .integer16: "small"
        case .integer32: "count"
        case .integer64: "big"
        case .double: "ratio"
        case .float: "weight"
        case .decimal: "price"
        case .string: "label"
        case .boolean: "flag"
        case .date: "when"
        case .binary: "blob"
        case .uuid: "ident"
        case .uri: "link"
        default: "payload"
        }
    }
}
