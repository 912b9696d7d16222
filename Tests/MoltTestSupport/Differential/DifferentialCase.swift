internal import Foundation
public import Molt

/// One case of the differential test: a source and a destination model version, a seeded
/// store of the source version, and the step between them (mapping files run as passes, or the
/// inferred mapping). Plain values, so that the shrinker can take parts away.
public struct DifferentialCase: Sendable, Hashable {
    /// How the step maps the store.
    public enum Step: Sendable, Hashable {
        /// The mapping inference gives (also run in place by ``LightweightMigration``).
        case inferred
        /// Mapping files, run one after the other as the passes of one step.
        case passes([GeneratedMappingFile])
    }

    /// The case's seed, as the test run numbers it.
    public var seed: UInt64
    /// Which attempt at a valid case for `seed` this is (0 for the first).
    public var attempt: Int
    public var source: GeneratedModel
    public var destination: GeneratedModel
    public var step: Step
    /// What the destination changes, in words (as generated, before any shrinking).
    public var changes: [String]
    /// Objects ``StoreSeeder`` makes per concrete entity.
    public var objectsPerEntity: Int
    /// The most objects ``StoreSeeder`` puts in a to-many relationship.
    public var maximumToMany: Int
    /// ``StoreSeeder``'s seed.
    public var storeSeed: UInt64
    /// ``MigrationOptions/batchSize`` for every route.
    public var batchSize: Int

    /// A case; see the properties.
    public init(
        seed: UInt64, attempt: Int, source: GeneratedModel, destination: GeneratedModel, step: Step,
        changes: [String], objectsPerEntity: Int, maximumToMany: Int, storeSeed: UInt64, batchSize: Int
    ) {
        self.seed = seed
        self.attempt = attempt
        self.source = source
        self.destination = destination
        self.step = step
        self.changes = changes
        self.objectsPerEntity = objectsPerEntity
        self.maximumToMany = maximumToMany
        self.storeSeed = storeSeed
        self.batchSize = batchSize
    }

    /// The seeder that fills the case's store.
    public var seeder: StoreSeeder {
        var seeder = StoreSeeder()
        seeder.objectsPerEntity = objectsPerEntity
        seeder.maximumToMany = maximumToMany
        seeder.seed = storeSeed
        return seeder
    }

    /// The mapping files, empty for an inferred step.
    public var files: [GeneratedMappingFile] {
        if case .passes(let files) = step { return files }
        return []
    }

    /// Whether the step's mapping is inferred.
    public var isInferred: Bool { step == .inferred }

    /// Both models, read as Molt reads Xcode models.
    public func models() throws -> (source: ObjectModel, destination: ObjectModel) {
        (try source.model(), try destination.model())
    }

    /// The mapping models of the step's passes (the inferred mapping for an inferred step).
    public func mappingModels(source: ObjectModel, destination: ObjectModel) throws -> [MappingModel] {
        switch step {
        case .inferred:
            switch MappingInference.infer(from: source, to: destination) {
            case .inferred(let mapping): return [mapping]
            case .impossible(let reasons):
                throw MoltError(.inferredMapping, reasons.map(\.description).joined(separator: "; "))
            }
        case .passes(let files):
            return try files.enumerated().map { index, file in
                try file.mappingModel(
                    source: self.source.name, destination: self.destination.name, file: "pass\(index + 1).xml")
            }
        }
    }

    /// Why the case cannot be run (a model `ModelChecker` rejects, a mapping inference or
    /// `MappingChecker` rejects), or nil when it can.
    public func problems() -> String? {
        let models: (source: ObjectModel, destination: ObjectModel)
        do {
            models = try self.models()
        } catch {
            return "a model cannot be read: \(error)"
        }
        for (side, model) in [("source", models.source), ("destination", models.destination)] {
            if let first = ModelChecker().check(model).errors.first { return "the \(side) model: \(first)" }
        }
        if case .passes(let files) = step, files.isEmpty { return "no mapping file" }
        let mappings: [MappingModel]
        do {
            mappings = try mappingModels(source: models.source, destination: models.destination)
        } catch {
            return "no mapping: \(error)"
        }
        let checker = MappingChecker(knownPolicies: Set(DifferentialPolicies.names))
        for (index, mapping) in mappings.enumerated() {
            let errors = checker.check(mapping, source: models.source, destination: models.destination).errors
            if let first = errors.first { return "pass \(index + 1): \(first)" }
        }
        return nil
    }

    /// The case in a few lines, for messages and the README of a written case.
    public var summary: String {
        var lines = [
            "seed \(seed) (attempt \(attempt)): \(source.entities.count) source entities, "
                + "\(destination.entities.count) destination entities; "
                + (isInferred ? "inferred mapping" : "\(files.count) mapping file(s)"),
            "store: \(objectsPerEntity) objects per entity, at most \(maximumToMany) per to-many, "
                + "seeder seed \(storeSeed); batch size \(batchSize)",
        ]
        if !changes.isEmpty { lines.append("changes (as generated): " + changes.joined(separator: "; ")) }
        return lines.joined(separator: "\n")
    }
}
