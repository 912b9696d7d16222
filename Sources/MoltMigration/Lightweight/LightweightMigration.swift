public import Foundation
internal import MoltCore
public import MoltMapping
public import MoltModel

/// A lightweight migration: the mapping Core Data would infer between two model versions, run
/// in place with SQL when the store allows it, and through the heavyweight engine otherwise.
///
/// In place, no object is loaded: tables gain columns (`ALTER TABLE … ADD COLUMN`) or are
/// rebuilt with `INSERT … SELECT`, join tables are refilled, and `Z_PRIMARYKEY` and
/// `Z_METADATA` are rewritten, all in one transaction, so a crash at any instant leaves the old
/// store. The result is the store the heavyweight engine would make from the same mapping
/// (the same `molt dump`). When that cannot be guaranteed in place (see
/// ``inPlaceObstacle``), the heavyweight engine runs instead and the report says so.
///
/// ```swift
/// let report = try LightweightMigration(store: url, source: v1, destination: v2).run()
/// print(report.inPlace ? "migrated in place" : "copied")
/// ```
public final class LightweightMigration: @unchecked Sendable {
    public let store: URL
    public let sourceModel: ObjectModel
    public let destinationModel: ObjectModel
    /// The inferred mapping.
    public let mapping: MappingModel
    public let options: MigrationOptions

    /// Infers the mapping; throws Core Data's 134190 with every reason when it cannot be.
    public convenience init(
        store: URL, source: ObjectModel, destination: ObjectModel, options: MigrationOptions = MigrationOptions()
    ) throws {
        switch MappingInference.infer(from: source, to: destination) {
        case .inferred(let mapping):
            self.init(store: store, source: source, destination: destination, mapping: mapping, options: options)
        case .impossible(let reasons):
            throw Self.inferenceError(reasons, source: source, destination: destination)
        }
    }

    /// Uses `mapping`, which must be the inferred one (``MappingInference``) or one like it:
    /// anything the in-place path cannot run goes through the heavyweight engine.
    public init(
        store: URL, source: ObjectModel, destination: ObjectModel, mapping: MappingModel,
        options: MigrationOptions = MigrationOptions()
    ) {
        self.store = store
        self.sourceModel = source
        self.destinationModel = destination
        self.mapping = mapping
        self.options = options
    }

    /// Runs the migration.
    @discardableResult
    public func run() throws -> MigrationReport {
        try HeavyweightMigration(
            store: store, source: sourceModel, destination: destinationModel, mapping: mapping, options: options
        ).run()
    }

    /// Core Data's 134190, listing why the mapping cannot be inferred.
    static func inferenceError(_ reasons: [InferenceReason], source: ObjectModel, destination: ObjectModel)
        -> MoltError
    {
        MoltError(
            .inferredMapping,
            "a mapping from \(source.name ?? "the source model") to \(destination.name ?? "the destination model") cannot be inferred: \(reasons.first?.description ?? "")"
                + (reasons.count > 1 ? " (and \(reasons.count - 1) more)" : ""),
            recovery: "Write a mapping file for this step; `molt infer` prints a starting point and every reason.",
            details: reasons.map(\.description))
    }
}
