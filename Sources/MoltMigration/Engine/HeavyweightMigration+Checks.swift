internal import Foundation
internal import MoltCore
internal import MoltMapping
internal import MoltModel
internal import MoltSQLite
internal import MoltStore

/// What a heavyweight migration checks before it runs (the mapping models, their policies)
/// and how it names what went wrong.
extension HeavyweightMigration {
    func checkMappings() throws {
        // Passes are parts of one step: where their files name versions, the same two.
        _ = try PassVersions(mappings)
        for (index, mapping) in mappings.enumerated() {
            try checkMapping(mapping, resolver: resolvers[index], pass: mappings.count == 1 ? nil : index + 1)
        }
    }

    func checkMapping(_ mapping: MappingModel, resolver: MappingResolver, pass: Int?) throws {
        let diagnostics = MappingChecker(knownPolicies: Set(PolicyRegistry.names)).check(
            mapping, source: sourceModel, destination: destinationModel, resolver: resolver)
        let errors = diagnostics.errors
        guard let first = errors.first else { return }
        let subject = pass.map { "the mapping of pass \($0)" } ?? "the mapping"
        throw MoltError(
            .migration,
            errors.count == 1
                ? "\(subject) has an error: \(first.message)"
                : "\(subject) has \(errors.count) errors; the first: \(first.message)",
            location: first.location, entity: first.entity, property: first.property,
            recovery: "Run `molt check-mapping` to see every problem; the store was not changed.",
            details: errors.map(\.description))
    }

    func resolvePolicies(_ mapping: MappingModel) throws -> [String: EntityMigrationPolicy.Type] {
        var types: [String: EntityMigrationPolicy.Type] = [:]
        for entityMapping in mapping.entityMappings where entityMapping.kind.readsSource {
            if let name = entityMapping.policyName {
                types[entityMapping.name] = try PolicyRegistry.require(name, mapping: entityMapping.name)
            } else {
                types[entityMapping.name] = DefaultEntityMigrationPolicy.self
            }
        }
        return types
    }

    func removeStore(at path: String) throws {
        try FileOperations.remove(path)
        for companion in StoreFiles.companions(of: path) { try FileOperations.remove(companion) }
    }
}
