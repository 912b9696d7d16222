internal import Foundation

/// Makes a diverging case smaller while it still diverges the same way (the same route with
/// the same kind of difference): greedily, the first smaller variant that still diverges is
/// kept and the search starts again from it. Variants: fewer objects per entity and per
/// to-many, passes and entity mappings dropped, entities, relationships and attributes dropped
/// (from both versions, with the mapping values that name them), filters, explicit values,
/// policies and user info dropped, the default batch size. A variant that is not a valid case
/// is skipped.
public struct CaseShrinker: Sendable {
    public let runner: DifferentialRunner
    /// The most variants run before giving up.
    public var maximumRuns = 400
    /// The most seconds spent on one case.
    public var maximumSeconds: Double = 40
    /// Other store seeds tried for a variant with a smaller model.
    public var storeReseeds = 2

    /// A shrinker running cases with `runner`.
    public init(runner: DifferentialRunner) {
        self.runner = runner
    }

    /// The smallest case found that diverges as `result` does, and its result.
    public func shrink(_ result: DifferentialRunner.CaseResult) -> DifferentialRunner.CaseResult {
        let wanted = Set(result.diverging.map { "\($0.outcome.route.rawValue) \($0.kind ?? "")" })
        let started = Date()
        var current = result
        var runs = 0
        /// Whether there is time for another run.
        func mayRun() -> Bool { runs < maximumRuns && Date().timeIntervalSince(started) < maximumSeconds }
        /// The result of `candidate` when it still diverges as wanted.
        func reproduces(_ candidate: DifferentialCase) -> DifferentialRunner.CaseResult? {
            guard mayRun(), candidate.problems() == nil else { return nil }
            runs += 1
            let folder = TemporaryDirectory("molt-differential-shrink")
            guard let attempt = try? runner.run(candidate, in: folder.url) else { return nil }
            let kinds = Set(attempt.diverging.map { "\($0.outcome.route.rawValue) \($0.kind ?? "")" })
            return kinds.isDisjoint(with: wanted) ? nil : attempt
        }
        var progress = true
        while progress, mayRun() {
            progress = false
            search: for (candidate, structural) in Self.variants(of: current.differentialCase) {
                // The seeder's data depends on every entity and attribute: a smaller model
                // gets a few other stores to show the divergence with.
                for reseed in 0..<(structural ? 1 + storeReseeds : 1) {
                    var candidate = candidate
                    if reseed > 0 { candidate.storeSeed = SplitMix.subSeed(candidate.storeSeed, UInt64(reseed)) }
                    if let smaller = reproduces(candidate) {
                        current = smaller
                        progress = true
                        break search
                    }
                }
            }
        }
        return current
    }

    /// The smaller variants of `c`, the biggest reductions first.
    static func variants(of c: DifferentialCase) -> [(DifferentialCase, Bool)] {
        var variants: [DifferentialCase] = []
        var structural: [DifferentialCase] = []
        // Entities (leaves in both versions), with their counterparts.
        for entity in c.source.entities + c.destination.entities {
            var smaller = c
            smaller.removeEntity(entity.name, fromSource: c.source.entities.contains(entity))
            if smaller != c { structural.append(smaller) }
        }
        // Passes and entity mappings.
        if c.files.count > 1 {
            for index in c.files.indices {
                var files = c.files
                files.remove(at: index)
                variants.append(c.with(files: files))
            }
            variants.append(
                c.with(files: [
                    GeneratedMappingFile(
                        entityMappings: c.files.flatMap(\.entityMappings), sameNameDefaults: c.files[0].sameNameDefaults
                    )
                ]))
        }
        for (file, mappings) in c.files.enumerated().map({ ($0, $1.entityMappings) }) {
            for index in mappings.indices where mappings.count > 1 || c.files.count > 1 {
                var files = c.files
                let removed = files[file].entityMappings.remove(at: index).name
                files = files.map { $0.removingValues(mentioning: removed) }.filter { !$0.entityMappings.isEmpty }
                variants.append(c.with(files: files))
            }
        }
        // The store.
        for objects in 0..<c.objectsPerEntity {
            var smaller = c
            smaller.objectsPerEntity = objects
            variants.append(smaller)
        }
        for most in stride(from: 1, to: c.maximumToMany, by: 1) {
            var smaller = c
            smaller.maximumToMany = most
            variants.append(smaller)
        }
        // Relationships and attributes, with their counterparts.
        for entity in c.source.entities + c.destination.entities {
            let inSource = c.source.entities.contains(entity)
            for relationship in entity.relationships {
                var smaller = c
                smaller.removeRelationship(relationship.name, of: entity.name, fromSource: inSource)
                if smaller != c { structural.append(smaller) }
            }
            for attribute in entity.attributes {
                var smaller = c
                smaller.removeAttribute(attribute.name, of: entity.name, fromSource: inSource)
                if smaller != c { structural.append(smaller) }
            }
        }
        // Details of the mappings.
        for (file, mappings) in c.files.enumerated().map({ ($0, $1.entityMappings) }) {
            for index in mappings.indices {
                for simpler in mappings[index].simplerVariants {
                    var files = c.files
                    files[file].entityMappings[index] = simpler
                    variants.append(c.with(files: files))
                }
            }
        }
        if c.files.contains(where: \.sameNameDefaults) {
            variants.append(c.with(files: c.files.map { GeneratedMappingFile(entityMappings: $0.entityMappings) }))
        }
        if c.batchSize != 500 {
            var simpler = c
            simpler.batchSize = 500
            variants.append(simpler)
        }
        let entities = structural.filter {
            $0.source.entities.count < c.source.entities.count
                || $0.destination.entities.count < c.destination.entities.count
        }
        return entities.map { ($0, true) } + variants.map { ($0, false) }
            + structural.filter { !entities.contains($0) }.map { ($0, true) }
    }
}

/// Taking parts of a case away, for the shrinker.
extension DifferentialCase {
    /// The case with the mapping files `files`.
    func with(files: [GeneratedMappingFile]) -> DifferentialCase {
        var changed = self
        changed.step = .passes(files)
        return changed
    }

    /// Removes the entity `name` (from the source version when `fromSource`, with its
    /// destination counterpart; else from the destination only), when it is a leaf in both,
    /// with the entity mappings that read or make it.
    mutating func removeEntity(_ name: String, fromSource: Bool) {
        let counterpart = fromSource ? destination.entities.first { $0.formerName == name }?.name : name
        if fromSource, source.entities.contains(where: { $0.parent == name }) { return }
        if let counterpart, destination.entities.contains(where: { $0.parent == counterpart }) { return }
        if fromSource { source.removeEntity(name) }
        if let counterpart { destination.removeEntity(counterpart) }
        guard !isInferred else { return }
        step = .passes(
            files.map { file in
                var file = file
                let removed = file.entityMappings.filter {
                    (fromSource && $0.source == name) || (counterpart != nil && $0.destination == counterpart)
                }
                file.entityMappings.removeAll { removed.contains($0) }
                for mapping in removed { file = file.removingValues(mentioning: mapping.name) }
                return file
            }.filter { !$0.entityMappings.isEmpty })
    }

    /// Removes the relationship `name` of `entity` and its inverse, and their counterparts.
    mutating func removeRelationship(_ name: String, of entity: String, fromSource: Bool) {
        if fromSource {
            source.removeRelationshipPair(name, of: entity)
            for owner in destination.entities {
                for relationship in owner.relationships where relationship.formerName == name {
                    destination.removeRelationshipPair(relationship.name, of: owner.name)
                }
            }
        } else {
            destination.removeRelationshipPair(name, of: entity)
        }
        forgetValues(mentioning: name)
    }

    /// Removes the attribute `name` of `entity`, and its counterparts.
    mutating func removeAttribute(_ name: String, of entity: String, fromSource: Bool) {
        /// Removes the attributes `matches` accepts from `model`, and the constraints naming them.
        func remove(from model: inout GeneratedModel, where matches: (GeneratedAttribute) -> Bool) {
            for index in model.entities.indices {
                let removed = model.entities[index].attributes.filter(matches).map(\.name)
                model.entities[index].attributes.removeAll(where: matches)
                model.entities[index].uniquenessConstraints.removeAll { !Set($0).isDisjoint(with: removed) }
            }
        }
        if fromSource {
            remove(from: &source) { $0.name == name }
            remove(from: &destination) { $0.formerName == name || $0.name == name }
        } else {
            remove(from: &destination) { $0.name == name }
        }
        forgetValues(mentioning: name)
    }

    /// Drops every filter and property value of the mapping files that mention `word`.
    mutating func forgetValues(mentioning word: String) {
        guard !isInferred else { return }
        step = .passes(files.map { $0.removingValues(mentioning: word) })
    }
}

/// Taking entities away, for the shrinker.
extension GeneratedModel {
    /// Removes the entity `name` and every relationship to or from it.
    mutating func removeEntity(_ name: String) {
        for owner in entities {
            for relationship in owner.relationships where owner.name == name || relationship.destination == name {
                removeRelationshipPair(relationship.name, of: owner.name)
            }
        }
        entities.removeAll { $0.name == name }
    }
}

/// Taking values away, for the shrinker.
extension GeneratedMappingFile {
    /// The file without the filters, property values and user info that mention `word` (a
    /// property, or a mapping's name), and without mappings of properties called `word`.
    func removingValues(mentioning word: String) -> GeneratedMappingFile {
        var file = self
        for index in file.entityMappings.indices {
            var mapping = file.entityMappings[index]
            if let filter = mapping.filter, Self.mentions(filter, word) { mapping.filter = nil }
            mapping.attributes.removeAll { $0.name == word || Self.mentions($0.value, word) }
            mapping.relationships.removeAll { $0.name == word || Self.mentions($0.value, word) }
            file.entityMappings[index] = mapping
        }
        return file
    }

    /// Whether `text` holds `word` as a whole word.
    static func mentions(_ text: String, _ word: String) -> Bool {
        text.range(
            of: "(?<![A-Za-z0-9_])\(NSRegularExpression.escapedPattern(for: word))(?![A-Za-z0-9_])",
            options: .regularExpression) != nil
    }
}

/// Simpler mappings, for the shrinker.
extension GeneratedEntityMapping {
    /// The mapping with one thing fewer each: no filter, no policy (unless custom), no user
    /// info, one explicit value fewer.
    var simplerVariants: [GeneratedEntityMapping] {
        var variants: [GeneratedEntityMapping] = []
        if filter != nil {
            var simpler = self
            simpler.filter = nil
            variants.append(simpler)
        }
        if policy != nil, kind != .custom {
            var simpler = self
            simpler.policy = nil
            variants.append(simpler)
        }
        if kind == .custom {
            var simpler = self
            simpler.kind = .transform
            simpler.policy = nil
            variants.append(simpler)
        }
        if !userInfo.isEmpty {
            var simpler = self
            simpler.userInfo = []
            variants.append(simpler)
        }
        for index in attributes.indices {
            var simpler = self
            simpler.attributes.remove(at: index)
            variants.append(simpler)
        }
        for index in relationships.indices {
            var simpler = self
            simpler.relationships.remove(at: index)
            variants.append(simpler)
        }
        if kind == .transform, filter == nil, attributes.isEmpty, relationships.isEmpty {
            var simpler = self
            simpler.kind = .copy
            variants.append(simpler)
        }
        return variants
    }
}
